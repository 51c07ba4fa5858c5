"""The privacy panel shows what a forget will also remove before the person confirms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gui_steps import keep_looking

pytestmark = pytest.mark.gui

SHOTS = os.environ.get("MEMORYOS_SCREENSHOTS")  # a folder: the dialog is saved there too


def _answer_preview(qtbot, panel, choice: str, seen: dict) -> None:
    """When the preview dialog opens (it is modal), read it and press `choice`."""
    from PySide6.QtWidgets import QMessageBox

    def look() -> bool:
        boxes = [b for b in panel.findChildren(QMessageBox) if b.objectName() == "forgetPreview"]
        if not boxes or not boxes[-1].isVisible():
            return False
        box = boxes[-1]
        seen["text"] = box.text()
        if SHOTS:
            box.grab().save(str(Path(SHOTS) / "forget_preview.png"))
        button = next(b for b in box.buttons() if b.text() == choice)
        button.click()
        return True

    keep_looking(look)


def _select_conversation(panel) -> None:
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.topLevelItem(0).setSelected(True)


@pytest.fixture
def panel(qtbot, window, memory):
    memory.add_memory("I work as a data scientist in San Francisco.", "Nice field.")
    memory.add_memory("My favourite food is spicy ramen.", "Noted!")
    memory.run_consolidation()
    privacy = window.open_privacy()
    qtbot.waitUntil(lambda: privacy.conversation_tree.topLevelItemCount() == 1)
    return privacy


def test_cancel_in_the_preview_keeps_everything(qtbot, panel, memory):
    seen: dict = {}
    _select_conversation(panel)
    _answer_preview(qtbot, panel, "Cancel", seen)
    panel.forget_conversations()
    qtbot.waitUntil(lambda: "text" in seen)
    assert "2 exchanges removed" in seen["text"]
    assert "I work as a data scientist in San Francisco." in seen["text"]  # a fact that goes
    assert len(memory.pages()) == 2 and memory.facts()


def test_forget_after_the_preview_removes_what_it_listed(qtbot, panel, memory):
    seen: dict = {}
    facts = len(memory.facts())
    _select_conversation(panel)
    _answer_preview(qtbot, panel, "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        panel.forget_conversations()
    # the facts that go are named once, under their own heading, not counted again above it
    assert "Learned only from them, and removed too:" in seen["text"] and facts
    assert "learned only from them removed" not in seen["text"]
    assert "1 conversation removed" in seen["text"]
    assert memory.pages() == [] and memory.facts() == []
    assert panel.last_forget_preview.facts  # the dialog listed them

