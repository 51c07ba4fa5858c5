"""Memory building paused by a full disk (an old laptop's walkthrough): once space is freed
and a queued job is done, the disk-full message is no longer "the last error" in `memoryos
status` or the status line; why it waits is read from the error's class, not its words. The
disk is filled with the vault's own limit (PRAGMA max_page_count): real SQLite errors."""

from __future__ import annotations

import pytest

from engine import errors, paths
from tests.damaged_vault import PASSPHRASE
from tests.helpers import fill_disk, free_disk, run_cli
from tests.test_backup import open_fast

FAKE = ("--embedder", "fake")


def said(n: int) -> str:
    """An exchange of facts never heard before: learning them needs new pages in the vault."""
    return " ".join(f"My sister Anna{n}x{k} lives in Vienna{n}x{k}." for k in range(30))


def paused_on_a_full_disk(memory, exchanges: int = 5) -> None:
    """`exchanges` new exchanges whose memory building the full disk stopped (handed back)."""
    for n in range(exchanges):
        memory.add_memory(said(n), "Noted.")
    fill_disk(memory)
    with pytest.raises(errors.DiskFullError):
        memory.run_consolidation()
    free_disk(memory)


def status(home) -> str:
    done = run_cli("status", *FAKE, home=home, passphrase=PASSPHRASE)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def test_the_disk_full_error_is_over_once_a_queued_job_is_done(home):
    memory = open_fast(paths.vault_path("default"), True, PASSPHRASE)
    try:
        paused_on_a_full_disk(memory)
        waiting = memory.consolidation_status()
        assert waiting.pending_jobs == 5 and "disk is full" in waiting.last_error
    finally:
        memory.close()
    out = status(home)  # another program, as the person reads it before space is freed
    assert "last error" in out and "disk is full" in out
    memory = open_fast(paths.vault_path("default"), False, PASSPHRASE)
    try:
        assert memory.run_consolidation(max_jobs=1) == 1  # space freed: the first job is done
        after = memory.consolidation_status()
        assert after.pending_jobs == 4 and after.failed_jobs == 0
        assert after.last_error is None
    finally:
        memory.close()
    out = status(home)
    assert "jobs       4 pending, 0 failed" in out
    assert "last error" not in out and "disk is full" not in out
    # why it waited, from the error's class: a DiskFullError, over once a job was done
    assert waiting.paused_by == "DiskFullError" and after.paused_by == ""


def test_a_job_that_failed_for_good_stays_failed_with_its_error(home):
    """What a later job's success does not undo: a job given up on (one of a kind this
    program does not know, as a newer MemoryOS may have queued)."""
    memory = open_fast(paths.vault_path("default"), True, PASSPHRASE)
    try:
        with memory.vault.transaction():
            memory.vault.enqueue("kind_of_a_newer_program", {}, 1.0)
        memory.run_consolidation()
        memory.add_memory("I planted tomatoes on the balcony.", "Noted.")
        assert memory.run_consolidation() == 1  # the next job is done
        done = memory.consolidation_status()
        assert done.failed_jobs == 1 and done.pending_jobs == 0
        assert "unknown job kind" in done.last_error
    finally:
        memory.close()
    out = status(home)
    assert "0 pending, 1 failed" in out and "unknown job kind" in out
