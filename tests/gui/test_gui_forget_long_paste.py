"""/forget with a huge paste (hundreds of KB): the search looks for the paste's start and end,
as the chat's own lookup does, so the app stays responsive; the panel finds the exchange that
holds the paste and quotes it short."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def _paste(seed: int, words: int = 40_000) -> str:
    """About 280 KB of distinct made-up words (every one a search term)."""
    pick = random.Random(seed)
    made = ("".join(pick.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
            for _ in range(words))  # fmt: skip
    return "Meeting notes about the garden: " + " ".join(made) + " and that was the plan."


def _forget(qtbot, window, words: str) -> str:
    window.composer.input.setPlainText(f"/forget {words}")
    # every word of the paste took the vault ~15 s to look for (its other jobs waiting)
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    return done.args[0]


def test_a_huge_paste_finds_the_exchange_that_holds_it_and_quotes_it_short(
    qtbot, window, memory
):
    paste = _paste(1)
    assert len(paste) > 250_000
    kept = memory.add_memory("Meeting notes about the garden: plant tomatoes.", "Okay.")
    held = memory.add_memory(paste, "Noted.")
    result = _forget(qtbot, window, paste)
    assert result == "asked"
    panel = window.forget_panel
    exchanges = [m for m in panel.ticked() if m.kind == "exchange"]
    assert [m.id for m in exchanges] == [held.id]  # the pasted one, not the short one
    title = panel.title.text()
    assert len(title) < 200 and "Meeting notes" in title and "the plan" in title
    with qtbot.waitSignal(window.chat_actions.done, timeout=60_000):  # 40,000 words to unindex
        panel.forget_button.click()
    assert [p.id for p in memory.pages()] == [kept.id]


def test_a_huge_paste_that_matches_nothing_says_so_in_one_short_line(qtbot, window, memory):
    memory.add_memory("I drink coffee every morning.", "Okay.")
    result = _forget(qtbot, window, _paste(2))
    assert result == "nothing"
    shown = window.view.browser.document().toPlainText()
    assert "Nothing matches “Meeting notes" in shown and "the plan.”" in shown
    assert len(shown) < 1000  # the paste is not written out into the conversation
    assert len(memory.pages()) == 1  # nothing was forgotten
