"""`memoryos backup` / MemoryOS.backup: a complete, encrypted copy of a vault that is open."""

from __future__ import annotations

import os
import shutil

import pytest

from engine import errors, paths
from tests.helpers import run_cli

PASSPHRASE = "correct horse battery"
NEWEST = "My locker code at the climbing gym is zebra-4417."
FAKE = ("--embedder", "fake")


def open_fast(path, create: bool, passphrase: str | None):
    """The vault with the embedder `--embedder fake` gives the terminal commands."""
    from engine.api import MemoryOS
    from engine.backends.build import make_embedder

    return MemoryOS.open(path, create=create, passphrase=passphrase,
                         embedder=make_embedder("fake"), background=False)  # fmt: skip


@pytest.fixture
def open_vault(home):
    """The default vault, open here as the app holds it: one exchange written to the file
    itself, then the newest one written by another program (the MCP server) and still only
    in the -wal file. Both stay open for the test."""
    path = paths.vault_path("default")
    app = open_fast(path, True, PASSPHRASE)
    app.add_memory("I moved to Porto last year.", "How do you like it?", 1_700_000_000.0)
    app.vault.checkpoint()
    server = open_fast(path, False, PASSPHRASE)
    server.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    yield app
    server.close()
    app.close()


def _said(path, passphrase: str | None = PASSPHRASE) -> list[str]:
    mem = open_fast(path, False, passphrase)
    try:
        return [page.user_input for page in mem.pages()]
    finally:
        mem.close()


def test_a_copied_file_misses_the_newest_exchange_and_a_backup_holds_it(open_vault, tmp_path):
    copied = tmp_path / "copied.memoryos"
    shutil.copyfile(open_vault.path, copied)  # what `cp` gives while the vault is open
    assert NEWEST not in _said(copied)

    done = open_vault.backup(tmp_path / "backup.memoryos")
    assert done.path == tmp_path / "backup.memoryos" and not done.keyring
    assert NEWEST in _said(done.path)
    assert "passphrase" in done.how_to_open()
    assert NEWEST in [p.user_input for p in open_vault.pages()]  # the vault is still open, whole
    assert (done.path.stat().st_mode & 0o777) == 0o600


def test_a_backup_is_encrypted_and_opens_only_with_the_passphrase(open_vault, tmp_path):
    import apsw

    done = open_vault.backup(tmp_path / "backup.memoryos")
    data = done.path.read_bytes()
    assert not data.startswith(b"SQLite format 3")
    assert b"zebra-4417" not in data and b"Porto" not in data
    bare = apsw.Connection(str(done.path))
    with pytest.raises(apsw.NotADBError):
        bare.execute("SELECT count(*) FROM sqlite_master").fetchall()
    bare.close()
    with pytest.raises(errors.WrongKeyError):
        _said(done.path, "not the passphrase at all")
    copy = open_fast(done.path, False, PASSPHRASE)
    try:  # the copy works as a vault: its search tables and vectors came along
        assert [s.page.user_input for s in copy.retrieve("locker code gym").pages][:1] == [NEWEST]
    finally:
        copy.close()


def test_an_existing_file_is_replaced_only_when_asked(open_vault, tmp_path):
    target = tmp_path / "backup.memoryos"
    target.write_bytes(b"an older backup, kept")
    with pytest.raises(errors.InvalidInputError, match="already exists.*--force"):
        open_vault.backup(target)
    assert target.read_bytes() == b"an older backup, kept"
    open_vault.backup(target, force=True)
    assert NEWEST in _said(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.memoryos", "home"]


def test_the_vault_itself_and_a_missing_folder_are_refused(open_vault, tmp_path):
    with pytest.raises(errors.InvalidInputError, match="the open vault itself"):
        open_vault.backup(open_vault.path, force=True)
    with pytest.raises(errors.InvalidInputError, match="does not exist"):
        open_vault.backup(tmp_path / "no such folder" / "backup.memoryos")
    assert not (tmp_path / "no such folder").exists()
    assert NEWEST in [p.user_input for p in open_vault.pages()]


def test_a_keyring_vault_backup_opens_here_and_says_how_to_move_it(memory, tmp_path):
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    memory.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    done = memory.backup(tmp_path / "backup.memoryos")
    assert done.keyring and "--passphrase" in done.how_to_open()
    assert b"zebra-4417" not in done.path.read_bytes()
    copy = MemoryOS.open(done.path, embedder=HashEmbedder(), background=False)  # no passphrase
    try:
        assert [p.user_input for p in copy.pages()] == [NEWEST]
    finally:
        copy.close()


NEW_PASSPHRASE = "a passphrase for the copy"


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "home")


