"""Privacy's Undo outlives the panel: a person who deleted a fact, closed the panel and regretted
it afterwards found "Undo delete" gone. The window keeps the last delete or edit while the
memory is open; a lock (or a switch of memory, or a quit) drops it, and the question says so."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.privacy import ROLE
from tests.gui_steps import delete_in_privacy, privacy_row, shown_dialog, start_unlocked, unlock

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
NURSE = "I work as a nurse in Krakow."
DOG = "My dog is called Pixel."


def _learn(memory) -> None:
    for said, answered in ((NURSE, "That sounds demanding."), (DOG, "Nice name.")):
        memory.add_memory(said, answered)
    memory.run_consolidation()


def _open(qtbot, window):
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, DOG) is not None, timeout=10_000)
    return panel


def _facts(memory) -> list[str]:
    return [f.text for f in memory.facts()]


def test_undo_after_closing_and_reopening_the_panel(qtbot, window, memory):
    _learn(memory)
    panel = _open(qtbot, window)
    seen = delete_in_privacy(qtbot, panel, NURSE)
    assert NURSE not in _facts(memory)

    qtbot.keyClick(panel.tree, Qt.Key.Key_Escape)  # closed first...
    qtbot.waitUntil(lambda: "privacy" not in window.panels)

    again = _open(qtbot, window)  # ...regretted afterwards
    assert again.undo_button.isVisible() and "delete" in again.undo_button.text().lower()
    assert "Deleted 1 fact." in again.done_note.text()
    assert "until you lock" in again.done_note.text()
    with qtbot.waitSignal(again.changed, timeout=10_000):
        qtbot.keyClick(again.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert NURSE in _facts(memory)
    qtbot.waitUntil(lambda: privacy_row(again, NURSE) is not None)

    # Undone once: closed and opened again, there is nothing left to undo
    again.close()
    qtbot.waitUntil(lambda: "privacy" not in window.panels)
    third = _open(qtbot, window)
    assert not third.undo_button.isVisible() and third.done_note.text() == ""
    # The question said how long a delete can be undone
    assert "can be undone" in seen["texts"][0] and "until you lock" in seen["texts"][0]


def test_an_edit_can_be_undone_after_the_panel_was_closed(qtbot, window, memory):
    from app.privacy import WHAT_IT_KNOWS

    _learn(memory)
    panel = _open(qtbot, window)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        privacy_row(panel, DOG).setText(WHAT_IT_KNOWS, "My dog is called Pixie.")
    assert "My dog is called Pixie." in _facts(memory)
    panel.close()
    qtbot.waitUntil(lambda: "privacy" not in window.panels)

    again = _open_after_edit(qtbot, window)
    assert "edit" in again.undo_button.text().lower()
    with qtbot.waitSignal(again.changed, timeout=10_000):
        qtbot.mouseClick(again.undo_button, Qt.MouseButton.LeftButton)
    assert DOG in _facts(memory) and "My dog is called Pixie." not in _facts(memory)


def _open_after_edit(qtbot, window):
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, "Pixie") is not None, timeout=10_000)
    return panel


def test_an_undo_kept_does_not_bring_back_what_a_forget_took(qtbot, window, memory):
    """Kept while the panel was closed, the Undo outlived a forget of the fact's exchange made
    elsewhere (/forget in the chat): it puts nothing back, and says why."""
    from PySide6.QtWidgets import QMessageBox

    _learn(memory)
    panel = _open(qtbot, window)
    (source,) = privacy_row(panel, NURSE).data(0, ROLE).exchanges
    delete_in_privacy(qtbot, panel, NURSE)
    panel.close()
    qtbot.waitUntil(lambda: "privacy" not in window.panels)
    memory.forget_pages([source])

    again = _open(qtbot, window)
    assert again.undo_button.isVisible()
    again.undo()
    qtbot.waitUntil(lambda: any(box.isVisible() and "forgotten since" in box.text()
                                for box in again.findChildren(QMessageBox)))
    assert NURSE not in _facts(memory) and not any(
        "nurse" in p.user_input for p in memory.pages())
    assert not again.undo_button.isVisible()


def test_a_lock_drops_the_undo(qtbot, desktop, tmp_path, fail_keyring):
    window, opener = desktop(tmp_path / "v.memoryos")
    start_unlocked(qtbot, window, opener, PASSPHRASE, _learn)
    panel = _open(qtbot, window)
    delete_in_privacy(qtbot, panel, NURSE)
    panel.close()

    asked = shown_dialog(qtbot, opener, window.lock_now)
    unlock(qtbot, window, asked, PASSPHRASE)

    again = _open(qtbot, window)
    assert not again.undo_button.isVisible() and again.done_note.text() == ""
    qtbot.keyClick(again.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    with qtbot.assertNotEmitted(again.changed, wait=300):
        again.undo()
    assert NURSE not in _facts(window.session.mem)
