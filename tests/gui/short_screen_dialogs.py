"""The dialogs on a short screen, run by test_gui_small_screen.py in a child process whose
only screen is the short one (the offscreen platform's screen is set when the application
starts; its name keeps the whole suite from collecting it on the test screen). Each dialog's
minimum size is no more than the screen, its buttons and fields can be brought whole on the
screen (scrolling where it scrolls) at the size it opens and at its smallest, and its lines
are not cut as it opens."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from app.status_bar import ElidedLabel
from tests.gui_steps import keep_looking

pytestmark = pytest.mark.gui

SCREEN = os.environ.get("MEMORYOS_TEST_SCREEN", "")  # "1024x560": the child's screen
if not SCREEN:
    pytest.skip("run by test_gui_small_screen.py on a short screen", allow_module_level=True)
TEXT_SIZE = os.environ.get("MEMORYOS_TEST_TEXT_SIZE", "")  # the child's text size
SHOTS = os.environ.get("MEMORYOS_SCREENSHOTS")  # a folder: each dialog is saved there too


@pytest.fixture
def text_size(qapp, window):
    """The child's text size, as Ctrl+= pressed until it is reached makes it (and as it is
    when the app starts with it remembered); back to normal after."""
    from app import theme

    size = int(TEXT_SIZE or theme.BASE_SIZE)
    window.set_text_size(size - window.settings.text_size)
    assert theme.scale == size / theme.BASE_SIZE
    wanted = tuple(int(n) for n in SCREEN.split("x"))  # that screen, or it proves nothing
    assert qapp.primaryScreen().availableGeometry().size().toTuple() == wanted
    yield size
    theme.apply_look(qapp, "light", theme.BASE_SIZE)


# --- what "fits" means ------------------------------------------------------------------


def _settle() -> None:
    """The layouts' pending requests handled (each may post the next)."""
    for _ in range(6):
        QApplication.sendPostedEvents(None, 0)  # 0: every kind of posted event
        QApplication.processEvents()


def _screen_rect(widget: QWidget, rect: QRect | None = None) -> QRect:
    rect = widget.rect() if rect is None else rect
    return QRect(widget.mapToGlobal(rect.topLeft()), rect.size())


def _name(widget: QWidget) -> str:
    return widget.objectName() or getattr(widget, "text", lambda: "")() or type(widget).__name__


def _cut(widget: QWidget, part: QRect | None = None) -> str:
    """Why `part` of the widget (all of it by default) is not on screen to click ("" if it is):
    hidden, cut off by a parent, covered, or off the screen."""
    part = widget.rect() if part is None else part
    name = _name(widget)
    if not widget.isVisible():
        return f"{name!r} is hidden"
    if not QRegion(part).subtracted(widget.visibleRegion()).isEmpty():
        return f"{name!r} is cut: {widget.visibleRegion().boundingRect()} of {part}"
    room = widget.screen().availableGeometry()
    if not room.contains(_screen_rect(widget, part)):
        return f"{name!r} is off the screen: {_screen_rect(widget, part)} on {room}"
    return ""


def _squeezed_text(page: QWidget) -> list[str]:
    """The labels shown on `page` too small for their text: a wrapped one shorter than its
    lines, a one-line one narrower than its text (a dialog's least height counts no wrapped
    line: at a large text size the first run cut its warning to half a line)."""
    problems = []
    for label in page.findChildren(QLabel):
        if not label.isVisibleTo(page) or not label.text() or isinstance(label, ElidedLabel):
            continue
        if label.wordWrap():
            need, have = label.heightForWidth(label.width()), label.height()
        else:
            need, have = label.minimumSizeHint().width(), label.width()
        if need > have + 1:
            problems.append(f"{label.text()[:40]!r} is cut: {have} px of {need}")
    return problems


