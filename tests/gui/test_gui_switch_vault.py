"""File → Switch memory: another vault opens (or a new one is made by name) and what one
learned never shows in the other; cancelling its dialog goes back to the memory open before."""

from __future__ import annotations

from dataclasses import replace

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from tests.gui_steps import create_vault, shown_dialog, switch_dialog, switch_open_button
from tests.gui_steps import unlock as unlock_with
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def app(desktop):
    return desktop()


def _names(dialog) -> list[str]:
    return [dialog._name_at(i) for i in range(dialog.list.count())]


def test_switching_to_a_new_memory_and_back_keeps_each_ones_conversations_apart(
    qtbot, app, memory_keyring, send
):
    from app.settings_store import load_settings
    from app.vault_dialogs import FirstRunDialog

    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My dog is called Rex and he loves the beach.")
    assert window.switch_action in window.menuBar().actions()[0].menu().actions()
    assert window.switch_action.shortcut() == QKeySequence("Ctrl+Shift+O")
    assert "Ctrl+Shift+O" in window.shortcuts_text()

    dialog = switch_dialog(qtbot, window)
    assert _names(dialog) == ["default"]
    assert "open now" in dialog.list.item(0).text()
    assert not switch_open_button(dialog).isEnabled()  # the open memory is not a choice
    qtbot.keyClicks(dialog.new_name, "work")
    assert switch_open_button(dialog).isEnabled()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        qtbot.mouseClick(switch_open_button(dialog), Qt.MouseButton.LeftButton)
    first = shown.args[0]
    assert isinstance(first, FirstRunDialog)
    assert "work" in first.windowTitle()
    assert first.quit_button.text() == "Cancel"  # not Quit: the app stays
    create_vault(qtbot, window, first, None)

    mem = window.session.mem
    assert mem.path.name == "work.memoryos"
    assert window.settings.vault_name == "work" and load_settings().vault_name == "work"
    qtbot.waitUntil(lambda: "work" in window.status.vault.text())
    assert window.view.message_count == 0
    assert mem.pages() == [] and not mem.retrieve("dog Rex beach").pages
    send(window, "Quarterly report is due on Friday.")

    back = switch_dialog(qtbot, window)
    assert set(_names(back)) == {"default", "work"}
    row = _names(back).index("default")
    assert back.list.currentRow() == row  # the other memory is offered first
    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        qtbot.mouseClick(switch_open_button(back), Qt.MouseButton.LeftButton)
    assert window.session.mem.path.name == "default.memoryos"
    qtbot.waitUntil(lambda: "Rex" in window.view.browser.toPlainText())
    assert "Quarterly" not in window.view.browser.toPlainText()
    assert not window.session.mem.retrieve("quarterly report Friday").pages
    assert load_settings().vault_name == "default"


def test_cancelling_a_new_memory_goes_back_to_the_one_open_before(
    qtbot, app, fail_keyring, send
):
    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)
    send(window, "I live in Porto.")
    before = window.session.mem
    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, "family")
    first = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                          Qt.MouseButton.LeftButton))
    assert window.session.mem is before  # open until the other one is

    with qtbot.assertNotEmitted(opener.dialog_shown, wait=300):  # no passphrase asked
        first.quit_button.click()  # Cancel
    assert window.isVisible() and not window.closing
    assert window.session.mem is before and window.settings.vault_name == "default"
    assert "Porto" in window.view.browser.toPlainText()
    assert not (before.path.parent / "family.memoryos").exists()


@pytest.fixture
def recorded(qtbot):
    """The app on the real vault opener of the tests, with the vault files it opened."""
    from app.desktop import build
    from app.settings_store import AppSettings

    opened: list[str] = []

    def open_vault(path, create, passphrase):
        mem = open_fast(path, create, passphrase)
        opened.append(mem.path.name)
        return mem

    window, opener = build(open_vault, settings=AppSettings())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window, opener, opened
    window.close()


def _pick(qtbot, window, opener, name: str):
    """Switch memory → the existing memory `name` → Open: the dialog that asks for its key."""
    dialog = switch_dialog(qtbot, window)
    dialog.list.setCurrentRow(_names(dialog).index(name))
    return shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                                Qt.MouseButton.LeftButton))


