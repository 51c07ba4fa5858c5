"""The Privacy panel's Conversations tab lists a conversation's exchanges and forgets one."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import answer_box, focus_by_tab, privacy_row, privacy_with_two_exchanges

pytestmark = pytest.mark.gui

JOB = "I work as a data scientist in San Francisco."
FOOD = "My favourite food is spicy ramen."
CHAT = "What a lovely sunny morning it is today."


@pytest.fixture
def panel(qtbot, window, memory):
    """Two exchanges that taught a fact each, then one that taught nothing."""
    privacy = privacy_with_two_exchanges(qtbot, window, memory, JOB, FOOD)
    memory.add_memory(CHAT, "It is indeed.")
    qtbot.waitUntil(lambda: privacy.conversation_tree.topLevelItem(0).text(3) == "3")
    return privacy


def _listed(qtbot, panel) -> list[str]:
    """Select the only conversation on the Conversations tab; the questions listed."""
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.setCurrentItem(panel.conversation_tree.topLevelItem(0))
    exchanges = panel.exchanges
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() > 0)
    return [exchanges.tree.topLevelItem(i).data(0, 0x100).user_input
            for i in range(exchanges.tree.topLevelItemCount())]


def test_an_exchange_that_taught_nothing_is_forgotten_from_the_conversations_tab(
    qtbot, panel, memory
):
    """Only "Forget conversation" was there: an exchange that taught no fact could be
    forgotten only from the chat."""
    assert _listed(qtbot, panel) == [CHAT, FOOD, JOB]  # newest first
    exchanges = panel.exchanges
    exchanges.tree.setCurrentItem(exchanges.tree.topLevelItem(0))
    assert CHAT in exchanges.detail.toPlainText() and "It is indeed." in exchanges.detail.toPlainText()
    seen: dict = {}
    answer_box(panel, "forgetPreview", "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(exchanges.forget_button, Qt.MouseButton.LeftButton)

    assert "1 exchange removed" in seen["texts"][0]
    assert "conversation removed" not in seen["texts"][0]
    assert [page.user_input for page in memory.pages()] == [JOB, FOOD]
    assert privacy_row(panel, "data scientist") is not None  # the facts stay
    assert privacy_row(panel, "spicy ramen") is not None
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() == 2)
    assert panel.conversation_tree.topLevelItem(0).text(3) == "2"
    # the row that took its place is selected: the arrows and Delete go on from it
    assert exchanges.selected_page().user_input == FOOD
    assert "Forgot 1 exchange" in panel.done_note.text()


def test_the_keyboard_goes_into_the_exchanges_and_delete_asks_first(qtbot, panel, memory):
    _listed(qtbot, panel)
    focus_by_tab(qtbot, panel.conversation_tree)
    qtbot.keyClick(panel.conversation_tree, Qt.Key.Key_Space)
    qtbot.waitUntil(panel.exchanges.tree.hasFocus)
    assert panel.exchanges.selected_page().user_input == CHAT
    qtbot.keyClick(panel.exchanges.tree, Qt.Key.Key_Down)
    assert panel.exchanges.selected_page().user_input == FOOD

    seen: dict = {}
    answer_box(panel, "forgetPreview", "Cancel", seen)
    qtbot.keyClick(panel.exchanges.tree, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "texts" in seen)
    assert FOOD in seen["texts"][0]  # the fact learned only from it goes too, and it says so
    assert len(memory.pages()) == 3  # Cancel forgets nothing

    focus_by_tab(qtbot, panel.exchanges.tree)  # the window behind the box comes back
    assert panel.exchanges.selected_page().user_input == FOOD
    answer_box(panel, "forgetPreview", "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.keyClick(panel.exchanges.tree, Qt.Key.Key_Delete)
    assert [page.user_input for page in memory.pages()] == [JOB, CHAT]
    assert not any("ramen" in fact.text for fact in memory.facts())


def test_a_long_conversation_is_listed_200_at_a_time(qtbot, window, memory):
    from app.chat_commands import SHOWN_EXCHANGES

    for number in range(SHOWN_EXCHANGES + 5):
        memory.add_memory(f"Question number {number}", "Answer.")
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: panel.conversation_tree.topLevelItemCount() == 1)
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.setCurrentItem(panel.conversation_tree.topLevelItem(0))
    exchanges = panel.exchanges
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() == SHOWN_EXCHANGES)
    assert exchanges.tree.topLevelItem(0).data(0, 0x100).user_input == (
        f"Question number {SHOWN_EXCHANGES + 4}")
    assert exchanges.earlier_button.isVisible()
    assert f"{SHOWN_EXCHANGES} of {SHOWN_EXCHANGES + 5}" in exchanges.count.text()
    qtbot.mouseClick(exchanges.earlier_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() == SHOWN_EXCHANGES + 5)
    assert not exchanges.earlier_button.isVisible()
    last = exchanges.tree.topLevelItem(SHOWN_EXCHANGES + 4)
    assert last.data(0, 0x100).user_input == "Question number 0"
