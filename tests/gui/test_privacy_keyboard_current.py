"""The Privacy panel for a keyboard-only user: after an edit, an Undo or a delete the arrow
keys move on from the row just acted on (the list is drawn again after each, and its current
row was lost: Down went to the second row, and Delete then asked about that one); the delete
question quotes what it deletes; the search, the lists and the detail have names a screen
reader says; the header says how to correct an item without a mouse."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit

from tests.gui_steps import answer_box, press_key, privacy_by_keyboard, privacy_row

pytestmark = pytest.mark.gui

HELLO = "Hi! My name is Ana and I have a dog called Pixel."
NURSE = "I work as a nurse in Krakow."
THAI = "I really love spicy Thai food."
TYPO = "I work as a nurse in Krakw."
CONTROL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def panel(qtbot, window, memory):
    """Ana's first exchanges, consolidated, and the Privacy panel opened with Ctrl+P from the
    message box, in front with the keyboard (as on a desktop)."""
    said = ((HELLO, "Nice to meet you, Ana!"), (NURSE, "That sounds demanding."), (THAI, "Yum."))
    return privacy_by_keyboard(qtbot, window, memory, said, NURSE)


def _shown(panel) -> list[str]:
    """The texts of the rows shown, top to bottom."""
    return [item.shown for item in panel.visible_items()]


def _selected(panel) -> list[str]:
    return [item.shown for item in panel.selected_items()]


def _after(panel, text: str) -> str:
    """The text of the row shown below the row `text` (the one Down goes to)."""
    shown = _shown(panel)
    return shown[shown.index(text) + 1]


def _down_to(qtbot, panel, text: str) -> None:
    """From the search box, Tab into the list and press Down until the row `text` is the one
    selected; it is neither the first row nor the last (so Down from it goes somewhere a lost
    current row would not)."""
    for _ in range(12):
        if QApplication.focusWidget() is panel.tree:
            break
        press_key(qtbot, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is panel.tree
    shown = _shown(panel)
    assert 0 < shown.index(text) < len(shown) - 1, shown
    for _ in range(len(shown)):
        if _selected(panel) == [text]:
            return
        press_key(qtbot, Qt.Key.Key_Down)
    assert _selected(panel) == [text]


def _edit_with_f2(qtbot, panel, text: str) -> None:
    """F2 on the selected row, type `text` over what it knows, Enter; wait until it is read
    back from the vault."""
    press_key(qtbot, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is not None)
    editor = panel.tree.findChild(QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: privacy_row(panel, text) is not None
                    and _selected(panel) == [text])
    assert QApplication.focusWidget() is panel.tree


def _read_again(qtbot, panel) -> None:
    """The list is read again, as after any change to memory (the engine's events)."""
    with qtbot.waitSignal(panel.refreshed, timeout=10_000):
        panel.refresh()


def test_down_after_an_edit_moves_from_the_edited_row(qtbot, panel, memory):
    _down_to(qtbot, panel, NURSE)
    _edit_with_f2(qtbot, panel, TYPO)
    assert TYPO in [fact.text for fact in memory.facts()]
    _read_again(qtbot, panel)
    below = _after(panel, TYPO)

    press_key(qtbot, Qt.Key.Key_Down)

    assert _selected(panel) == [below]


def test_down_after_ctrl_z_moves_from_the_row_put_back(qtbot, panel, memory):
    _down_to(qtbot, panel, NURSE)
    _edit_with_f2(qtbot, panel, TYPO)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Z, CONTROL)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None
                    and _selected(panel) == [NURSE])
    assert NURSE in [fact.text for fact in memory.facts()]
    _read_again(qtbot, panel)
    below = _after(panel, NURSE)

    press_key(qtbot, Qt.Key.Key_Down)

    assert _selected(panel) == [below]


def test_down_after_undoing_a_delete_moves_from_the_row_put_back(qtbot, panel, memory):
    """The row that followed the deleted one was current; once the Undo puts the deleted row
    back, selected, the arrows move from it."""
    _down_to(qtbot, panel, NURSE)
    following = _after(panel, NURSE)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: _selected(panel) == [following])
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    panel.tree.setFocus()
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Z, CONTROL)
    qtbot.waitUntil(lambda: _selected(panel) == [NURSE])

    press_key(qtbot, Qt.Key.Key_Down)

    assert _selected(panel) == [following]


