"""A backup of an open vault: one consistent, encrypted copy of the file, WAL included.

Copying the vault file (`cp`) while the app, `memoryos mcp` or a chat has it open misses what
is still in its -wal file: the newest exchanges. SQLite's `VACUUM INTO` writes the vault as
one read transaction sees it, committed writes of every connection included; with SQLite3
Multiple Ciphers the new file gets the vault's cipher, key derivation and key, so no page of
it is ever written in plain text, and it opens with the same passphrase or key.

With a passphrase for the copy, the temporary copy is then re-keyed to it (the strong key
derivation of `memoryos rekey`) before it is put in place: a copy of a keyring vault that
opens on any computer, while the vault keeps its own key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine import errors
from engine.files import replacing
from engine.vault import cipher, keys
from engine.vault.connection import PLAIN_SQLITE_HEADER, _apsw
from engine.vault.damage import DAMAGED


@dataclass(frozen=True)
class Backup:
    """Where a backup went, how big it is and what opens it."""

    path: Path
    size_bytes: int
    keyring: bool  # its key is the random one in this computer's keyring, not a passphrase
    own_passphrase: bool = False  # it opens with a passphrase chosen for the copy
    damaged: bool = False  # a byte copy of a damaged vault: it carries the damage

    def how_to_open(self) -> str:
        if self.damaged:
            return (
                "The vault file is damaged, so this backup is a copy of the file as it is: it "
                "carries the same damage, and keeps what can be read in case trying to repair "
                "the vault loses more. It opens with this memory's key or passphrase "
                "(`--vault-path FILE`)."
            )
        kept = (
            " What you forget from now on stays in this backup: after forgetting something, "
            "delete it and make a new one."
        )
        if self.own_passphrase:
            return (
                "It is encrypted and opens with the passphrase you chose for it, on any "
                "computer; this memory keeps its own key. It holds everything as it was now; "
                "what you forgot stays forgotten." + kept
            )
        if not self.keyring:
            return (
                "It is encrypted and opens with this memory's passphrase. It holds everything "
                "as it was now; what you forgot stays forgotten." + kept
            )
        return (
            "It is encrypted with this memory's key, which is in this computer's keyring (kept "
            "there for the copy too), so it opens on this computer, where it is "
            "(`memoryos chat --vault-path FILE`). For a copy that opens on any computer, make "
            "the backup with a passphrase of its own: `memoryos backup FILE --passphrase`, or "
            "File → Back up memory… with “Open it on another computer” ticked." + kept
        )


def check_target(path: str | Path, vault_path: Path, *, force: bool) -> Path:
    """The file a backup goes to, refused before anything is written: a folder, a folder
    that does not exist, the vault itself, or an existing file without `force`."""
    target = Path(path).expanduser().absolute()
    if target.is_dir():
        raise errors.InvalidInputError(
            f"{target} is a folder. Choose a file name for the backup; nothing was written."
        )
    if not target.parent.is_dir():
        raise errors.InvalidInputError(
            f"The folder {target.parent} does not exist, so nothing was written. Choose an "
            "existing folder."
        )
    vault_path = Path(vault_path).absolute()
    companions = {vault_path, Path(f"{vault_path}-wal"), Path(f"{vault_path}-shm")}
    same = any(
        target == one or (target.exists() and one.exists() and target.samefile(one))
        for one in companions
    )
    if same:
        raise errors.InvalidInputError(
            f"{target} is the open vault itself. Choose another file for the backup; nothing "
            "was written."
        )
    if target.exists() and not force:
        raise errors.InvalidInputError(
            f"{target} already exists; nothing was written. Choose another name, or pass "
            "--force to replace it."
        )
    wal = Path(f"{target}-wal")
    if target.exists() and wal.exists() and wal.stat().st_size > 0:
        # SQLite would lay that old journal over the new copy and damage it
        raise errors.InvalidInputError(
            f"{target} is open in another program, or was not closed properly (its -wal file "
            "is there). Close that program, or choose another name; nothing was written."
        )
    return target


def backup(
    vault, path: str | Path, *, force: bool = False, passphrase: str | bytes | None = None
) -> Backup:
    """Write a consistent, encrypted copy of the open `vault` to `path` (0600, atomically:
    the old file or the complete copy, never a partial one). With `passphrase` the copy opens
    with that passphrase instead of the vault's key or passphrase, which the vault keeps."""
    target = check_target(path, vault.path, force=force)
    if passphrase is not None:
        cipher.check_new_passphrase(passphrase)  # a short one: refused before anything is written
    # VACUUM INTO writes into the empty 0600 file and keeps its mode
    damaged = False
    with replacing(target) as temp:
        try:
            vault.copy_to(temp, passphrase)
        except errors.VaultCorruptError:
            if passphrase is not None:  # re-encrypting reads every page, as VACUUM INTO does
                raise errors.VaultCorruptError(
                    f"{DAMAGED}, so its backup can only be a copy of the file as it is, which "
                    "keeps the vault's key: run the backup again without --passphrase (in the "
                    "app: with “Open it on another computer” not ticked). Nothing was written"
                ) from None
            vault.copy_bytes_to(temp)  # VACUUM INTO stopped at the damage: keep what is there
            damaged = True
        _check_encrypted(temp)
    keyring_key = vault.key_location.startswith("keyring") and passphrase is None
    if passphrase is not None:
        # a keyring copy this one replaced left its key there, which would be tried first
        keys.delete_key(target)
    elif keyring_key:
        _keep_key_for(vault.path, target)
    return Backup(target, target.stat().st_size, keyring_key, passphrase is not None, damaged)


def _check_encrypted(path: Path) -> None:
    """The copy must not open without a key; a plain one is deleted by the caller."""
    with open(path, "rb") as handle:
        plain = handle.read(16) == PLAIN_SQLITE_HEADER
    if not plain:
        apsw = _apsw()
        probe = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchall()
            plain = True
        except apsw.NotADBError:
            pass
        finally:
            probe.close()
    if plain:
        raise errors.VaultError(
            "the backup came out unencrypted, so it was deleted: this SQLite3 Multiple Ciphers "
            "build does not encrypt VACUUM INTO (check `memoryos doctor`)"
        )


def _keep_key_for(vault_path: Path, target: Path) -> None:
    """A keyring vault's copy has the same random key: keep it under the copy's name too,
    so the copy opens on this computer as the vault does."""
    hexkey = keys.stored_key(vault_path)
    if hexkey is not None:
        keys.store_key(target, hexkey)
