"""File → Import and Export everything: what the person is told when it ends."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gui

EXCHANGES = [
    {"user": "I moved to Porto last year.", "assistant": "How do you like it?"},
    {"user": "I love the tiles everywhere.", "assistant": "Azulejos are beautiful."},
]


def _message(parent, title: str):
    """The message box with this title the window shows, if any."""
    from PySide6.QtWidgets import QMessageBox

    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


def _transcript(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(EXCHANGES), encoding="utf-8")
    return path


def test_an_import_that_ran_to_the_end_does_not_say_stopped(qtbot, window, memory, tmp_path):
    """A complete import said "Imported 2 exchanges (stopped)": closing the progress dialog
    counted as pressing Stop."""
    from app.importer import import_transcript

    import_transcript(window, window.session, str(_transcript(tmp_path)))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None)
    text = _message(window, "Import").text()
    assert "Imported 2 exchanges" in text
    assert "stopped" not in text.lower()
    assert len(memory.pages()) == 2


def test_pressing_stop_still_says_the_import_stopped(qtbot, window, memory, tmp_path):
    """Stop keeps what is stored and says how much that is. The file holds more than one
    batch (engine/transcripts.py STORE_BATCH): the vault is held while Stop is pressed, so at
    most the batch begun goes in. (With 2 exchanges, one batch, whether Stop came before it
    or while it waited for the vault was a race: CI saw both.)"""
    import re

    from PySide6.QtWidgets import QProgressDialog, QPushButton

    from app.importer import import_transcript
    from engine.transcripts import STORE_BATCH

    many = [{"user": f"Day {i}: I walked along the river in Porto.", "assistant": "Lovely."}
            for i in range(2 * STORE_BATCH + 10)]  # fmt: skip
    path = tmp_path / "long chat.json"
    path.write_text(json.dumps(many), encoding="utf-8")
    with memory.vault._lock:
        import_transcript(window, window.session, str(path))
        dialog = window.findChildren(QProgressDialog)[-1]
        stop = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Stop")
        stop.click()
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    text = _message(window, "Import").text()
    assert "stopped" in text.lower()
    stored = len(memory.pages())
    assert stored <= STORE_BATCH < len(many)
    said = re.search(r"Imported (\d+) exchange", text)
    assert said is not None, text
    assert said[1] == str(stored), text


def test_exporting_into_a_missing_folder_names_it_and_writes_nothing(qtbot, window, tmp_path):
    """Export everything into a folder that does not exist said only "No such file or
    directory": the message names the folder and says to choose an existing one."""
    from app.export import export_memory

    missing = tmp_path / "no such folder"
    export_memory(window, window.session, path=str(missing / "out.json"))
    qtbot.waitUntil(lambda: _message(window, "Export failed") is not None)
    text = _message(window, "Export failed").text()
    assert str(missing) in text and "existing folder" in text
    assert not missing.exists()
    assert not [p for p in tmp_path.rglob("*") if "out.json" in p.name or ".export-" in p.name]
