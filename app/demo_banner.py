"""The banner shown while a tiny model answers (the bundled demo, or a server's very small
model): it says so and offers a real model."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QPushButton, QWidget

from app.icons import pixmap
from app.settings_store import BUNDLED, SERVER, AppSettings
from engine.prompt import SMALL_MAX_TOKENS, is_small_model

# The demo model rambles and drifts into other languages past this; the engine caps any small
# model so (memoryos chat and MCP too); the app applies it before the model has loaded.
DEMO_MAX_TOKENS = SMALL_MAX_TOKENS

BUNDLED_TEXT = (
    "You are talking to the tiny demo model (SmolLM2-135M): its answers are short and "
    "often wrong. A real model takes a few minutes to set up (most of it the download)."
)


class DemoBanner(QFrame):
    """Visible while the bundled model is the chosen one, and while the chosen server's model
    is known to be very small (once it has loaded: the engine reads its size then)."""

    choose_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="banner")
        self._settings: AppSettings | None = None
        self._session: Any = None
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(20, 8, 20, 8)
        self.grid.setHorizontalSpacing(6)
        self.grid.setVerticalSpacing(6)
        mark = QLabel()
        mark.setPixmap(pixmap("model", 16, "#7A5300"))
        self.text = QLabel(BUNDLED_TEXT)
        self.text.setWordWrap(True)
        self.button = QPushButton("Choose a model…")
        self.button.setToolTip("Models on this computer, local servers, downloads (Ctrl+M)")
        self.button.clicked.connect(self.choose_requested)
        self.grid.addWidget(mark, 0, 0, Qt.AlignmentFlag.AlignVCenter)
        self.grid.addWidget(self.text, 0, 1)
        self.grid.setColumnStretch(1, 1)
        self.beside = True  # the button beside the text (False: under it)
        self.grid.addWidget(self.button, 0, 2)
        self.hide()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self._arrange(event.size().width())
        super().resizeEvent(event)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self._arrange(self.width())  # the text size may have changed while it was hidden
        super().showEvent(event)

    def changeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new text size, once all of it is in
            QTimer.singleShot(0, self, lambda: self._arrange(self.width()))

    def _arrange(self, width: int) -> None:
        """The button beside the text, or under it where that makes the banner lower: in a
        narrow window (the smallest, or at the largest text) the text beside the button was a
        thin column, taller than the banner could be, and cut off."""
        margins = self.grid.contentsMargins()
        gap = self.grid.horizontalSpacing()
        mark = self.grid.itemAtPosition(0, 0).sizeHint().width() + gap
        room = width - margins.left() - margins.right() - mark  # the text's, with it under
        button = self.button.sizeHint()
        beside = room - gap - button.width()
        under = self.text.heightForWidth(room) + self.grid.verticalSpacing() + button.height()
        # Beside where that is as low, or a line higher at most (it reads better).
        higher = max(self.text.heightForWidth(beside), button.height()) - under
        fits = beside > 0 and higher <= self.text.fontMetrics().lineSpacing()
        if fits == self.beside:
            return
        self.beside = fits
        self.grid.removeWidget(self.button)
        if fits:
            self.grid.addWidget(self.button, 0, 2)
        else:
            self.grid.addWidget(self.button, 1, 1, Qt.AlignmentFlag.AlignLeft)

    def watch(self, session: Any, settings: AppSettings) -> None:
        """Follow `session`'s model: each time it loads (or fails) the banner is judged again."""
        if self._session is not None and self._session is not session:
            try:
                self._session.model_state.disconnect(self._model_changed)
            except (RuntimeError, TypeError):  # already gone with its session
                pass
        if self._session is not session:
            session.model_state.connect(self._model_changed)
        self._session = session
        self.show_for(settings)

    def _model_changed(self, _state: str, _text: str) -> None:
        if self._settings is not None:
            self.show_for(self._settings)

    def show_for(self, settings: AppSettings) -> None:
        self._settings = settings
        mem = getattr(self._session, "mem", None)
        text = banner_text(settings, getattr(mem, "chat", None))
        if text:
            self.text.setText(text)
            self._arrange(self.width())
        self.setVisible(bool(text))


def banner_text(settings: AppSettings, chat: Any = None) -> str:
    """What the banner says for these settings and the loaded `chat`, "" for no banner."""
    if settings.model_source == BUNDLED:
        return BUNDLED_TEXT
    if settings.model_source != SERVER or not _serves(chat, settings) or not is_small_model(chat):
        return ""
    from app.model_choice import short_model_name

    name = short_model_name(settings.server_model) or settings.server_model
    size = f"{chat.info.parameters / 1e6:.0f}M parameters"
    return (
        f"The server's model {name} is very small ({size}): its answers will be poor. "
        "A larger model answers far better."
    )


def _serves(chat: Any, settings: AppSettings) -> bool:
    """Is `chat` the settings' server model (not the one loaded before a new choice)?"""
    from engine.errors import ServerError
    from engine.network import normalise_url

    if getattr(chat, "model", None) != settings.server_model:
        return False
    try:
        return getattr(chat, "base_url", None) == normalise_url(settings.server_url)
    except ServerError:
        return False


def answer_limit(settings: AppSettings) -> int:
    """The longest answer: the person's setting, capped short for the demo model."""
    if settings.model_source == BUNDLED:
        return min(settings.max_tokens, DEMO_MAX_TOKENS)
    return settings.max_tokens
