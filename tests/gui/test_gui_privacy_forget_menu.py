"""The privacy panel's three Forget buttons are one "Forget…" menu, reached with the keyboard,
and what it did is said on lines that wrap: side by side they made the panel wider than a
1366 px screen at the largest text, its Close button off the screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import answer_box, keep_looking, privacy_row, privacy_with_two_exchanges

pytestmark = pytest.mark.gui

JOB = "I work as a data scientist in San Francisco."
FOOD = "My favourite food is spicy ramen."
ENTRIES = ["Forget the exchange it came from…", "Forget its conversation…", "Forget its topic…"]
# the offscreen platform cannot raise a popup menu nor give it the keyboard: said, not a fault
MENU_WARNINGS = "This plugin does not support (raise|grabbing the keyboard)"


@pytest.fixture
def panel(qtbot, window, memory):
    """Two exchanges of one conversation, each with what was learned from it."""
    return privacy_with_two_exchanges(qtbot, window, memory, JOB, FOOD)


def _in_menu(qtbot, panel, keys: list, seen: dict, wanted: str = "") -> None:
    """Once the Forget… menu is open: keep its entries in `seen`, press Down until `wanted` is
    the active entry (if given), then press `keys`."""
    menu = panel.forget_button.menu()

    def look() -> bool:
        if not menu.isVisible():
            return False
        seen.setdefault("entries", []).append(
            [(action.text(), action.isEnabled()) for action in menu.actions()])
        for _ in range(len(menu.actions()) + 1):
            active = menu.activeAction()
            if not wanted or (active is not None and active.text() == wanted):
                break
            qtbot.keyClick(menu, Qt.Key.Key_Down)
        for key in keys:
            qtbot.keyClick(menu, key)
        if menu.isVisible():
            menu.close()  # the test fails, not hangs
        return True

    keep_looking(look)


@pytest.mark.qt_log_ignore(MENU_WARNINGS)
def test_the_forget_menu_is_reached_and_used_with_the_keyboard(qtbot, panel, memory):
    """Tab reaches "Forget…" after Delete; Enter or Space opens its menu, each entry with its
    wording and whether it applies; the arrow keys and Enter choose one."""
    privacy_row(panel, "spicy ramen").setSelected(True)
    button = panel.forget_button
    assert button.isEnabled() and button.text() == "Forget…"
    panel.delete_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(panel.delete_button, Qt.Key.Key_Tab)
    assert panel.focusWidget() is button

    seen: dict = {}
    _in_menu(qtbot, panel, [Qt.Key.Key_Escape], seen)
    qtbot.keyClick(button, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "entries" in seen and not button.menu().isVisible())
    (entries,) = seen["entries"]
    assert [text for text, _enabled in entries] == ENTRIES
    assert entries[0][1] and entries[1][1]  # its exchange and its conversation are stored
    assert len(memory.pages()) == 2  # Esc chose nothing

    answer_box(panel, "forgetPreview", "Forget", seen)
    _in_menu(qtbot, panel, [Qt.Key.Key_Return], seen, wanted="Forget its conversation…")
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.keyClick(button, Qt.Key.Key_Space)
    assert "conversation removed" in seen["texts"][0]
    assert memory.pages() == []
    qtbot.waitUntil(lambda: privacy_row(panel, "spicy ramen") is None)


def test_with_nothing_to_forget_the_menu_says_why(qtbot, panel, memory):
    """An item added by hand has no exchange, conversation or topic: its entries are greyed
    out and the button's tooltip says why; with nothing selected the button is greyed out."""
    assert not panel.forget_button.isEnabled()
    memory.add_fact("I am allergic to peanuts")
    qtbot.waitUntil(lambda: privacy_row(panel, "peanuts") is not None)
    privacy_row(panel, "peanuts").setSelected(True)
    assert panel.forget_button.isEnabled()
    assert not any(action.isEnabled() for action in panel.forget_button.menu().actions())
    assert "added by hand" in panel.forget_button.toolTip()
    assert "added by hand" in panel.forget_exchange_action.toolTip()


def test_at_the_largest_text_what_it_did_wraps_and_the_panel_fits_a_laptop(
    qtbot, window, memory
):
    """The note after a delete and forget was one line beside the bottom row's buttons: at the
    largest text the panel then needed more than a 1366 px screen."""
    from app import theme
    from app.privacy_forget import delete_and_forget_action

    window.set_text_size(theme.MAX_SIZE - window.settings.text_size)
    try:
        for said in ("Hi! My name is Ana and I have a dog called Pixel.",
                     "I work as a nurse in Krakow.", "I really love spicy Thai food.",
                     "I no longer like spicy food."):
            memory.add_memory(said, "Noted.")
        memory.run_consolidation()
        panel = window.open_privacy()
        qtbot.waitUntil(lambda: privacy_row(panel, "nurse") is not None)
        assert panel.minimumSizeHint().width() <= 1366 - 40  # a 1366 px screen's room

        panel.tree.selectAll()
        seen: dict = {}
        answer_box(panel, "Delete", delete_and_forget_action(panel.selected_items()), seen)
        answer_box(panel, "forgetPreview", "Forget", seen)
        with qtbot.waitSignal(panel.changed, timeout=10_000):
            panel.delete_selected()
        note = panel.done_note
        assert note.text().startswith("Deleted") and "and forgot" in note.text()
        qtbot.waitUntil(lambda: note.width() >= note.minimumSizeHint().width()
                        and note.height() >= note.heightForWidth(note.width()))  # whole
        assert note.isVisible()
        assert panel.minimumSizeHint().width() <= 1366 - 40
    finally:
        window.set_text_size(0)
