"""A fact that says "next Friday" is listed under an answer ("Used N memories") with the day it
meant, as the model's prompt showed it: worked out from when the fact was said, never from
today's date. The list showed it while the answer was new, and lost it once read back
(the conversation opened again, the window restarted, a refresh after a delete)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.gui_steps import last_answer as _answer
from tests.gui_steps import used_list as _listed

pytestmark = pytest.mark.gui

# A Thursday: "next Friday" is then 21 November 2025 (the Friday of the following week)
SAID_AT = datetime(2025, 11, 13, 10, tzinfo=timezone.utc).timestamp()
DATED = "Next Friday [21 November 2025] I fly to Lisbon."


def test_the_used_list_shows_the_day_a_fact_meant(qtbot, window, chat, memory, send):
    memory.add_memory("Next Friday I fly to Lisbon.", "Have a good trip!", timestamp=SAID_AT)
    memory.run_consolidation()
    other = memory.add_fact("I fly with a window seat when I can")
    chat.queue("On Friday.")

    send(window, "When do I fly to Lisbon?")

    assert DATED in _listed(window)  # as the prompt read it

    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert DATED in _listed(window)  # read back from the vault
    assert DATED in [item.text for item in _answer(window).memories if item.kind == "fact"]

    # A delete elsewhere redraws the list from the vault: the day stays
    with qtbot.waitSignal(window.used_memories.refreshed, timeout=5000):
        memory.delete_fact(other.id)
    qtbot.waitUntil(lambda: "forgotten since" in window.view.plain_text())
    assert DATED in _listed(window)
