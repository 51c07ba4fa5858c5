"""For a keyboard-only user: the Remembered list's links from the keyboard, Delete and the focus
in Privacy's conversations, focus marks on tab bars and tables, the sidebar's search results,
the conversation list's first row, Lock now from any window, and the Copy message's length."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from tests.gui_steps import (
    answer_box,
    focus_by_tab,
    keep_looking,
    press_key,
    privacy_by_ctrl_p,
)

pytestmark = pytest.mark.gui

LARGE = 12  # Ctrl+= twice


def _focused_link_text(browser) -> str:
    return browser.textCursor().selectedText()


def _tab_to(qtbot, browser, text: str) -> None:
    """Tab through the conversation's links until one starting with `text` has the focus."""
    for _ in range(20):
        if _focused_link_text(browser).startswith(text):
            return
        qtbot.keyClick(browser, Qt.Key.Key_Tab)
    raise AssertionError(f"no link {text!r} reached with Tab")


def _answer_with_memories(qtbot, window, memory, chat, send):
    memory.add_fact("I am allergic to peanuts")
    memory.add_fact("I am also allergic to shellfish")
    chat.queue("Avoid peanuts.")
    send(window, "what am I allergic to? peanuts")
    (message,) = [m for m in window.view.messages if m.role == "assistant"]
    return message


def _keyboard_menu(widget: QWidget) -> list[str]:
    """The entries of the menu the Menu key opens on `widget` (Qt sends it this event at the
    text cursor), closed once read."""
    seen: list[str] = []

    def read_menu() -> bool:
        menu = QApplication.activePopupWidget()
        if menu is None:
            return False
        seen.extend(action.text().replace("&", "") for action in menu.actions()
                    if action.text())
        menu.close()
        return True

    keep_looking(read_menu)
    at = widget.inputMethodQuery(Qt.InputMethodQuery.ImCursorRectangle).toRect().center()
    QApplication.sendEvent(
        widget, QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, widget.mapToGlobal(at))
    )
    return seen


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_the_menu_key_on_a_remembered_item_gives_that_items_menu(
    qtbot, qapp, window, memory, chat, send, look_back
):
    """At a larger text size the item's text ends on a second line: the keyboard's menu, put
    at the text cursor just past it, was the message's."""
    from app import theme

    theme.apply_look(qapp, "light", LARGE)
    message = _answer_with_memories(qtbot, window, memory, chat, send)
    window.view.toggle_remembered(message)
    browser = window.view.browser
    focus_by_tab(qtbot, browser)
    _tab_to(qtbot, browser, "I am allergic to peanuts")

    seen = _keyboard_menu(browser)

    assert "Forget this memory…" in seen and "Show where it came from" in seen, seen
    assert "Forget this exchange…" not in seen


def test_enter_on_used_memories_keeps_the_focus_and_tab_goes_into_the_list(
    qtbot, window, memory, chat, send
):
    message = _answer_with_memories(qtbot, window, memory, chat, send)
    browser = window.view.browser
    focus_by_tab(qtbot, browser)
    _tab_to(qtbot, browser, "\u25b8 Used 2 memories")

    qtbot.keyClick(browser, Qt.Key.Key_Return)

    assert message.expanded
    assert _focused_link_text(browser).startswith("\u25be Used 2 memories")
    qtbot.keyClick(browser, Qt.Key.Key_Tab)
    assert _focused_link_text(browser) in {i.text for i in message.memories}


# --- Privacy: the conversations list -----------------------------------------------------


@pytest.fixture
def privacy(qtbot, window, memory):
    """Two saved conversations and the Privacy panel opened with Ctrl+P, in front."""
    memory.add_memory("I work as a nurse in Krakow.", "That sounds demanding.")
    memory.new_conversation()
    memory.add_memory("My sister Eva lives in Gdansk.", "Noted.")
    panel = privacy_by_ctrl_p(qtbot, window)
    qtbot.waitUntil(lambda: panel.conversation_tree.topLevelItemCount() == 2)
    yield panel
    if isValid(panel):
        panel.close()


