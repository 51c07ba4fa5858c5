"""First start after a restore from the terminal: the memory restored is offered, not a new one."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import create_vault, shown_dialog
from tests.gui_steps import unlock as unlock_with
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def restored():
    """What `memoryos import memory.json --vault restored --create` leaves: a vault named
    "restored" with the person's history, and no default one."""
    from engine.paths import vault_path

    mem = open_fast(vault_path("restored"), True, PASSPHRASE)
    mem.add_memory("My sister is called Ana.", "Noted.")
    mem.close()
    assert not vault_path("default").exists()
    return vault_path("restored")


def test_the_first_screen_offers_the_restored_memory_and_opens_it(
    qtbot, fail_keyring, desktop, restored
):
    """It offered only to create default.memoryos, with new-passphrase fields; the restored
    memory was behind "Other memory…"."""
    from app.vault_dialogs import FirstRunDialog, UnlockDialog
    from engine.paths import vault_path

    window, opener = desktop()
    welcome = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(welcome, FirstRunDialog)
    assert welcome.others_list.isVisible()
    assert welcome.others_list.item(0).text().startswith("restored")
    assert welcome.open_button.isVisible() and welcome.open_button.isDefault()
    assert not welcome.passphrase.isVisible() and not welcome.confirm.isVisible()
    assert not welcome.create_button.isDefault()

    unlock = shown_dialog(qtbot, opener,
                          lambda: qtbot.keyClick(welcome.others_list, Qt.Key.Key_Return))
    assert isinstance(unlock, UnlockDialog) and unlock.path == restored
    unlock_with(qtbot, window, unlock, PASSPHRASE)
    qtbot.waitUntil(lambda: "Ana" in window.view.browser.toPlainText())
    assert window.settings.vault_name == "restored"  # the next start opens it
    assert not vault_path("default").exists()  # no empty memory was made


def test_cancel_on_its_passphrase_comes_back_to_the_first_screen(
    qtbot, fail_keyring, desktop, restored
):
    from app.vault_dialogs import FirstRunDialog

    window, opener = desktop()
    welcome = shown_dialog(qtbot, opener, opener.start)
    unlock = shown_dialog(qtbot, opener, welcome.open_button.click)
    assert unlock.quit_button.text() == "Cancel"
    again = shown_dialog(qtbot, opener, unlock.quit_button.click)
    assert isinstance(again, FirstRunDialog) and again.others_list.count() == 1
    assert window.isVisible() and not window.closing


def test_a_new_empty_memory_can_still_be_made(qtbot, fail_keyring, desktop, restored):
    from engine.paths import vault_path

    window, opener = desktop()
    welcome = shown_dialog(qtbot, opener, opener.start)
    qtbot.mouseClick(welcome.create_button, Qt.MouseButton.LeftButton)  # "New memory…"
    assert welcome.passphrase.isVisible() and welcome.confirm.isVisible()
    assert welcome.passphrase.hasFocus() or not welcome.isActiveWindow()
    assert not vault_path("default").exists()  # only asked for its passphrase so far
    create_vault(qtbot, window, welcome, PASSPHRASE)
    assert window.session.mem.path == vault_path("default")
    assert "Ana" not in window.view.browser.toPlainText()
    assert restored.exists()


def test_with_a_keyring_a_new_memory_is_one_press(qtbot, memory_keyring, desktop, tmp_path):
    from engine.paths import vault_path

    open_fast(vault_path("restored"), True, None).close()
    window, opener = desktop()
    welcome = shown_dialog(qtbot, opener, opener.start)
    assert welcome.open_button.isDefault()
    create_vault(qtbot, window, welcome, None)
    assert window.session.mem.path == vault_path("default")
