"""The Vault: every SQL statement of the program, behind methods named for what they do."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from engine import errors, paths
from engine.files import private_dir, private_file
from engine.records import ACTIVE, ARCHIVED, MID_TERM, SHORT_TERM, SUPERSEDED, ConversationInfo
from engine.vault import cipher, keys
from engine.vault.connection import mapped_errors, open_connection
from engine.vault.damage import Health, TableRead, check, damaged_message, read_table
from engine.vault.forget import ForgetMixin
from engine.vault.forgotten import ForgottenMixin
from engine.vault.jobs import JobsMixin
from engine.vault.pages import PAGE_COLUMNS, PagesMixin
from engine.vault.persona import PersonaMixin
from engine.vault.quantized import QuantizedMixin
from engine.vault.remembered import RememberedMixin
from engine.vault.schema import MIGRATIONS, applied, migrate
from engine.vault.search import SearchMixin
from engine.vault.segments import SegmentsMixin
from engine.vault.sql import blob as _blob
from engine.vault.sql import closed
from engine.vault.sql import locked as _locked
from engine.vault.words import WordsMixin


def _unlock(path: Path, hexkey, passphrase, create: bool, is_new: bool):
    """(connection, kdf iterations it unlocked with). A passphrase gets the strong setting;
    an existing passphrase vault made before it falls back to the former one."""
    if passphrase is None:
        return open_connection(path, hexkey=hexkey, passphrase=None, create=create), (
            cipher.LEGACY_KDF_ITER
        )
    try:
        conn = open_connection(
            path, hexkey=None, passphrase=passphrase, create=create,
            kdf_iter=cipher.PASSPHRASE_KDF_ITER,
        )  # fmt: skip
        return conn, cipher.PASSPHRASE_KDF_ITER
    except errors.WrongKeyError:
        if is_new:
            raise
    conn = open_connection(
        path, hexkey=None, passphrase=passphrase, create=create, kdf_iter=cipher.LEGACY_KDF_ITER
    )
    return conn, cipher.LEGACY_KDF_ITER



COPY_SCHEMA = "backup_copy"  # the name a backup copy is attached under (copy_to)
DUMPED_TABLES = (
    "pages", "segments", "facts", "fact_sources", "profile", "profile_evidence",
    "page_memories", "conversations", "jobs", "meta", "migrations", "forgotten",
)  # fmt: skip

class Vault(
    PagesMixin,
    SegmentsMixin,
    PersonaMixin,
    JobsMixin,
    ForgetMixin,
    ForgottenMixin,
    RememberedMixin,
    SearchMixin,
    QuantizedMixin,
    WordsMixin,
):
    """One open, unlocked vault file. Thread-safe: one connection guarded by a re-entrant lock."""

    def __init__(self, conn, path: Path, key_location: str) -> None:
        self.conn = conn
        self.path = path
        self.key_location = key_location
        self._lock = threading.RLock()
        self._depth = 0  # nesting of transaction() blocks (inner ones join the outer)
        self.kdf_iter = cipher.LEGACY_KDF_ITER  # set by open(): how the key was stretched

    # ---- opening -------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        passphrase: str | bytes | None = None,
        create: bool = False,
        embedder_id: str | None,
        dimension: int,
    ) -> Vault:
        path = Path(path)
        is_new = not (path.exists() and path.stat().st_size > 0)
        hexkey = None
        if passphrase is not None:
            if not passphrase:
                raise errors.InvalidInputError("the passphrase is empty")
            if is_new and create:
                cipher.check_new_passphrase(passphrase)
            location = "passphrase"
        else:
            status = keys.keyring_status()
            if not status.usable:
                raise errors.KeyUnavailableError(
                    f"no usable keyring on this system ({status.reason}): use a passphrase"
                )
            hexkey = keys.stored_key(path)
            if hexkey is None:
                if not is_new:
                    raise errors.KeyUnavailableError(
                        "the keyring holds no key for this vault: unlock it with its passphrase"
                    )
                if not create:
                    raise errors.VaultError(f"no vault at {path}: create one first")
                hexkey = keys.create_key(path)
            location = f"keyring ({status.backend})"
        if path.parent == paths.vaults_dir() or (is_new and create and not path.parent.exists()):
            # the folder of vaults (ours, or one made for this vault): only its owner may list
            # it; a folder the person chose that already exists is left as it is
            private_dir(path.parent)
        conn, kdf_iter = _unlock(path, hexkey, passphrase, create, is_new)
        if passphrase is not None and kdf_iter != cipher.PASSPHRASE_KDF_ITER:
            location = "passphrase (older, faster key derivation: run `memoryos rekey`)"
        vault = cls(conn, path, location)
        vault.kdf_iter = kdf_iter
        for companion in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            if companion.exists():
                private_file(companion)
        try:
            with mapped_errors():
                migrate(conn, path, dimension)
                if embedder_id is not None:  # None: re-embedding, which handles the mismatch itself
                    vault._check_embedder(embedder_id, dimension, is_new)
                vault.release_orphaned_jobs()
        except BaseException:
            conn.close()
            raise
        return vault

    def _check_embedder(self, embedder_id: str, dimension: int, is_new: bool) -> None:
        stored_id = self.get_meta("embedder_id")
        stored_dim = self.get_meta("embedder_dimension")
        if stored_id is None:
            with self.transaction():
                self.set_meta("embedder_id", embedder_id)
                self.set_meta("embedder_dimension", str(dimension))
                self.set_meta("created", str(time.time()))
            return
        if stored_id != embedder_id or int(stored_dim or 0) != dimension:
            raise errors.EmbedderMismatchError(
                f"this vault was indexed with {stored_id} ({stored_dim} dimensions), not "
                f"{embedder_id} ({dimension}): open it with that embedder, or run "
                "`memoryos reembed` to move it to the new one"
            )

    def close(self) -> None:
        with self._lock:
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.execute("PRAGMA optimize")
                self.conn.close()
                self.conn = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One logical write: everything inside commits together or not at all."""
        with self._lock, mapped_errors():
            if self.conn is None:
                raise closed()
            outermost = self._depth == 0
            if outermost:
                # IMMEDIATE takes the write lock now, so two processes never deadlock upgrading
                self.conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                # SQLite may already have rolled back by itself (disk full, I/O error)
                if outermost and not self.conn.getautocommit():
                    self.conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outermost:
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    if not self.conn.getautocommit():
                        self.conn.execute("ROLLBACK")
                    raise

    # ---- meta ----------------------------------------------------------------------------

    @_locked
    def get_meta(self, key: str) -> str | None:
        rows = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchall()
        return rows[0][0] if rows else None

    @_locked
    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    @_locked
    def schema_steps(self) -> list[str]:
        return applied(self.conn)

    @property
    def schema_version(self) -> int:
        return len([name for name, _ in MIGRATIONS if name in self.schema_steps()])

    @_locked
    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits."""
        return self.conn.execute("PRAGMA data_version").fetchall()[0][0]

    @_locked
    def integrity_check(self) -> str:
        return self.conn.execute("PRAGMA integrity_check").fetchall()[0][0]

    @_locked
    def health(self) -> Health:
        """Read every page of the file (engine/vault/damage.py): is any of it damaged?"""
        return check(self.conn)

    # ---- conversations -------------------------------------------------------------------

    @_locked
    def ensure_conversation(self, conversation_id: str, created: float, title: str = "") -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO conversations(id, title, created) VALUES(?, ?, ?)",
            (conversation_id, title, created),
        )

    @_locked
    def conversations(self) -> list[ConversationInfo]:
        """Conversations that hold pages, newest first."""
        return [
            ConversationInfo(id=row[0], title=row[1], first_ts=row[2], last_ts=row[3], pages=row[4])
            for row in self.conn.execute(
                "SELECT c.id, c.title, min(p.ts), max(p.ts), count(p.id) FROM conversations c "
                "JOIN pages p ON p.conversation_id = c.id GROUP BY c.id ORDER BY max(p.ts) DESC"
            )
        ]

    # ---- whole vault ---------------------------------------------------------------------

    @_locked
    def counts(self) -> dict[str, int]:
        one = lambda sql: self.conn.execute(sql).fetchall()[0][0]  # noqa: E731
        return {
            "short": one(f"SELECT count(*) FROM pages WHERE tier='{SHORT_TERM}'"),
            "mid": one(f"SELECT count(*) FROM pages WHERE tier='{MID_TERM}'"),
            "archived": one(f"SELECT count(*) FROM pages WHERE tier='{ARCHIVED}'"),
            "segments": one("SELECT count(*) FROM segments WHERE archived=0"),
            "facts": one(f"SELECT count(*) FROM facts WHERE status!='{SUPERSEDED}'"),
            "profile": one(f"SELECT count(*) FROM profile WHERE status='{ACTIVE}'"),
            "words": one("SELECT count(*) FROM words"),
        }

    @_locked
    def wipe(self, dimension: int) -> None:
        """Delete every memory (pages, segments, facts, profile, jobs); keep schema and key."""
        page_ids = [row[0] for row in self.conn.execute("SELECT id FROM pages")]
        for start in range(0, len(page_ids), 500):
            self.delete_pages(page_ids[start : start + 500], dimension)
        fact_ids = [row[0] for row in self.conn.execute("SELECT id FROM facts")]
        self.delete_facts(fact_ids, dimension)
        self._record_forgotten_slots(None)
        self.conn.execute("DELETE FROM profile")
        segment_ids = [row[0] for row in self.conn.execute("SELECT id FROM segments")]
        for segment_id in segment_ids:
            self.delete_segment_row(segment_id, dimension)
        self.clear_words()
        self.conn.execute("DELETE FROM jobs")
        self.conn.execute("DELETE FROM conversations")

    @_locked
    def checkpoint(self) -> None:
        self.conn.wal_checkpoint(mode=3)

    @_locked
    def copy_to(self, path: Path, passphrase: str | bytes | None = None) -> None:
        """Write the whole vault, as one read transaction sees it (what other connections
        committed to the WAL included), into the empty file `path` with VACUUM INTO: the copy
        gets the vault's cipher and key. With `passphrase` it is then re-keyed to that
        passphrase (strong key derivation); the vault keeps its own key."""
        if self._depth:
            raise errors.VaultError("cannot back up the vault inside a transaction")
        with mapped_errors():
            self.conn.execute("VACUUM INTO ?", (str(path),))
            if passphrase is None:
                return
            # Attached without a key, SQLite3MC opens the copy with the vault's key, whether
            # that is the keyring's or a passphrase this program no longer holds.
            self.conn.execute(f"ATTACH DATABASE ? AS {COPY_SCHEMA}", (str(path),))
            try:
                # a rekey needs a rollback journal; it is removed when the rekey commits
                self.conn.execute(f"PRAGMA {COPY_SCHEMA}.journal_mode=DELETE").fetchall()
                cipher.rekey(self.conn, passphrase, COPY_SCHEMA)
            finally:
                cipher.pin(self.conn, self.kdf_iter)  # the vault's own settings again
                self.conn.execute(f"DETACH DATABASE {COPY_SCHEMA}")

    @_locked
    def copy_bytes_to(self, path: Path) -> None:
        """Copy the file as it is, damage included, into the empty file `path`: what VACUUM
        INTO cannot do for a damaged vault (it reads every row). What the -wal journal holds
        is copied beside it and merged into the copy, which SQLite3MC opens with the vault's
        key, without reading any damaged page (a checkpoint copies whole pages)."""
        import shutil

        if self._depth:
            raise errors.VaultError("cannot back up the vault inside a transaction")
        wal, copy_wal = Path(f"{self.path}-wal"), Path(f"{path}-wal")
        with mapped_errors():
            # a read transaction: no checkpoint can empty the journal while the two are copied
            self.conn.execute("BEGIN")
            try:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
                shutil.copyfile(self.path, path)
                if wal.exists() and wal.stat().st_size:
                    shutil.copyfile(wal, copy_wal)
            finally:
                self.conn.execute("COMMIT")
            if not copy_wal.exists():
                return
            private_file(copy_wal)
            self.conn.execute(f"ATTACH DATABASE ? AS {COPY_SCHEMA}", (str(path),))
            try:
                self.conn.execute(f"PRAGMA {COPY_SCHEMA}.wal_checkpoint(TRUNCATE)").fetchall()
                self.conn.execute(f"PRAGMA {COPY_SCHEMA}.journal_mode=DELETE").fetchall()
            finally:
                self.conn.execute(f"DETACH DATABASE {COPY_SCHEMA}")
        for leftover in (copy_wal, Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)

    @_locked
    def rekey(self, passphrase: str | bytes) -> None:
        """Re-encrypt every page under `passphrase` with the strong key derivation (also moves
        a keyring vault to a passphrase). SQLite3MC cannot rekey in WAL mode, so the journal
        is switched for the duration; backups made under the old key are deleted."""
        cipher.check_new_passphrase(passphrase)
        if self._depth:
            raise errors.VaultError("cannot change the key inside a transaction")
        with mapped_errors():
            self.conn.wal_checkpoint(mode=3)
            mode = self.conn.execute("PRAGMA journal_mode=DELETE").fetchall()[0][0]
            if mode != "delete":
                raise errors.VaultLockedError(
                    "the vault is open in another program (the app or the MCP server): "
                    "close it, then change the key"
                )
            try:
                cipher.rekey(self.conn, passphrase)
            finally:
                self.conn.execute("PRAGMA journal_mode=WAL").fetchall()
        self.kdf_iter = cipher.PASSPHRASE_KDF_ITER
        self.key_location = "passphrase"
        for backup in self.path.parent.glob(f"{self.path.name}.backup-*"):
            backup.unlink(missing_ok=True)  # encrypted with the old key

    @_locked
    def dump_table(self, table: str) -> list[dict]:
        """Every row of `table`; a damaged page of it is an error (an export reads past it
        with read_table)."""
        read = self.read_table(table)
        if read.skipped != 0:
            raise errors.VaultCorruptError(damaged_message(path=self.path))
        return read.rows

    @_locked
    def read_table(self, table: str) -> TableRead:
        """The rows of `table` that can be read, and how many a damaged page kept back."""
        assert table in DUMPED_TABLES
        return read_table(self.conn, table)


__all__ = ["Vault", "PAGE_COLUMNS", "_blob"]
