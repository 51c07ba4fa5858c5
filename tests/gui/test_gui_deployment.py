"""Auto-lock asks for the key again after idle minutes; the policy file shows settings locked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.gui_steps import start_unlocked, unlock
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
SHOTS = os.environ.get("MEMORYOS_SCREENSHOTS")


def test_idle_minutes_lock_the_vault_and_the_key_is_asked_again(
    qtbot, fail_keyring, tmp_path, desktop
):
    from app.settings_store import AppSettings
    from app.vault_dialogs import UnlockDialog

    window, opener = desktop(tmp_path / "v.memoryos", AppSettings(auto_lock_minutes=15))
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    mem = window.session.mem
    mem.add_memory("I keep my spare key under the blue pot", "Noted")
    assert mem.retrieve("spare key").page_ids()  # the vector mirror now holds decrypted rows
    assert mem.page_mirror.held_bytes() > 0
    assert window.auto_lock.minutes == 15 and window.auto_lock.timer.isActive()

    window.auto_lock.timer.setInterval(20)  # fifteen minutes, compressed for the test
    window.auto_lock.restart()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as asked:
        pass
    assert isinstance(asked.args[0], UnlockDialog)  # the key is asked for again
    assert window.session is None and mem.vault.conn is None  # the vault is closed
    assert mem.page_mirror.held_bytes() == 0  # decrypted vectors dropped
    assert window.view.message_count == 0  # nothing decrypted left on screen
    assert not window.composer.send_button.isEnabled()
    unlock(qtbot, window, asked.args[0], PASSPHRASE)
    assert window.session.mem.pages()[0].user_input == "I keep my spare key under the blue pot"


def test_a_keyring_vault_stays_locked_until_the_person_unlocks_it(
    qtbot, memory_keyring, tmp_path, desktop
):
    from PySide6.QtWidgets import QMessageBox

    from app.settings_store import AppSettings

    window, opener = desktop(tmp_path / "k.memoryos", AppSettings(auto_lock_minutes=15))
    open_fast(opener.path, True, None).close()  # the key goes to the (in-memory) keyring
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()  # opens silently through the keyring
    window.session.mem.add_memory("My locker code is 4471", "Noted")
    window.auto_lock.timer.setInterval(20)
    window.auto_lock.restart()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        pass
    box = shown.args[0]
    assert isinstance(box, QMessageBox) and box.objectName() == "lockedBox"
    with qtbot.assertNotEmitted(window.session_attached, wait=300):
        pass  # the keyring could reopen it at once: it must not
    assert window.session is None and window.view.message_count == 0
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        next(b for b in box.buttons() if b.text() == "Unlock").click()
    assert window.session.mem.pages()[0].user_input == "My locker code is 4471"


def test_the_policy_caps_the_idle_minutes():
    from app.auto_lock import effective_minutes

    assert effective_minutes(15, None) == 15
    assert effective_minutes(0, None) == 0
    assert effective_minutes(30, 5) == 5
    assert effective_minutes(0, 5) == 5  # "never" is not allowed by this policy
    assert effective_minutes(3, 5) == 3


def test_settings_show_what_the_policy_decides_as_locked(qtbot, window, tmp_path, monkeypatch):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"remote_models": False, "retention_days": 30,
                                  "retention_keeps_facts": True, "export": False,
                                  "auto_lock_minutes": 10}), encoding="utf-8")  # fmt: skip
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(policy))
    window._apply_policy()
    assert not window.export_action.isEnabled()
    assert window.auto_lock.minutes == 10
    dialog = window.open_settings()
    form = dialog.memory_form.inputs
    assert sorted(dialog.locked) == [
        "remote_consolidation", "retention_days", "retention_keeps_facts"]  # fmt: skip
    assert not form["remote_consolidation"].isEnabled()
    assert not form["remote_consolidation"].isChecked()
    assert form["retention_days"].value() == 30 and not form["retention_days"].isEnabled()
    assert "Set by your administrator" in form["retention_days"].toolTip()
    assert dialog.auto_lock.maximum() == 10
    dialog.server.setChecked(True)
    dialog.server_url.setText("https://api.example.com/v1")
    dialog.server_model.setText("big")
    dialog.save()
    assert "turned off by your administrator" in dialog.error.text()
    if SHOTS:
        dialog.resize(900, 780)
        memory_tab = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())].index("Memory")
        dialog.tabs.setCurrentIndex(memory_tab)
        dialog.tabs.widget(memory_tab).ensureWidgetVisible(form["retention_days"])
        dialog.grab().save(str(Path(SHOTS) / "settings_locked_by_policy.png"))
    panel = window.open_privacy()
    assert not panel.export_button.isEnabled()


def test_a_broken_policy_stops_the_app_with_its_reason(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.desktop import policy_readable
    from tests.gui_steps import keep_looking

    policy = tmp_path / "policy.json"
    policy.write_text('{"export": "no"}', encoding="utf-8")
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(policy))
    seen: list[str] = []

    def answer() -> bool:
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
        if not boxes or not boxes[0].isVisible():
            return False
        seen.append(boxes[0].text())
        boxes[0].accept()
        return True

    keep_looking(answer)
    assert policy_readable() is False
    assert "export must be true or false" in seen[0]


def test_the_locked_box_of_a_keyring_vault_quits_with_ctrl_q(qtbot, memory_keyring, tmp_path,
                                                            desktop):
    """"MemoryOS is locked" (a keyring vault after the idle lock) had only Unlock, and Ctrl+Q did
    nothing there: it has Quit, as the unlock dialog has, and Esc still does not quit."""
    from PySide6.QtCore import Qt

    from app.settings_store import AppSettings

    window, opener = desktop(tmp_path / "k.memoryos", AppSettings(auto_lock_minutes=15))
    open_fast(opener.path, True, None).close()
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    window.auto_lock.timer.setInterval(20)
    window.auto_lock.restart()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        pass
    box = shown.args[0]
    assert box.objectName() == "lockedBox"
    assert [b.text() for b in box.buttons() if b.text() == "Quit"] == ["Quit"]
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    assert not window.closing
    box.activateWindow()
    qtbot.keyClick(box, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.closing and not window.isVisible())
