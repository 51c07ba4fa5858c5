"""Opening the encrypted SQLite file and mapping SQLite failures to errors a person understands."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from engine import errors
from engine.vault import cipher

APPLICATION_ID = 0x4D4F5331  # "MOS1": tells a vault from other SQLite files once decrypted
BUSY_TIMEOUT_MS = 10_000
PLAIN_SQLITE_HEADER = b"SQLite format 3\x00"


def _apsw():
    try:
        import apsw
    except ImportError as exc:  # pragma: no cover - install problem
        raise errors.VaultError(
            "apsw-sqlite3mc is not installed: run `pip install apsw-sqlite3mc`"
        ) from exc
    return apsw


def open_connection(
    path: Path,
    *,
    hexkey: str | None,
    passphrase: str | bytes | None,
    create: bool,
    kdf_iter: int = cipher.LEGACY_KDF_ITER,
):
    """Open and unlock the vault file; raise a typed error and leave the file untouched on failure.
    The cipher and `kdf_iter` are pinned (engine/vault/cipher.py); keys go in as hex."""
    apsw = _apsw()
    path = Path(path)
    exists = path.exists() and path.stat().st_size > 0
    if not exists and not create:
        raise errors.VaultError(f"no vault at {path}: create one first")
    if exists:
        check_header(path)
    flags = apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = apsw.Connection(str(path), flags=flags)
    except apsw.CantOpenError as exc:
        raise errors.VaultError(
            f"cannot open {path}: check that the folder exists and is writable"
        ) from exc
    try:
        if passphrase is not None:
            hexkey = cipher.as_hex(passphrase)
        if hexkey is None:  # pragma: no cover - callers always pass a key
            raise errors.KeyUnavailableError("no key given")
        if any(ch not in "0123456789abcdefABCDEF" for ch in hexkey):
            raise errors.KeyUnavailableError("the stored key is damaged (not hexadecimal)")
        cipher.pin(conn, kdf_iter)
        conn.execute(f"PRAGMA hexkey='{hexkey}'")
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        # The first read decrypts page 1: a wrong key fails here, before anything is written.
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except apsw.NotADBError:
            message = (
                "wrong key or passphrase for this vault (nothing was changed): check the "
                "passphrase and try again (a vault whose key was in the keyring needs that "
                "keyring entry back)"
            )
            hint = journal_hint(path)
            raise errors.WrongKeyError(f"{message}. {hint}" if hint else message) from None
        app_id = conn.execute("PRAGMA application_id").fetchall()[0][0]
        if exists and app_id != APPLICATION_ID:
            raise errors.NotAVaultError(f"{path} is an encrypted database but not a MemoryOS vault")
        _configure(conn)
        _load_vec(conn)
        from engine.vault.search import register_ranking  # it imports this module

        register_ranking(conn)  # search_pages orders by it
        return conn
    except errors.MemoryOSError:
        conn.close()
        raise
    except apsw.Error as exc:
        conn.close()
        raise translate(exc) from exc


def journal_hint(path: Path) -> str:
    """What to try when a vault does not unlock and a non-empty -wal lies beside it: a file
    copied in place of another vault opens through that vault's journal, which no key
    decrypts. Never moved or deleted here: it may hold the newest exchanges of the right vault."""
    path = Path(path)
    wal = path.with_name(f"{path.name}-wal")
    try:
        if wal.stat().st_size == 0:
            return ""
    except OSError:
        return ""
    return (
        "If this file was just put here in place of another memory, a journal the old one "
        f"left ({wal.name}) may be in the way: with MemoryOS closed, move {wal.name} and "
        f"{path.name}-shm out of the folder, then try again."
    )


def check_header(path: Path) -> None:
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head == PLAIN_SQLITE_HEADER:
        raise errors.NotAVaultError(
            f"{path} is an unencrypted SQLite database, not a MemoryOS vault"
        )
    size = path.stat().st_size
    if size % 512:
        raise errors.NotAVaultError(
            f"{path} is not a MemoryOS vault (its size is not a page multiple)"
        )


def _configure(conn) -> None:
    conn.execute("PRAGMA journal_mode=WAL").fetchall()
    conn.execute("PRAGMA synchronous=FULL")  # an add_memory that returned survives power loss
    conn.execute("PRAGMA secure_delete=ON")  # deleted text is overwritten, not left in free pages
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: decrypted pages stay cached
    conn.execute("PRAGMA temp_store=MEMORY")  # temporary tables never touch disk in plaintext


def _load_vec(conn) -> None:
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
    except Exception as exc:
        raise errors.ExtensionMissingError(
            f"sqlite-vec could not be loaded ({type(exc).__name__}): run `pip install sqlite-vec`"
        ) from exc


def translate(exc: BaseException) -> errors.MemoryOSError:
    """Map an SQLite failure to the typed error the person sees; unknown ones stay bugs."""
    apsw = _apsw()
    if isinstance(exc, errors.MemoryOSError):
        return exc
    if isinstance(exc, apsw.FullError):
        return errors.DiskFullError(
            "the disk is full: free some space; the last change was not saved"
        )
    said = str(exc)
    if isinstance(exc, apsw.SQLError) and "sqlite-vec" in said and "Could not insert" in said:
        # sqlite-vec adding a chunk of vectors met SQLite's disk-full error and reports it as
        # its own, without the code (seen on a full disk and at the vault's page limit)
        return errors.DiskFullError(
            "the disk is full (the vault could not grow): free some space; the last change "
            "was not saved"
        )
    if isinstance(exc, (apsw.BusyError, apsw.LockedError)):
        return errors.VaultLockedError(
            "the vault is busy in another program (another MemoryOS window or MCP server): try again"
        )
    if isinstance(exc, apsw.CorruptError):
        from engine.vault.damage import damaged_message

        return errors.VaultCorruptError(damaged_message())
    if isinstance(exc, apsw.NotADBError):
        return errors.NotAVaultError("the file is not a MemoryOS vault, or the key is wrong")
    if isinstance(exc, (apsw.ReadOnlyError, apsw.PermissionsError)):
        return errors.VaultError("the vault file is read-only: check its permissions")
    if isinstance(exc, apsw.IOError) and _write_failed(apsw, exc):
        # A disk with no byte left fails these with SQLITE_IOERR_*, not SQLITE_FULL: opening
        # a vault could not make its shared-memory file, and the person saw "I/O error"
        return errors.DiskFullError(
            "the disk could not be written (it may be full): free some space and try again; "
            "what was being written was not saved"
        )
    if isinstance(exc, apsw.IOError):
        return errors.VaultError(f"the disk reported an I/O error: {exc}")
    raise exc  # a bug: let it surface with its traceback


# SQLite's I/O failures in writing to the disk or growing a file on it (the -wal and -shm
# files too); a full disk gives these. A failure to read stays a plain I/O error.
WRITE_FAILURES = (
    "SQLITE_IOERR_WRITE",
    "SQLITE_IOERR_FSYNC",
    "SQLITE_IOERR_DIR_FSYNC",
    "SQLITE_IOERR_TRUNCATE",
    "SQLITE_IOERR_SHMSIZE",
    "SQLITE_IOERR_SHMMAP",
)


def _write_failed(apsw, exc: BaseException) -> bool:
    code = getattr(exc, "extendedresult", None)
    return code is not None and code in {getattr(apsw, name) for name in WRITE_FAILURES}


@contextlib.contextmanager
def mapped_errors() -> Iterator[None]:
    apsw = _apsw()
    try:
        yield
    except apsw.Error as exc:
        raise translate(exc) from exc
