"""The banner shown while a tiny model answers (the bundled demo, or a server's very small
model): it says so and offers a real model."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

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
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 8, 20, 8)
        mark = QLabel()
        mark.setPixmap(pixmap("model", 16, "#7A5300"))
        self.text = QLabel(BUNDLED_TEXT)
        self.text.setWordWrap(True)
        self.button = QPushButton("Choose a model…")
        self.button.setToolTip("Models on this computer, local servers, downloads (Ctrl+M)")
        self.button.clicked.connect(self.choose_requested)
        row.addWidget(mark)
        row.addWidget(self.text, 1)
        row.addWidget(self.button)
        self.hide()

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