def _fields(page: QWidget) -> list[QWidget]:
    """What a person clicks or types in, shown on `page` (an item view's own rows aside)."""
    kinds = (QAbstractButton, QLineEdit, QAbstractSpinBox, QComboBox)
    found = []
    for widget in page.findChildren(QWidget):
        if not isinstance(widget, kinds) or not widget.isVisibleTo(page):
            continue
        if isinstance(widget.parent(), (QLineEdit, QComboBox, QAbstractSpinBox)):
            continue  # a part of its field: the text of a box, a field's clear button
        parent, inside_view = widget.parentWidget(), False
        while parent is not None and parent is not page:
            inside_view = inside_view or isinstance(parent, QAbstractItemView)
            parent = parent.parentWidget()
        if not inside_view:
            found.append(widget)
    return found


def _scroll_to(scroll: QScrollArea, field: QWidget) -> None:
    """Scroll as a person would until all of `field` is in view, where it can be (Qt's
    ensureWidgetVisible shows only a text field's cursor)."""
    corner = field.mapTo(scroll.widget(), QPoint(0, 0))
    for bar, start, length, room in (
            (scroll.horizontalScrollBar(), corner.x(), field.width(), scroll.viewport().width()),
            (scroll.verticalScrollBar(), corner.y(), field.height(), scroll.viewport().height())):
        if start < bar.value() or length > room:
            bar.setValue(start)
        elif start + length > bar.value() + room:
            bar.setValue(start + length - room)
    _settle()


def _unreachable(page: QWidget) -> list[str]:
    """The fields of `page` that cannot be brought on screen whole, scrolling if need be (the
    part that reads: a radio button stretched across a wide page needs its text, not all)."""
    problems = []
    for field in _fields(page):
        scroll = field.parentWidget()
        while scroll is not None and not isinstance(scroll, QScrollArea):
            scroll = scroll.parentWidget()
        if scroll is not None:
            _scroll_to(scroll, field)
        part = QRect(QPoint(0, 0), field.sizeHint().boundedTo(field.size()))
        if problem := _cut(field, part):
            problems.append(problem)
        elif field.height() < field.minimumSizeHint().height():
            problems.append(f"{_name(field)!r} is squeezed: {field.height()} px tall of "
                            f"{field.minimumSizeHint().height()}")
    return problems


def _pages(dialog: QWidget) -> Iterator[tuple[str, QWidget]]:
    """The dialog itself, or each page of its tabs in turn, shown while it is looked at."""
    tabs = dialog.findChild(QTabWidget)
    if tabs is None:
        yield "", dialog
        return
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)
        _settle()
        yield tabs.tabText(index), tabs.widget(index)


def _shot(dialog: QWidget, name: str) -> None:
    if SHOTS:
        dialog.grab().save(str(Path(SHOTS) / f"{name}.png"))


def _fits(dialog: QWidget, buttons: list[QAbstractButton], name: str) -> list[str]:
    """Why the dialog does not fit its screen, as opened and at its smallest ([] if it does)."""
    _settle()
    room = dialog.screen().availableGeometry()
    problems = []
    least = dialog.minimumSize().expandedTo(dialog.minimumSizeHint())
    if least.width() > room.width() or least.height() > room.height():
        problems.append(f"its least size {least.toTuple()} is more than the screen's "
                        f"{room.size().toTuple()}")
    for state in ("as opened", "at its smallest"):
        if state == "at its smallest":
            dialog.resize(dialog.minimumSize())
            _settle()
        _shot(dialog, f"{name} {state}")
        if not room.contains(dialog.frameGeometry()):
            problems.append(f"{state}: {dialog.frameGeometry()} is not inside {room}")
        if dialog.width() < dialog.minimumSizeHint().width() or (
                dialog.height() < dialog.minimumSizeHint().height()):
            problems.append(f"{state}: {dialog.size().toTuple()} squeezes its contents "
                            f"({dialog.minimumSizeHint().toTuple()})")
        problems += [f"{state}: {problem}" for button in buttons if (problem := _cut(button))]
        for tab, page in _pages(dialog):
            # at its smallest Qt lets a window be shorter than its wrapped lines: not asked
            text = _squeezed_text(page) if state == "as opened" else []
            problems += [f"{state}, {tab or 'its page'}: {problem}"
                         for problem in text + _unreachable(page)]
    return problems


def _box_buttons(dialog: QWidget) -> list[QAbstractButton]:
    return [b for box in dialog.findChildren(QDialogButtonBox) for b in box.buttons()]


# --- the dialogs ------------------------------------------------------------------------


