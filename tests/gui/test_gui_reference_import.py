"""File → Import from the reference MemoryOS: a worker with progress, all or nothing, a summary."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from tests.helpers import REFERENCE_CHROMA, reference_copy
from tests.helpers import REFERENCE_MEMORY as FIXTURE

pytestmark = pytest.mark.gui


def _message(parent, title: str):
    from PySide6.QtWidgets import QMessageBox

    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


def test_the_menu_imports_the_reference_folder(qtbot, window, memory):
    from app.importer import import_reference_folder
    from engine.reference_files import read_reference

    assert window.import_reference_action in window.menuBar().actions()[0].menu().actions()
    counts = read_reference(FIXTURE).counts()
    import_reference_folder(window, window.session, str(FIXTURE))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    pages = counts["short_term_pages"] + counts["mid_term_pages"]
    assert (
        f"Imported {pages} pages in {counts['segments']} topics"
        in _message(window, "Import").text()
    )
    assert len(memory.pages()) == pages
    assert any(slot.origin == "imported from the reference" for slot in memory.profile())


def test_importing_the_same_folder_again_says_nothing_new_was_added(qtbot, window, memory):
    from app.importer import import_reference_folder

    import_reference_folder(window, window.session, str(FIXTURE))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    first = _message(window, "Import")
    assert "1 piece of assistant knowledge" in first.text()
    first.close()
    first.deleteLater()
    qtbot.waitUntil(lambda: _message(window, "Import") is None)
    pages = len(memory.pages())
    import_reference_folder(window, window.session, str(FIXTURE))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    text = _message(window, "Import").text()
    assert "already in this memory: nothing new was added" in text
    assert "Imported" not in text
    assert len(memory.pages()) == pages


def test_choosing_the_users_folder_says_which_folder_to_choose(qtbot, window, memory, tmp_path):
    from app.importer import import_reference_folder

    folder = reference_copy(tmp_path)
    import_reference_folder(window, window.session, str(folder / "users" / "alex"))
    qtbot.waitUntil(lambda: _message(window, "Import failed") is not None, timeout=30_000)
    text = _message(window, "Import failed").text()
    assert "two levels up" in text and str(folder.resolve()) in text
    assert "pass the" not in text and "data_storage_path" not in text  # no terminal wording
    assert memory.pages() == []


def test_imported_items_say_where_they_came_from_in_the_privacy_panel(qtbot, window, memory):
    from app.importer import import_reference_folder

    import_reference_folder(window, window.session, str(FIXTURE))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    panel = window.open_privacy()
    assert "learned from your conversations or imported" in panel.findChild(
        QLabel, "subtitle").text()  # fmt: skip

    def row(needle: str):
        for index in range(panel.tree.topLevelItemCount()):
            if needle in panel.tree.topLevelItem(index).text(1):
                return panel.tree.topLevelItem(index)
        return None

    qtbot.waitUntil(lambda: row("allergic to peanuts") is not None)
    row("allergic to peanuts").setSelected(True)
    qtbot.waitUntil(lambda: "Alex is allergic to peanuts." in panel.source.toPlainText())
    assert "Imported from the reference MemoryOS" in panel.source.toPlainText()
    assert "added by hand" not in panel.source.toPlainText()
    assert "imported from the reference ·" not in panel.source.toPlainText()  # no raw label


def test_a_broken_reference_folder_is_reported_and_nothing_is_written(
    qtbot, window, memory, tmp_path
):
    from app.importer import import_reference_folder

    folder = reference_copy(tmp_path)
    (folder / "users" / "alex" / "mid_term.json").write_text("{broken", encoding="utf-8")
    import_reference_folder(window, window.session, str(folder))
    qtbot.waitUntil(lambda: _message(window, "Import failed") is not None, timeout=30_000)
    text = _message(window, "Import failed").text()
    assert "mid_term.json is not valid JSON" in text and "Nothing was imported." in text
    assert text.lower().count("nothing was imported") == 1  # said once
    assert memory.pages() == []


def test_the_menu_detects_and_imports_the_chromadb_variant(qtbot, window, memory):
    from app.importer import import_reference_folder

    import_reference_folder(window, window.session, str(REFERENCE_CHROMA))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None, timeout=30_000)
    assert (
        "Imported 8 pages in 1 topic, 2 facts, 1 piece of assistant knowledge and the profile"
        in (_message(window, "Import").text())
    )
    assert len(memory.pages()) == 8
