"""First run (keyring or passphrase), silent unlock, and a wrong passphrase that changes nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QWidget

from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


def _open_fast(path, create, passphrase):
    return open_fast(path, create, passphrase, chat=False)


@pytest.fixture
def opener(qtbot, home):
    """A VaultOpener over a plain parent window; yields (opener, opened list); closes vaults."""
    from app.vault_opener import VaultOpener
    from app.workers import WorkerPool

    parent = QWidget()
    qtbot.addWidget(parent)
    pool = WorkerPool(parent=parent)
    path = home / "vaults" / "default.memoryos"
    opener = VaultOpener(path, _open_fast, pool, parent)
    opened: list = []
    opener.opened.connect(opened.append)
    yield opener, opened
    pool.wait()
    for mem in opened:
        mem.close()


def _start(qtbot, opener):
    with qtbot.waitSignal(opener.dialog_shown) as blocker:
        opener.start()
    return blocker.args[0]


def test_first_run_with_a_keyring_keeps_the_key_there(qtbot, opener, memory_keyring):
    from app.vault_dialogs import FirstRunDialog

    opener, opened = opener
    dialog = _start(qtbot, opener)
    assert isinstance(dialog, FirstRunDialog)
    assert "keyring" in dialog.findChild(type(dialog.error), "keyNote").text()
    assert not dialog.passphrase.isVisible()
    assert dialog.create_button.isEnabled()

    with qtbot.waitSignal(opener.opened, timeout=30_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)

    (mem,) = opened
    assert mem.path.exists()
    assert "keyring" in mem.info().key_location
    # the key went to the keyring, nothing to type next time: one random 256-bit key
    (((service, username), key),) = memory_keyring.secrets.items()
    assert service == "memoryos-desktop" and username == f"vault:{mem.path.resolve()}"
    assert len(bytes.fromhex(key)) == 32


def test_first_run_without_a_keyring_asks_for_a_passphrase_twice(qtbot, opener, fail_keyring):
    opener, opened = opener
    dialog = _start(qtbot, opener)
    assert "No system keyring" in dialog.findChild(type(dialog.error), "warnNote").text()
    assert dialog.passphrase.isVisible() and dialog.confirm.isVisible()
    assert not dialog.create_button.isEnabled()

    qtbot.keyClicks(dialog.passphrase, PASSPHRASE)
    qtbot.keyClicks(dialog.confirm, PASSPHRASE + "x")
    assert not dialog.create_button.isEnabled()
    assert "not the same" in dialog.error.text()
    qtbot.keyClick(dialog.confirm, Qt.Key.Key_Backspace)
    assert dialog.create_button.isEnabled()

    with qtbot.waitSignal(opener.opened, timeout=30_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    (mem,) = opened
    assert mem.info().key_location == "passphrase"


def test_later_starts_unlock_silently_with_the_keyring(qtbot, opener, memory_keyring):
    opener, opened = opener
    _open_fast(opener.path, True, None).close()
    shown: list = []
    opener.dialog_shown.connect(shown.append)
    with qtbot.waitSignal(opener.opened, timeout=30_000):
        opener.start()
    assert shown == [] and len(opened) == 1


def test_wrong_passphrase_shows_a_message_retries_and_changes_nothing(
    qtbot, opener, fail_keyring, vault_bytes
):
    from app.vault_dialogs import UnlockDialog

    opener, opened = opener
    _open_fast(opener.path, True, PASSPHRASE).close()
    before = vault_bytes(opener.path)
    dialog = _start(qtbot, opener)
    assert isinstance(dialog, UnlockDialog)

    qtbot.keyClicks(dialog.passphrase, "not the passphrase")
    qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.error.isVisible(), timeout=30_000)  # the key is derived
    assert "does not unlock" in dialog.error.text()
    assert dialog.isVisible() and opened == []
    assert vault_bytes(opener.path) == before

    dialog.passphrase.clear()
    qtbot.keyClicks(dialog.passphrase, PASSPHRASE)
    with qtbot.waitSignal(opener.opened, timeout=30_000):
        qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)
    assert dialog.attempts == 2
    assert opened[0].info().key_location == "passphrase"


def test_a_damaged_file_gives_a_message_not_a_crash(qtbot, opener, memory_keyring):
    opener, opened = opener
    _open_fast(opener.path, True, None).close()
    opener.path.write_bytes(b"this is not a vault" * 100)  # damaged; its key is still there
    box = _start(qtbot, opener)
    assert "cannot open" in box.windowTitle()
    assert "not a MemoryOS vault" in box.text()
    assert opened == []


def test_after_erasing_everything_the_app_is_back_at_the_first_run(qtbot, memory_keyring):
    from app.desktop import build
    from app.vault_dialogs import FirstRunDialog
    from engine.backends.fake import FakeChat

    def open_with_fake_chat(path, create, passphrase):
        mem = _open_fast(path, create, passphrase)
        mem.set_chat(FakeChat())
        return mem

    window, opener = build(open_with_fake_chat)
    qtbot.addWidget(window)
    window.show()
    first = _start(qtbot, opener)
    assert isinstance(first, FirstRunDialog)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.mouseClick(first.create_button, Qt.MouseButton.LeftButton)
    assert window.session.state == "ready" and window.composer.send_button.isEnabled()
    path = window.session.mem.path

    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        window.erase_everything(confirmed=True)

    assert isinstance(shown.args[0], FirstRunDialog)
    assert not path.exists() and not memory_keyring.secrets
    shown.args[0].reject()
    window.close()


def test_a_first_run_cut_short_after_the_vault_was_made_offers_the_model_step_next_time(
    qtbot, memory_keyring
):
    """The vault was created, then the app ended before the model step (closed, or crashed
    as seen once in a walkthrough): the next start offers it, once."""
    from app.desktop import build
    from app.settings_store import load_settings
    from app.vault_dialogs import FirstRunDialog

    window, opener = build(_open_fast)
    qtbot.addWidget(window)
    window.show()
    first = _start(qtbot, opener)
    assert isinstance(first, FirstRunDialog)
    assert load_settings().model_step_due  # saved before anything can go wrong
    path = opener.path
    window.closing = True  # the run ends as the vault is made: nothing is attached
    with qtbot.waitSignal(opener.opened, timeout=30_000):
        qtbot.mouseClick(first.create_button, Qt.MouseButton.LeftButton)
    assert "model_step" not in window.panels
    window.close()
    assert path.exists() and load_settings().model_step_due

    again, opener = build(_open_fast)
    qtbot.addWidget(again)
    again.show()
    with qtbot.waitSignal(again.session_attached, timeout=10_000):
        opener.start()
    qtbot.waitUntil(lambda: "model_step" in again.panels)
    assert not load_settings().model_step_due  # offered once
    again.panels["model_step"].reject()
    again.close()


def _centred_over_the_conversation(dialog, window) -> bool:
    view = window.view
    offset = dialog.frameGeometry().center() - view.mapToGlobal(view.rect().center())
    return offset.manhattanLength() <= 2


def _covered(dialog, label) -> bool:
    """The label's text lies inside the dialog: nothing of it shows beside it as fragments."""
    text = label.fontMetrics().boundingRect(label.rect(), label.alignment(), label.text())
    return dialog.frameGeometry().contains(QRect(label.mapToGlobal(text.topLeft()), text.size()))


