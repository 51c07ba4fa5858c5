"""The privacy panel's shared pieces: its list's constants, its wording, questions, row editor."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QStyledItemDelegate, QWidget
from shiboken6 import isValid

from app.persona_items import PROFILE, PersonaItem
from app.widgets import when
from engine.terminal.wording import count

ROLE = Qt.ItemDataRole.UserRole
WHAT_IT_KNOWS = 1  # the list's only editable column
DANGER = "#B42318"  # the Erase icons' red, of the light design (icons.pixmap adapts it)
# The row alone, selected: without explicit flags a held Ctrl or Shift toggles or extends
SELECT_ROW = (QItemSelectionModel.SelectionFlag.ClearAndSelect
              | QItemSelectionModel.SelectionFlag.Rows)


def ask(parent: QWidget, title: str, text: str, *actions: str) -> str:
    """Ask with Cancel and the destructive `actions`; the action chosen, "" for Cancel."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)  # it quotes items: "<b>" in one is not markup
    for action in actions:
        box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    if clicked is None or box.buttonRole(clicked) != QMessageBox.ButtonRole.DestructiveRole:
        return ""
    return clicked.text()


def _and(parts: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


def items_words(items: list[PersonaItem]) -> str:
    """"1 fact", "2 facts and 1 profile entry": what a delete removed."""
    slots = sum(item.kind == PROFILE for item in items)
    facts = len(items) - slots
    parts = [count(facts, "fact")] if facts else []
    if slots:
        parts.append(count(slots, "profile entry", "profile entries"))
    return _and(parts)


def forgot_words(done: Any) -> str:
    """"1 exchange and 1 fact": what a forget removed (the engine's ForgetPreview)."""
    parts = [count(len(done.pages), "exchange")]
    if done.facts:
        parts.append(count(len(done.facts), "fact"))
    if done.slots:
        parts.append(count(len(done.slots), "profile entry", "profile entries"))
    return _and(parts)


def learned_later(item: PersonaItem) -> str:
    """"learned 27 Nov 2026 03:24" when that was another day than it was said (imported
    history), else "": the list shows when it was said."""
    said = item.said or item.learned
    days = {dt.date.fromtimestamp(t) for t in (said, item.learned) if t}
    return f"learned {when(item.learned)}" if len(days) > 1 else ""


def keyboard_back(window: QWidget, came_from: QWidget | None) -> None:
    """The window a panel closed over comes to the front with the keyboard where it was: with
    no window manager to activate it the keys typed next went nowhere, and a window that lost
    track of its focus gives it to its first control (the conversation search). `came_from`:
    where the keyboard was in it when the panel opened."""
    active = QApplication.activeWindow()
    if not window.isVisible() or (active not in (None, window) and active.isVisible()):
        return
    target = window.focusWidget()
    if target is None or not target.isVisibleTo(window):
        target = came_from
    if target is not None and isValid(target) and target.isVisibleTo(window):
        target.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
    window.activateWindow()


class RowEditor(QStyledItemDelegate):
    """Edits "What it knows" in a box over the whole cell: Qt put it at the text's place,
    inside the row's padding, and it sat lower than the row it edits."""

    def createEditor(self, parent: QWidget, option: Any, index: Any) -> QWidget:  # noqa: N802
        editor = super().createEditor(parent, option, index)
        editor.setAccessibleName("What it knows")  # Qt's own box has none: "text field"
        return editor

    def updateEditorGeometry(self, editor: QWidget, option: Any, index: Any) -> None:  # noqa: N802
        editor.setGeometry(option.rect)
