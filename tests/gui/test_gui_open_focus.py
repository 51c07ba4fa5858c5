"""Where the keyboard goes when a conversation opened from the list has loaded, or an answer
ends: into the message box, unless the person moved it to another pane meanwhile (then it stays
there)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import focus_by_tab, press_key

pytestmark = pytest.mark.gui

CONTROL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def listed(qtbot, memory, chat):
    """A window on a vault with two conversations, the newer one drawn, and the list's row of
    the older one current (the list does not have the keyboard yet)."""
    from app.main_window import MainWindow

    now = time.time()
    for days, said in ((1, "Plan a hike in Marin"), (0, "My sister lives in Porto")):
        memory.new_conversation()
        memory.add_memory(said, "Noted.", timestamp=now - days * 86400)
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 2)
    qtbot.waitUntil(lambda: "My sister lives in Porto" in window.view.plain_text())
    sidebar.tree.setCurrentItem(sidebar.rows()[1])  # yesterday's: the hike
    yield window
    window.close()


def _pane(window, name: str):
    return {"conversation": window.view.browser, "search": window.sidebar.search}[name]


@pytest.mark.parametrize(
    ("keys", "pane"),
    [((Qt.Key.Key_F6, None), "conversation"), ((Qt.Key.Key_F, CONTROL_SHIFT), "search")],
)
def test_the_keyboard_moved_while_a_conversation_loads_stays_where_it_was_put(
    qtbot, listed, memory, keys, pane
):
    window = listed
    focus_by_tab(qtbot, window.sidebar.tree)
    with qtbot.waitSignal(window.conversation_shown, timeout=10_000):
        # The vault is busy (held here): the conversation cannot load before the key below
        with memory.vault._lock:
            press_key(qtbot, Qt.Key.Key_Return)  # opens the hike
            press_key(qtbot, *keys)
            assert _pane(window, pane).hasFocus()
            assert "Plan a hike in Marin" not in window.view.plain_text()
    assert "Plan a hike in Marin" in window.view.plain_text()
    assert _pane(window, pane).hasFocus()
    assert not window.composer.input.hasFocus()


def test_enter_on_a_row_still_puts_the_keyboard_in_the_message_box(qtbot, listed, memory):
    window = listed
    focus_by_tab(qtbot, window.sidebar.tree)
    with qtbot.waitSignal(window.conversation_shown, timeout=10_000):
        with memory.vault._lock:  # loaded as slowly as above, the keyboard left in the list
            press_key(qtbot, Qt.Key.Key_Return)
    assert "Plan a hike in Marin" in window.view.plain_text()
    assert window.composer.input.hasFocus()


@pytest.fixture
def answering(qtbot, memory):
    """A window whose model stops half-way through its answer until the test lets it go on."""
    from app.main_window import MainWindow
    from tests.helpers import pausing_chat

    chat = pausing_chat()
    chat.queue("The first half of the answer. And the second half.")
    chat.pause_after = "first half"
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window, chat
    chat.go_on.set()  # never leave a worker waiting
    window.close()


def _ask_and_pause(qtbot, window, chat) -> None:
    focus_by_tab(qtbot, window.composer.input)
    qtbot.keyClicks(window.composer.input, "Tell me about the hike")
    press_key(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(chat.paused.is_set)


def test_the_keyboard_moved_while_an_answer_is_written_stays_where_it_was_put(qtbot, answering):
    """F6 to the conversation to read back while the answer is written: its end does not take
    the keyboard back to the message box (it did, under the reader's Page Up)."""
    window, chat = answering
    _ask_and_pause(qtbot, window, chat)
    press_key(qtbot, Qt.Key.Key_F6)  # from the message box: the list, then the conversation
    press_key(qtbot, Qt.Key.Key_F6)
    assert window.view.browser.hasFocus()
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        chat.go_on.set()
    assert "second half" in window.view.plain_text()
    assert window.view.browser.hasFocus() and not window.composer.input.hasFocus()


def test_an_answer_written_while_the_keyboard_waits_in_the_box_leaves_it_there(
    qtbot, answering
):
    window, chat = answering
    _ask_and_pause(qtbot, window, chat)
    assert window.composer.input.hasFocus()
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        chat.go_on.set()
    assert window.composer.input.hasFocus()
