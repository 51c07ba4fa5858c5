"""The vault's cipher and key derivation, pinned: nothing is left to SQLite3MC's defaults.

ChaCha20-Poly1305 (SQLite3MC's "chacha20"): every page encrypted and authenticated. The key
goes through PBKDF2-HMAC-SHA256; the iteration count is fixed here, per kind of key:
- a passphrase a person types: PASSPHRASE_KDF_ITER, chosen so that unlocking takes about
  0.3-0.5 s on a laptop (measured, see README "Keys and passphrases"): slow for a guesser;
- a random 256-bit key from the keyring, and passphrase vaults made before this setting:
  LEGACY_KDF_ITER, SQLite3MC's former default (a random key needs no stretching).
Keys are handed to SQLite as hex (`PRAGMA hexkey`), never as a quoted string: any byte (a
quote, a NUL) works, and no part of a passphrase can show up in an SQL error.
"""

from __future__ import annotations

CIPHER = "chacha20"
LEGACY_KDF_ITER = 64_007
PASSPHRASE_KDF_ITER = 500_000
MIN_PASSPHRASE = 10


def as_hex(passphrase: str | bytes) -> str:
    """The passphrase's UTF-8 bytes in hex: what `PRAGMA hexkey` takes."""
    raw = passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)
    return raw.hex()


def pin(conn, kdf_iter: int) -> None:
    """Set the cipher and its parameters before the key is given (they apply to it)."""
    conn.execute(f"PRAGMA cipher='{CIPHER}'").fetchall()
    conn.execute(f"PRAGMA kdf_iter={int(kdf_iter)}").fetchall()
    conn.execute("PRAGMA legacy=0").fetchall()


def rekey(conn, passphrase: str | bytes, schema: str = "main") -> None:
    """Re-encrypt database `schema` of `conn` under `passphrase` with the strong key derivation
    (PASSPHRASE_KDF_ITER). SQLite3MC cannot rekey a database in WAL mode: the caller switches
    its journal first."""
    check_new_passphrase(passphrase)
    pin(conn, PASSPHRASE_KDF_ITER)
    conn.execute(f"PRAGMA {schema}.hexrekey='{as_hex(passphrase)}'").fetchall()


def check_new_passphrase(passphrase: str | bytes) -> None:
    """A passphrase for a new vault or a rekey: at least MIN_PASSPHRASE characters."""
    from engine import errors

    text = passphrase.decode("utf-8", "replace") if isinstance(passphrase, bytes) else passphrase
    if len(text) < MIN_PASSPHRASE:
        raise errors.InvalidInputError(f"the passphrase needs at least {MIN_PASSPHRASE} characters")


def measure_unlock(kdf_iter: int, runs: int = 5) -> list[float]:
    """Seconds to unlock a small passphrase vault with `kdf_iter`, `runs` times (a benchmark:
    `python -m engine.bench_unlock`)."""
    import tempfile
    import time
    from pathlib import Path

    import apsw

    secret = as_hex("a passphrase for timing")
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "timing.db")
        conn = apsw.Connection(path)
        pin(conn, kdf_iter)
        conn.execute(f"PRAGMA hexkey='{secret}'")
        conn.execute("CREATE TABLE t(x)")
        conn.close()
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            conn = apsw.Connection(path)
            pin(conn, kdf_iter)
            conn.execute(f"PRAGMA hexkey='{secret}'")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
            times.append(time.perf_counter() - started)
            conn.close()
    return times