@pytest.mark.parametrize("key", ["passphrase", "keyring"])
def test_the_dialogs_sit_centred_over_the_conversation_and_cover_its_message(
    qtbot, request, key
):
    """Without a window manager Qt centred them on the whole window, sidebar included: the
    locked window's message showed beside them in fragments ("y…", "…elf"). They sit over the
    middle of the conversation area, cover its message whole, and stay there when the window
    is resized or the dialog grows."""
    from app.desktop import build
    from app.vault_dialogs import FirstRunDialog, UnlockDialog

    request.getfixturevalue("fail_keyring" if key == "passphrase" else "memory_keyring")
    window, opener = build(_open_fast)
    qtbot.addWidget(window)
    window.resize(780, 580)  # on the test screen (800 x 600): dialogs are kept on the screen
    window.show()
    qtbot.waitExposed(window)
    empty = window.view.empty
    first = _start(qtbot, opener)
    assert isinstance(first, FirstRunDialog)
    assert _centred_over_the_conversation(first, window)
    assert empty.title.text() == "Opening your memory…" and _covered(first, empty.title)
    if key == "passphrase":
        qtbot.keyClicks(first.passphrase, PASSPHRASE)
        qtbot.keyClicks(first.confirm, PASSPHRASE + "x")  # the error line grows the dialog
        assert first.error.isVisible() and _centred_over_the_conversation(first, window)
        qtbot.keyClick(first.confirm, Qt.Key.Key_Backspace)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.mouseClick(first.create_button, Qt.MouseButton.LeftButton)

    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        window.lock()  # auto-lock: "MemoryOS locked itself", and the key is asked for again

    dialog = shown.args[0]
    assert isinstance(dialog, UnlockDialog) == (key == "passphrase")
    assert empty.title.text() == "MemoryOS locked itself"
    assert _centred_over_the_conversation(dialog, window)
    assert _covered(dialog, empty.title) and _covered(dialog, empty.hint)
    assert not empty.logo.isVisible()
    window.resize(640, 480)
    qtbot.waitUntil(lambda: _centred_over_the_conversation(dialog, window))
    dialog.reject()
    window.close()
