"""What a new-user walkthrough found in the look and the layout: disabled main buttons that
could not be read in the dark, a window grown off the screen by large text, a demo banner
taking the conversation's height, and Ctrl+B losing the place in the conversation."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDialogButtonBox, QPushButton

from tests.gui_steps import contrast_ratio
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


# --- 1. disabled primary buttons ------------------------------------------------------


def _look(button: QPushButton) -> tuple[QColor, float]:
    """The button as drawn: its face (the commonest colour inside its border) and how far its
    text stands out from it (the contrast of the text's strongest pixel)."""
    image = button.grab().toImage()
    inside = [
        image.pixelColor(x, y)
        for y in range(4, image.height() - 4)
        for x in range(4, image.width() - 4)
    ]
    face = QColor(Counter(c.rgb() for c in inside).most_common(1)[0][0])
    return face, max(contrast_ratio(face, c) for c in inside)


def test_disabled_primary_buttons_read_in_both_schemes(qtbot, qapp, tmp_path, look_back):
    """Switch memory's Open (nothing to open yet) and a main button such as "Create my vault",
    disabled: white text on pale purple in the light scheme (1.6:1), dark text on dark purple
    in the dark one (1.3:1). Now 3:1 at least, and plainly not the solid button they become."""
    from app import theme
    from app.vault_switch import SwitchVaultDialog

    empty = tmp_path / "no vaults"
    empty.mkdir()
    for scheme in ("light", "dark"):
        theme.apply_look(qapp, scheme, theme.BASE_SIZE)
        dialog = SwitchVaultDialog("default", folder=empty)  # no memory to open: Open disabled
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        create = QPushButton("Create my vault", objectName="primary")  # as the vault dialogs'
        qtbot.addWidget(create)
        create.show()
        qtbot.waitExposed(create)
        opening = dialog.buttons.button(QDialogButtonBox.StandardButton.Open)
        assert not opening.isEnabled()
        for button in (opening, create):
            button.setEnabled(True)
            enabled, _ = _look(button)
            button.setEnabled(False)
            face, text = _look(button)
            assert text >= 3.0, (scheme, button.text(), face.name(), round(text, 2))
            assert contrast_ratio(face, enabled) >= 2.0, (scheme, button.text(), face.name())
        dialog.close()
        create.close()


# --- 2. the window within the screen at the largest text ------------------------------


def _on_screen(window) -> bool:
    return window.screen().availableGeometry().contains(window.frameGeometry())


def test_larger_text_never_pushes_the_window_off_the_screen(qtbot, window, look_back):
    """Placed towards the screen's right and bottom, Ctrl+= grew the window past the screen's
    edges (the status line's right end off it); Ctrl+0 left it grown."""
    from app import theme

    room = window.screen().availableGeometry()
    window.resize(600, 450)
    start = QPoint(room.right() - 640, room.bottom() - 500)
    window.move(start)
    qtbot.waitUntil(lambda: window.pos() == start and window.width() == 600)
    assert _on_screen(window)
    while window.settings.text_size < theme.MAX_SIZE:
        window.bigger_action.trigger()
        qtbot.wait(10)
        assert _on_screen(window), (window.settings.text_size, window.frameGeometry(), room)
        assert window.minimumWidth() <= room.width() and window.minimumHeight() <= room.height()
    assert window.size().toTuple() > (600, 450)  # it did grow for the text
    status = window.status
    qtbot.waitUntil(lambda: status.isVisible())
    assert QRect(QPoint(0, 0), window.size()).contains(
        QRect(status.mapTo(window, QPoint(0, 0)), status.size())
    )
    window.reset_size_action.trigger()  # Ctrl+0: as it was before the app grew it
    assert window.minimumSize().toTuple() == (560, 420)
    qtbot.waitUntil(lambda: window.size().toTuple() == (600, 450) and window.pos() == start)

    # Sized by the person once grown, it stays as they left it.
    for _ in range(4):
        window.bigger_action.trigger()
    window.resize(window.width() + 20, window.height())
    qtbot.waitUntil(lambda: window.width() > 620)
    kept = window.size()
    window.reset_size_action.trigger()
    assert window.size() == kept and window.minimumSize().toTuple() == (560, 420)


# --- 3. the demo banner: short where room is short, and it can be closed ---------------


def _smallest_window(qtbot, window) -> None:
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    qtbot.wait(20)  # the layouts' requests, posted by the resize, are handled


@pytest.mark.parametrize("largest", [False, True], ids=["normal text", "largest text"])
def test_the_demo_banner_leaves_the_conversation_its_height(
    qtbot, window, largest, look_back
):
    """At the smallest window the banner took 118 of 420 px (260 of 740 at the largest
    text): a line now, all of it behind "Why?"."""
    from app import theme

    if largest:
        while window.settings.text_size < theme.MAX_SIZE:
            window.bigger_action.trigger()
    _smallest_window(qtbot, window)
    banner, view = window.demo_banner, window.view
    qtbot.waitUntil(banner.isVisible)
    qtbot.wait(20)  # its arrangement for the new size is in
    assert banner.height() <= window.height() / 5, (banner.height(), window.height())
    assert view.height() >= 2 * banner.height(), (view.height(), banner.height())
    assert banner.why.isVisible()
    assert "demo model" in banner.text.text() and banner.button.isVisible()
    short = banner.text.text()
    banner.why.click()  # all of it, on asking
    qtbot.waitUntil(lambda: banner.text.text() != short)
    assert "SmolLM2-135M" in banner.text.text()
    banner.why.click()
    qtbot.waitUntil(lambda: banner.text.text() == short)
    window.resize(800, 740)  # room: all of it, no "Why?"
    if not largest:
        qtbot.waitUntil(lambda: not banner.why.isVisible())
        assert "SmolLM2-135M" in banner.text.text()


@pytest.mark.parametrize("largest", [False, True], ids=["normal text", "largest text"])
def test_the_demo_banner_is_two_lines_high_at_the_smallest_window(
    qtbot, window, largest, look_back
):
    """At the smallest window its short text took four lines beside "Why?" and "Choose a
    model…" (68 of 420 px), and two lines above them at the largest text (108 of 740). Now at
    most two lines of text beside them, or one above them where they do not fit beside it;
    it still says "demo model", whole, and both buttons work by mouse and by keyboard."""
    from PySide6.QtGui import QAccessible

    from app import theme

    if largest:
        while window.settings.text_size < theme.MAX_SIZE:
            window.bigger_action.trigger()
    _smallest_window(qtbot, window)
    banner = window.demo_banner
    qtbot.waitUntil(banner.isVisible)
    qtbot.wait(20)  # its arrangement for the new size is in
    line = banner.text.fontMetrics().lineSpacing()
    row = max(banner.button.height(), banner.close_button.height())
    most = line + row + 10 if largest else 2 * line + 10  # 10: its margins and a little
    assert banner.height() <= most, (banner.height(), line, row)
    text = banner.text
    assert "demo model" in text.text() and "…" not in text.text()
    assert text.heightForWidth(text.width()) <= text.height()  # none of it cut off
    for button, name in ((banner.why, "Why?"), (banner.button, "Choose a model…")):
        face = QAccessible.queryAccessibleInterface(button)
        assert face.text(QAccessible.Text.Name) == name  # what a screen reader says
        assert button.toolTip()
        assert button.width() >= button.sizeHint().width()  # its label is whole
        center = button.rect().center()
        assert window.childAt(button.mapTo(window, center)) is button  # nothing covers it
        assert button.focusPolicy() & Qt.FocusPolicy.TabFocus
    assert "Choose a model…" in banner.button.text() + banner.button.toolTip()  # "Choose…"
    with qtbot.waitSignal(banner.choose_requested):
        qtbot.mouseClick(banner.button, Qt.MouseButton.LeftButton)
    window.panels["model_step"].reject()
    with qtbot.waitSignal(banner.choose_requested):
        qtbot.keyClick(banner.button, Qt.Key.Key_Space)
    window.panels["model_step"].reject()
    short = text.text()
    qtbot.keyClick(banner.why, Qt.Key.Key_Space)  # all of it, by keyboard
    qtbot.waitUntil(lambda: "SmolLM2-135M" in text.text())
    qtbot.mouseClick(banner.why, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: text.text() == short)

    window.resize(1100, 720)  # an ordinary window: the button's whole label
    qtbot.waitUntil(lambda: banner.button.text() == "Choose a model…")
    if not largest:
        qtbot.waitUntil(lambda: "SmolLM2-135M" in text.text())
        assert banner.mark.isVisible() and not banner.why.isVisible()


def test_the_demo_banner_closes_for_that_model_only(qtbot, memory, chat):
    """× hides the banner and the settings remember it for the bundled model (a new window
    does not show it); a served tiny model, chosen later, has its banner again."""
    from app.main_window import MainWindow
    from app.session import READY
    from app.settings_store import load_settings
    from models.catalogue import bundled_gguf_path

    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    banner = window.demo_banner
    assert banner.isVisible()
    qtbot.mouseClick(banner.close_button, Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    assert load_settings().banner_closed_for == "bundled"
    window.close()

    again = MainWindow.for_memory(memory, chat, settings=load_settings())
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert not again.demo_banner.isVisible()
    tiny = str(bundled_gguf_path())
    with ChatServer([tiny], ["Hi"]) as server:
        again._settings_applied(dataclasses.replace(
            again.settings, model_source="openai", server_url=server.url, server_model=tiny,
        ), True)  # fmt: skip
        qtbot.waitUntil(lambda: again.session.state == READY
                        and getattr(again.session.mem.chat, "model", None) == tiny,
                        timeout=10_000)  # fmt: skip
        assert again.demo_banner.isVisible() and "135M" in again.demo_banner.text.text()
        again._settings_applied(dataclasses.replace(again.settings, model_source="bundled"),
                                True)  # fmt: skip
        assert not again.demo_banner.isVisible()  # closed for this one, still
    again.close()


# --- 4. Ctrl+B keeps the place in the conversation ------------------------------------


LONG = (
    "A longer answer that wraps over several lines, so that a narrower or a wider view "
    "changes how tall each message is drawn: {n}. " * 4
)


def _top(view) -> tuple[int, int, int]:
    """The message at the top of the view (its index), the text position there, and where
    that position's line is drawn now."""
    from PySide6.QtGui import QTextCursor

    browser = view.browser
    position = browser.cursorForPosition(QPoint(0, 0)).position()
    (index,) = [
        i for i, m in enumerate(view.messages)
        if m.frame.firstPosition() <= position <= m.frame.lastPosition() + 1
    ]
    cursor = QTextCursor(browser.document())
    cursor.setPosition(position)
    return index, position, browser.cursorRect(cursor).top()


def test_ctrl_b_keeps_the_conversation_where_it_was(qtbot, window):
    """Hiding or showing the sidebar changes the conversation's width; the same scroll value
    then showed another message at the top. It stays now, and the end stays the end."""
    window.resize(780, 700)
    window.toggle_sidebar(True)
    view = window.view
    for n in range(30):
        view.add_user_message(f"Question {n}?")
        view.add_assistant_message(LONG.format(n=n))
    bar = view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    qtbot.wait(20)  # its scrolls to the end, once the layout has caught up, are done
    view.scroll_to(view.messages[24])
    bar.setValue(bar.value() + 30)  # a line into it
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    for _ in range(2):  # hidden, then shown again
        before = _top(view)
        width = view.browser.viewport().width()
        qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: view.browser.viewport().width() != width)  # noqa: B023
        qtbot.wait(30)
        index, _position, top = _top(view)
        assert index == before[0], (before, _top(view))
        assert abs(top - before[2]) <= 2, (before, _top(view))
    window.toggle_sidebar(False)
    qtbot.wait(30)
    bar.setValue(bar.maximum())  # at the end: showing the sidebar wraps it taller
    width = view.browser.viewport().width()
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.browser.viewport().width() < width)
    qtbot.wait(30)
    assert bar.value() == bar.maximum()
