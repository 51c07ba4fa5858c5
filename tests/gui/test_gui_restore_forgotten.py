"""File → Import of an export made before a forget: what was forgotten stays forgotten, and the
message says so and how to bring it back on purpose."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def _message(parent, title: str):
    from PySide6.QtWidgets import QMessageBox

    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


def test_restoring_an_older_export_in_the_app_leaves_out_what_was_forgotten(
    qtbot, window, memory, tmp_path
):
    from app.importer import import_transcript

    memory.add_memory("I adopted a greyhound called Biscuit last week.", "Lovely name.")
    memory.add_memory("I play the cello on Sundays.", "Nice.")
    memory.run_consolidation()
    backup = tmp_path / "memory.json"
    memory.export_json(backup)
    biscuit = next(p for p in memory.pages() if "Biscuit" in p.user_input)
    memory.forget_page(biscuit.id)

    import_transcript(window, window.session, str(backup))
    qtbot.waitUntil(lambda: _message(window, "Restore") is not None)
    text = _message(window, "Restore").text()

    assert not any("Biscuit" in p.user_input for p in memory.pages())
    assert not any("Biscuit" in f.text for f in memory.facts(include_superseded=True))
    assert "Left out 1 exchange" in text
    assert "--include-forgotten" in text and str(memory.path) in text


def test_the_newer_export_after_the_older_forgets_in_the_app_and_says_so(
    qtbot, window, memory, embedder, tmp_path
):
    """File → Import of the export made before a forget, then of the one made after it: the
    app's vault ends without what was forgotten, and the message says what it forgot."""
    from PySide6.QtWidgets import QMessageBox

    from app.importer import import_transcript
    from engine.api import MemoryOS

    def boxes() -> list:
        found = window.findChildren(QMessageBox)
        return [box for box in found if box.windowTitle() == "Restore"]

    with MemoryOS.open(tmp_path / "old.memoryos", create=True, passphrase="old vault phrase",
                       embedder=embedder, background=False) as old:  # fmt: skip
        old.new_conversation()
        old.add_memory("I adopted a greyhound called Biscuit last week.", "Lovely name.")
        old.add_memory("I play the cello on Sundays.", "Nice.")
        old.run_consolidation()
        old.export_json(tmp_path / "before-forget.json")
        biscuit = next(p for p in old.pages() if "Biscuit" in p.user_input)
        old.forget_page(biscuit.id)
        old.export_json(tmp_path / "after-forget.json")

    import_transcript(window, window.session, str(tmp_path / "before-forget.json"))
    qtbot.waitUntil(lambda: len(boxes()) == 1, timeout=10_000)
    assert any("Biscuit" in p.user_input for p in memory.pages())
    import_transcript(window, window.session, str(tmp_path / "after-forget.json"))
    qtbot.waitUntil(lambda: len(boxes()) == 2, timeout=10_000)
    text = boxes()[-1].text()

    assert [p.user_input for p in memory.pages()] == ["I play the cello on Sundays."]
    assert not any("Biscuit" in f.text for f in memory.facts(include_superseded=True))
    assert "Forgot 1 exchange" in text and "forgotten in the memory this export came from" in text
