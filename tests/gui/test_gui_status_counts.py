"""The status line's counts agree with what the panels list, and say it as the CLI does."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_the_status_lines_facts_count_what_privacy_lists(qtbot, window, memory):
    """It said "12 facts" (facts and profile entries added up) where `memoryos status` and
    /status said "7 facts": all say the facts and the profile entries apart now, as Privacy
    lists them."""
    from engine.terminal.chat import status_text

    memory.add_memory("I work as a data scientist in San Francisco.", "Nice field.")
    memory.run_consolidation()
    assert len(memory.facts()) == 1 and len(memory.profile()) == 2
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: len(panel.items) == 3)

    window.session.refresh_status()
    qtbot.waitUntil(lambda: "1 fact · 2 profile entries" in window.status.memory.text())
    assert "3 facts" not in window.status.memory.text()
    tip = window.status.memory.toolTip()
    assert "Privacy" in tip and "1 fact" in tip and "2 profile entries" in tip
    assert "1 fact · 2 profile entries" in status_text(memory.consolidation_status())

    memory.add_fact("I am allergic to peanuts")
    qtbot.waitUntil(lambda: len(panel.items) == 4)
    qtbot.waitUntil(lambda: "2 facts · 2 profile entries" in window.status.memory.text())
