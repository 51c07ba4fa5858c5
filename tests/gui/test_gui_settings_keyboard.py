"""Settings and the model step by keyboard alone, from a walkthrough: Enter in a field saves even
after Tab has passed over Cancel (it threw the changes away), the field Tab lands on in a
scrolled page is in view, Tab goes through the buttons and the memory settings in the order
they are read, and the model table and the file field have names a screen reader says."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QPushButton, QWidget

from tests.gui_steps import press_key, shown_settings

pytestmark = pytest.mark.gui

SHIFT = Qt.KeyboardModifier.ShiftModifier


def _in_front(qtbot, dialog) -> None:
    dialog.activateWindow()  # the keyboard goes to it, as on a desktop
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=3000)


def _focused(widget: QWidget) -> bool:
    focus = QApplication.focusWidget()
    return focus is not None and (focus is widget or focus is widget.focusProxy()
                                  or widget.isAncestorOf(focus))


def _tab_to(qtbot, widget, key=Qt.Key.Key_Tab, modifier=Qt.KeyboardModifier.NoModifier):
    """Press Tab until `widget` has the keyboard."""
    for _ in range(80):
        if _focused(widget):
            return
        press_key(qtbot, key, modifier)
    assert _focused(widget), f"Tab never reached {widget!r}"


def _settings_of(qtbot, window):
    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    _in_front(qtbot, dialog)
    return dialog


def _cancel(dialog) -> QPushButton:
    box = dialog.findChild(QDialogButtonBox)
    return box.button(QDialogButtonBox.StandardButton.Cancel)


def test_enter_in_a_field_saves_after_tab_passed_over_cancel(qtbot, window):
    """Dark → Light, Tab round past Save and Cancel back to the colours, Enter: saved."""
    from app.settings_store import load_settings

    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.conversation_page)
    scheme = dialog.conversation_page.scheme
    scheme.setFocus()
    _tab_to(qtbot, _cancel(dialog))
    _tab_to(qtbot, scheme)  # the tab bar, then the page's first field
    before = scheme.currentData()
    press_key(qtbot, Qt.Key.Key_Down)  # the next scheme, as a keyboard changes a closed list
    chosen = scheme.currentData()
    assert chosen != before
    press_key(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=3000)
    assert window.settings.color_scheme == chosen
    assert load_settings().color_scheme == chosen  # in settings.json


def test_enter_in_the_idle_lock_saves_after_tab_passed_over_cancel(qtbot, window):
    from app.settings_store import load_settings

    dialog = _settings_of(qtbot, window)
    dialog.auto_lock.setFocus()
    _tab_to(qtbot, _cancel(dialog))
    _tab_to(qtbot, dialog.auto_lock)
    press_key(qtbot, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(QApplication.focusWidget(), "20")
    press_key(qtbot, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=3000)
    assert window.settings.auto_lock_minutes == 20
    assert load_settings().auto_lock_minutes == 20


def test_enter_on_cancel_itself_still_cancels(qtbot, window):
    from app.settings_store import load_settings

    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.conversation_page)
    scheme = dialog.conversation_page.scheme
    scheme.setFocus()
    before = scheme.currentData()
    press_key(qtbot, Qt.Key.Key_Down)
    _tab_to(qtbot, _cancel(dialog))
    press_key(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=3000)
    assert window.settings.color_scheme == before
    assert load_settings().color_scheme == before


def _in_view(area, widget) -> bool:
    """Is `widget` wholly inside the scroll area's visible part?"""
    view = area.viewport()
    shown = QRect(widget.mapTo(view, QPoint(0, 0)), widget.size())
    return view.rect().contains(shown)


def test_tab_into_a_scrolled_page_shows_the_field(qtbot, window):
    """The Model tab scrolled to its bottom; Tab round from Cancel lands on "Bundled", at the
    top: the page shows it. Shift+Tab from Save lands on the last field: shown too."""
    dialog = _settings_of(qtbot, window)
    page = dialog.model_tab
    bar = page.verticalScrollBar()
    assert bar.maximum() > 0, "the page fits: nothing to scroll"
    bar.setValue(bar.maximum())
    _cancel(dialog).setFocus()
    _tab_to(qtbot, dialog.bundled)
    assert _in_view(page, QApplication.focusWidget())
    bar.setValue(0)
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    save.setFocus()
    press_key(qtbot, Qt.Key.Key_Tab, SHIFT)
    focus = QApplication.focusWidget()
    assert page.widget().isAncestorOf(focus)
    assert _in_view(page, focus)


def test_tab_into_the_memory_page_shows_the_field(qtbot, window):
    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.memory_scroll)
    page = dialog.memory_scroll
    bar = page.verticalScrollBar()
    assert bar.maximum() > 0, "the page fits: nothing to scroll"
    bar.setValue(bar.maximum())
    _cancel(dialog).setFocus()
    first = dialog.memory_form.inputs["stm_capacity"]
    _tab_to(qtbot, first)
    assert _in_view(page, first)


