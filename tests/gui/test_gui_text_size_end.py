"""A conversation read at its end stays at its end when the text size changes (Ctrl+= / Ctrl+-):
a keyboard-only walkthrough at 1.5x scale found it left half-way up after Ctrl+=."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui

LONG = ("Lentils want a long simmer with cumin, ginger and a little tomato, and they keep "
        "well for days in a cold larder. ") * 4


def test_the_end_of_the_conversation_stays_in_view_across_text_sizes(
    qtbot, window, chat, send, look_back
):
    window.resize(900, 560)
    for n in range(8):
        chat.queue(f"Answer {n}. " + LONG)
        send(window, f"Question {n} about lentils")
    view = window.view
    bar = view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    for step in (+1, +1, +1, -1, 0):
        window.set_text_size(step)
        # the conversation is drawn again, then the window and its lines settle
        qtbot.waitUntil(lambda: not window.reloading and view.message_count == 16
                        and not view.holding_place())
        assert bar.value() >= bar.maximum() - 24, (step, bar.value(), bar.maximum())
