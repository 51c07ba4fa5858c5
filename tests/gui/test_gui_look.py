"""Look and comfort: colour scheme and text size survive a restart; the keyboard reaches every
control, each with an accessible name."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from tests.gui_steps import restarted_window, window_with_settings

pytestmark = pytest.mark.gui


def _window_lightness() -> float:
    return QApplication.palette().color(QPalette.ColorRole.Window).lightnessF()


def test_dark_scheme_and_text_size_survive_a_restart(qtbot, memory, chat, look_back):
    window = window_with_settings(qtbot, memory, chat)
    assert _window_lightness() > 0.8
    dialog = window.open_settings()
    page = dialog.conversation_page
    page.scheme.setCurrentIndex(page.scheme.findData("dark"))
    with qtbot.waitSignal(dialog.applied):
        dialog.save()
    assert _window_lightness() < 0.25
    window.activateWindow()  # back from the dialog: shortcuts go to the active window
    qtbot.waitUntil(window.isActiveWindow)
    normal = QApplication.font().pointSizeF()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.settings.text_size == 11
    assert QApplication.font().pointSizeF() == pytest.approx(normal * 1.1)
    window.close()

    from app import theme

    theme.apply_look(QApplication.instance(), "light", theme.BASE_SIZE)  # as a fresh start
    again = restarted_window(qtbot, memory, chat)
    assert (again.settings.color_scheme, again.settings.text_size) == ("dark", 11)
    again.activateWindow()
    qtbot.waitUntil(again.isActiveWindow)
    assert _window_lightness() < 0.25
    assert QApplication.font().pointSizeF() == pytest.approx(normal * 1.1)
    qtbot.keyClick(again, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert again.settings.text_size == 10
    again.close()


def test_window_size_and_sidebar_width_survive_a_restart(qtbot, memory, chat):
    window = window_with_settings(qtbot, memory, chat)
    window.resize(780, 520)
    qtbot.waitUntil(lambda: window.splitter.width() == 780)
    window.splitter.setSizes([206, 574])
    assert window.splitter.sizes()[0] == 206
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)  # hidden
    window.close()
    again = restarted_window(qtbot, memory, chat)
    assert (again.size().width(), again.size().height()) == (780, 520)
    assert not again.sidebar.isVisible()
    again.toggle_sidebar(True)
    qtbot.waitUntil(lambda: again.splitter.sizes()[0] == 206)
    again.close()


def _tab_chain(qtbot, window, start: QWidget, limit: int = 60) -> list[QWidget]:
    start.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is start)
    seen: list[QWidget] = []
    for _ in range(limit):
        widget = QApplication.focusWidget()
        if widget in seen:
            break
        seen.append(widget)
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    return seen


def _focusable(window) -> list[QWidget]:
    return [
        w
        for w in window.findChildren(QWidget)
        if w.isVisibleTo(window)
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and not w.focusProxy()
        and w.window() is window
    ]


def test_tab_reaches_every_control_and_each_has_a_name(qtbot, window, chat, memory, send):
    QGuiApplication.focusWindow()
    window.activateWindow()
    send(window, "hello")
    window.chat_actions.find_and_ask("hello")  # the /forget panel is up too
    qtbot.waitUntil(window.forget_panel.isVisible)

    reached = _tab_chain(qtbot, window, window.composer.input)

    expected = _focusable(window)
    missing = [f"{type(w).__name__}:{w.objectName()}" for w in expected if w not in reached]
    assert missing == []
    for needed in (
        window.sidebar.search,
        window.sidebar.tree,
        window.view.browser,
        window.composer.input,
        window.composer.send_button,
        window.forget_panel.list,
        window.forget_panel.forget_button,
        window.forget_panel.cancel_button,
    ):
        assert needed in reached
    unnamed = [
        f"{type(w).__name__}:{w.objectName()}"
        for w in reached
        if not w.accessibleName() and not (isinstance(w, QAbstractButton) and w.text())
    ]
    assert unnamed == []


def test_following_the_system_scheme(qtbot, window, monkeypatch, look_back):
    """The offscreen platform has no colour scheme of its own: the system's answer is
    replaced here, and its change signal emitted as a desktop would."""
    from app import theme

    assert window.settings.color_scheme == "system" and _window_lightness() > 0.8
    monkeypatch.setattr(theme, "system_is_dark", lambda: True)
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert _window_lightness() < 0.25
    window.settings.color_scheme = "light"  # a manual choice wins over the system
    window._apply_look()
    assert _window_lightness() > 0.8


def _reddish_pixels(widget: QWidget) -> int:
    image = widget.grab().toImage()
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = image.pixelColor(x, y)
            if pixel.red() - max(pixel.green(), pixel.blue()) > 60:
                count += 1
    return count


def test_a_disabled_delete_button_does_not_look_clickable(qtbot, window):
    """Privacy's Delete with nothing selected is greyed out like any disabled button, not red."""
    privacy = window.open_privacy()
    qtbot.waitUntil(lambda: privacy.isVisible())
    button = privacy.delete_button
    assert not button.isEnabled()
    assert _reddish_pixels(button) == 0
    button.setEnabled(True)
    assert _reddish_pixels(button) > 20


