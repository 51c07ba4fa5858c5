"""The unlock dialog, on a backup put in place of a vault whose journal a crash left."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import shown_dialog
from tests.gui_steps import unlock as unlock_with
from tests.test_journal_in_the_way import OLD_PASSPHRASE, SAID, journal, replace_with_backup

pytestmark = pytest.mark.gui


def test_the_unlock_dialog_says_which_journal_to_move(qtbot, fail_keyring, desktop, tmp_path):
    """It said only that the passphrase does not unlock this vault."""
    path, left = replace_with_backup(tmp_path)
    window, opener = desktop()
    dialog = shown_dialog(qtbot, opener, opener.start)
    qtbot.keyClicks(dialog.passphrase, OLD_PASSPHRASE)
    qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.error.isVisible(), timeout=30_000)
    said = dialog.error.text()
    assert "does not unlock" in said
    assert "default.memoryos-wal" in said and "default.memoryos-shm" in said
    assert journal(path)[0].read_bytes() == left[journal(path)[0]]  # left where it was

    for file in journal(path):  # what the message says to do
        file.rename(path.parent.parent / file.name)
    unlock_with(qtbot, window, dialog, OLD_PASSPHRASE)
    qtbot.waitUntil(lambda: SAID in window.view.browser.toPlainText())
