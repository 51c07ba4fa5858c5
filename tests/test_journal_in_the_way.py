"""A backup put in place of another vault, whose journal (-wal) a crash left beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import errors, paths
from tests.helpers import open_fast, run_cli

OLD_PASSPHRASE = "old laptop passphrase"
NEW_PASSPHRASE = "new laptop passphrase"
SAID = "My sister is called Ana."


def journal(path: Path) -> tuple[Path, Path]:
    return Path(f"{path}-wal"), Path(f"{path}-shm")


def crashed_vault(path: Path) -> dict[Path, bytes]:
    """A vault on this computer whose program was killed: its -wal and -shm stay beside it
    (their bytes as they were while it was open). Returns those bytes."""
    mem = open_fast(path, True, NEW_PASSPHRASE)
    mem.add_memory("My cat is called Miso.", "Noted.", 1_700_000_000.0)
    left = {file: file.read_bytes() for file in journal(path)}
    mem.close()
    for file, data in left.items():
        file.write_bytes(data)
    assert journal(path)[0].stat().st_size > 0
    return left


def replace_with_backup(tmp_path: Path) -> tuple[Path, dict[Path, bytes]]:
    """default.memoryos replaced by a backup from another computer, the crashed vault's
    journal still beside it. Returns (vault path, the journal's bytes)."""
    old = open_fast(tmp_path / "old.memoryos", True, OLD_PASSPHRASE)
    old.add_memory(SAID, "Noted.", 1_700_000_000.0)
    backup = old.backup(tmp_path / "backup.memoryos").path
    old.close()
    path = paths.vault_path("default")
    left = crashed_vault(path)
    shutil.copyfile(backup, path)
    return path, left


@pytest.fixture
def replaced(tmp_path):
    return replace_with_backup(tmp_path)


def test_the_refusal_names_the_journal_in_the_way_and_leaves_it(replaced):
    path, left = replaced
    with pytest.raises(errors.WrongKeyError) as refused:
        open_fast(path, False, OLD_PASSPHRASE)
    message = str(refused.value)
    assert "default.memoryos-wal" in message and "default.memoryos-shm" in message
    assert "move" in message
    # never moved or deleted: it may hold the newest exchanges of the right vault (the -shm
    # is only an index SQLite rebuilds from it)
    assert journal(path)[0].read_bytes() == left[journal(path)[0]]
    assert journal(path)[1].exists()

    for file in journal(path):  # what the message says to do
        file.rename(path.parent.parent / file.name)
    mem = open_fast(path, False, OLD_PASSPHRASE)
    try:
        assert [page.user_input for page in mem.pages()] == [SAID]
    finally:
        mem.close()


def test_a_wrong_passphrase_without_a_journal_says_nothing_of_one(tmp_path):
    path = tmp_path / "vault.memoryos"
    open_fast(path, True, NEW_PASSPHRASE).close()
    assert not journal(path)[0].exists()
    with pytest.raises(errors.WrongKeyError) as refused:
        open_fast(path, False, OLD_PASSPHRASE)
    assert "-wal" not in str(refused.value)


def test_the_terminal_says_it_too(replaced, home):
    path, left = replaced
    done = run_cli("status", "--vault-path", str(path), "--embedder", "fake", home=home,
                   passphrase=OLD_PASSPHRASE)  # fmt: skip
    said = done.stderr.decode() + done.stdout.decode()
    assert done.returncode != 0
    assert "wrong key or passphrase" in said and "default.memoryos-wal" in said
    assert journal(path)[0].read_bytes() == left[journal(path)[0]]