def _settings_sideways(dialog: QWidget) -> list[str]:
    """The Settings tabs whose page is wider than what shows it (its ends cut off, reached only
    sideways: at the largest text on a 1366x768 screen scaled by 1.5 the Model tab's choices,
    the Memory tab's second column); each tab saved as it opens and at its end."""
    problems = []
    for tab, page in _pages(dialog):
        _shot(dialog, f"settings {tab}")
        if not isinstance(page, QScrollArea):
            continue
        page.verticalScrollBar().setValue(page.verticalScrollBar().maximum())
        _settle()
        _shot(dialog, f"settings {tab} at its end")
        page.verticalScrollBar().setValue(0)
        if page.widget().width() > page.viewport().width():
            problems.append(f"{tab}: {page.widget().width()} px wide in "
                            f"{page.viewport().width()}")
    return problems


def test_settings_fits_the_screen_and_saves_or_cancels(qtbot, text_size, window, memory):
    """Each tab, the Model tab with a server's fields open (its tallest); then Cancel works."""
    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: not dialog.pool.active, timeout=10_000)  # its look-ups answered
    dialog.server.setChecked(True)
    buttons = _box_buttons(dialog)
    assert [b.text().replace("&", "") for b in buttons] == ["Save", "Cancel"]
    problems = _fits(dialog, buttons, "settings") + _settings_sideways(dialog)
    assert problems == [], "\n".join(problems)
    cancel = buttons[1]
    with qtbot.waitSignal(dialog.rejected):
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton, pos=cancel.rect().center())
    dialog.pool.wait(5000)


def test_the_model_step_fits_the_screen(qtbot, text_size, window):
    """The table gives way: "Use this model" and "Keep …" stay on the screen."""
    dialog = window.open_model_step()
    qtbot.waitExposed(dialog)
    assert _fits(dialog, [dialog.later_button, dialog.picker.use_button], "model step") == []
    with qtbot.waitSignal(dialog.rejected):
        qtbot.mouseClick(dialog.later_button, Qt.MouseButton.LeftButton)


def test_the_model_step_with_a_server_address_fits_the_screen(qtbot, text_size, window):
    """With "Add a server address…" open: "List its models" was squeezed (43 px tall of 46) at
    the largest text on a 1366x768 screen scaled by 1.5. Where the screen is too short for it
    all, the texts and the table scroll (each field is scrolled to, whole, by _fits)."""
    dialog = window.open_model_step()
    qtbot.waitExposed(dialog)
    dialog.address.open_button.click()
    buttons = [dialog.later_button, dialog.picker.use_button, dialog.address.open_button]
    problems = _fits(dialog, buttons, "model step with a server address")
    assert problems == [], "\n".join(problems)
    with qtbot.waitSignal(dialog.rejected):
        qtbot.mouseClick(dialog.later_button, Qt.MouseButton.LeftButton)


@pytest.mark.parametrize("panel", ["inspector", "privacy"])
def test_the_memory_panels_fit_the_screen(qtbot, text_size, window, memory, panel):
    for number in range(6):
        memory.add_memory(f"I keep bees number {number} on the roof.", "Noted.")
    memory.run_consolidation()
    dialog = window.open_inspector() if panel == "inspector" else window.open_privacy()
    qtbot.waitExposed(dialog)
    qtbot.waitSignal(dialog.refreshed, timeout=5000).wait()
    buttons = [b for b in dialog.findChildren(QAbstractButton)
               if b.text() == "Close" and b.isVisible()]
    problems = _fits(dialog, buttons, panel)
    assert problems == [], "\n".join(problems)
    dialog.close()


def test_the_keyboard_shortcuts_fit_the_screen(qtbot, text_size, window):
    dialog = window.show_shortcuts()
    qtbot.waitExposed(dialog)
    assert _fits(dialog, _box_buttons(dialog), "shortcuts") == []
    dialog.accept()