def test_ctrl_tab_to_conversations_selects_a_row_and_delete_asks_to_forget_it(
    qtbot, privacy, memory
):
    tree = privacy.conversation_tree
    focus_by_tab(qtbot, privacy.search)  # the facts tab has the keyboard
    press_key(qtbot, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert privacy.tabs.currentWidget().isAncestorOf(tree)
    qtbot.waitUntil(tree.hasFocus)
    assert len(tree.selectedItems()) == 1 and tree.currentItem().isSelected()
    assert privacy.forget_conversations_button.isEnabled()
    chosen = tree.currentItem().data(0, Qt.ItemDataRole.UserRole)

    seen: dict = {}
    answer_box(privacy, "forgetPreview", "Cancel", seen)
    press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "texts" in seen, timeout=10_000)
    assert "Forget this conversation" in seen["texts"][0]
    assert len(memory.conversations()) == 2  # Cancel: nothing forgotten

    privacy.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is privacy)
    focus_by_tab(qtbot, tree)
    with qtbot.waitSignal(privacy.refreshed, timeout=10_000):
        answer_box(privacy, "forgetPreview", "Forget", seen)
        press_key(qtbot, Qt.Key.Key_Delete)
        qtbot.waitUntil(lambda: len(seen["texts"]) == 2, timeout=10_000)
    assert chosen not in [c.id for c in memory.conversations()]
    assert len(memory.conversations()) == 1


def test_tab_into_the_conversations_list_selects_its_current_row(qtbot, privacy):
    tree = privacy.conversation_tree
    privacy.tabs.setCurrentIndex(1)
    tree.clearSelection()
    focus_by_tab(qtbot, privacy.tabs.tabBar())
    press_key(qtbot, Qt.Key.Key_Tab)
    qtbot.waitUntil(tree.hasFocus)
    assert tree.selectedItems() and privacy.forget_conversations_button.isEnabled()
    press_key(qtbot, Qt.Key.Key_Tab)  # the list's search box comes next
    qtbot.waitUntil(privacy.conversation_search.hasFocus)


# --- focus marks on tab bars and tables ----------------------------------------------------


def _changed_pixels(qtbot, widget: QWidget, rect=None) -> int:
    """How many pixels of `widget` (of `rect` in it) change by 3:1 or more when it loses the
    keyboard: its focus mark."""
    import numpy as np

    from tests.gui.test_gui_contrast import _luminances

    def grab():
        QApplication.processEvents()
        image = widget.grab().toImage().scaled(widget.size())
        if rect is not None:
            image = image.copy(rect)
        return _luminances(image)

    focus_by_tab(qtbot, widget)
    focused = grab()
    widget.clearFocus()
    qtbot.waitUntil(lambda: not widget.hasFocus())
    unfocused = grab()
    # The model step's table can grow while the grabs are taken (the scan of this computer's
    # models ends: 486 then 514 px tall on a busy machine): the part both grabs show is compared
    rows, columns = (min(a, b) for a, b in zip(focused.shape, unfocused.shape, strict=True))
    focused, unfocused = focused[:rows, :columns], unfocused[:rows, :columns]
    ratio = (np.maximum(focused, unfocused) + 0.05) / (np.minimum(focused, unfocused) + 0.05)
    return int((ratio >= 3).sum())


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_focused_tab_bar_and_table_are_marked(qtbot, qapp, window, person, scheme,
                                                 look_back):
    """Settings and the inspector opened on their tab bar, the model step on its table, and
    nothing showed which had the keyboard."""
    from PySide6.QtWidgets import QTabBar

    from app import theme

    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    for opener in (window.open_settings, window.open_inspector):
        dialog = opener()
        qtbot.waitExposed(dialog)
        bar = next(b for b in dialog.findChildren(QTabBar) if b.isVisible())
        tab = bar.tabRect(bar.currentIndex())
        assert _changed_pixels(qtbot, bar, tab) >= tab.width(), opener.__name__
        if hasattr(dialog, "pool"):
            dialog.pool.wait(5000)
        dialog.close()
        qtbot.waitUntil(lambda shut=dialog: not shut.isVisible())

    step = window.open_model_step()
    qtbot.waitExposed(step)
    table = step.findChild(QWidget, "modelTable")
    assert _changed_pixels(qtbot, table) >= table.height()
    step.close()


# --- the conversations sidebar -------------------------------------------------------------


@pytest.fixture
def history(qtbot, window, memory):
    """Three conversations (today, yesterday, two days ago: a day header each) and a new,
    empty one on screen: no row of the list is current."""
    import time

    now = time.time()
    for days, said in ((2, "I am allergic to peanuts"), (1, "Plan a hike in Marin"),
                       (0, "My sister lives in Porto")):
        memory.new_conversation()
        memory.add_memory(said, "Noted.", timestamp=now - days * 86400)
    memory.new_conversation()
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 3)
    return window.sidebar


def _search(qtbot, window, sidebar, text: str) -> None:
    """Ctrl+Shift+F and `text` typed, as a person does; returns once its results are drawn."""
    focus_by_tab(qtbot, window.composer.input)
    press_key(qtbot, Qt.Key.Key_F, CONTROL_SHIFT)
    assert sidebar.search.hasFocus()
    with qtbot.waitSignal(sidebar.searched):
        qtbot.keyClicks(sidebar.search, text)


