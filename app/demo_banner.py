"""The banner shown while the bundled demo model answers: it says so and offers a real model."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.icons import pixmap
from app.settings_store import BUNDLED, AppSettings
from engine.prompt import SMALL_MAX_TOKENS

# The demo model rambles and drifts into other languages past this; the engine caps any small
# model so (memoryos chat and MCP too); the app applies it before the model has loaded.
DEMO_MAX_TOKENS = SMALL_MAX_TOKENS


class DemoBanner(QFrame):
    """Visible exactly while the bundled model is the chosen one."""

    choose_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="banner")
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 8, 20, 8)
        mark = QLabel()
        mark.setPixmap(pixmap("model", 16, "#7A5300"))
        self.text = QLabel(
            "You are talking to the tiny demo model (SmolLM2-135M): its answers are short and "
            "often wrong. A real model takes a few minutes to set up (most of it the download)."
        )
        self.text.setWordWrap(True)
        self.button = QPushButton("Choose a model…")
        self.button.setToolTip("Models on this computer, local servers, downloads (Ctrl+M)")
        self.button.clicked.connect(self.choose_requested)
        row.addWidget(mark)
        row.addWidget(self.text, 1)
        row.addWidget(self.button)
        self.hide()

    def show_for(self, settings: AppSettings) -> None:
        self.setVisible(settings.model_source == BUNDLED)


def answer_limit(settings: AppSettings) -> int:
    """The longest answer: the person's setting, capped short for the demo model."""
    if settings.model_source == BUNDLED:
        return min(settings.max_tokens, DEMO_MAX_TOKENS)
    return settings.max_tokens
