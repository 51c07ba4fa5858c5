"""The Privacy panel's Conversations tab for a person with a year of chats (361 conversations):
after a forget the next conversation is selected; Forget exchange… is in view on a 1366x768
screen; a search finds a conversation by its title, its dates or the words said in it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt

from app.privacy_exchanges import CHOOSE
from app.privacy_helpers import ROLE
from engine import conversations
from tests.gui_steps import settle

pytestmark = pytest.mark.gui

START = 1_740_000_000  # 19 February 2025: a conversation a day from then
DAY = 86_400


def _a_year_of_chats(memory, talks: int = 361, each: int = 19) -> None:
    for talk in range(talks):
        memory.add_memories([(f"Question {k} of talk {talk} about bees.", f"Answer {k}.",
                              START + talk * DAY + k * 60) for k in range(each)],
                            conversation_id=f"talk-{talk}")


def _opened(qtbot, window, talks: int):
    panel = window.open_privacy()
    qtbot.waitExposed(panel)
    tree = panel.conversation_tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == talks, timeout=30_000)
    panel.tabs.setCurrentIndex(1)
    return panel, tree


def _row(tree, conversation_id: str):
    rows = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return next(row for row in rows if row.data(0, ROLE) == conversation_id)


def _shown(tree) -> list[str]:
    rows = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return [row.data(0, ROLE) for row in rows if not row.isHidden()]


def test_forgetting_a_conversation_selects_the_next_and_shows_its_exchanges(qtbot, window,
                                                                             memory):
    """Both panes said "Select one conversation to see its exchanges." after a forget."""
    _a_year_of_chats(memory, talks=4, each=3)
    panel, tree = _opened(qtbot, window, 4)
    exchanges = panel.exchanges
    # newest first: talk-3, talk-2, talk-1, talk-0
    tree.setCurrentItem(_row(tree, "talk-2"))
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() == 3, timeout=10_000)
    panel.forget_conversations(confirm=False)
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 3, timeout=10_000)
    qtbot.waitUntil(lambda: [r.data(0, ROLE) for r in tree.selectedItems()] == ["talk-1"],
                    timeout=10_000)
    qtbot.waitUntil(lambda: exchanges.conversation == "talk-1"
                    and exchanges.tree.topLevelItemCount() == 3, timeout=10_000)
    assert exchanges.box.currentWidget() is exchanges.tree  # its exchanges, not the sentence
    assert CHOOSE not in exchanges.detail.toPlainText()
    assert panel.forget_conversations_button.isEnabled()
    assert "Forgot" in panel.done_note.text()  # what was done stays said

    # The last one forgotten: the one before it is selected
    tree.setCurrentItem(_row(tree, "talk-0"))
    panel.forget_conversations(confirm=False)
    qtbot.waitUntil(lambda: [r.data(0, ROLE) for r in tree.selectedItems()] == ["talk-1"],
                    timeout=10_000)

    # Two selected: the sentence is said once, by the exchanges' pane, not again below it
    tree.topLevelItem(0).setSelected(True)
    tree.topLevelItem(1).setSelected(True)
    qtbot.waitUntil(lambda: exchanges.conversation == "", timeout=10_000)
    assert exchanges.box.currentWidget() is exchanges.box.placeholder
    assert exchanges.box.placeholder.text() == CHOOSE
    assert CHOOSE not in exchanges.detail.toPlainText()
    panel.close()


def test_forget_exchange_is_in_view_on_a_1366x768_screen(qtbot, window, memory, laptop_screen,
                                                         monkeypatch):
    """At the panel's size as it opens, at the normal text size: the tab's page was 758 px
    tall in a view of 601 (its lists' preferred heights), Forget exchange… below the edge."""
    from app import privacy

    monkeypatch.setattr(privacy, "screen_room", lambda window: (1366 - 40, 768 - 60))
    _a_year_of_chats(memory)
    panel, tree = _opened(qtbot, window, 361)
    tree.setCurrentItem(tree.topLevelItem(0))
    qtbot.waitUntil(lambda: panel.exchanges.tree.topLevelItemCount() == 19, timeout=10_000)
    settle()
    for button in (panel.exchanges.forget_button, panel.forget_conversations_button):
        seen = button.visibleRegion().boundingRect()
        assert seen == QRect(0, 0, button.width(), button.height()), (
            f"{button.text()}: {seen} of {button.rect()}")
    search = panel.conversation_search
    assert search.visibleRegion().boundingRect() == search.rect()
    page = panel.middle
    assert page.widget().height() <= page.viewport().height()  # nothing below, unscrolled
    panel.close()


def test_the_search_finds_a_conversation_by_title_date_or_words(qtbot, window, memory):
    _a_year_of_chats(memory)
    conversations.rename(memory, "talk-100", "Planning the Lisbon trip")
    memory.add_memory("My sister's cello recital is on Sunday.", "Good luck to her.",
                      conversation_id="talk-7")
    panel, tree = _opened(qtbot, window, 361)
    search, shown = panel.conversation_search, panel.conversation_count
    assert shown.text() == "361 conversations"
    qtbot.keyClicks(search, "lisbon")
    qtbot.waitUntil(lambda: _shown(tree) == ["talk-100"], timeout=10_000)
    assert shown.text() == "1 of 361 conversations"

    # By the date it started, as the list shows it: talk 0 on 19 February 2025
    day = tree.topLevelItem(tree.topLevelItemCount() - 1).text(1).split(" 2025")[0]
    search.setText(day)
    qtbot.waitUntil(lambda: "talk-0" in _shown(tree), timeout=10_000)
    assert all(day in _row(tree, key).text(1) or day in _row(tree, key).text(2)
               for key in _shown(tree))

    # By words said inside it only (its title is its first question), found in a worker
    search.setText("cello recital")
    qtbot.waitUntil(lambda: _shown(tree) == ["talk-7"], timeout=10_000)
    assert shown.text() == "1 of 361 conversations"
    search.setText("no such words anywhere")
    qtbot.waitUntil(lambda: shown.text() == "0 of 361 conversations", timeout=10_000)
    box = panel.conversation_box
    assert box.currentWidget() is box.placeholder and "matches" in box.placeholder.text()

    # A selection the search hides is let go; Esc clears the search, not closes the panel
    search.clear()
    tree.setCurrentItem(_row(tree, "talk-3"))
    search.setText("lisbon")
    qtbot.waitUntil(lambda: _shown(tree) == ["talk-100"], timeout=10_000)
    assert tree.selectedItems() == [] and not panel.forget_conversations_button.isEnabled()
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert search.text() == "" and panel.isVisible()
    assert len(_shown(tree)) == 361 and shown.text() == "361 conversations"
    panel.close()
