"""The Settings page for the conversation itself: notices and look."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from app import theme


class ConversationPage(QWidget):
    """Choices about what the conversation shows; `values()` gives AppSettings fields."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.learned_notices = QCheckBox("Say when MemoryOS learns something (“Learned: …”)")
        self.learned_notices.setAccessibleName("Show Learned notices")
        hint = QLabel(
            "A notice after the exchange it came from, with Undo. Never in a temporary chat.",
            objectName="hint",
        )
        hint.setWordWrap(True)
        self.scheme = QComboBox()
        self.scheme.setAccessibleName("Colour scheme")
        for key, label in theme.SCHEMES.items():
            self.scheme.addItem(label, key)
        form = QFormLayout()
        # The choice as wide as its longest entry, not the whole page
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow("Colours", self.scheme)
        form.addRow(self.learned_notices)
        form.addRow(hint)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.addLayout(form)
        layout.addStretch(1)

    def set_values(self, settings: Any) -> None:
        self.learned_notices.setChecked(bool(settings.learned_notices))
        self.scheme.setCurrentIndex(max(0, self.scheme.findData(settings.color_scheme)))

    def values(self) -> dict[str, Any]:
        return {
            "learned_notices": self.learned_notices.isChecked(),
            "color_scheme": self.scheme.currentData(),
        }