def _stroke_lightness(action) -> float:
    """How light the icon's drawn (opaque) pixels are: 0 black, 1 white."""
    image = action.icon().pixmap(18, 18).toImage()
    values = [
        image.pixelColor(x, y).lightnessF()
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alphaF() > 0.8
    ]
    return max(values)


def test_toolbar_icons_are_light_on_the_dark_scheme(qtbot, window, look_back):
    assert _stroke_lightness(window.new_action) < 0.4  # dark grey strokes on the light scheme
    window.settings.color_scheme = "dark"
    window._apply_look()
    for action in (window.new_action, window.privacy_action, window.settings_action):
        assert _stroke_lightness(action) > 0.6
    window.settings.color_scheme = "light"
    window._apply_look()
    assert _stroke_lightness(window.new_action) < 0.4


def test_the_memory_status_line_in_words():
    from app.status_bar import memory_text
    from engine.records import ConsolidationStatus

    def line(pending: int, running: bool, failed: int = 0) -> str:
        return memory_text(ConsolidationStatus(pending, running, failed, None, 6, 4, 1, 9))

    assert line(0, False) == "6 recent · 1 topic · 9 facts · 0 profile entries · up to date"
    assert line(0, True).endswith("· consolidating")  # not "(0 jobs left)"
    assert line(2, True).endswith("· consolidating (2 jobs)")
    assert line(1, False).endswith("· 1 job queued")
    assert line(0, False, failed=1).endswith("up to date · 1 failed")


def test_the_largest_text_fits_in_settings(qtbot, qapp, look_back):
    """At the largest text size the dialogs grow with the text (within the screen), and the
    fields made for the normal size still hold their values whole."""
    from PySide6.QtWidgets import QAbstractSpinBox

    from app import theme
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    normal = SettingsDialog(AppSettings())
    qtbot.addWidget(normal)
    theme.apply_look(qapp, "light", theme.MAX_SIZE)
    large = SettingsDialog(AppSettings())
    qtbot.addWidget(large)
    large.show()
    qtbot.waitExposed(large)
    room = large.screen().availableGeometry()
    assert large.width() == max(normal.width(), min(2 * normal.width(), room.width() - 40))
    assert large.height() == max(normal.height(), min(2 * normal.height(), room.height() - 60))
    spins = large.findChildren(QAbstractSpinBox)
    assert len(spins) > 10  # the model's and the memory form's
    for spin in spins:
        field = spin.lineEdit()
        shown = field.fontMetrics().horizontalAdvance(field.text())
        assert shown < field.width(), (spin.objectName(), field.text())
    normal.close()
    large.close()


