"""File → Import…: the reference import's dialogs read whole, and a transcript imported again
says it is already in this memory."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QMessageBox, QPushButton

from tests.gui_steps import keep_looking
from tests.helpers import REFERENCE_MEMORY as FIXTURE
from tests.helpers import ROOT, reference_copy

pytestmark = pytest.mark.gui

SHORT = 40  # a title this long is not cut in the middle by the window manager


def _message(parent, title: str):
    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


def _when_open(window, kind, act) -> dict:
    """Once a dialog of `kind` opens (a modal loop), run `act` on it; it is closed whatever
    happens, so a failing check cannot leave the test waiting."""
    seen: dict = {}

    def look() -> bool:
        dialogs = [d for d in window.findChildren(kind) if d.isVisible()]
        if not dialogs:
            return False
        dialog = dialogs[-1]
        try:
            seen["title"] = dialog.windowTitle()
            seen["labels"] = [label.text() for label in dialog.findChildren(QLabel)
                              if label.isVisible()]  # fmt: skip
            seen["width"] = dialog.width()
            act(dialog)
        finally:
            if dialog.isVisible():
                dialog.reject()
        return True

    keep_looking(look, every=50)
    return seen


def test_the_folder_chooser_has_a_short_title_and_says_what_to_choose(qtbot, window, memory):
    from app.importer import import_reference_folder

    def choose(dialog: QFileDialog) -> None:  # as a person does: open the folder, Import
        dialog.setDirectory(str(FIXTURE))
        next(b for b in dialog.findChildren(QPushButton) if b.text() == "Import").click()

    seen = _when_open(window, QFileDialog, choose)
    import_reference_folder(window, window.session)
    assert len(seen["title"]) <= SHORT and "reference MemoryOS" in seen["title"]
    assert "data_storage_path" not in seen["title"]
    explanation = " ".join(seen["labels"])
    assert "users/" in explanation and "chroma_storage/" in explanation
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    assert "Imported" in _message(window, "Import").text()  # the folder chosen was imported


def test_the_user_picker_has_a_short_title_and_asks_in_its_body(qtbot, window, memory, tmp_path):
    from app.importer import import_reference_folder

    folder = reference_copy(tmp_path)
    shutil.copytree(folder / "users" / "alex", folder / "users" / "sam")

    def pick(dialog: QInputDialog) -> None:
        dialog.setTextValue("sam")
        dialog.accept()

    seen = _when_open(window, QInputDialog, pick)
    import_reference_folder(window, window.session, str(folder))
    assert len(seen["title"]) <= SHORT
    question = " ".join(seen["labels"])
    assert "2 people" in question and "import" in question.lower()
    # wide enough for the title and the window manager's " — MemoryOS" after it
    assert seen["width"] >= 8 * len(f"{seen['title']} — MemoryOS")
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    assert "Imported" in _message(window, "Import").text()


def test_a_transcript_imported_again_is_already_in_this_memory(qtbot, window, memory, tmp_path):
    from app.importer import import_transcript

    path = tmp_path / "msgs.json"
    path.write_text(json.dumps([
        {"role": "user", "content": "I love sailing."}, {"role": "assistant", "content": "Nice!"},
        {"role": "user", "content": "My boat is Gaivota."}, {"role": "assistant", "content": "Ok"},
    ]), encoding="utf-8")  # fmt: skip
    import_transcript(window, window.session, str(path))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    assert "Imported 2 exchanges" in _message(window, "Import").text()
    first = _message(window, "Import")
    first.close()
    first.deleteLater()
    qtbot.waitUntil(lambda: _message(window, "Import") is None)

    import_transcript(window, window.session, str(path))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    text = _message(window, "Import").text()
    assert "already in this memory" in text and "Imported" not in text
    assert len(memory.pages()) == 2


def test_the_readme_names_the_import_menu_items_as_the_menu_does(window):
    """README said "File → Import" where the menu reads "Import conversations…"."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = re.findall(r"File → (Import[^*]*?)(?:\*| in the app)", readme)
    menu = [a.text().replace("&", "") for a in window.menuBar().actions()[0].menu().actions()]
    assert len(said) >= 2 and all(name in menu for name in said), (said, menu)
