"""Choosing and unlocking a vault from a terminal (CLI, MCP server): keyring, env or prompt."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

from engine import errors, paths
from engine.vault import keyring_status

PASSPHRASE_ENV = "MEMORYOS_PASSPHRASE"
VAULT_ENV = "MEMORYOS_VAULT"
DEFAULT_VAULT = "default"


def choose_vault(name: str | None = None, path: str | None = None) -> Path:
    """The vault file from a path (--vault-path), a name (--vault), $MEMORYOS_VAULT (a name or
    a path), or the default vault. InvalidInputError for a --vault name that is a path and
    for a folder where a vault file was meant."""
    # --vault "" (an unset variable in a script) opened the default vault without a word
    if path is not None and not path.strip():
        raise errors.InvalidInputError(
            "--vault-path is empty: give the vault file's path, e.g. --vault-path ~/work.memoryos"
        )
    if name == "":  # spaces alone are refused below, as a name with no letters
        raise errors.InvalidInputError(
            "--vault is empty: give a vault's name, e.g. --vault work (leave --vault out for "
            f"the {DEFAULT_VAULT} vault)"
        )
    if path:
        return _not_a_folder(Path(path).expanduser(), "--vault-path")
    if name:  # always a name in the data folder: "x.memoryos" is the app's vault of that name
        check_vault_name(name)
        return _not_a_folder(paths.vault_path(name), "--vault")
    name = os.environ.get(VAULT_ENV) or DEFAULT_VAULT
    if os.sep in name or name.endswith(".memoryos"):
        return _not_a_folder(Path(name).expanduser(), f"${VAULT_ENV}")
    return _not_a_folder(paths.vault_path(name), f"${VAULT_ENV}")


def check_vault_name(name: str) -> None:
    """--vault takes the name of a vault in the data folder (as the app's Switch memory makes
    them): a path separator or "."/".." would put the file elsewhere, unlisted."""
    if name in (".", "..") or any(sep in name for sep in ("/", "\\", os.sep)):
        raise errors.InvalidInputError(
            f"--vault {name!r}: --vault takes a vault's name (letters, digits, spaces, '-', "
            "'_', '.'), not a path; for a vault file elsewhere give --vault-path PATH"
        )
    # Other characters were dropped quietly ("a*b" opened "ab"; "***" ended in a traceback)
    odd = sorted({ch for ch in name if not (ch.isalnum() or ch in "-_ .")})
    if odd or not name.strip(" ."):
        shown = f" ({' '.join(odd)})" if odd else ""
        raise errors.InvalidInputError(
            f"--vault {name!r}: a vault's name has letters, digits, spaces, '-', '_' and '.' "
            f"only{shown}, e.g. --vault work"
        )


def _not_a_folder(path: Path, given: str) -> Path:
    if path.is_dir():
        example = path / "work.memoryos"
        raise errors.InvalidInputError(
            f"{given}: {path} is a folder, not a vault file: give a file name, e.g. "
            f"--vault-path {example}"
        )
    return path


def secret_from_env(name: str) -> str | None:
    """$NAME, else the first line of the file named by $NAME_FILE (Docker/compose secrets)."""
    value = os.environ.get(name)
    if value:
        return value
    path = os.environ.get(f"{name}_FILE")
    if not path:
        return None
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise errors.KeyUnavailableError(
            f"cannot read ${name}_FILE ({path}): {exc.strerror}"
        ) from None
    return lines[0] if lines and lines[0] else None


def env_passphrase() -> str | None:
    """$MEMORYOS_PASSPHRASE (or the first line of the file $MEMORYOS_PASSPHRASE_FILE names),
    removed from the environment as it is read: child processes (the embedder helper, a model
    server) must not inherit it."""
    value = secret_from_env(PASSPHRASE_ENV)
    os.environ.pop(PASSPHRASE_ENV, None)
    return value


class Cancelled(errors.MemoryOSError):
    """A terminal question ended with Ctrl+D (end of input) instead of an answer: the command
    stops there, as Ctrl+C stops it, having changed nothing."""


def _ask(prompt: str, env: str = PASSPHRASE_ENV) -> str:
    """A passphrase typed in the terminal; without one, an error naming `env`, the variable
    that gives it instead. Ctrl+D: Cancelled (it was a traceback ending in EOFError)."""
    if not sys.stdin or not sys.stdin.isatty():
        needed = "the vault needs a passphrase"
        needed = needed if env == PASSPHRASE_ENV else "the new passphrase is missing"
        raise errors.KeyUnavailableError(f"{needed}: set ${env}, or run this in a terminal")
    try:
        return getpass.getpass(prompt, stream=sys.stderr)
    except EOFError:
        print(file=sys.stderr)  # the next message on a line of its own, not after the prompt
        raise Cancelled("no passphrase was given (Ctrl+D); nothing was changed") from None


def confirm(question: str) -> bool:
    """A [y/N] question asked in the terminal: True only for y or yes. Ctrl+D (end of input)
    is a no, as an empty answer is; it was a traceback ending in EOFError."""
    try:
        answer = input(question)
    except EOFError:
        print()  # the cursor is still after the question
        return False
    return answer.strip().lower() in ("y", "yes")


NEW_PASSPHRASE_TRIES = 3


def ask_new_passphrase(env: str = PASSPHRASE_ENV) -> str:
    """A new passphrase typed twice in the terminal (at least cipher.MIN_PASSPHRASE long). A
    short one or a repeat that differs is asked again, saying why, up to NEW_PASSPHRASE_TRIES
    times. `env`: the variable that gives it where there is no terminal (for the message)."""
    from engine.vault.cipher import check_new_passphrase

    problem = ""
    for attempt in range(1, NEW_PASSPHRASE_TRIES + 1):
        passphrase = _ask("New passphrase: ", env)
        try:
            check_new_passphrase(passphrase)
        except errors.InvalidInputError as exc:
            problem = str(exc)
        else:
            if _ask("Repeat passphrase: ", env) == passphrase:
                return passphrase
            problem = "the two passphrases differ"
        if attempt < NEW_PASSPHRASE_TRIES:
            print(f"{problem[:1].upper()}{problem[1:]}. Try again.", file=sys.stderr)
    raise errors.InvalidInputError(f"{problem} ({NEW_PASSPHRASE_TRIES} tries); nothing was changed")


def open_vault_only(path: Path):
    """The bare vault, whatever embedder it records (for re-embedding)."""
    from engine.vault import Vault

    if not path.exists():
        raise errors.VaultError(f"no vault at {path}")
    passphrase = env_passphrase()
    if passphrase is None and keyring_status().usable:
        try:
            return Vault.open(path, embedder_id=None, dimension=0)
        except errors.KeyUnavailableError:
            pass
    passphrase = passphrase or _ask(f"Passphrase for {path.name}: ")
    return Vault.open(path, passphrase=passphrase, embedder_id=None, dimension=0)


def open_memory(
    path: Path,
    *,
    create: bool = False,
    embedder=None,
    chat=None,
    background: bool = True,
    interactive: bool = True,
):
    """Open a vault: keyring first; else $MEMORYOS_PASSPHRASE; else ask (twice when creating)."""
    from engine.api import MemoryOS

    if embedder is None:
        from engine.backends.build import make_embedder

        embedder = make_embedder()
    exists = path.exists() and path.stat().st_size > 0
    if not exists and not create:
        raise errors.VaultError(f"no vault at {path}: run `memoryos chat` once to create it")
    passphrase = env_passphrase()
    if passphrase is None and keyring_status().usable:
        try:
            return MemoryOS.open(
                path, create=create, embedder=embedder, chat=chat, background=background
            )
        except errors.KeyUnavailableError:
            pass  # a passphrase vault on a machine that has a keyring
    if passphrase is None:
        if not interactive:
            raise errors.KeyUnavailableError(f"the vault needs a passphrase: set ${PASSPHRASE_ENV}")
        if not exists:
            print(
                f"No usable keyring here ({keyring_status().reason}).\n"
                "Choose a passphrase for your new vault. It is never stored: without it the "
                "vault cannot be opened.",
                file=sys.stderr,
            )
            passphrase = ask_new_passphrase()
        else:
            passphrase = _ask(f"Passphrase for {path.name}: ")
    return MemoryOS.open(
        path,
        create=create,
        passphrase=passphrase,
        embedder=embedder,
        chat=chat,
        background=background,
    )
