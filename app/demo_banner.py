"""The banner shown while a tiny model answers (the bundled demo, a GGUF file or a server's very
small model): it says so and offers a real model. It can be closed (for that model only), and where
the window is short it says it in a line or two, the rest behind "Why?"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from app.icons import pixmap
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings, save_settings
from app.theme import pixels
from engine.prompt import SMALL_MAX_TOKENS, is_small_model

# The demo model rambles and drifts into other languages past this; the engine caps any small
# model so (memoryos chat and MCP too); the app applies it before the model has loaded.
DEMO_MAX_TOKENS = SMALL_MAX_TOKENS

BUNDLED_TEXT = (
    "You are talking to the tiny demo model (SmolLM2-135M): its answers are short and "
    "often wrong. A real model takes a few minutes to set up (most of it the download)."
)
BUNDLED_SHORT = "Tiny demo model: often wrong."
# The banner says all of it while that takes at most MOST_LINES lines and at most AREA_SHARE of
# the height it shares with the conversation (HEIGHT_SHARE of the window's, before the window
# has a conversation to measure); past it it says it in short: the conversation comes first.
# At 700×520 all of it took five lines, 95 of the 340 px; at 800×740 four lines leave room.
HEIGHT_SHARE = 1 / 5
AREA_SHARE = 1 / 6
MOST_LINES = 4
MARGINS, COMPACT_MARGINS = (20, 8, 8, 8), (12, 2, 4, 2)
# Said in short, the banner is as low as it can be: the mark goes where that saves a line; the
# button says "Choose…" (its name and tooltip stay whole) only where its whole label leaves the
# text more than COMPACT_LINES lines beside the buttons; where no way beside them is as low, the
# buttons and the × go under a line of text. At the smallest window the text took four lines
# beside them (68 of 420 px); at the largest text, two lines above them (108 of 740).
COMPACT_LINES = 2
CHOOSE, CHOOSE_SHORT = "Choose a model…", "Choose…"
CHOOSE_TIP = "Models on this computer, local servers, downloads (Ctrl+M)"


class DemoBanner(QFrame):
    """Visible while the bundled model is the chosen one, and while the chosen GGUF file's or
    server's model is known to be very small (once it has loaded: the engine reads its size
    then, from the file's header or the server), unless the person closed it for that model."""

    choose_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="banner")
        self._settings: AppSettings | None = None
        self._session: Any = None
        self._texts = (BUNDLED_TEXT, BUNDLED_SHORT)  # all of it, and the line for short room
        self.compact = False  # saying it in a line (see _arrange)
        # The conversation below: the height the two share decides how much the banner says.
        self.chat_area: QWidget | None = None
        self.grid = QGridLayout(self)
        self.grid.setHorizontalSpacing(6)
        self.grid.setVerticalSpacing(6)
        self.mark = QLabel()
        self.mark.setPixmap(pixmap("model", 16, "#7A5300"))
        self.text = QLabel(BUNDLED_TEXT)
        self.text.setWordWrap(True)
        self.why = QPushButton("Why?", objectName="bannerLink")
        self.why.setCheckable(True)
        self.why.setToolTip("Say more about this model")
        self.why.toggled.connect(self._why_toggled)
        self.button = QPushButton(CHOOSE)
        self.button.setAccessibleName(CHOOSE)  # the same name where it says "Choose…"
        self.button.setToolTip(CHOOSE_TIP)
        self.button.clicked.connect(self.choose_requested)
        self.actions = QWidget()  # Why? and Choose, beside the text or under it
        row = QHBoxLayout(self.actions)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.why)
        row.addWidget(self.button)
        self.close_button = QToolButton(objectName="bannerClose", text="×")
        self.close_button.setAccessibleName("Close this notice")
        self.close_button.setToolTip("Close this notice (it stays closed for this model)")
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.close_button.clicked.connect(self.close_for_this_model)
        self.grid.addWidget(self.mark, 0, 0, Qt.AlignmentFlag.AlignVCenter)
        self.grid.addWidget(self.text, 0, 1)
        self.grid.setColumnStretch(1, 1)
        self.beside = True  # the buttons beside the text (False: under it)
        self.close_below = False  # the × beside the buttons under the text (said in short)
        self.grid.addWidget(self.actions, 0, 2)
        self.grid.addWidget(self.close_button, 0, 3, Qt.AlignmentFlag.AlignTop)
        self._set_margins()
        self.why.hide()
        self.hide()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self._arrange(event.size().width())
        super().resizeEvent(event)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        top = self.window()
        if top is not self:  # its height decides how much the banner may say
            top.installEventFilter(self)
        self._arrange(self.width())  # the text size may have changed while it was hidden
        super().showEvent(event)

    def follow(self, chat_area: QWidget) -> None:
        """Say all of it only where it leaves `chat_area` (the conversation) its height."""
        self.chat_area = chat_area
        chat_area.installEventFilter(self)  # its height is known once the window's layout ran

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        mine = watched is self.window() or watched is self.chat_area
        if event.type() == QEvent.Type.Resize and mine and self.isVisible():
            self._arrange(self.width())
        return False

    def changeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new text size, once all of it is in
            self.mark.setPixmap(pixmap("model", pixels(16), "#7A5300"))  # as large as the text
            QTimer.singleShot(0, self, lambda: self._arrange(self.width()))

    def _set_margins(self) -> None:
        """Narrower margins and buttons in a line (the style sheet's banner[compact])."""
        self.grid.setContentsMargins(*(COMPACT_MARGINS if self.compact else MARGINS))
        self.grid.setVerticalSpacing(2 if self.compact else 6)
        self.setProperty("compact", self.compact)
        for widget in (self.why, self.button, self.close_button):
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def _arrange(self, width: int) -> None:
        """All of the text, or its short form where all of it would take more than MOST_LINES
        lines or more than AREA_SHARE of the conversation's height (unless "Why?" asked for it).
        All of it: the buttons beside the text, or under it where that makes the banner lower
        (in a narrow window the text beside the button was a thin column, taller than the banner
        could be). Its short form: see COMPACT_LINES."""
        if width <= 0:
            return
        full, short = self._texts
        asked = self.why.isChecked()
        _fits, tall, lines = self._layout(full, width, False, False)
        area = self.chat_area
        if area is not None and area.height() > 0:
            # The banner and the conversation share this height, whichever way the banner
            # says it (so it does not switch to and fro).
            too_tall = tall > (area.height() + self.height()) * AREA_SHARE
        else:
            top = self.window()
            room = top.height() if top is not self else 1 << 20
            # The way back to all of it wants a margin, or it would switch to and fro.
            margin = (self.text.fontMetrics().lineSpacing() + 16) * self.compact
            too_tall = tall > room * HEIGHT_SHARE - margin
        compact = not asked and short != full and (too_tall or lines > MOST_LINES)
        if compact != self.compact:
            self.compact = compact
            self._set_margins()
        self.why.setVisible(compact or asked)
        text = short if compact else full
        if self.text.text() != text:
            self.text.setText(text)
            self.text.setToolTip(full if compact else "")
        if compact:
            beside, mark, brief = self._compact_layout(text, width)
        else:
            beside, mark, brief = self._layout(text, width, False, asked)[0], True, False
        self.mark.setVisible(mark)
        self._set_choose(brief)
        self._place(beside, compact and not beside)

    def _compact_layout(self, text: str, width: int) -> tuple[bool, bool, bool]:
        """Said in short: are the buttons beside the text, is the mark shown, does the button
        say "Choose…"? The lowest way (of two as low, the one that shows more); "Choose…" only
        where all of its label leaves the text more than COMPACT_LINES lines beside it."""
        ways = [
            (True, True, False),
            (True, False, False),
            (True, False, True),
            (False, True, False),
            (False, False, False),
        ]
        sized = [(*self._size(text, width, True, True, *way), way) for way in ways]
        whole = [(height, lines, way) for height, lines, way in sized if not way[2]]
        if any(way[0] and lines <= COMPACT_LINES for _height, lines, way in whole):
            sized = whole
        return min(sized, key=lambda each: each[0])[2]

    def _set_choose(self, brief: bool) -> None:
        """The button's label: "Choose…" where the room is short, with all of it as its tip."""
        label = CHOOSE_SHORT if brief else CHOOSE
        if self.button.text() != label:
            self.button.setText(label)
            self.button.setToolTip(f"{CHOOSE} {CHOOSE_TIP}" if brief else CHOOSE_TIP)

    def _place(self, beside: bool, close_below: bool) -> None:
        """The buttons beside the text or under it; the × at the top, or beside the buttons
        under the text (said in short, the text then has the whole width)."""
        if (beside, close_below) == (self.beside, self.close_below):
            return
        self.beside, self.close_below = beside, close_below
        for widget in (self.text, self.actions, self.close_button):
            self.grid.removeWidget(widget)
        if beside:
            self.grid.addWidget(self.text, 0, 1)
            self.grid.addWidget(self.actions, 0, 2)
        else:
            self.grid.addWidget(self.text, 0, 1, 1, 3 if close_below else 1)
            self.grid.addWidget(self.actions, 1, 1, Qt.AlignmentFlag.AlignLeft)
        self.grid.addWidget(self.close_button, int(close_below), 3, Qt.AlignmentFlag.AlignTop)

    def _layout(self, text: str, width: int, compact: bool, why: bool) -> tuple[bool, int, int]:
        """For `text` at `width`: are the buttons beside it, how high is the banner then, and
        in how many lines is the text."""
        tall, lines_beside = self._size(text, width, compact, why, True, True, False)
        under, lines_under = self._size(text, width, compact, why, False, True, False)
        # Beside where that is as low, or a line higher at most (it reads better).
        fits = tall - under <= self.text.fontMetrics().lineSpacing()
        return fits, tall if fits else under, lines_beside if fits else lines_under

    def _size(
        self, text: str, width: int, compact: bool, why: bool, beside: bool, mark: bool,
        brief: bool,
    ) -> tuple[int, int]:
        """How high the banner is with `text` at `width`, and in how many lines the text is:
        the buttons `beside` it or under it (said in short, the × goes under it too), with the
        `mark` or without, the button saying "Choose…" (`brief`) or all of its label."""
        left, top, right, bottom = COMPACT_MARGINS if compact else MARGINS
        gap = self.grid.horizontalSpacing()
        room = width - left - right - (self.mark.sizeHint().width() + gap) * mark
        close = self.close_button.sizeHint()
        button = self.button.sizeHint()
        metrics = self.button.fontMetrics()
        label = CHOOSE_SHORT if brief else CHOOSE
        button.setWidth(
            button.width() + metrics.horizontalAdvance(label)
            - metrics.horizontalAdvance(self.button.text())
        )
        if beside:
            actions = button.width() + (self.why.sizeHint().width() + 6 if why else 0)
            text_height = self._text_height(text, room - close.width() - actions - 2 * gap)
            height = max(text_height, button.height(), close.height())
        elif compact:  # the × beside the buttons, under the text
            text_height = self._text_height(text, room)
            height = text_height + 2 + max(button.height(), close.height())
        else:
            text_height = self._text_height(text, room - close.width() - gap)
            height = max(text_height + 6 + button.height(), close.height())
        lines = round(text_height / max(1, self.text.fontMetrics().lineSpacing()))
        return height + top + bottom, lines

    def _text_height(self, text: str, width: int) -> int:
        if width <= 0:
            return 1 << 20
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.text.fontMetrics().boundingRect(QRect(0, 0, width, 1 << 20), flags, text).height()

    def _why_toggled(self, shown: bool) -> None:
        self.why.setText("Less" if shown else "Why?")
        self.why.setToolTip("Say it in a line again" if shown else "Say more about this model")
        self._arrange(self.width())

    def close_for_this_model(self) -> None:
        """× : hidden, and not shown again for this model (another tiny one brings it back)."""
        self.hide()
        if self._settings is None:
            return
        self._settings.banner_closed_for = banner_key(self._settings)
        try:
            save_settings(self._settings)
        except OSError:
            pass  # it shows again at the next start: nothing is lost

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
        texts = banner_texts(settings, getattr(mem, "chat", None))
        if settings.banner_closed_for and settings.banner_closed_for == banner_key(settings):
            texts = ("", "")
        if texts[0]:
            if texts != self._texts:
                self._texts = texts
                self.why.setChecked(False)
            self._arrange(self.width())
        self.setVisible(bool(texts[0]))


