"""The sidebar's search results: how many exchanges were found and in what order, and the words
as said with whole highlights (a relative date's resolved day neither shown nor cut)."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.gui


def _at(month: int, day: int) -> float:
    return dt.datetime(2026, month, day, 12, tzinfo=dt.timezone.utc).timestamp()


def _highlighted(browser) -> list[str]:
    """The highlighted stretches of the results, in order (a stretch split across fragments
    of one format is one stretch)."""
    from PySide6.QtGui import QColor

    from app import theme
    from app.sidebar_search import HIGHLIGHT

    colour = QColor(theme.color(HIGHLIGHT)).name()
    stretches, previous = [], False
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            marked = fragment.charFormat().background().color().name() == colour
            if marked and previous:
                stretches[-1] += fragment.text()
            elif marked:
                stretches.append(fragment.text())
            previous = marked
            it += 1
        block, previous = block.next(), False
    return stretches


def _search(qtbot, sidebar, text: str) -> str:
    with qtbot.waitSignal(sidebar.searched):
        sidebar.search.setText(text)
    return sidebar.results.toPlainText()


def test_results_say_how_many_were_found_and_mark_the_words_as_said(qtbot, window, memory):
    memory.new_conversation()
    memory.add_memory(
        "Lisbon was lovely, we walked for hours with my sister last Tuesday and it was good "
        "and then we ate custard tarts until late", "That sounds like a lovely break.",
        timestamp=_at(3, 27),  # "last Tuesday": 24 March 2026, held in the index
    )  # fmt: skip
    memory.new_conversation()
    memory.add_memory("In March I flew to Lisbon again", "Twice!", timestamp=_at(3, 30))
    memory.add_memory("Lisbon in March, a third time", "Busy month!", timestamp=_at(3, 31))
    memory.new_conversation()
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 2)

    text = _search(qtbot, sidebar, "Lisbon March")
    assert "3 exchanges in 2 conversations" in text and "best match first" in text
    assert "24 March" not in text and "[" not in text  # the resolved day, not the dates shown
    assert "last Tuesday" in _highlighted(sidebar.results)
    assert all(h.casefold() in ("lisbon", "march", "last tuesday")
               for h in _highlighted(sidebar.results))  # fmt: skip

    # the count line above the results is no result: Enter opens the best match
    from engine import conversations

    best = conversations.search(memory, "Lisbon March")[0]
    with qtbot.waitSignal(sidebar.found_requested) as opened:
        sidebar._open_first_result()
    assert opened.args == [best.conversation_id, best.page_id]

    sidebar.search.setText("")
    text = _search(qtbot, sidebar, "walrus")
    assert "exchanges in" not in text
