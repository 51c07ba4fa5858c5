"""Privacy's Undo takes back each delete and edit in turn, newest first: a person who deleted
three facts one by one and then saw the first was a mistake could get back only the last one.
The changes are kept while the memory is open (closing the panel or not), up to UNDO_DEPTH."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.privacy import ROLE, WHAT_IT_KNOWS
from app.privacy_items import UNDO_DEPTH
from tests.gui_steps import (
    delete_in_privacy,
    privacy_in_front,
    privacy_row,
    shown_dialog,
    start_unlocked,
    unlock,
)

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
NURSE = "I work as a nurse in Krakow."
DOG = "My dog is called Pixel."
THAI = "I really love spicy Thai food."
MILD = "I really love mild Thai food."


def _learn(memory) -> None:
    for said, answered in ((NURSE, "That sounds demanding."), (DOG, "Nice name."),
                           (THAI, "Yum.")):
        memory.add_memory(said, answered)
    memory.run_consolidation()


def _open(qtbot, window, needle: str = THAI):
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, needle) is not None, timeout=10_000)
    return panel


def _facts(memory) -> list[str]:
    return [f.text for f in memory.facts()]


def _edit(qtbot, panel, needle: str, text: str) -> None:
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        privacy_row(panel, needle).setText(WHAT_IT_KNOWS, text)
    qtbot.waitUntil(lambda: privacy_row(panel, text) is not None, timeout=10_000)


def _undo(qtbot, panel) -> None:
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)


def _close(qtbot, window, panel) -> None:
    panel.close()
    qtbot.waitUntil(lambda: "privacy" not in window.panels)


def test_three_changes_are_taken_back_newest_first(qtbot, window, memory):
    _learn(memory)
    panel = _open(qtbot, window)
    delete_in_privacy(qtbot, panel, NURSE)
    delete_in_privacy(qtbot, panel, DOG)
    _edit(qtbot, panel, THAI, MILD)
    assert "edit" in panel.undo_button.text().lower() and THAI in panel.undo_button.toolTip()

    _undo(qtbot, panel)  # the edit: the text as it was
    qtbot.waitUntil(lambda: privacy_row(panel, THAI) is not None)
    assert THAI in _facts(memory) and MILD not in _facts(memory)
    assert DOG not in _facts(memory) and NURSE not in _facts(memory)
    # The button now offers the delete before it, and says what it puts back
    assert panel.undo_button.isVisible() and "delete" in panel.undo_button.text().lower()
    assert DOG in panel.undo_button.toolTip() and NURSE not in panel.undo_button.toolTip()

    privacy_in_front(qtbot, panel)
    with qtbot.waitSignal(panel.changed, timeout=10_000):  # Ctrl+Z does what the button does
        qtbot.keyClick(panel.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: privacy_row(panel, DOG) is not None)
    assert DOG in _facts(memory) and NURSE not in _facts(memory)
    assert NURSE in panel.undo_button.toolTip()

    _undo(qtbot, panel)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    assert {NURSE, DOG, THAI} <= set(_facts(memory))
    assert not panel.undo_button.isVisible()
    with qtbot.assertNotEmitted(panel.changed, wait=300):
        panel.undo()  # nothing more to take back


def test_the_changes_kept_outlive_the_panel(qtbot, window, memory):
    _learn(memory)
    panel = _open(qtbot, window)
    delete_in_privacy(qtbot, panel, NURSE)
    delete_in_privacy(qtbot, panel, DOG)
    _close(qtbot, window, panel)

    again = _open(qtbot, window)
    assert again.undo_button.isVisible() and DOG in again.undo_button.toolTip()
    _undo(qtbot, again)
    qtbot.waitUntil(lambda: privacy_row(again, DOG) is not None)
    assert NURSE not in _facts(memory)
    _close(qtbot, window, again)  # closed between two undos: the older one is still kept

    third = _open(qtbot, window)
    assert third.undo_button.isVisible() and NURSE in third.undo_button.toolTip()
    assert "until you lock" in third.done_note.text()
    _undo(qtbot, third)
    qtbot.waitUntil(lambda: privacy_row(third, NURSE) is not None)
    assert {NURSE, DOG} <= set(_facts(memory))
    assert not third.undo_button.isVisible()


def test_a_failed_undo_leaves_the_older_changes_offered(qtbot, window, memory):
    """The middle delete's exchange is forgotten elsewhere (/forget in the chat): its Undo puts
    nothing back and says why; the edit after it and the delete before it are taken back."""
    _learn(memory)
    panel = _open(qtbot, window)
    (source,) = privacy_row(panel, DOG).data(0, ROLE).exchanges
    delete_in_privacy(qtbot, panel, NURSE)
    delete_in_privacy(qtbot, panel, DOG)
    _edit(qtbot, panel, THAI, MILD)
    memory.forget_pages([source])

    _undo(qtbot, panel)
    qtbot.waitUntil(lambda: privacy_row(panel, THAI) is not None)
    panel.undo()  # the dog's delete: its exchange was forgotten since
    qtbot.waitUntil(lambda: any(box.isVisible() and "forgotten since" in box.text()
                                for box in panel.findChildren(QMessageBox)))
    for box in panel.findChildren(QMessageBox):
        box.close()
    assert DOG not in _facts(memory)
    qtbot.waitUntil(panel.undo_button.isVisible)
    assert NURSE in panel.undo_button.toolTip()

    _undo(qtbot, panel)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    assert NURSE in _facts(memory) and DOG not in _facts(memory)
    assert not panel.undo_button.isVisible()


def test_only_the_newest_changes_are_kept(qtbot, window, memory):
    _learn(memory)
    panel = _open(qtbot, window)
    texts = [f"I really love spicy Thai food, version {n}." for n in range(UNDO_DEPTH + 1)]
    before = THAI
    for text in texts:
        _edit(qtbot, panel, before, text)
        before = text

    for _ in range(UNDO_DEPTH):
        _undo(qtbot, panel)
    # The first edit dropped off: the text it replaced is not put back
    qtbot.waitUntil(lambda: privacy_row(panel, texts[0]) is not None)
    assert texts[0] in _facts(memory) and THAI not in _facts(memory)
    assert not panel.undo_button.isVisible()


def test_lock_now_empties_the_kept_changes(qtbot, desktop, tmp_path, fail_keyring):
    window, opener = desktop(tmp_path / "v.memoryos")
    start_unlocked(qtbot, window, opener, PASSPHRASE, _learn)
    panel = _open(qtbot, window)
    delete_in_privacy(qtbot, panel, NURSE)
    delete_in_privacy(qtbot, panel, DOG)
    assert window.privacy_undo is not None

    asked = shown_dialog(qtbot, opener, window.lock_now)
    assert window.privacy_undo is None  # the deleted text goes with the decrypted vault
    unlock(qtbot, window, asked, PASSPHRASE)

    again = _open(qtbot, window)
    assert not again.undo_button.isVisible() and again.done_note.text() == ""
    with qtbot.assertNotEmitted(again.changed, wait=300):
        again.undo()
    assert NURSE not in _facts(window.session.mem) and DOG not in _facts(window.session.mem)
