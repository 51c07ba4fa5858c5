"""An administrator's walkthrough of the policy file in the app: a policy broken while the app
runs, the idle minutes it forces, export turned off, and quitting from the lock screen."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.gui_steps import shown_dialog, start_unlocked, unlock
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def policy(tmp_path, monkeypatch):
    """policy(**keys) writes the administrator's policy file with those keys, in force;
    policy(text="...") writes that text as it is (a broken file)."""
    path = tmp_path / "policy.json"
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(path))

    def _write(text: str | None = None, **keys):
        path.write_text(json.dumps(keys) if text is None else text, encoding="utf-8")
        stamp = path.stat().st_mtime + 2  # a new time: the cached policy is read again
        os.utime(path, (stamp, stamp))
        return path

    return _write


def _shown_box(qtbot, window, name: str) -> QMessageBox:
    def box():
        return next((b for b in window.findChildren(QMessageBox)
                     if b.objectName() == name and b.isVisible()), None)  # fmt: skip

    qtbot.waitUntil(lambda: box() is not None, timeout=30_000)
    return box()


def _looks_locked(window) -> None:
    """Nothing decrypted left on screen and nothing that needs the vault offered: the look
    after Lock now."""
    assert window.session is None
    assert window.view.message_count == 0
    assert window.status.vault.text() == "Vault locked"
    assert not window.composer.send_button.isEnabled()
    assert not window.export_action.isEnabled() and not window.lock_action.isEnabled()
    assert window.sidebar.tree.topLevelItemCount() == 0


def test_a_policy_broken_while_the_app_runs_closes_the_vault_again_until_it_is_fixed(
    qtbot, fail_keyring, tmp_path, desktop, policy
):
    from app.settings_store import AppSettings
    from app.vault_dialogs import UnlockDialog

    path = policy(auto_lock_minutes=10)
    window, opener = desktop(tmp_path / "v.memoryos", AppSettings(auto_lock_minutes=15))
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    window.session.mem.add_memory("The clinic's alarm code is 5521", "Noted")
    assert window.auto_lock.minutes == 10

    policy(text='{"auto_lock_minutes": 10,')  # the administrator's edit, cut short
    window.auto_lock.timer.setInterval(20)  # ten minutes, compressed for the test
    window.auto_lock.restart()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as asked:
        pass
    dialog = asked.args[0]
    assert isinstance(dialog, UnlockDialog)
    with qtbot.waitSignal(opener.opened, timeout=30_000) as opened:
        qtbot.keyClicks(dialog.passphrase, PASSPHRASE)
        qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)
    box = _shown_box(qtbot, window, "policyBox")
    assert str(path) in box.text() and "administrator" in box.text()
    _looks_locked(window)
    # the reads the attach began (the sidebar's conversations) come back after it: not drawn
    # (the titles were listed on the locked screen)
    window.pool.wait(10_000)
    QApplication.processEvents()
    _looks_locked(window)
    assert opened.args[0].vault.conn is None  # the vault it opened is closed again
    assert str(path) in window.view.empty.hint.text()  # the window says why it is locked

    policy(auto_lock_minutes=10)  # fixed
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as asked:
        box.button(QMessageBox.StandardButton.Close).click()
    assert isinstance(asked.args[0], UnlockDialog)  # the key is asked for again
    unlock(qtbot, window, asked.args[0], PASSPHRASE)
    assert window.session.mem.pages()[0].user_input == "The clinic's alarm code is 5521"
    assert window.auto_lock.minutes == 10 and window.auto_lock.timer.isActive()
    assert window.lock_action.isEnabled() and window.export_action.isEnabled()


def test_a_broken_policy_at_the_first_open_leaves_a_keyring_vault_locked(
    qtbot, memory_keyring, tmp_path, desktop, policy
):
    path = policy(text='{"export": "no"}')
    window, opener = desktop(tmp_path / "k.memoryos")
    open_fast(opener.path, True, None).close()  # the key goes to the (in-memory) keyring
    opener.start()  # opens silently through the keyring
    box = _shown_box(qtbot, window, "policyBox")
    assert str(path) in box.text() and "export must be true or false" in box.text()
    _looks_locked(window)

    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        box.button(QMessageBox.StandardButton.Close).click()
    locked = shown.args[0]
    assert locked.objectName() == "lockedBox"  # not reopened by itself: Unlock is asked for
    policy(export=False)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        next(b for b in locked.buttons() if b.text() == "Unlock").click()
    assert not window.export_action.isEnabled()  # the policy is in force


def test_a_policy_of_one_idle_minute_is_shown_as_one_minute(qtbot, window, policy):
    policy(auto_lock_minutes=1)
    window.settings.auto_lock_minutes = 0  # the person chose Never; the policy forbids it
    dialog = window.open_settings()
    box = dialog.auto_lock
    assert box.value() == 1 and box.minimum() == box.maximum() == 1
    assert "Never" not in box.text() and box.text().startswith("1")
    assert "1 minutes" not in box.toolTip() and "one minute" in box.toolTip()
    dialog.reject()
    window._apply_policy()
    assert window.auto_lock.minutes == 1
    window.lock()
    said = window.view.empty.hint.text()
    assert "1 minutes" not in said and "one minute" in said


def test_the_idle_minutes_without_a_policy_keep_never_at_zero(qtbot, window, policy):
    policy()  # a policy that decides nothing about locking
    dialog = window.open_settings()
    dialog.auto_lock.setValue(0)
    assert dialog.auto_lock.text() == "Never"
    dialog.auto_lock.setValue(3)
    assert dialog.auto_lock.text() == "3 min"
    dialog.reject()


def test_export_turned_off_says_so_on_its_shortcut_and_its_greyed_entry(
    qtbot, window, policy
):
    path = policy(export=False)
    window._apply_policy()
    assert not window.export_action.isEnabled()  # greyed in the menu
    tip = window.export_action.toolTip()
    assert tip == f"Export is turned off by your administrator ({path})."
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    box = _shown_box(qtbot, window, "exportOffBox")
    assert str(path) in box.text() and "turned off by your administrator" in box.text()
    assert "Back up memory" in box.text()  # what can be done instead
    box.accept()

    policy(export=True)  # allowed again: the entry works and its tooltip is its own again
    window._apply_policy()
    window.export_action.setEnabled(True)
    assert "administrator" not in window.export_action.toolTip()


@pytest.mark.parametrize("after_lock", [False, True])
def test_ctrl_q_quits_from_the_unlock_dialog(qtbot, fail_keyring, tmp_path, desktop, after_lock):
    from app.vault_dialogs import UnlockDialog

    window, opener = desktop(tmp_path / "q.memoryos")
    open_fast(opener.path, True, PASSPHRASE).close()
    dialog = shown_dialog(qtbot, opener, opener.start)
    if after_lock:  # the lock screen: the window locked, its key asked for again
        unlock(qtbot, window, dialog, PASSPHRASE)
        dialog = shown_dialog(qtbot, opener, window.lock_now)
    assert isinstance(dialog, UnlockDialog)
    qtbot.keyClicks(dialog.passphrase, "half typed")
    qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.closing and not window.isVisible())
    assert not dialog.isVisible()