def test_tab_goes_through_the_memory_settings_as_they_are_read(qtbot, window):
    """Box by box, left to right and down, each box top to bottom: "Keywords per topic" comes
    with the rest of Mid-term memory, not after all of Heat."""
    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.memory_scroll)
    form = dialog.memory_form
    inputs = list(form.inputs.values())

    def place(widget):
        box = widget.parentWidget()
        return (box.y(), box.x(), widget.y())

    read = sorted(inputs, key=place)
    read[0].setFocus()
    visited = [read[0]]
    for _ in range(len(inputs) - 1):
        press_key(qtbot, Qt.Key.Key_Tab)
        visited.append(next(w for w in inputs if _focused(w)))
    assert visited == read
    for _ in range(len(inputs) - 1):  # and back
        press_key(qtbot, Qt.Key.Key_Tab, SHIFT)
        visited.append(next(w for w in inputs if _focused(w)))
    assert visited[len(inputs) - 1:] == read[::-1]


def _button_order(qtbot, dialog, buttons, key, modifier=Qt.KeyboardModifier.NoModifier):
    """The buttons of `buttons` in the order Tab (or Shift+Tab) reaches them, once round."""
    seen: list = []
    for _ in range(80):
        press_key(qtbot, key, modifier)
        focus = QApplication.focusWidget()
        if focus in buttons and focus not in seen:
            seen.append(focus)
        if len(seen) == len(buttons):
            break
    return seen


@pytest.mark.parametrize("where", ["step", "settings"])
def test_tab_goes_through_the_model_buttons_left_to_right(qtbot, window, person, where):
    """Add a folder…, Add a server address…, Look again, Use this model, then Keep the demo
    model for now (the model step): in the order they stand, and back the other way."""
    if where == "step":
        dialog = window.open_model_step()
        qtbot.waitExposed(dialog)
        picker, address = dialog.picker, dialog.address
        extra = [dialog.later_button]
    else:
        dialog = _settings_of(qtbot, window)
        dialog.tabs.setCurrentWidget(dialog.models_page)
        picker, address = dialog.models_page.picker, dialog.models_page.address
        extra = []
    _in_front(qtbot, dialog)
    qtbot.waitUntil(lambda: picker.overview is not None and picker.refresh_button.isEnabled(),
                    timeout=20_000)
    picker.select_usable()
    qtbot.waitUntil(picker.use_button.isEnabled, timeout=20_000)
    bar = picker.button_rows.parentWidget()  # the picker, or the step that keeps them in view
    row = [b for b in bar.findChildren(QPushButton)  # the row of buttons under the table
           if b.parentWidget() is bar and b not in extra and b.isVisibleTo(dialog)
           and b.isEnabled()]
    buttons = row + extra
    assert address.open_button in buttons and len(buttons) >= 4

    def across(button):  # that row, left to right, then the row under it
        return (button in extra, button.mapTo(dialog, QPoint(0, 0)).x())

    shown = sorted(buttons, key=across)
    picker.table.setFocus()
    assert _button_order(qtbot, dialog, buttons, Qt.Key.Key_Tab) == shown
    shown[-1].setFocus()
    back = _button_order(qtbot, dialog, [b for b in buttons if b is not shown[-1]],
                         Qt.Key.Key_Tab, SHIFT)
    assert back == shown[-2::-1]


def test_the_model_table_and_the_file_field_have_names(qtbot, person):
    from app.settings_store import AppSettings

    dialog = shown_settings(qtbot, AppSettings())
    assert dialog.models_page.picker.table.accessibleName().strip()
    assert dialog.gguf_path.accessibleName().strip()


def test_a_press_whose_release_went_elsewhere_does_not_stop_the_scrolling(qtbot, window):
    """The fields reached by Tab stayed out of view after another test's double click: QTest's
    double click ends without a release, so the application believed a button held (as after a
    real press whose release went to a dialog it opened), and the dialog took every focus
    change for a click. A click is told by the focus event's reason now."""
    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.memory_scroll)
    page = dialog.memory_scroll
    bar = page.verticalScrollBar()
    qtbot.mouseDClick(dialog.tabs.tabBar(), Qt.MouseButton.LeftButton,
                      pos=dialog.tabs.tabBar().tabRect(dialog.tabs.currentIndex()).center())
    try:
        assert QApplication.mouseButtons() != Qt.MouseButton.NoButton  # "held"
        bar.setValue(bar.maximum())
        _cancel(dialog).setFocus()
        first = dialog.memory_form.inputs["stm_capacity"]
        _tab_to(qtbot, first)
        assert _in_view(page, first)
    finally:
        qtbot.mouseRelease(dialog.tabs.tabBar(), Qt.MouseButton.LeftButton)
    assert QApplication.mouseButtons() == Qt.MouseButton.NoButton


def test_a_clicked_field_is_not_scrolled(qtbot, window):
    """A field clicked half in view stays where it is under the pointer."""
    dialog = _settings_of(qtbot, window)
    dialog.tabs.setCurrentWidget(dialog.memory_scroll)
    page = dialog.memory_scroll
    bar = page.verticalScrollBar()
    first = dialog.memory_form.inputs["stm_capacity"]
    top = first.mapTo(page.widget(), QPoint(0, 0)).y()
    bar.setValue(top + first.height() // 2)  # its upper half above the view
    before = bar.value()
    first.setFocus(Qt.FocusReason.MouseFocusReason)
    assert _focused(first)
    assert bar.value() == before
