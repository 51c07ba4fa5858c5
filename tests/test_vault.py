"""The encrypted vault: keys, passphrases, no plaintext on disk, typed errors that modify nothing."""

from __future__ import annotations

import hashlib

import apsw
import pytest

from engine import errors
from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.vault import cipher
from tests.helpers import raw_bytes

SECRET = "Zanzibar-turquoise-pelican says my bank PIN is 4711"


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_keyring_vault_round_trip(tmp_path, memory_keyring, embedder):
    path = tmp_path / "v.memoryos"
    with MemoryOS.open(path, create=True, embedder=embedder, background=False) as mem:
        page = mem.add_memory("I grow tomatoes", "Lovely")
        assert "keyring" in mem.info().key_location
    assert len(memory_keyring.secrets) == 1  # the random key, nowhere else
    key = next(iter(memory_keyring.secrets.values()))
    assert len(key) == 64 and key.encode() not in path.read_bytes()
    with MemoryOS.open(path, embedder=embedder, background=False) as mem:
        assert mem.page(page.id).user_input == "I grow tomatoes"


def test_no_plaintext_on_disk_while_open_and_after_close(tmp_path, memory_keyring, embedder):
    path = tmp_path / "v.memoryos"
    mem = MemoryOS.open(path, create=True, embedder=embedder, background=False)
    mem.add_memory(SECRET, "I will remember the turquoise pelican")
    mem.add_fact("Zanzibar-turquoise-pelican is a secret phrase")
    mem.run_consolidation()
    data = raw_bytes(path)
    assert b"Zanzibar" not in data and b"pelican" not in data and b"4711" not in data
    mem.close()
    data = raw_bytes(path)
    assert data and b"Zanzibar" not in data and b"pelican" not in data
    assert not data.startswith(b"SQLite format 3")


def test_passphrase_needed_without_keyring(tmp_path, fail_keyring, embedder):
    path = tmp_path / "v.memoryos"
    with pytest.raises(errors.KeyUnavailableError, match="passphrase"):
        MemoryOS.open(path, create=True, embedder=embedder, background=False)
    with MemoryOS.open(path, create=True, passphrase="open sesame", embedder=embedder, background=False) as mem:
        mem.add_memory("hello", "hi")
        assert mem.info().key_location == "passphrase"
    with MemoryOS.open(path, passphrase="open sesame", embedder=embedder, background=False) as mem:
        assert mem.info().pages == 1


def test_wrong_passphrase_is_clear_and_changes_nothing(tmp_path, fail_keyring, embedder):
    path = tmp_path / "v.memoryos"
    with MemoryOS.open(path, create=True, passphrase="the right one", embedder=embedder, background=False) as mem:
        mem.add_memory("hello", "hi")
    before = digest(path)
    listing = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(errors.WrongKeyError, match="wrong key or passphrase"):
        MemoryOS.open(path, passphrase="wrong one", embedder=embedder, background=False)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing


def test_wrong_keyring_key(tmp_path, memory_keyring, embedder):
    path = tmp_path / "v.memoryos"
    MemoryOS.open(path, create=True, embedder=embedder, background=False).close()
    before = digest(path)
    for name in list(memory_keyring.secrets):
        memory_keyring.secrets[name] = "00" * 32
    with pytest.raises(errors.WrongKeyError):
        MemoryOS.open(path, embedder=embedder, background=False)
    assert digest(path) == before


def test_not_a_vault(tmp_path, fail_keyring, embedder):
    plain = tmp_path / "plain.db"
    conn = apsw.Connection(str(plain))
    conn.execute("CREATE TABLE t(x)")
    conn.close()
    with pytest.raises(errors.NotAVaultError, match="unencrypted"):
        MemoryOS.open(plain, passphrase="x", embedder=embedder, background=False)
    junk = tmp_path / "junk.memoryos"
    junk.write_bytes(b"\x01\x02 not a database at all")
    with pytest.raises(errors.NotAVaultError):
        MemoryOS.open(junk, passphrase="x", embedder=embedder, background=False)
    assert junk.read_bytes() == b"\x01\x02 not a database at all"


def test_missing_vault_is_not_created(tmp_path, fail_keyring, embedder):
    path = tmp_path / "nothing.memoryos"
    with pytest.raises(errors.VaultError, match="no vault"):
        MemoryOS.open(path, passphrase="x", embedder=embedder, background=False)
    assert not path.exists()


def test_vault_from_newer_version_is_refused(tmp_path, fail_keyring, embedder):
    path = tmp_path / "v.memoryos"
    with MemoryOS.open(path, create=True, passphrase="pw-long-enough", embedder=embedder, background=False) as mem:
        with mem.vault.transaction():
            mem.vault.conn.execute("INSERT INTO migrations(name, applied) VALUES('9999_future', 0)")
    with pytest.raises(errors.VaultTooNewError, match="newer"):
        MemoryOS.open(path, passphrase="pw-long-enough", embedder=embedder, background=False)


def test_embedder_mismatch_names_the_fix(tmp_path, fail_keyring):
    path = tmp_path / "v.memoryos"
    MemoryOS.open(path, create=True, passphrase="pw-long-enough", embedder=HashEmbedder(64), background=False).close()
    with pytest.raises(errors.EmbedderMismatchError, match="reembed"):
        MemoryOS.open(path, passphrase="pw-long-enough", embedder=HashEmbedder(32), background=False)


