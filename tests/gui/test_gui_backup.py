"""File → Back up memory…: an encrypted copy of the open vault, and what the person is told."""

from __future__ import annotations

import pytest

from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
NEWEST = "My locker code at the climbing gym is zebra-4417."


def _message(parent, title: str):
    """The message box with this title the window shows, if any."""
    from PySide6.QtWidgets import QMessageBox

    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


@pytest.fixture
def passphrase_window(qtbot, tmp_path):
    """The main window on a passphrase vault (no keyring), as on a computer without one."""
    from app.main_window import MainWindow
    from engine.backends.fake import FakeChat

    mem = open_fast(tmp_path / "alex.memoryos", True, PASSPHRASE)
    window = MainWindow.for_memory(mem, FakeChat())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
    mem.close()


def test_the_file_menu_offers_a_backup(window):
    menu = next(m.menu() for m in window.menuBar().actions() if m.text() == "&File")
    assert window.backup_action in menu.actions()
    assert window.backup_action.text() == "&Back up memory…"


def test_a_backup_runs_in_a_worker_and_says_where_and_how_it_opens(
    qtbot, passphrase_window, tmp_path
):
    from app.backup import backup_memory

    mem = passphrase_window.session.mem
    # the newest exchange, written by another program (an MCP server), is only in the -wal
    mem.vault.checkpoint()
    server = open_fast(mem.path, False, PASSPHRASE, chat=False)
    server.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    target = tmp_path / "moving.memoryos"
    with mem.vault._lock:  # held here: the copy can only be made off the GUI thread, after
        backup_memory(passphrase_window, passphrase_window.session, str(target))
        assert not target.exists()
    qtbot.waitUntil(lambda: _message(passphrase_window, "Back up memory") is not None)
    text = _message(passphrase_window, "Back up memory").text()
    assert str(target) in text and "passphrase" in text
    server.close()
    assert b"zebra-4417" not in target.read_bytes()
    copy = open_fast(target, False, PASSPHRASE, chat=False)
    try:
        assert NEWEST in [page.user_input for page in copy.pages()]
    finally:
        copy.close()


def test_a_keyring_memory_backup_says_how_to_move_it(qtbot, window, memory, tmp_path):
    from app.backup import backup_memory

    target = tmp_path / "moving.memoryos"
    asked = backup_memory(window, window.session, str(target))
    qtbot.waitExposed(asked)
    assert not asked.elsewhere.isChecked() and not asked.passphrase.isVisible()
    asked.backup_button.click()  # a copy with the memory's key, for this computer
    qtbot.waitUntil(lambda: _message(window, "Back up memory") is not None)
    text = _message(window, "Back up memory").text()
    assert str(target) in text and "keyring" in text and "--passphrase" in text
    copy = open_fast(target, False, None, chat=False)  # its key is in this keyring too
    copy.close()


NEW_PASSPHRASE = "a passphrase for the copy"


def test_a_keyring_memory_backup_that_opens_on_another_computer(qtbot, window, tmp_path):
    from app.backup import backup_memory
    from engine import errors
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    mem = window.session.mem
    mem.add_memory(NEWEST, "Noted.", 1_700_000_100.0)
    target = tmp_path / "moving.memoryos"
    asked = backup_memory(window, window.session, str(target))
    qtbot.waitExposed(asked)
    asked.elsewhere.click()
    assert asked.passphrase.isVisible() and asked.confirm.isVisible()
    qtbot.keyClicks(asked.passphrase, NEW_PASSPHRASE)
    qtbot.keyClicks(asked.confirm, "a passphrase for the cop")
    assert not asked.backup_button.isEnabled() and "not the same" in asked.error.text()
    qtbot.keyClicks(asked.confirm, "y")
    assert asked.backup_button.isEnabled() and not asked.error.isVisible()
    with mem.vault._lock:  # held here: the copy can only be made off the GUI thread, after
        asked.backup_button.click()
        assert not target.exists()
    qtbot.waitUntil(lambda: _message(window, "Back up memory") is not None)
    text = _message(window, "Back up memory").text()
    assert str(target) in text and "any computer" in text
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("moving")) == [
        "moving.memoryos"
    ]
    with pytest.raises(errors.KeyUnavailableError):  # the vault's key is not kept for it
        MemoryOS.open(target, embedder=HashEmbedder(), background=False)
    copy = open_fast(target, False, NEW_PASSPHRASE, chat=False)
    try:
        assert [page.user_input for page in copy.pages()] == [NEWEST]
    finally:
        copy.close()
    assert mem.key_in_keyring  # the memory keeps its key


def test_a_cancelled_question_writes_nothing(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QProgressDialog

    from app.backup import backup_memory

    asked = backup_memory(window, window.session, str(tmp_path / "moving.memoryos"))
    qtbot.waitExposed(asked)
    asked.elsewhere.click()
    qtbot.keyClicks(asked.passphrase, "short")
    qtbot.keyClicks(asked.confirm, "short")
    assert not asked.backup_button.isEnabled() and "at least" in asked.error.text()
    asked.reject()
    # the copy starts behind its busy dialog, at once when the question is answered: none
    assert not [d for d in window.findChildren(QProgressDialog) if d.windowTitle() ==
                "Back up memory"]  # fmt: skip
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".moving", "moving"))]


def test_an_existing_file_is_not_replaced_unasked(qtbot, window, tmp_path):
    from app.backup import backup_memory

    target = tmp_path / "moving.memoryos"
    target.write_bytes(b"an older backup, kept")
    backup_memory(window, window.session, str(target))
    qtbot.waitUntil(lambda: _message(window, "Backup failed") is not None)
    assert "already exists" in _message(window, "Backup failed").text()
    assert target.read_bytes() == b"an older backup, kept"


def test_importing_a_vault_says_it_is_one_and_how_to_open_it(qtbot, window, memory):
    """Import conversations… given a vault said "... is not UTF-8 text"."""
    from app.importer import import_transcript

    import_transcript(window, window.session, str(memory.path))
    qtbot.waitUntil(lambda: _message(window, "Import failed") is not None)
    text = _message(window, "Import failed").text()
    assert "is a MemoryOS vault" in text and "Switch memory" in text
    assert "UTF-8" not in text