def test_cancelling_another_memorys_passphrase_returns_without_asking_again(
    qtbot, recorded, fail_keyring, send
):
    """Cancel on the other memory's passphrase asked for the first memory's passphrase again
    (its vault had been closed already)."""
    from app.settings_store import load_settings
    from app.vault_dialogs import UnlockDialog
    from engine.paths import vault_path

    window, opener, opened = recorded
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)
    send(window, "I live in Porto.")
    open_fast(vault_path("work"), True, "work passphrase 42").close()
    before = window.session.mem
    window.composer.input.setPlainText("And my sister")  # a message being written

    unlock = _pick(qtbot, window, opener, "work")
    assert isinstance(unlock, UnlockDialog) and unlock.path == vault_path("work")
    assert unlock.quit_button.text() == "Cancel"
    assert window.session.mem is before  # still open behind the dialog, conversation shown
    assert "Porto" in window.view.browser.toPlainText()

    with qtbot.assertNotEmitted(opener.dialog_shown, wait=300):  # nothing asked again
        unlock.quit_button.click()
    assert not shiboken6.isValid(unlock) or not unlock.isVisible()
    assert window.session.mem is before and not before._closed
    assert "Porto" in window.view.browser.toPlainText()
    assert window.composer.input.toPlainText() == "And my sister"
    assert window.composer.send_button.isEnabled()
    assert window.switch_action.isEnabled() and window.lock_action.isEnabled()
    assert window.settings.vault_name == "default" and load_settings().vault_name == "default"
    assert opened == ["default.memoryos"]  # never opened a second time
    assert send(window, "I work in Braga.").text  # the same memory goes on answering

    # The lock that follows asks for this memory's key, not the other one's.
    again = shown_dialog(qtbot, opener, window.lock_now)
    assert isinstance(again, UnlockDialog) and again.path == vault_path("default")
    assert before._closed


def test_the_memory_open_before_closes_only_once_the_other_is_open(
    qtbot, recorded, fail_keyring, send
):
    from engine.paths import vault_path

    window, opener, opened = recorded
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)
    send(window, "I live in Porto.")
    work = open_fast(vault_path("work"), True, "work passphrase 42")
    work.add_memory("The quarterly report is due on Friday.", "Noted.")
    work.close()
    before = window.session.mem

    unlock = _pick(qtbot, window, opener, "work")
    qtbot.keyClicks(unlock.passphrase, "not the passphrase")
    qtbot.keyClick(unlock.passphrase, Qt.Key.Key_Return)
    # a wrong one: asked again, nothing closed (deriving its key takes seconds)
    qtbot.waitUntil(lambda: unlock.error.isVisible(), timeout=30_000)
    assert window.session.mem is before and not before._closed

    unlock_with(qtbot, window, unlock, "work passphrase 42")
    assert before._closed  # closed now, once
    assert window.session.mem.path == vault_path("work")
    assert window.settings.vault_name == "work"
    qtbot.waitUntil(lambda: "quarterly" in window.view.browser.toPlainText())
    assert "Porto" not in window.view.browser.toPlainText()
    assert opened == ["default.memoryos", "work.memoryos"]


def test_auto_lock_while_another_memorys_dialog_is_up_locks_the_one_open(
    qtbot, recorded, fail_keyring, send
):
    """The memory kept open behind the other's dialog still locks itself when nobody uses the
    computer; a Cancel then asks for its key."""
    from app.vault_dialogs import UnlockDialog
    from engine.paths import vault_path

    window, opener, _opened = recorded
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)
    send(window, "I live in Porto.")
    open_fast(vault_path("work"), True, "work passphrase 42").close()
    before = window.session.mem
    unlock = _pick(qtbot, window, opener, "work")

    with qtbot.assertNotEmitted(opener.dialog_shown, wait=300):
        window.lock()  # the idle lock
    assert window.session is None and before._closed
    assert "Porto" not in window.view.browser.toPlainText()
    assert unlock.isVisible()  # the other memory's question stays

    again = shown_dialog(qtbot, opener, unlock.quit_button.click)
    assert isinstance(again, UnlockDialog) and again.path == vault_path("default")
    unlock_with(qtbot, window, again, PASSPHRASE)
    qtbot.waitUntil(lambda: "Porto" in window.view.browser.toPlainText())