def test_after_a_delete_the_row_selected_is_the_current_one(qtbot, panel, memory):
    _down_to(qtbot, panel, NURSE)
    following = _after(panel, NURSE)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is None
                    and _selected(panel) == [following])
    assert NURSE not in [fact.text for fact in memory.facts()]
    _read_again(qtbot, panel)
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    panel.tree.setFocus()

    assert panel.tree.currentItem() is not None
    assert panel.tree.currentItem().data(0, Qt.ItemDataRole.UserRole).shown == following
    assert _selected(panel) == [following]

    # Delete now asks about that row, not another
    answer_box(panel, "Delete", "Cancel", seen)
    press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: len(seen["texts"]) == 2)
    assert following in seen["texts"][1]
    assert following in [item.shown for item in panel.items]


def test_the_delete_question_quotes_the_item(qtbot, panel, memory):
    _down_to(qtbot, panel, NURSE)
    seen: dict = {}
    answer_box(panel, "Delete", "Cancel", seen)
    press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "texts" in seen)

    question = seen["texts"][0]
    assert f"“{NURSE}”" in question
    assert THAI not in question and HELLO not in question
    assert "no longer be recalled" in question
    assert NURSE in [fact.text for fact in memory.facts()]  # Cancel deleted nothing


def test_the_delete_question_for_several_says_how_many_and_quotes_the_first():
    """Long or many-line texts are quoted on one line, shortened; several items: how many,
    and the first two quoted (not all of them)."""
    from app.persona_items import PersonaItem
    from app.privacy_forget import delete_question
    from engine.records import USER_FACT

    def item(number: int, text: str) -> PersonaItem:
        return PersonaItem(USER_FACT, number, text, "active", 0.0, 0.0, (), "user")

    long = "My dog is called Biscuit\nand " + "he likes long walks by the river " * 10
    one = delete_question([item(1, long)])
    assert one.startswith("Delete this item?") and "no longer be recalled" in one
    quoted = one[one.index("“"):one.index("”") + 1]
    assert quoted.startswith("“My dog is called Biscuit and he likes")
    assert "\n" not in quoted and len(quoted) < len(long)

    texts = ["I live in Krakow.", "I have a dog called Pixel.", "I like tea.", "I sing."]
    many = delete_question([item(n, text) for n, text in enumerate(texts)])
    assert many.startswith("Delete these 4 items?") and "no longer be recalled" in many
    assert f"“{texts[0]}”" in many and f"“{texts[1]}”" in many
    assert texts[2] not in many and texts[3] not in many
    assert "2 more" in many
    two = delete_question([item(n, text) for n, text in enumerate(texts[:2])])
    assert f"“{texts[0]}”" in two and f"“{texts[1]}”" in two and "more" not in two


def test_the_search_lists_and_detail_have_names(panel):
    names = [widget.accessibleName() for widget in
             (panel.search, panel.tree, panel.conversation_tree, panel.source)]
    assert all(name.strip() for name in names), names
    assert len(set(names)) == len(names), names  # each says which it is


def test_the_header_says_how_to_correct_an_item_by_keyboard(panel):
    subtitle = panel.findChild(QLabel, "subtitle")
    assert "double-click" in subtitle.text() and "F2" in subtitle.text()


def test_a_read_after_a_change_keeps_the_conversation_chosen(qtbot, panel, memory):
    memory.new_conversation()
    memory.add_memory("My sister Eva lives in Gdansk.", "Noted.")  # a second conversation
    panel.refresh()
    qtbot.waitUntil(lambda: panel.conversation_tree.topLevelItemCount() == 2)
    tree = panel.conversation_tree
    panel.tabs.setCurrentIndex(1)
    chosen = tree.topLevelItem(1)
    tree.setCurrentItem(chosen, 0, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    conversation = chosen.data(0, Qt.ItemDataRole.UserRole)
    assert panel.forget_conversations_button.isEnabled()

    with qtbot.waitSignal(panel.refreshed, timeout=10_000):
        panel.refresh()  # as after any change to memory

    assert [row.data(0, Qt.ItemDataRole.UserRole) for row in tree.selectedItems()] == [
        conversation]
    assert tree.currentItem().data(0, Qt.ItemDataRole.UserRole) == conversation
    assert panel.forget_conversations_button.isEnabled()