def test_typing_in_the_conversation_writes_a_message_and_shift_esc_goes_back(qtbot, window):
    """Keyboard only: after Tab or a click into the conversation, the letters typed went
    nowhere; Shift+Esc (Chat → Write a message) returns to the message box from anywhere."""
    window.view.browser.setFocus()
    qtbot.keyClicks(window.view.browser, "H")
    assert window.focusWidget() is window.composer.input
    qtbot.keyClicks(window.focusWidget(), "i there")
    assert window.composer.input.toPlainText() == "Hi there"
    window.sidebar.search.setFocus()
    qtbot.keyClick(window.sidebar.search, Qt.Key.Key_Escape, Qt.KeyboardModifier.ShiftModifier)
    assert window.focusWidget() is window.composer.input
    assert window.composer.input.toPlainText() == "Hi there"  # nothing lost on the way
    # Copying from the conversation still works: Ctrl+C is not text to send.
    window.view.browser.setFocus()
    qtbot.keyClick(window.view.browser, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert window.composer.input.toPlainText() == "Hi there"


def _contrast(widget, element, option_class) -> float:
    """The largest lightness difference between the widget's indicator area and the window."""
    option = option_class()
    option.initFrom(widget)
    rect = widget.style().subElementRect(element, option, widget)
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    background = QApplication.palette().color(QPalette.ColorRole.Window).lightnessF()
    return max(
        abs(image.pixelColor(int(x * ratio), int(y * ratio)).lightnessF() - background)
        for x in range(rect.left(), rect.right() + 1)
        for y in range(rect.top(), rect.bottom() + 1)
    )


def test_check_boxes_and_options_are_visible_in_the_dark(qtbot, qapp, look_back):
    """On the dark scheme an unticked box and an unchosen option were dark on dark, and a
    chosen option a faint dot."""
    from PySide6.QtWidgets import (
        QCheckBox,
        QRadioButton,
        QStyle,
        QStyleOptionButton,
        QVBoxLayout,
    )

    from app import theme

    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    panel = QWidget()
    layout = QVBoxLayout(panel)
    box, chosen, other = QCheckBox("Allowed"), QRadioButton("This one"), QRadioButton("That one")
    chosen.setChecked(True)
    for widget in (box, chosen, other):
        layout.addWidget(widget)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    box_at = QStyle.SubElement.SE_CheckBoxIndicator
    option_at = QStyle.SubElement.SE_RadioButtonIndicator
    assert _contrast(box, box_at, QStyleOptionButton) > 0.3
    assert _contrast(other, option_at, QStyleOptionButton) > 0.3
    assert _contrast(chosen, option_at, QStyleOptionButton) > 0.4
    box.setChecked(True)
    assert _contrast(box, box_at, QStyleOptionButton) > 0.4


def test_the_largest_text_keeps_the_toolbar_the_message_box_and_help_whole(
    qtbot, window, look_back
):
    """At the largest size Privacy and Settings fell off the toolbar, the message box kept its
    old height (a clipped line), and Help → Keyboard shortcuts grew taller than the screen."""
    window.resize(980, 720)
    for _ in range(theme_steps()):
        window.bigger_action.trigger()
    bar = window.toolbar
    for action in (window.new_action, window.privacy_action, window.settings_action):
        button = bar.widgetForAction(action)
        assert button.isVisible() and button.geometry().right() <= bar.width(), action.text()
    box = window.composer.input
    assert box.height() >= box.fontMetrics().lineSpacing() + 12
    box.setPlainText("One line")
    assert not box.verticalScrollBar().isVisible()  # a one-line box showed a scroll bar
    dialog = window.show_shortcuts()
    qtbot.waitExposed(dialog)
    room = dialog.screen().availableGeometry()
    assert dialog.frameGeometry().height() <= room.height()
    dialog.accept()
    window.reset_size_action.trigger()
    assert box.height() < 3 * box.fontMetrics().lineSpacing()  # back to one line


def theme_steps() -> int:
    from app import theme

    return theme.MAX_SIZE - theme.BASE_SIZE