def banner_key(settings: AppSettings) -> str:
    """Which model the banner speaks of, as the settings remember a closed banner."""
    if settings.model_source == SERVER:
        return f"{settings.model_source} {settings.server_url} {settings.server_model}"
    if settings.model_source == GGUF:
        return f"{settings.model_source} {settings.gguf_path}"
    return settings.model_source


def banner_text(settings: AppSettings, chat: Any = None) -> str:
    """What the banner says for these settings and the loaded `chat`, "" for no banner."""
    return banner_texts(settings, chat)[0]


def banner_texts(settings: AppSettings, chat: Any = None) -> tuple[str, str]:
    """What the banner says, all of it and in a line; ("", "") for no banner."""
    if settings.model_source == BUNDLED:
        return BUNDLED_TEXT, BUNDLED_SHORT
    if not is_small_model(chat):
        return "", ""
    size = f"{chat.info.parameters / 1e6:.0f}M parameters"
    if settings.model_source == GGUF and _runs_file(chat, settings):
        name = Path(settings.gguf_path).stem
        return (
            f"The model {name} is very small ({size}): its answers will be poor. "
            "A larger model answers far better.",
            f"{name} is very small ({size}): its answers will be poor.",
        )
    if settings.model_source != SERVER or not _serves(chat, settings):
        return "", ""
    from app.model_choice import short_model_name

    name = short_model_name(settings.server_model) or settings.server_model
    return (
        f"The server's model {name} is very small ({size}): its answers will be poor. "
        "A larger model answers far better.",
        f"{name} is very small ({size}): its answers will be poor.",
    )


def _runs_file(chat: Any, settings: AppSettings) -> bool:
    """Is `chat` the settings' GGUF file (not the model loaded before a new choice)? Its
    header was read when it loaded (chat.info, the path resolved)."""
    try:
        return chat.info.path == str(Path(settings.gguf_path).expanduser().resolve())
    except (AttributeError, OSError, RuntimeError, ValueError):
        return False


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
