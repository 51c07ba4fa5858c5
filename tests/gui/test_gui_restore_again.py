"""Restoring the same export twice in the app: the second restore says plainly that there was
nothing new, with the words `memoryos import` prints (both come from the restore's report)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def _restore_boxes(parent) -> list:
    from PySide6.QtWidgets import QMessageBox

    return [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == "Restore"]


def test_a_second_restore_says_nothing_was_new(qtbot, window, memory, embedder, tmp_path):
    from app.importer import import_transcript
    from engine.api import MemoryOS

    with MemoryOS.open(tmp_path / "old.memoryos", create=True, passphrase="old vault phrase",
                       embedder=embedder, background=False) as old:  # fmt: skip
        old.new_conversation()
        old.add_memory("My cat is called Miso.", "A lovely name.")
        old.add_fact("I am allergic to peanuts")
        old.export_json(tmp_path / "backup.json")

    import_transcript(window, window.session, str(tmp_path / "backup.json"))
    qtbot.waitUntil(lambda: len(_restore_boxes(window)) == 1, timeout=10_000)
    first = _restore_boxes(window)[0].text()
    assert first.startswith("Restored 1 exchange") and "Not restored" in first

    import_transcript(window, window.session, str(tmp_path / "backup.json"))
    qtbot.waitUntil(lambda: len(_restore_boxes(window)) == 2, timeout=10_000)
    again = _restore_boxes(window)[-1].text()

    assert again.startswith("Nothing new to restore")
    assert "Already in the vault, not added again: 1 exchange, 1 fact" in again
    assert "Restored" not in again and "Not restored" not in again
    assert [page.user_input for page in memory.pages()] == ["My cat is called Miso."]
