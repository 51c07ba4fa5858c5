"""Typed errors the engine raises; every message says what happened and what to do."""


class MemoryOSError(Exception):
    """Base of every error the engine raises on purpose."""

    def in_terminal(self) -> str:
        """This error as a terminal command says it (the same as the app, unless a subclass
        has a fix the terminal makes another way)."""
        return str(self)


class VaultError(MemoryOSError):
    """The vault could not be opened or written (environment problem, shown to the person)."""


class WrongKeyError(VaultError):
    """The key or passphrase does not decrypt this vault (the file was not modified)."""


class NotAVaultError(VaultError):
    """The file is not a MemoryOS vault (or it is damaged beyond recognition)."""


class VaultTooNewError(VaultError):
    """The vault was written by a newer MemoryOS; this version refuses to touch it."""


class VaultLockedError(VaultError):
    """Another process holds a write lock on the vault for too long."""


class VaultClosedError(VaultError):
    """The vault was closed (locked, switched, quit) while something still read or wrote it."""


class DiskFullError(VaultError):
    """The disk is full; the last operation was rolled back."""


class VaultCorruptError(VaultError):
    """SQLite reports corruption."""


class ExtensionMissingError(VaultError):
    """sqlite-vec (or FTS5) is not available in this SQLite build."""


class EmbedderMismatchError(VaultError):
    """The vault was indexed with another embedding model or dimension."""


class KeyUnavailableError(VaultError):
    """No key in the keyring for this vault and no passphrase was given."""


class NotFoundError(MemoryOSError):
    """An id (page, fact, slot, segment) does not exist."""


class InvalidInputError(MemoryOSError, ValueError):
    """Input rejected before anything was written (empty, too large, bad timestamp...)."""


class BackendError(MemoryOSError):
    """A model backend failed (load, generation, server)."""


class ModelLoadError(BackendError):
    """The model file is missing, not a GGUF, unsupported, or does not fit in memory."""


class ServerError(BackendError):
    """An OpenAI-compatible server failed: unreachable, 401, unknown model, 429, timeout..."""

    def __init__(self, message: str, *, fix: str = "", terminal_fix: str = "") -> None:
        """`message`, then `fix`: what the app's person does (in the model settings). A terminal
        has no model settings: it says `terminal_fix` in its place where one is given."""
        super().__init__(f"{message}: {fix}" if fix else message)
        self.problem, self.terminal_fix = message, terminal_fix

    def in_terminal(self) -> str:
        if not self.terminal_fix:
            return str(self)
        return f"{self.problem}: {self.terminal_fix}"


class ServerNotAnsweringError(ServerError):
    """The server could not be reached, sent nothing in time, or its connection broke: it is
    likely down or stuck, where other ServerErrors are answers it gave (401, unknown model)."""


class GenerationCancelled(MemoryOSError):
    """The caller cancelled a generation between two chunks."""


class PolicyError(MemoryOSError):
    """The administrator's policy forbids this (export, a remote model)."""
