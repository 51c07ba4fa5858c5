"""An old answer's "Used N memories" list and Privacy tell the truth about a fact's history:
a fact edited in Privacy after the answer is marked edited since (the list showed the new text
as if the answer had used it), and a fact from imported history is dated the day it was said,
not the day it was learned (facts said on 3 and 12 November all read "Today")."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.remembered import day
from app.widgets import when
from tests.gui_steps import last_answer as _answer
from tests.gui_steps import privacy_row
from tests.gui_steps import used_list as _listed

pytestmark = pytest.mark.gui

# Said weeks before the test runs: as `memoryos import` stores an old exchange
SAID_AT = datetime(2025, 11, 3, 9, 30).timestamp()
DOSE = "I take levothyroxine 50 micrograms every morning."


def test_a_fact_edited_after_the_answer_is_marked_edited(qtbot, window, chat, memory, send):
    from app.privacy import WHAT_IT_KNOWS

    fact = memory.add_fact(DOSE)
    chat.queue("50 micrograms.")
    send(window, "How much levothyroxine do I take?")
    assert DOSE in _listed(window) and "edited since" not in _listed(window)

    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, DOSE) is not None)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        privacy_row(panel, DOSE).setText(WHAT_IT_KNOWS, "I take levothyroxine 88 micrograms.")

    # The list on screen follows the edit: the answer used other words than these
    qtbot.waitUntil(lambda: "edited since this answer" in _listed(window), timeout=10_000)
    assert "1 edited since" in _listed(window)
    (item,) = [i for i in _answer(window).memories if i.key == ("fact", fact.id)]
    assert item.edited and not item.forgotten and "88" in item.text
    # Read back from the vault (the conversation opened again), the mark stays
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert "edited since this answer, now: I take levothyroxine 88" in _listed(window)

    # The edit undone: the fact reads as the answer used it, with no mark
    with qtbot.waitSignal(window.used_memories.refreshed, timeout=10_000):
        with qtbot.waitSignal(panel.changed, timeout=10_000):
            panel.undo()
    qtbot.waitUntil(lambda: "edited since" not in _listed(window), timeout=10_000)
    assert DOSE in _listed(window)


def test_imported_history_is_dated_when_it_was_said(qtbot, window, chat, memory, send):
    memory.add_memory(DOSE, "Noted.", timestamp=SAID_AT)
    memory.run_consolidation()  # learned today, from an exchange of 3 November 2025
    (fact,) = [f for f in memory.facts() if "levothyroxine" in f.text]
    assert day(fact.created) != day(SAID_AT)

    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, "levothyroxine") is not None)
    row = privacy_row(panel, "levothyroxine")
    assert row.text(2) == when(SAID_AT)  # not "Today 03:24"
    assert f"learned {when(fact.created)}" in row.toolTip(2)  # when it was learned, kept
    panel.close()

    chat.queue("50 micrograms.")
    send(window, "How much levothyroxine do I take?")
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    label = f"Fact · persona · {day(SAID_AT)}, learned {day(fact.created)}"
    qtbot.waitUntil(lambda: label in _listed(window), timeout=10_000)
    (item,) = [i for i in _answer(window).memories if i.key == ("fact", fact.id)]
    assert item.date == SAID_AT and item.learned == fact.created