def test_a_keyring_vault_backup_with_a_passphrase_opens_anywhere(memory, tmp_path):
    """The copy of a keyring vault opens with the passphrase chosen for it, not with the
    vault's key (no keyring entry is made for it), and the vault keeps its key."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder
    from engine.vault import keys
    from engine.vault.connection import open_connection

    memory.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    target = tmp_path / "moving.memoryos"
    done = memory.backup(target, passphrase=NEW_PASSPHRASE)
    assert not done.keyring and done.own_passphrase and "any computer" in done.how_to_open()
    assert b"zebra-4417" not in target.read_bytes()
    assert keys.stored_key(target) is None
    with pytest.raises(errors.KeyUnavailableError):  # no key for it in this keyring
        MemoryOS.open(target, embedder=HashEmbedder(), background=False)
    with pytest.raises(errors.WrongKeyError):  # the vault's key does not open it
        open_connection(target, hexkey=keys.stored_key(memory.path), passphrase=None,
                        create=False)  # fmt: skip
    copy = MemoryOS.open(target, passphrase=NEW_PASSPHRASE, embedder=HashEmbedder(),
                         background=False)  # fmt: skip
    try:
        assert [p.user_input for p in copy.pages()] == [NEWEST]
    finally:
        copy.close()
    assert _files(tmp_path) == ["moving.memoryos", "vault.memoryos", "vault.memoryos-shm",
                                "vault.memoryos-wal"]  # fmt: skip
    # the vault keeps its key: still open here, and it opens again from the keyring
    assert memory.key_in_keyring and [p.user_input for p in memory.pages()] == [NEWEST]
    again = MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
    try:
        assert [p.user_input for p in again.pages()] == [NEWEST]
    finally:
        again.close()
    later = memory.backup(tmp_path / "here.memoryos")  # without one: the key, as before
    assert later.keyring and keys.stored_key(later.path) == keys.stored_key(memory.path)


def test_a_passphrase_vault_backup_can_get_another_passphrase(open_vault, tmp_path):
    done = open_vault.backup(tmp_path / "backup.memoryos", passphrase=NEW_PASSPHRASE)
    assert done.own_passphrase and not done.keyring
    assert NEWEST in _said(done.path, NEW_PASSPHRASE)
    with pytest.raises(errors.WrongKeyError):
        _said(done.path, PASSPHRASE)
    assert NEWEST in _said(open_vault.path, PASSPHRASE)  # the vault keeps its passphrase
    assert NEWEST in [p.user_input for p in open_vault.pages()]


def test_a_copy_with_a_passphrase_replaces_a_keyring_copy_and_its_key(memory, tmp_path):
    """A keyring copy's key left in the keyring would be tried first and fail on the new one."""
    from engine.vault import keys
    from tests.helpers import open_fast as open_app

    target = tmp_path / "moving.memoryos"
    memory.backup(target)
    assert keys.stored_key(target) is not None
    memory.backup(target, force=True, passphrase=NEW_PASSPHRASE)
    assert keys.stored_key(target) is None
    copy = open_app(target, False, NEW_PASSPHRASE, chat=False)
    copy.close()


def test_no_copy_and_no_temporary_file_stay_after_a_refused_passphrase_or_an_error(
    memory, tmp_path
):
    import apsw

    target = tmp_path / "moving.memoryos"
    before = _files(tmp_path)
    for bad in ("", "too short"):
        with pytest.raises(errors.InvalidInputError, match="at least 10 characters"):
            memory.backup(target, passphrase=bad)
        assert _files(tmp_path) == before
    with memory.vault.transaction(), pytest.raises(errors.VaultError, match="transaction"):
        memory.backup(target, passphrase=NEW_PASSPHRASE)
    assert _files(tmp_path) == before
    # the copy is written, then re-keying it fails (no database may be attached here)
    previous = memory.vault.conn.limit(apsw.SQLITE_LIMIT_ATTACHED, 0)
    with pytest.raises(apsw.SQLError):
        memory.backup(target, passphrase=NEW_PASSPHRASE)
    assert _files(tmp_path) == before
    memory.vault.conn.limit(apsw.SQLITE_LIMIT_ATTACHED, previous)
    memory.backup(target, passphrase=NEW_PASSPHRASE)  # the vault is as it was
    assert _files(tmp_path) == sorted([*before, "moving.memoryos"])