def test_a_bad_name_is_explained_and_cannot_be_opened(qtbot, app, memory_keyring):
    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, "../etc")
    assert dialog.problem.isVisible() and "letters" in dialog.problem.text()
    assert not switch_open_button(dialog).isEnabled()
    qtbot.keyClick(dialog.new_name, Qt.Key.Key_Return)  # Enter on a bad name does nothing
    assert dialog.isVisible() and window.session is not None
    dialog.new_name.clear()
    assert not dialog.problem.isVisible()
    dialog.reject()
    assert window.session is not None and window.settings.vault_name == "default"


def test_the_unlock_dialog_offers_another_memory_when_this_key_is_not_yours(
    qtbot, app, fail_keyring, vault_bytes
):
    from app.vault_dialogs import UnlockDialog
    from app.vault_switch import SwitchVaultDialog
    from engine.paths import vault_path

    window, opener = app
    open_fast(vault_path("default"), True, "someone else's passphrase").close()
    alone = shown_dialog(qtbot, opener, opener.start)
    assert isinstance(alone, UnlockDialog)
    assert not alone.other_button.isVisible()  # no other memory to open
    alone.rejected.disconnect(opener.cancelled)
    alone.reject()

    mine = open_fast(vault_path("mine"), True, PASSPHRASE)
    mine.add_memory("My sister is called Ana.", "Noted.")
    mine.close()
    before = vault_bytes(vault_path("default"))
    dialog = shown_dialog(qtbot, opener, opener.start)
    assert dialog.other_button.isVisible()
    picker = shown_dialog(qtbot, opener, dialog.other_button.click)
    assert isinstance(picker, SwitchVaultDialog)
    assert _names(picker) == ["mine", "default"] and picker.list.currentRow() == 0
    assert "(locked)" in picker.list.item(1).text()  # not "open now": it is being unlocked
    with qtbot.assertNotEmitted(opener.cancelled):
        unlock = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(
            switch_open_button(picker), Qt.MouseButton.LeftButton))
    assert isinstance(unlock, UnlockDialog) and unlock.path == vault_path("mine")
    assert not shiboken6.isValid(dialog) or not dialog.isVisible()  # closed, not "Quit"
    assert window.isVisible() and not window.closing
    assert unlock.quit_button.text() == "Cancel"
    unlock_with(qtbot, window, unlock, PASSPHRASE)
    assert window.settings.vault_name == "mine"
    qtbot.waitUntil(lambda: "Ana" in window.view.browser.toPlainText())
    assert vault_bytes(vault_path("default")) == before  # the other one untouched


def test_the_window_title_names_the_memory_open(qtbot, app, memory_keyring):
    """The title said "MemoryOS" whichever memory was open."""
    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    assert window.windowTitle() == "MemoryOS"  # the only memory: nothing to tell apart

    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, "work")
    first = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                          Qt.MouseButton.LeftButton))
    assert window.windowTitle() == "MemoryOS"  # closed: no memory open while it is made
    create_vault(qtbot, window, first, None)
    assert window.windowTitle() == "work — MemoryOS"
    # What the title bar shows: on X11 (and Wayland, Windows) Qt adds the app's display name
    # to a title that does not end with it; it read "MemoryOS — work — MemoryOS".
    assert _shown_title(window) == "work — MemoryOS"
    qtbot.waitUntil(lambda: window.status.vault.text().startswith("work"))  # as the status line

    window.lock_now()
    assert window.session is None and window.windowTitle() == "MemoryOS"
    assert _shown_title(window) == "MemoryOS"


def _shown_title(window) -> str:
    """The title as Qt's X11, Wayland and Windows windows show it (QPlatformWindow::
    formatWindowTitle; the offscreen platform shows none)."""
    from PySide6.QtGui import QGuiApplication

    title, name = window.windowTitle(), QGuiApplication.applicationDisplayName()
    assert name == "MemoryOS"  # app/theme.py sets it, as the real app does
    if title.endswith(name):
        return title
    return f"{title} — {name}" if title else name


def test_the_sizes_listed_count_the_write_ahead_log(qtbot, memory_keyring, tmp_path):
    """An open vault with a conversation read "4 KB": its writes wait in the -wal file."""
    from app.vault_switch import SwitchVaultDialog
    from engine.terminal.wording import size

    work = open_fast(tmp_path / "work.memoryos", True, None)
    try:
        work.add_memory("My dog is called Rex and he loves the beach.", "Nice.")
        files = [tmp_path / name for name in ("work.memoryos", "work.memoryos-wal",
                                              "work.memoryos-shm")]
        assert (tmp_path / "work.memoryos-wal").stat().st_size > 100_000
        dialog = SwitchVaultDialog("work", folder=tmp_path)
        qtbot.addWidget(dialog)
        total = sum(file.stat().st_size for file in files if file.exists())
        assert f"work (open now)  ·  {size(total)}," in dialog.list.item(0).text()
        assert "4 KB" not in dialog.list.item(0).text()
    finally:
        work.close()


