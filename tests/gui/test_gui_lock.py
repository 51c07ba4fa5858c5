"""Esc on the first-run and unlock dialogs is not Quit; Lock now (Ctrl+L, or a click on the
padlock) does what the idle lock does; a locked window keeps no search term."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from tests.gui_steps import answering_a_long_story, shown_dialog, start_unlocked, unlock
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def app(desktop, tmp_path):
    """The desktop app as it starts (window and vault opener) on a passphrase vault."""
    return desktop(tmp_path / "v.memoryos")


def _unlock(qtbot, window, dialog) -> None:
    unlock(qtbot, window, dialog, PASSPHRASE)


def _press_escape(qtbot, dialog):
    """Esc where the person's keys go: in the passphrase field, and on the dialog itself."""
    qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Escape)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)


def test_esc_on_the_first_run_dialog_does_not_quit(qtbot, app, fail_keyring):
    from app.vault_dialogs import FirstRunDialog

    window, opener = app
    dialog = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(dialog, FirstRunDialog)
    qtbot.keyClicks(dialog.passphrase, PASSPHRASE)
    qtbot.keyClicks(dialog.confirm, PASSPHRASE)

    with qtbot.assertNotEmitted(opener.cancelled):
        _press_escape(qtbot, dialog)
        qtbot.keyClick(dialog.confirm, Qt.Key.Key_Escape)

    assert dialog.isVisible() and window.isVisible() and not window.closing
    assert dialog.passphrase.text() == dialog.confirm.text() == PASSPHRASE  # nothing lost
    # Quit is still its button: the app quits.
    with qtbot.waitSignal(opener.cancelled):
        qtbot.mouseClick(dialog.quit_button, Qt.MouseButton.LeftButton)
    assert window.closing and not window.isVisible()


def test_esc_on_the_unlock_dialog_does_not_quit_at_start_or_after_the_idle_lock(
    qtbot, app, fail_keyring
):
    from app.vault_dialogs import UnlockDialog

    window, opener = app
    open_fast(opener.path, True, PASSPHRASE).close()
    dialog = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(dialog, UnlockDialog)
    qtbot.keyClicks(dialog.passphrase, "correct horse")
    with qtbot.assertNotEmitted(opener.cancelled):
        _press_escape(qtbot, dialog)
    assert dialog.isVisible() and window.isVisible() and not window.closing
    assert dialog.passphrase.text() == "correct horse"
    _unlock(qtbot, window, dialog)

    again = shown_dialog(qtbot, opener, window.lock)  # the idle lock: the key is asked for again
    assert isinstance(again, UnlockDialog)
    qtbot.keyClicks(again.passphrase, "correct")
    with qtbot.assertNotEmitted(opener.cancelled):
        _press_escape(qtbot, again)
    assert again.isVisible() and window.isVisible() and not window.closing
    assert again.passphrase.text() == "correct"
    assert window.view.empty.title.text() == "MemoryOS locked itself"
    # Closing the dialog's window still quits, as its Quit button does.
    with qtbot.waitSignal(opener.cancelled):
        again.close()
    assert window.closing


def test_lock_now_does_what_the_idle_lock_does(qtbot, app, fail_keyring, send):
    from app.vault_dialogs import UnlockDialog

    window, opener = app
    action = window.lock_action
    file_menu = window.menuBar().actions()[0].menu()
    assert action in file_menu.actions()
    assert action.shortcut() == QKeySequence("Ctrl+L")
    assert not action.isEnabled()  # no vault open yet
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    assert action.isEnabled()
    send(window, "My dog is called Biscuit")
    mem = window.session.mem

    asked = shown_dialog(qtbot, opener, action.trigger)

    assert isinstance(asked, UnlockDialog)  # the key is asked for again
    assert window.session is None and mem.vault.conn is None  # the vault is closed
    assert window.view.message_count == 0  # nothing decrypted left on screen
    assert not window.composer.send_button.isEnabled()
    assert window.status.vault.text() == "Vault locked"
    assert window.view.empty.title.text() == "MemoryOS is locked"
    assert not action.isEnabled()  # already locked
    assert not window.auto_lock.timer.isActive()
    _unlock(qtbot, window, asked)
    assert action.isEnabled()
    qtbot.waitUntil(lambda: "Biscuit" in window.view.plain_text())  # back where it was


def test_ctrl_l_locks_and_the_padlock_too(qtbot, app, fail_keyring):
    from PySide6.QtWidgets import QApplication

    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)

    dialog = shown_dialog(qtbot, opener, lambda: qtbot.keyClick(
        window.composer.input, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier))
    assert window.session is None
    _unlock(qtbot, window, dialog)

    padlock = window.status.vault_icon
    assert padlock.toolTip() == "Lock now (Ctrl+L)"
    shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(padlock, Qt.MouseButton.LeftButton))
    assert window.session is None
    assert padlock.toolTip() == ""  # nothing to lock any more


def test_lock_now_while_an_answer_streams_stops_it_keeps_it_then_locks(qtbot, window, chat):
    answering_a_long_story(qtbot, window, chat, "A long story " * 40)

    ended: list = []
    window.answer_finished.connect(ended.append)
    with qtbot.waitSignal(window.locked, timeout=10_000):
        window.lock_action.trigger()

    assert window.session is None and window.view.message_count == 0
    qtbot.waitUntil(lambda: len(ended) == 1)
    answer = ended[0]
    assert answer.stopped and answer.page is not None  # what was said so far was stored
    assert 0 < len(answer.text) < len("A long story " * 40)


def test_a_locked_window_keeps_no_search_term(qtbot, window, memory):
    sidebar = window.sidebar
    memory.add_memory("My dog is called Biscuit", "What a good name.")
    with qtbot.waitSignal(sidebar.searched):
        qtbot.keyClicks(sidebar.search, "Biscuit")
    assert "Biscuit" in sidebar.results.toPlainText()

    window.lock()  # the idle lock (Lock now takes the same path)

    assert sidebar.search.text() == ""
    assert sidebar.results.toPlainText() == ""
    assert sidebar.stack.currentWidget() is sidebar.tree and sidebar.tree.topLevelItemCount() == 0
    with qtbot.assertNotEmitted(sidebar.searched, wait=400):
        pass  # no search queued before the lock draws its results afterwards


def test_after_unlocking_at_start_typing_goes_into_the_message_box(qtbot, app, fail_keyring):
    """Focus went to the conversation search (the first control), so the first words typed
    searched the conversations instead of becoming a message."""
    window, opener = app
    open_fast(opener.path, True, PASSPHRASE).close()
    dialog = shown_dialog(qtbot, opener, opener.start)
    _unlock(qtbot, window, dialog)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    qtbot.waitUntil(lambda: window.focusWidget() is window.composer.input)
    window.activateWindow()
    qtbot.keyClicks(window.focusWidget(), "hello")
    assert window.composer.input.toPlainText() == "hello" and not window.sidebar.search.text()