CONTROL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_down_in_the_search_goes_to_the_first_result_and_enter_opens_it(
    qtbot, window, history
):
    sidebar = history
    _search(qtbot, window, sidebar, "peanut")

    press_key(qtbot, Qt.Key.Key_Down)

    assert sidebar.results.hasFocus()
    assert sidebar.results.textCursor().selectedText() == "I am allergic to peanuts"
    with qtbot.waitSignal(window.conversation_shown):
        press_key(qtbot, Qt.Key.Key_Return)
    assert "I am allergic to peanuts" in window.view.plain_text()


def test_enter_in_the_search_opens_the_first_result(qtbot, window, history):
    sidebar = history
    _search(qtbot, window, sidebar, "hike")
    with qtbot.waitSignal(window.conversation_shown):
        press_key(qtbot, Qt.Key.Key_Return)
    assert "Plan a hike in Marin" in window.view.plain_text()
    assert "My sister lives in Porto" not in window.view.plain_text()


def test_one_tab_from_the_search_reaches_the_first_result_in_a_marked_pane(
    qtbot, window, history
):
    sidebar = history
    _search(qtbot, window, sidebar, "peanut")
    press_key(qtbot, Qt.Key.Key_Tab)
    assert sidebar.results.hasFocus()
    assert sidebar.results.textCursor().selectedText() == "I am allergic to peanuts"
    assert _changed_pixels(qtbot, sidebar.results) >= sidebar.results.height()


def test_the_list_gets_a_current_conversation_from_the_keyboard(qtbot, window, history):
    """After a temporary chat (or a new one) no row was current: Tab into the list showed its
    border and Enter did nothing; the first Down went to the "Today" header."""
    sidebar = history
    tree = sidebar.tree
    sidebar.set_current(None)  # as a temporary chat leaves it
    assert tree.currentItem() is None
    focus_by_tab(qtbot, sidebar.search)
    press_key(qtbot, Qt.Key.Key_Tab)
    assert tree.hasFocus()
    assert tree.currentItem() is sidebar.rows()[0]

    press_key(qtbot, Qt.Key.Key_Down)  # over the "Yesterday" header
    assert tree.currentItem() is sidebar.rows()[1]
    press_key(qtbot, Qt.Key.Key_Up)
    press_key(qtbot, Qt.Key.Key_Up)  # the first: it stays (not the "Today" header)
    assert tree.currentItem() is sidebar.rows()[0]
    with qtbot.waitSignal(window.conversation_shown):
        press_key(qtbot, Qt.Key.Key_Return)
    assert "My sister lives in Porto" in window.view.plain_text()


# --- Lock now from the panels that show what is remembered ----------------------------------


@pytest.mark.parametrize("opener", ["open_privacy", "open_inspector"])
def test_ctrl_l_locks_from_privacy_and_the_inspector_and_closes_them(
    qtbot, window, memory, opener
):
    memory.add_memory("My dog is called Biscuit", "What a good name.")
    panel = getattr(window, opener)()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    assert QApplication.focusWidget() is not None and QApplication.focusWidget().window() is panel

    with qtbot.waitSignal(window.locked, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)

    assert window.session is None
    qtbot.waitUntil(lambda: not isValid(panel) or not panel.isVisible())
    assert not window.panels


# --- the status line's message ---------------------------------------------------------------


def test_copy_last_answer_says_so_in_full_at_a_larger_text_size(
    qtbot, qapp, window, chat, send, look_back
):
    """"Copied the last answer (389 characters)." was cut to "(389 ch" at a larger text size:
    the permanent widgets on the right leave the message little room."""
    from PySide6.QtGui import QGuiApplication

    from app import theme

    chat.queue("Porto is in the north of Portugal. " * 11)
    send(window, "Where is Porto?")
    theme.apply_look(qapp, "light", LARGE)
    window.resize(1000, window.height())  # as wide as the person's: the counts take half
    focus_by_tab(qtbot, window.composer.input)
    press_key(qtbot, Qt.Key.Key_C, CONTROL_SHIFT)
    assert QGuiApplication.clipboard().text() == window.view.messages[-1].text

    status = window.status
    said = status.currentMessage()
    assert said.startswith("Copied the last answer")
    QApplication.processEvents()
    shown = status.message  # the status line shows it in a label of its own
    assert shown.isVisible() and shown.text() == said
    room = shown.contentsRect().width()
    assert shown.fontMetrics().horizontalAdvance(said) <= room, (said, room)

    def place(widget):
        return widget.rect().translated(widget.mapTo(status, widget.rect().topLeft()))

    for part in (status.remote, status.memory, status.vault):  # beside it, never over it
        assert not (part.isVisible() and place(shown).intersects(place(part))), part