def test_locked_by_another_process_is_a_clear_error(tmp_path, fail_keyring, embedder):
    path = tmp_path / "v.memoryos"
    mem = MemoryOS.open(path, create=True, passphrase="pw-long-enough", embedder=embedder, background=False)
    other = apsw.Connection(str(path))
    other.execute(f"PRAGMA kdf_iter={cipher.PASSPHRASE_KDF_ITER}")
    other.execute("PRAGMA key='pw-long-enough'")
    other.execute("BEGIN IMMEDIATE")  # holds the write lock
    mem.vault.conn.set_busy_timeout(50)
    try:
        with pytest.raises(errors.VaultLockedError, match="busy"):
            mem.add_memory("blocked", "write")
    finally:
        other.execute("ROLLBACK")
        other.close()
    mem.add_memory("now it works", "yes")
    assert [p.user_input for p in mem.short_term()] == ["now it works"]
    mem.close()


def test_disk_full_rolls_back(tmp_path, memory, monkeypatch):
    memory.add_memory("before", "ok")
    pages = memory.vault.conn.execute("PRAGMA page_count").fetchall()[0][0]
    memory.vault.conn.execute(f"PRAGMA max_page_count={pages + 1}")
    with pytest.raises(errors.DiskFullError, match="disk is full"):
        memory.add_memory("x" * 200_000, "y")
    memory.vault.conn.execute("PRAGMA max_page_count=1073741823")
    assert [p.user_input for p in memory.short_term()] == ["before"]
    assert memory.vault.integrity_check() == "ok"


def test_missing_sqlite_vec_is_a_clear_error(tmp_path, fail_keyring, embedder, monkeypatch):
    import sqlite_vec

    monkeypatch.setattr(sqlite_vec, "loadable_path", lambda: str(tmp_path / "no-such-vec0"))
    with pytest.raises(errors.ExtensionMissingError, match="sqlite-vec"):
        MemoryOS.open(tmp_path / "v.memoryos", create=True, passphrase="pw-long-enough", embedder=embedder,
                      background=False)


def test_wal_secure_delete_and_migrations_recorded(memory):
    conn = memory.vault.conn
    assert conn.execute("PRAGMA journal_mode").fetchall()[0][0] == "wal"
    assert conn.execute("PRAGMA secure_delete").fetchall()[0][0] == 1
    assert memory.vault.schema_steps() == [
        "0001_initial", "0002_turn_vectors", "0003_job_owner", "0004_stable_ids",
        "0005_page_memories",
        "0006_int8_vectors",
        "0007_vocabulary",
        "0008_external_ids",
        "0009_stable_profile_ids",
        "0010_forgotten",
    ]
    assert memory.info().schema_version == 10


def test_migration_backs_up_and_backfills(tmp_path, fail_keyring, embedder):
    path = tmp_path / "old.memoryos"
    with MemoryOS.open(path, create=True, passphrase="pw-long-enough", embedder=embedder, background=False) as mem:
        page = mem.add_memory("I restore old pianos", "Wonderful craft")
        mem.run_consolidation()
        facts = mem.facts()
        assert facts and facts[0].source_page_ids == (page.id,)
        with mem.vault.transaction():  # turn it into a vault of schema version 1
            mem.vault.conn.execute("DROP TABLE turns_vec")
            mem.vault.conn.execute("ALTER TABLE jobs DROP COLUMN owner")
            mem.vault.conn.execute("DROP TABLE page_memories")
            mem.vault.conn.execute("DROP TABLE words")
            mem.vault.conn.execute("DROP TABLE words_vec")
            mem.vault.conn.execute("DROP TABLE external_ids")
            mem.vault.conn.execute("DROP TABLE forgotten")
            mem.vault.conn.execute("DELETE FROM migrations WHERE name!='0001_initial'")
        assert mem.vault.schema_steps() == ["0001_initial"]
    with MemoryOS.open(path, passphrase="pw-long-enough", embedder=embedder, background=False) as mem:
        assert mem.vault.schema_steps() == [
            "0001_initial", "0002_turn_vectors", "0003_job_owner", "0004_stable_ids",
            "0005_page_memories", "0006_int8_vectors", "0007_vocabulary", "0008_external_ids",
            "0009_stable_profile_ids", "0010_forgotten",
        ]
        backups = list(tmp_path.glob("old.memoryos.backup-*"))  # copied before migrating
        assert len(backups) == 1 and backups[0].stat().st_mode & 0o777 == 0o600
        assert mem.facts() == facts  # rebuilding the tables kept every fact and its source
        mem.run_consolidation()
        assert mem.consolidation_status().failed_jobs == 0
        rows = {r[0] for r in mem.vault.conn.execute("SELECT rowid FROM turns_vec")}
        assert rows == {page.id * 2, page.id * 2 + 1}
        learned = mem.vault.word_ids(["piano", "restor", "wonder", "craft"])
        assert set(learned) == {"piano", "restor", "wonder", "craft"}  # the vocabulary's backfill


def test_a_read_or_write_after_close_is_a_typed_error_said_plainly(
    tmp_path, memory_keyring, embedder, caplog
):
    """A background read the app began before Lock or Switch memory ended in "AttributeError:
    'NoneType' object has no attribute 'execute'", logged as a bug and said as "Something went
    wrong inside MemoryOS"."""
    from app.errors import describe

    mem = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, background=False)
    vault = mem.vault
    mem.close()
    for use in (vault.conversations, lambda: vault.schema_version):
        with pytest.raises(errors.VaultClosedError) as raised:
            use()
        assert "closed" in str(raised.value) and "nothing was changed" in str(raised.value)
    with pytest.raises(errors.VaultClosedError), vault.transaction():
        pass
    said = describe(raised.value)
    assert said.startswith("the memory was closed") and "went wrong" not in said
    assert "unexpected error" not in caplog.text
