"""After File → Erase everything the next screen says which memory was erased: the dialog at
once over "Everything was erased" (seen only for an instant) did not, nor which one it opens."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from tests.gui_steps import create_vault, shown_dialog
from tests.gui_steps import unlock as unlock_with
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


def _app(desktop, vault_name: str, previous: str = ""):
    from app.settings_store import AppSettings

    return desktop(settings=AppSettings(vault_name=vault_name, previous_vault=previous,
                                        model_step_done=True))


def _top_line(dialog) -> str:
    """The text of the first thing in the dialog, as shown."""
    widget = dialog.layout().itemAt(0).widget()
    assert isinstance(widget, QLabel) and widget.isVisible()
    return widget.text()


def _shown_text(dialog) -> str:
    return "\n".join(label.text() for label in dialog.findChildren(QLabel) if label.isVisible())


def test_the_unlock_dialog_after_an_erase_says_which_memory_was_erased(
    qtbot, fail_keyring, desktop
):
    from app.vault_dialogs import UnlockDialog
    from engine.paths import vault_path

    for name in ("default", "work"):
        open_fast(vault_path(name), True, PASSPHRASE).close()
    window, opener = _app(desktop, "work", previous="default")
    unlock = shown_dialog(qtbot, opener, opener.start)
    qtbot.waitExposed(unlock)
    assert "erased" not in _shown_text(unlock)  # an ordinary start says nothing of it
    unlock_with(qtbot, window, unlock, PASSPHRASE)

    after = shown_dialog(qtbot, opener, lambda: window.erase_everything(confirmed=True))
    qtbot.waitExposed(after)
    assert isinstance(after, UnlockDialog) and QApplication.activeModalWidget() is after
    top = _top_line(after)
    assert "“work”" in top and "erased" in top
    assert "default" in _shown_text(after)  # the memory it opens now
    assert "Everything was erased" == window.view.empty.title.text()
    assert "“work”" in window.view.empty.hint.text()

    unlock_with(qtbot, window, after, PASSPHRASE)
    assert window.session.mem.path == vault_path("default") and not vault_path("work").exists()


def test_the_welcome_dialog_after_erasing_the_only_memory_says_it_was_erased(
    qtbot, fail_keyring, desktop
):
    from app.vault_dialogs import FirstRunDialog
    from engine.paths import vault_path

    open_fast(vault_path("diary"), True, PASSPHRASE).close()
    window, opener = _app(desktop, "diary")
    unlock_with(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)

    welcome = shown_dialog(qtbot, opener, lambda: window.erase_everything(confirmed=True))
    qtbot.waitExposed(welcome)
    assert isinstance(welcome, FirstRunDialog) and QApplication.activeModalWidget() is welcome
    top = _top_line(welcome)
    assert "“diary”" in top and "erased" in top
    assert welcome.create_button.isVisible() and not vault_path("diary").exists()
    create_vault(qtbot, window, welcome, PASSPHRASE)  # a new one, as offered
    assert window.session.mem.path == vault_path("diary")


def test_a_memory_that_opens_by_itself_after_an_erase_is_named_in_the_status_line(
    qtbot, memory_keyring, desktop
):
    """Its key is in the keyring: no dialog comes up, the other memory's conversations simply
    replaced "Everything was erased"."""
    from engine.paths import vault_path

    for name in ("default", "work"):
        open_fast(vault_path(name), True, None).close()
    window, opener = _app(desktop, "work", previous="default")
    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        opener.start()
    assert "erased" not in window.status.currentMessage()

    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        window.erase_everything(confirmed=True)
    said = window.status.currentMessage()
    assert "“work”" in said and "erased" in said and "“default”" in said
    assert window.session.mem.path == vault_path("default")
