"""`memoryos backup` / MemoryOS.backup: a complete, encrypted copy of a vault that is open."""

from __future__ import annotations

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
    assert done.keyring and "memoryos rekey" in done.how_to_open()
    assert b"zebra-4417" not in done.path.read_bytes()
    copy = MemoryOS.open(done.path, embedder=HashEmbedder(), background=False)  # no passphrase
    try:
        assert [p.user_input for p in copy.pages()] == [NEWEST]
    finally:
        copy.close()


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
    latin1 = tmp_path / "latin1.json"  # a whole number of 4 KiB pages too, but JSON
    text = '[{"user": "caf\xe9", "assistant": "ok"}]'
    latin1.write_bytes(text.ljust(4096).encode("latin-1"))
    with pytest.raises(errors.InvalidInputError, match="is not UTF-8 text"):
        transcripts.load(latin1)
