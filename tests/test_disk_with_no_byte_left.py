"""A disk with no byte left: SQLite fails to grow the vault's files with an I/O error, not
"disk full", and `memoryos chat` said only "the disk reported an I/O error". It now says the
disk could not be written and may be full, as a DiskFullError, and loses nothing."""

from __future__ import annotations

import os
import subprocess

import apsw
import pytest

from engine import errors, paths
from engine.vault.connection import translate
from tests.helpers import run_cli
from tests.local_servers import ChatServer

PASSPHRASE = "correct horse battery"


@pytest.fixture
def small_disk(tmp_path):
    """A real 1 MB tmpfs (mounted only when running as root and `mount` works)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 1 MB tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
                          capture_output=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"mount failed here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder) -> None:
    """Write a file until the disk has not one byte left."""
    handle = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(handle, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(handle)
    assert os.statvfs(folder).f_bavail == 0


def chat(server, home, text: str, *extra: str):
    done = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake", *extra,
                   home=home, passphrase=PASSPHRASE, stdin=text)  # fmt: skip
    return done.returncode, done.stderr.decode()


def test_chat_on_a_disk_with_no_byte_left_says_it_may_be_full_and_loses_nothing(
    home, small_disk, monkeypatch
):
    from tests.test_backup import open_fast

    where = small_disk / "home"  # the vaults on the small disk
    monkeypatch.setenv("MEMORYOS_HOME", str(where))
    vault = paths.vault_path("default")
    memory = open_fast(vault, True, PASSPHRASE)
    try:
        memory.add_memory("My bicycle is red.", "Noted.", 1_700_000_000.0)
    finally:
        memory.close()  # closed cleanly: its -wal and -shm files are gone, to be made anew
    assert [p.name for p in vault.parent.iterdir()] == [vault.name]
    fill(small_disk)
    with ChatServer(models=["m"], reply=["Noted."]) as server:
        code, err = chat(server, where, "My car is blue.\n")
        assert code != 0
        assert "may be full" in err and "free some space" in err
        assert "I/O error" not in err and "Traceback" not in err
        (small_disk / "filler").unlink()  # space again: the vault opens with what it had
        code, err = chat(server, where, "/quit\n")
        assert code == 0, err
    listed = run_cli("export", str(small_disk / "memory.json"), "--embedder", "fake", home=where,
                     passphrase=PASSPHRASE)  # fmt: skip
    assert listed.returncode == 0, listed.stderr.decode()
    text = (small_disk / "memory.json").read_text(encoding="utf-8")
    assert "My bicycle is red." in text


def sqlite_error(kind: type, code: str) -> apsw.Error:
    """An apsw error as apsw raises it: the exception class of the primary code, with the
    primary and extended result codes as attributes."""
    exc = kind("disk I/O error")
    exc.result = apsw.SQLITE_IOERR
    exc.extendedresult = getattr(apsw, code)
    return exc


@pytest.mark.parametrize("code", ["SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC",
                                  "SQLITE_IOERR_DIR_FSYNC", "SQLITE_IOERR_TRUNCATE",
                                  "SQLITE_IOERR_SHMSIZE", "SQLITE_IOERR_SHMMAP"])  # fmt: skip
def test_a_failure_to_write_is_a_disk_that_may_be_full(code):
    said = translate(sqlite_error(apsw.IOError, code))
    assert isinstance(said, errors.DiskFullError)
    assert "may be full" in str(said) and "free some space" in str(said)


@pytest.mark.parametrize("code", ["SQLITE_IOERR_READ", "SQLITE_IOERR_SHORT_READ",
                                  "SQLITE_IOERR"])  # fmt: skip
def test_a_failure_to_read_stays_an_io_error(code):
    said = translate(sqlite_error(apsw.IOError, code))
    assert not isinstance(said, errors.DiskFullError)
    assert "I/O error" in str(said)
