"""A fact that says "next Friday" shows the day it meant in Privacy and the inspector, as the
model's prompt shows it: worked out from when it was said, never from today's date."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

pytestmark = pytest.mark.gui

SAID = "Next Friday I fly to Lisbon."
# A Sunday: "next Friday" is then 27 November 2026, whatever day the test runs on
SAID_AT = datetime(2026, 11, 22, 10, tzinfo=timezone.utc).timestamp()
DATED = "Next Friday [27 November 2026] I fly to Lisbon."


@pytest.fixture
def trip(memory):
    memory.add_memory(SAID, "Have a good trip!", timestamp=SAID_AT)
    memory.run_consolidation()  # kept as said: a fact that came from that exchange
    (fact,) = memory.facts()
    assert fact.text == SAID  # stored as it was said
    prompt = [item.fact.text for item in memory.retrieve("When do I fly to Lisbon?").facts]
    assert prompt == [DATED]  # what the model reads
    return fact


def _row(tree, needle: str):
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return next((row for row in rows if needle in row.text(1)), None)


def test_privacy_shows_the_day_a_fact_meant_as_the_prompt_does(qtbot, window, memory, trip):
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: _row(panel.tree, "Lisbon") is not None)
    row = _row(panel.tree, "Lisbon")
    assert row.text(1) == DATED and DATED in row.toolTip(1)
    row.setSelected(True)
    qtbot.waitUntil(lambda: "Have a good trip!" in panel.source.toPlainText())
    assert panel.source.toPlainText().startswith(DATED)  # the detail's heading

    panel.search.setText("27 November")  # what is on screen is what is found
    assert panel.visible_items() and panel.visible_items()[0].id == trip.id
    panel.search.clear()

    # An edit keeps the words typed; the day is worked out again, not stored in the fact.
    with qtbot.waitSignal(panel.changed):
        row.setText(1, DATED.replace("Lisbon", "Porto"))
    qtbot.waitUntil(lambda: _row(panel.tree, "Porto") is not None)
    assert [f.text for f in memory.facts()] == ["Next Friday I fly to Porto."]
    assert _row(panel.tree, "Porto").text(1) == "Next Friday [27 November 2026] I fly to Porto."


def test_the_inspector_shows_the_day_a_fact_meant(qtbot, window, memory, trip):
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: _row(inspector.fact_tree, "Lisbon") is not None)
    row = _row(inspector.fact_tree, "Lisbon")
    assert row.text(1) == DATED and row.toolTip(1) == DATED
