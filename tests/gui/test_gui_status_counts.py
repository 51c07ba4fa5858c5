"""The status line's counts agree with what the panels list."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.gui


def test_the_status_lines_facts_count_what_privacy_lists(qtbot, window, memory):
    """It said "1 fact" while Privacy listed the fact and two profile entries learned with it."""
    memory.add_memory("I work as a data scientist in San Francisco.", "Nice field.")
    memory.run_consolidation()
    assert len(memory.facts()) == 1 and len(memory.profile()) == 2
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: len(panel.items) == 3)

    window.session.refresh_status()
    qtbot.waitUntil(lambda: "3 facts" in window.status.memory.text())
    tip = window.status.memory.toolTip()
    assert "Privacy" in tip and "1 fact" in tip and "2 profile entries" in tip

    memory.add_fact("I am allergic to peanuts")
    qtbot.waitUntil(lambda: len(panel.items) == 4)
    qtbot.waitUntil(lambda: re.search(r"\b4 facts\b", window.status.memory.text()) is not None)
