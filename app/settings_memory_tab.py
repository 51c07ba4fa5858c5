"""The Memory tab of Settings: the memory parameters form with its reset, locked where the
administrator's policy says, and the question asked before a shorter retention forgets."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.memory_form import MemoryForm, count
from app.policy_lock import lock_memory_form


class MemoryTab(QScrollArea):
    """The memory parameters (disabled without an open memory); `locked`: the fields the
    policy sets. `problems_cleared` when a reset leaves nothing for Save to refuse."""

    problems_cleared = Signal()

    def __init__(self, session: Any, policy: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory_form = MemoryForm()
        self.reset_button = reset = QPushButton("Reset to the paper's defaults")
        reset.setToolTip("Your retention choice (Forget exchanges after) stays as it is")
        reset.setMinimumWidth(reset.sizeHint().width())  # its label never cut
        reset.clicked.connect(self.reset_memory)
        self.reset_note = QLabel(objectName="hint")  # what the reset kept
        self.reset_note.setWordWrap(True)
        self.reset_note.hide()
        note = QLabel("Defaults follow the MemoryOS paper (Kang et al., EMNLP 2025). Changes "
                      "apply to new exchanges and the next consolidation.", objectName="hint")
        note.setWordWrap(True)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(14, 14, 14, 14)
        column.addWidget(note)
        column.addWidget(self.memory_form)
        row = QHBoxLayout()
        row.addWidget(self.reset_note, 1)
        row.addWidget(reset, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(row)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        # sideways only past the screen's width (the largest text on a 1024 px screen): cut
        # off at the right, what did not fit could not be reached
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(inner)
        if session is not None:
            self.memory_form.set_settings(session.mem.settings)
        else:
            self.memory_form.set_settings(self.memory_form.settings_class())
            self.setEnabled(False)
        self.locked = lock_memory_form(self.memory_form, policy)
        keeps = self.memory_form.inputs.get("retention_keeps_facts")
        if "retention_keeps_facts" in self.locked and keeps is not None:
            # The policy decides it either way: "Allowed" read as if the person could choose.
            keeps.setText("Required by your administrator" if policy.retention_keeps_facts
                          else "Not allowed by your administrator")
            keeps.setMinimumWidth(keeps.sizeHint().width())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_columns()

    def fit_columns(self) -> None:
        """The boxes side by side in two columns where the page is wide enough for them, else
        one under another: at the largest text on a 1366x768 screen scaled by 1.5 the second
        column was past the page's right edge, reached only sideways. The page's width is
        taken with its scroll bar shown (it is, at any width one column is needed): measured
        without it, the bar that two columns then bring could send them back to one."""
        form = self.memory_form
        margins = self.widget().layout().contentsMargins()
        room = (self.width() - self.verticalScrollBar().sizeHint().width()
                - margins.left() - margins.right())
        widths = [box.minimumSizeHint().width() for box in form.boxes]
        two = max(widths[0::2]) + max(widths[1::2]) + form.layout().horizontalSpacing()
        form.set_columns(2 if two <= room else 1)

    def reset_memory(self) -> None:
        """The paper's defaults, but for retention (a privacy choice): said beside the button."""
        refused = any(label.text() for label in self.memory_form.problems.values())
        kept = self.memory_form.reset()
        self.memory_form.show_problems({})
        if refused:  # the defaults contradict nothing: the refusal no longer holds
            self.problems_cleared.emit()
        self.reset_note.setText(f"Back to the paper's defaults. Your retention choice is kept: "
                                f"{kept}.")
        self.reset_note.show()


def retention_tightened(old: Any, new: Any) -> bool:
    """Would the `new` settings forget exchanges (or what they taught) that `old` keeps?"""
    if new.retention_days <= 0:
        return False
    shorter = old.retention_days <= 0 or new.retention_days < old.retention_days
    return shorter or (old.retention_keeps_facts and not new.retention_keeps_facts)


def retention_question(parent: QWidget, preview: Any, settings: Any) -> QMessageBox:
    """"N exchanges are older than X and will be forgotten. Forget them?" (`preview`: what the
    engine would forget). Cancel is the default; the caller opens it, reads `clickedButton()`."""
    pages = len(preview.pages)
    learned = [count(len(preview.facts), "fact")] if preview.facts else []
    if preview.slots:
        entries = len(preview.slots)
        learned.append(f"{entries} profile entr{'y' if entries == 1 else 'ies'}")
    them = "it" if pages == 1 else "them"
    also = f" (and {' and '.join(learned)} learned only from {them})" if learned else ""
    text = (f"{count(pages, 'exchange')}{also} {'is' if pages == 1 else 'are'} older than "
            f"{count(settings.retention_days, 'day')} and will be forgotten. Forget {them}?")
    box = QMessageBox(QMessageBox.Icon.Warning, "Forget old exchanges?", text,
                      QMessageBox.StandardButton.Cancel, parent)
    box.setObjectName("retentionQuestion")
    kept = f"What was learned from {them} stays. " if settings.retention_keeps_facts else ""
    gone = "it cannot" if pages == 1 else "they cannot"
    box.setInformativeText(f"{kept}The next consolidation, in the background, deletes {them} "
                           f"for good: {gone} be brought back. Cancel keeps {them}, and the "
                           "retention you had.")
    box.setDetailedText("\n".join(preview.lines()))
    box.addButton(f"Forget {them}", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box