def test_memoryos_backup_while_the_vault_is_open(open_vault, tmp_path, home):
    target = tmp_path / "backup.memoryos"
    out = run_cli("backup", str(target), *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()
    assert str(target) in out.stderr.decode() and "passphrase" in out.stderr.decode()
    assert NEWEST in _said(target)

    again = run_cli("backup", str(target), *FAKE, home=home)
    assert again.returncode == 2 and "--force" in again.stderr.decode()
    forced = run_cli("backup", str(target), "--force", *FAKE, home=home)
    assert forced.returncode == 0, forced.stderr.decode()


def test_memoryos_backup_passphrase_gives_the_copy_its_own(open_vault, tmp_path, home):
    target = tmp_path / "moving.memoryos"
    # no terminal to ask it in and no $MEMORYOS_NEW_PASSPHRASE: refused, nothing written
    out = run_cli("backup", str(target), "--passphrase", *FAKE, home=home)
    assert out.returncode != 0 and "$MEMORYOS_NEW_PASSPHRASE" in out.stderr.decode()
    assert _files(tmp_path) == []
    short = run_cli("backup", str(target), "--passphrase", *FAKE, home=home,
                    env={"MEMORYOS_NEW_PASSPHRASE": "short"})  # fmt: skip
    assert short.returncode == 2 and "at least 10 characters" in short.stderr.decode()
    assert _files(tmp_path) == []
    out = run_cli("backup", str(target), "--passphrase", *FAKE, home=home,
                  env={"MEMORYOS_NEW_PASSPHRASE": NEW_PASSPHRASE})  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert "any computer" in out.stderr.decode()
    assert NEWEST in _said(target, NEW_PASSPHRASE)
    with pytest.raises(errors.WrongKeyError):
        _said(target, PASSPHRASE)
    assert _files(tmp_path) == ["moving.memoryos"]


def test_memoryos_backup_passphrase_asks_it_twice_in_a_terminal(open_vault, tmp_path, home):
    from tests.test_cli_walkthrough import Terminal

    target = tmp_path / "moving.memoryos"
    asked = Terminal(home, "backup", str(target), "--passphrase", *FAKE,
                     env={"MEMORYOS_PASSPHRASE": PASSPHRASE})  # fmt: skip
    asked.expect("New passphrase: ")
    asked.type(NEW_PASSPHRASE)
    asked.expect("Repeat passphrase: ")
    asked.type("not the same one at all")
    asked.expect("Try again.")
    asked.expect("New passphrase: ")
    asked.type(NEW_PASSPHRASE)
    asked.expect("Repeat passphrase: ")
    asked.type(NEW_PASSPHRASE)
    assert asked.finish() == 0, asked.text
    assert NEWEST in _said(target, NEW_PASSPHRASE)
    assert _files(tmp_path) == ["moving.memoryos"]


def test_memoryos_backup_of_a_keyring_vault(memory_keyring, tmp_path, monkeypatch, capsys):
    """The common case on a desktop: the key is in the keyring. Without --passphrase the copy
    opens here and the message says how to get one that opens anywhere; with it, it does."""
    from engine import cli
    from engine.terminal.maintenance import NEW_PASSPHRASE_ENV
    from engine.vault import keys

    vault = open_fast(paths.vault_path("default"), True, None)  # the app has it open
    vault.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    try:
        assert cli.main(["backup", str(tmp_path / "here.memoryos"), *FAKE]) == 0
        assert "--passphrase" in capsys.readouterr().err
        monkeypatch.setenv(NEW_PASSPHRASE_ENV, NEW_PASSPHRASE)
        target = tmp_path / "moving.memoryos"
        assert cli.main(["backup", str(target), "--passphrase", *FAKE]) == 0
        assert "any computer" in capsys.readouterr().err
        assert NEW_PASSPHRASE_ENV not in os.environ  # read once, not passed on
        assert keys.stored_key(target) is None and NEWEST in _said(target, NEW_PASSPHRASE)
        assert vault.key_in_keyring and NEWEST in _said(vault.path, None)
    finally:
        vault.close()


def test_importing_a_vault_says_it_is_one_and_how_to_open_it(open_vault, tmp_path, home):
    """`memoryos import copy.memoryos` said only "... is not UTF-8 text"."""
    out = run_cli("import", str(open_vault.path), *FAKE, home=home)
    err = out.stderr.decode()
    assert out.returncode == 2
    assert "is a MemoryOS vault" in err and "UTF-8" not in err
    assert "--vault-path" in err and str(paths.vaults_dir()) in err
    assert len(open_vault.pages()) == 2  # nothing was imported


def test_a_renamed_backup_is_still_told_from_a_text_file(open_vault, tmp_path):
    from engine import transcripts

    done = open_vault.backup(tmp_path / "laptop copy.db")
    with pytest.raises(errors.InvalidInputError, match="is a MemoryOS vault"):
        transcripts.load(done.path)
    # The first 16 bytes are the cipher's random salt: one CI run drew a salt starting with
    # "[" or "{" and the backup was called "not UTF-8 text". Any salt is still a vault.
    raw = done.path.read_bytes()
    for first in (b"[", b"{", b" ", b"\n"):
        salted = tmp_path / "salted.db"
        salted.write_bytes(first + raw[1:])
        with pytest.raises(errors.InvalidInputError, match="is a MemoryOS vault"):
            transcripts.load(salted)
    plain = tmp_path / "notes.db"  # an SQLite file, not encrypted: not called a vault
    import apsw

    connection = apsw.Connection(str(plain))
    connection.execute("CREATE TABLE notes(text); INSERT INTO notes VALUES ('hello')")
    connection.close()
    with pytest.raises(errors.InvalidInputError, match="is an SQLite database") as refused:
        transcripts.load(plain)
    assert "MemoryOS vault" not in str(refused.value)
    latin1 = tmp_path / "latin1.json"  # a whole number of 4 KiB pages too, but JSON
    text = '[{"user": "caf\xe9", "assistant": "ok"}]'
    latin1.write_bytes(text.ljust(4096).encode("latin-1"))
    with pytest.raises(errors.InvalidInputError, match="is not UTF-8 text"):
        transcripts.load(latin1)