@pytest.mark.parametrize("kind", ["keyring", "passphrase", "unlock", "switch"])
def test_the_vault_dialogs_fit_the_screen(qtbot, text_size, window, home, kind):
    """The first run (a keyring, or a passphrase typed twice) with its longest lines shown,
    the unlock after a wrong passphrase, and Switch memory among several."""
    from app.vault_dialogs import FirstRunDialog, UnlockDialog
    from app.vault_switch import SwitchVaultDialog
    from engine.vault.keys import KeyringStatus

    path = home / "vaults" / "default.memoryos"
    if kind == "switch":
        path.parent.mkdir(parents=True, exist_ok=True)
        for name in ("default", "work", "Alex", "family photos and taxes"):
            path.with_name(f"{name}.memoryos").write_bytes(b"\0" * 4096)
        dialog = SwitchVaultDialog("default", window, folder=path.parent)
        buttons = _box_buttons(dialog)
    elif kind == "unlock":
        dialog = UnlockDialog(path, lambda *_: None, window.pool, window)
        dialog.other_button.show()
        buttons = [dialog.other_button, dialog.quit_button, dialog.unlock_button]
    else:
        usable = kind == "keyring"
        status = KeyringStatus(usable, "SecretService Keyring" if usable else "fail Keyring",
                               "" if usable else "no password store answers on this system")
        dialog = FirstRunDialog(path, status, lambda *_: None, window.pool, window)
        dialog.say_erased("family photos and taxes")
        dialog.other_button.show()
        buttons = [dialog.other_button, dialog.quit_button, dialog.create_button]
    dialog.show()
    qtbot.waitExposed(dialog)
    if kind == "unlock":
        dialog.show_error("That passphrase does not unlock this vault. Nothing was changed; "
                          "try again.")
    elif kind == "passphrase":
        qtbot.keyClicks(dialog.passphrase, "short")
        qtbot.keyClicks(dialog.confirm, "other")
        assert dialog.error.isVisible()
    assert _fits(dialog, buttons, f"vault {kind}") == []
    dialog.reject()


def test_erase_everything_fits_the_screen(qtbot, text_size, window):
    from app.export import EraseDialog

    dialog = EraseDialog("family photos and taxes", window)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert _fits(dialog, _box_buttons(dialog), "erase") == []
    dialog.reject()


def test_export_and_import_say_so_on_the_screen(qtbot, text_size, window, memory, tmp_path):
    """The progress and the message after an export, and after a restore from it."""
    from app.export import export_memory
    from app.importer import import_transcript

    memory.add_memory("I keep bees on the roof.", "Noted.")
    target = tmp_path / "export.json"
    for title, start in (("Export", lambda: export_memory(window, window.session, str(target))),
                         ("Restore", lambda: import_transcript(window, window.session,
                                                               str(target)))):
        start()
        qtbot.waitUntil(lambda title=title: any(
            b.windowTitle() == title and b.isVisible() for b in window.findChildren(QMessageBox)),
            timeout=10_000)
        box = next(b for b in window.findChildren(QMessageBox)
                   if b.windowTitle() == title and b.isVisible())
        assert _fits(box, box.buttons(), title.lower()) == []
        box.accept()


def test_the_forget_preview_fits_the_screen(qtbot, text_size, window, memory):
    """Many facts learned from one conversation: the preview names what fits, counts the rest,
    and its Forget and Cancel stay on the screen."""
    for number in range(14):
        memory.add_memory(f"I keep bees number {number} on the roof of the house.", "Noted.")
    memory.run_consolidation()
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: panel.conversation_tree.topLevelItemCount() == 1)
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.topLevelItem(0).setSelected(True)
    seen: dict = {}

    def look() -> bool:
        boxes = [b for b in panel.findChildren(QMessageBox)
                 if b.objectName() == "forgetPreview" and b.isVisible()]
        if not boxes:
            return False
        box = boxes[-1]
        seen["problems"] = _fits(box, box.buttons(), "forget preview")
        seen["text"] = box.text()
        next(b for b in box.buttons() if b.text() == "Cancel").click()
        return True

    keep_looking(look)
    panel.forget_conversations()
    qtbot.waitUntil(lambda: "text" in seen, timeout=5000)
    assert seen["problems"] == []
    assert "I keep bees number" in seen["text"] and "more</li>" in seen["text"]
    assert len(memory.pages()) == 14  # Cancel kept everything
    panel.close()