def test_the_switch_dialog_is_laid_out_as_the_other_vault_dialogs(qtbot, tmp_path):
    """Its intro text touched the dialog's edges, with no title above it."""
    from PySide6.QtWidgets import QLabel

    from app.vault_switch import SwitchVaultDialog

    dialog = SwitchVaultDialog("default", folder=tmp_path)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    title = dialog.findChild(QLabel, "title")
    intro = dialog.findChild(QLabel, "subtitle")
    assert title is not None and title.text() == "Switch memory"
    assert intro is not None and "separate encrypted vault" in intro.text()
    for label in (title, intro):
        corner = label.mapTo(dialog, label.rect().topLeft())
        assert corner.x() >= 24 and corner.y() >= 20
    right = intro.mapTo(dialog, intro.rect().topRight()).x()
    assert dialog.width() - right >= 24


def test_the_default_memory_is_named_in_the_title_once_there_are_others(tmp_path):
    from app.vault_switch import window_title

    (tmp_path / "default.memoryos").write_bytes(b"x")
    assert window_title("default", tmp_path) == "MemoryOS"
    (tmp_path / "work.memoryos").write_bytes(b"x")
    assert window_title("default", tmp_path) == "default — MemoryOS"
    assert window_title("work", tmp_path) == "work — MemoryOS"
    assert window_title(None, tmp_path) == "MemoryOS"


def _learn(qtbot, window):
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        window.session.mem.run_consolidation()  # first-person statements become facts


def _switch_to(qtbot, window, opener, name: str):
    dialog = switch_dialog(qtbot, window)
    if name in _names(dialog):
        dialog.list.setCurrentRow(_names(dialog).index(name))
        with qtbot.waitSignal(window.session_attached, timeout=10_000):
            qtbot.mouseClick(switch_open_button(dialog), Qt.MouseButton.LeftButton)
        return
    qtbot.keyClicks(dialog.new_name, name)
    first = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                          Qt.MouseButton.LeftButton))
    create_vault(qtbot, window, first, None)


def test_learned_notices_stay_with_the_memory_that_learned_them(
    qtbot, app, memory_keyring, send
):
    """After a switch, "work" showed default's "Learned: My name is Dana" notice, and its
    Undo deleted work's only fact (same id, other memory)."""
    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My name is Dana and I live in Lisbon.")
    _learn(qtbot, window)
    dana = [item for item in window.view.learned_items() if "Dana" in item.text]
    assert dana and "Learned: " in window.view.plain_text()

    _switch_to(qtbot, window, opener, "work")
    send(window, "Our team standup is every Tuesday at 9.")
    _learn(qtbot, window)
    work = window.session.mem
    standup = {(f.id, f.text) for f in work.facts()}
    assert standup and any("standup" in text for _, text in standup)
    assert {f.id for f in work.facts()} & {item.id for item in dana}  # the same ids
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()  # drawn again: only this memory's notices come back
    text = window.view.plain_text()
    assert "Dana" not in text and "standup" in text
    assert all("Dana" not in item.text for item in window.view.learned_items())

    # An Undo on the other memory's notice (a click left over from before the switch) does
    # nothing here.
    with qtbot.assertNotEmitted(window.chat_actions.done, wait=300):
        window.view.learned_undo_requested.emit(dana[0])
    assert {(f.id, f.text) for f in work.facts()} == standup

    _switch_to(qtbot, window, opener, "default")
    qtbot.waitUntil(lambda: "Dana" in window.view.plain_text())
    assert "standup" not in window.view.plain_text()
    assert window.learned_notices.items == []  # work's notices went with work

    # Undo acts only on the item the notice names: the same id with other text is not it.
    from app.learned import GONE, undo_same

    mem = window.session.mem
    before = {(f.id, f.text) for f in mem.facts()}
    other = next(item for item in dana if item.kind == "fact")
    assert undo_same(mem, replace(other, text="Our team standup is every Tuesday at 9.")) == GONE
    assert {(f.id, f.text) for f in mem.facts()} == before
