"""`memoryos --vault NAME`: the app starts on that memory, not on the one used last, as File →
Switch memory opens it: its unlock or "new memory" dialog as usual, and once it is open it is
the memory used last; quitting at its dialog leaves the one used last as it was."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import create_vault, shown_dialog
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


def _make(name: str, passphrase: str | None = None) -> None:
    from engine.paths import vault_path

    open_fast(vault_path(name), True, passphrase).close()


def test_started_with_a_vault_name_opens_that_memory_and_remembers_it(
    qtbot, desktop, memory_keyring
):
    from app.settings_store import AppSettings, load_settings, save_settings
    from engine.paths import vault_path

    _make("default")
    _make("work")
    save_settings(AppSettings(vault_name="default"))
    window, opener = desktop(settings=load_settings(), vault=vault_path("work"))
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    assert window.session.mem.path == vault_path("work")
    assert "work" in window.windowTitle()
    saved = load_settings()
    assert (saved.vault_name, saved.previous_vault) == ("work", "default")


def test_started_with_a_new_name_offers_to_make_that_memory(qtbot, desktop, fail_keyring):
    from app.settings_store import load_settings
    from app.vault_dialogs import FirstRunDialog
    from engine.paths import vault_path

    _make("default", PASSPHRASE)
    window, opener = desktop(vault=vault_path("alex"))
    dialog = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(dialog, FirstRunDialog)
    assert "alex" in dialog.windowTitle()
    assert dialog.creating  # not the list of the memories already here: this one is made
    assert dialog.quit_button.text() == "Quit"  # nothing open yet to go back to
    create_vault(qtbot, window, dialog, PASSPHRASE)
    assert window.session.mem.path == vault_path("alex")
    assert load_settings().vault_name == "alex"


def test_quitting_at_the_named_memorys_passphrase_keeps_the_one_used_last(
    qtbot, desktop, fail_keyring
):
    from app.settings_store import load_settings
    from app.vault_dialogs import UnlockDialog
    from engine.paths import vault_path

    _make("default", PASSPHRASE)
    _make("work", PASSPHRASE)
    window, opener = desktop(vault=vault_path("work"))
    dialog = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(dialog, UnlockDialog) and dialog.path == vault_path("work")
    qtbot.mouseClick(dialog.quit_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible())
    assert load_settings().vault_name == "default"
