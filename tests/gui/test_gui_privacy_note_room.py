"""The Privacy panel's note of the last change has the room of Undo while Undo is hidden: on a
1366x768 screen at 1.5x "Put back the text as it was before your edit." wrapped on two lines
(257 px for 263 px of text) beside the empty room the hidden Undo kept."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.gui.test_gui_privacy_done_note import undone  # noqa: F401  (the fixture)
from tests.gui.test_privacy_undo_edit import NURSE, TYPO, _edit
from tests.gui_steps import privacy_row, settle

pytestmark = pytest.mark.gui


def _one_line(panel) -> list[str]:
    """Why the note is not on one line where its text fits the room left of Close ([] if it
    is, or if its text does not fit there)."""
    settle()
    note = panel.done_note
    close = next(b for b in panel.findChildren(QPushButton) if b.text() == "Close")
    left = note.mapTo(panel, note.rect().topLeft()).x()
    room = close.mapTo(panel, close.rect().topLeft()).x() - left
    text = note.fontMetrics().horizontalAdvance(note.text())
    if text >= room - 20:  # does not fit beside Close with a space between: it may wrap
        return []
    problems = []
    if note.heightForWidth(note.width()) > note.heightForWidth(10_000):
        problems.append(f"wrapped: {note.width()} px for {text} px of text, {room} px to Close")
    if left + note.width() > close.mapTo(panel, close.rect().topLeft()).x():
        problems.append("over Close")
    return problems


def test_the_note_after_an_undo_is_on_one_line(qtbot, undone):  # noqa: F811
    assert not undone.undo_button.isVisible()
    assert "before your edit" in undone.done_note.text()
    assert _one_line(undone) == []


def test_the_note_keeps_its_line_through_edits_and_undos(qtbot, undone):  # noqa: F811
    """Undo shown beside it again and hidden again: the note has its room each time, and the
    panel's least width stays where it was."""
    least = undone.minimumWidth()
    for _ in range(2):
        _edit(qtbot, undone, NURSE, TYPO)
        qtbot.waitUntil(lambda: privacy_row(undone, TYPO) is not None)
        settle()
        assert undone.undo_button.isVisible()
        assert (_one_line(undone), undone.minimumWidth()) == ([], least)
        with qtbot.waitSignal(undone.changed, timeout=10_000):
            qtbot.mouseClick(undone.undo_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: privacy_row(undone, NURSE) is not None)
        settle()
        assert not undone.undo_button.isVisible()
        assert "before your edit" in undone.done_note.text()
        assert (_one_line(undone), undone.minimumWidth()) == ([], least)
