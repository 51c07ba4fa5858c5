"""The status line says why memory building waits from which error paused it (a full disk: a
DiskFullError, made real by the vault's own page limit), not from words of a message; once
space is freed and a queued job is done, neither the pause nor the disk-full error is said."""

from __future__ import annotations

import dataclasses

import pytest

from engine import paths
from tests.damaged_vault import PASSPHRASE
from tests.test_backup import open_fast
from tests.test_memory_building_paused import paused_on_a_full_disk

pytestmark = pytest.mark.gui


def test_the_status_line_says_why_from_the_error_that_paused_it(qtbot, home):
    """The line says the disk is full where a DiskFullError paused memory building, and
    nothing of a pause where another error's message speaks of a full disk."""
    from app.status_bar import StatusLine

    line = StatusLine()
    qtbot.addWidget(line)
    memory = open_fast(paths.vault_path("default"), True, PASSPHRASE)
    try:
        paused_on_a_full_disk(memory, exchanges=2)
        line.set_memory(memory.consolidation_status())
        said_now = line.memory.full_text()
        assert "memory building paused: the disk is full: free some space" in said_now
        # a model's answer quoting a full disk is not the disk: no pause is said
        quoted = dataclasses.replace(
            memory.consolidation_status(), paused_by="",
            last_error="analyse_segment failed: ValueError: the disk is full of photos",
        )  # fmt: skip
        line.set_memory(quoted)
        assert "paused" not in line.memory.full_text()
        assert "2 jobs queued" in line.memory.full_text()
        memory.run_consolidation(max_jobs=1)  # space freed: a job is done, one waits
        line.set_memory(memory.consolidation_status())
        assert "paused" not in line.memory.full_text()
        assert "Last error" not in line.memory.toolTip()
    finally:
        memory.close()
