"""Erase everything with other memories on this computer, the model step after an erase, and a
welcome dialog that stays put while its passphrase is typed (a new-user walkthrough)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import create_vault, shown_dialog, switch_dialog, switch_open_button
from tests.gui_steps import unlock as unlock_with
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def app(desktop):
    """The app as it starts: settings from the (empty) settings file, real encrypted vaults."""
    from app.settings_store import load_settings

    return desktop(settings=load_settings())


def _first_vault(qtbot, window, opener, passphrase: bool):
    """The first run: the vault `default`, then the model step, closed with "Keep …"."""
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start),
                 PASSPHRASE if passphrase else None)
    qtbot.waitUntil(lambda: "model_step" in window.panels)
    window.panels["model_step"].later_button.click()
    qtbot.waitUntil(lambda: "model_step" not in window.panels)


def _new_memory(qtbot, window, opener, name: str, passphrase: bool):
    """File → Switch memory → a new memory `name`, created."""
    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, name)
    first = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                                 Qt.MouseButton.LeftButton))
    create_vault(qtbot, window, first, PASSPHRASE if passphrase else None)


def _saved() -> dict:
    from engine.paths import settings_file

    return json.loads(settings_file().read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", ["keyring", "passphrase"])
def test_erasing_a_second_memory_goes_back_to_the_one_used_before(
    qtbot, app, request, send, key
):
    """Erasing "work" opened "Welcome to MemoryOS … work.memoryos" with only Quit and Create,
    at every start after, and the memory with all the person's conversations was out of
    reach: settings.json still named "work"."""
    from app.vault_dialogs import FirstRunDialog, UnlockDialog
    from engine.paths import vault_path

    request.getfixturevalue("memory_keyring" if key == "keyring" else "fail_keyring")
    passphrase = key == "passphrase"
    window, opener = app
    _first_vault(qtbot, window, opener, passphrase)
    send(window, "My dog is called Rex and he loves the beach.")
    _new_memory(qtbot, window, opener, "work", passphrase)
    assert window.session.mem.path == vault_path("work")
    send(window, "Quarterly report is due on Friday.")

    shown: list = []
    opener.dialog_shown.connect(shown.append)
    if passphrase:  # the normal unlock screen, over "Everything was erased"
        unlock = shown_dialog(qtbot, opener, lambda: window.erase_everything(confirmed=True))
        assert isinstance(unlock, UnlockDialog) and unlock.path == vault_path("default")
        assert unlock.quit_button.text() == "Quit"
        assert window.view.empty.title.text() == "Everything was erased"
        assert _saved()["vault_name"] == "default"  # a quit here comes back to it
        unlock_with(qtbot, window, unlock, PASSPHRASE)
    else:  # its key is in the keyring: it opens by itself
        with qtbot.waitSignal(window.session_attached, timeout=10_000):
            window.erase_everything(confirmed=True)
    assert not any(isinstance(dialog, FirstRunDialog) for dialog in shown)

    assert not vault_path("work").exists()
    assert window.session.mem.path == vault_path("default")
    assert window.settings.vault_name == "default" and _saved()["vault_name"] == "default"
    qtbot.waitUntil(lambda: "Rex" in window.view.browser.toPlainText())
    assert "Quarterly" not in window.view.browser.toPlainText()
    assert window.composer.send_button.isEnabled()
    assert "model_step" not in window.panels


def test_without_a_memory_used_before_the_first_by_name_opens(qtbot, memory_keyring, desktop):
    from app.settings_store import AppSettings
    from engine.paths import vault_path

    for name in ("beta", "alpha"):
        open_fast(vault_path(name), True, None).close()
    window, opener = desktop(settings=AppSettings(vault_name="zeta", model_step_done=True))
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    assert window.session.mem.path == vault_path("zeta")

    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        window.erase_everything(confirmed=True)
    assert window.session.mem.path == vault_path("alpha")
    assert not vault_path("zeta").exists() and _saved()["vault_name"] == "alpha"


def test_the_welcome_screen_offers_the_other_memories(qtbot, fail_keyring, desktop):
    """Settings left naming an erased memory: the welcome screen to create it again had only
    Quit and Create my vault, at every start; the memory that exists was out of reach."""
    from app.settings_store import AppSettings, load_settings, save_settings
    from app.vault_dialogs import FirstRunDialog, UnlockDialog
    from app.vault_switch import SwitchVaultDialog
    from engine.paths import vault_path

    mine = open_fast(vault_path("default"), True, PASSPHRASE)
    mine.add_memory("My sister is called Ana.", "Noted.")
    mine.close()
    save_settings(AppSettings(vault_name="work"))  # as the settings file said after the erase
    window, opener = desktop(settings=load_settings())

    welcome = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(welcome, FirstRunDialog) and welcome.path == vault_path("work")
    assert welcome.other_button.isVisible()
    picker = shown_dialog(qtbot, opener, welcome.other_button.click)
    assert isinstance(picker, SwitchVaultDialog)
    unlock = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(picker),
                                                                  Qt.MouseButton.LeftButton))
    assert isinstance(unlock, UnlockDialog) and unlock.path == vault_path("default")
    assert window.isVisible() and not window.closing
    unlock_with(qtbot, window, unlock, PASSPHRASE)
    qtbot.waitUntil(lambda: "Ana" in window.view.browser.toPlainText())
    assert _saved()["vault_name"] == "default" and not _saved()["model_step_due"]
    assert "model_step" not in window.panels
    assert not vault_path("work").exists()


def test_erasing_the_only_memory_gives_the_welcome_screen_without_the_model_step(
    qtbot, app, fail_keyring
):
    """After an erase the model step ("Choose the model you will talk to") came back with the
    new vault, and settings.json said "model_step_due": true: the model is the app's, chosen
    once already."""
    from app.vault_dialogs import FirstRunDialog

    window, opener = app
    _first_vault(qtbot, window, opener, PASSPHRASE)
    assert _saved()["model_step_due"] is False

    welcome = shown_dialog(qtbot, opener, lambda: window.erase_everything(confirmed=True))
    assert isinstance(welcome, FirstRunDialog) and "Welcome" in welcome.windowTitle()
    assert not welcome.other_button.isVisible()  # no other memory to open
    assert _saved()["model_step_due"] is False  # a quit here and a new start: not offered
    create_vault(qtbot, window, welcome, PASSPHRASE)
    assert "model_step" not in window.panels  # it opens as the vault is attached
    assert _saved()["model_step_due"] is False
    assert window.composer.send_button.isEnabled()


def test_a_settings_file_left_by_the_erase_does_not_offer_the_model_step_again(
    qtbot, memory_keyring, desktop
):
    """settings.json from before the fix: "model_step_due": true after an erase, a model
    chosen long before; the next start offered the step (once in the middle of a Switch
    memory, where it took the keys meant for the passphrase)."""
    from app.settings_store import load_settings
    from engine.paths import settings_file, vault_path

    open_fast(vault_path("default"), True, None).close()
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text(json.dumps({
        "vault_name": "default", "model_source": "openai", "model_step_due": True,
        "server_url": "http://127.0.0.1:9/v1", "server_model": "chosen-model",
    }), encoding="utf-8")
    window, opener = desktop(settings=load_settings())
    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        opener.start()
    assert "model_step" not in window.panels  # it opens as the vault is attached
    assert not load_settings().model_step_due


def test_the_welcome_dialog_stays_put_while_its_messages_come_and_go(qtbot, app, fail_keyring):
    """It grew and moved each time "too short" or "not the same" appeared, and back when
    they went."""
    window, opener = app
    welcome = shown_dialog(qtbot, opener, opener.start)
    qtbot.waitExposed(welcome)
    where = welcome.frameGeometry()
    seen = set()
    steps = [(welcome.passphrase, "correct"), (welcome.confirm, "correct"),  # too short
             (welcome.passphrase, " horse battery"),  # not the same
             (welcome.confirm, " horse battery")]  # the same: the message goes
    for field, text in steps:
        for char in text:
            qtbot.keyClicks(field, char)
            seen.add(welcome.error.text())
            assert welcome.frameGeometry() == where, welcome.error.text()
    assert not welcome.error.isVisible() and welcome.create_button.isEnabled()
    assert len(seen) == 3  # "at least …", "not the same", and none
    welcome.rejected.disconnect(opener.cancelled)
    welcome.reject()
