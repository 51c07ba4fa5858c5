"""The message box under the conversation: Enter sends, Shift+Enter starts a new line, Stop cancels,
Page Up and Page Down scroll the conversation."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.icons import icon

MAX_LINES = 8
DEFAULT_HINT = "Enter to send · Shift+Enter for a new line"
BUSY_HINT = ("An answer is still being written: your message stays here. Press Enter again "
             "when it ends, or Esc to stop the answer.")
# A message this long may be more than the model reads at once: the window measures it (in a
# worker, with the model's own token count) a moment after the typing or the paste.
MEASURE_CHARS = 1000
MEASURE_MS = 300
WARNING_COLOR = "#B54708"


class MessageInput(QPlainTextEdit):
    """A plain-text box that grows with its text; Enter submits, Shift+Enter inserts a newline."""

    submitted = Signal()
    escaped = Signal()  # Esc while no answer streams (then Esc is Stop's shortcut)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageInput")
        self.setTabChangesFocus(True)
        # The conversation above, which Page Up and Page Down scroll from here (as in chat
        # programs: the box is a few lines, the conversation is what one reads back through).
        # Home, End, Ctrl+Home and Ctrl+End stay the box's own, for its text.
        self.conversation: QAbstractScrollArea | None = None
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            event.accept()
            self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.escaped.emit()
        page = {Qt.Key.Key_PageUp: QAbstractSlider.SliderAction.SliderPageStepSub,
                Qt.Key.Key_PageDown: QAbstractSlider.SliderAction.SliderPageStepAdd}
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() in page and plain and self.conversation is not None:
            event.accept()
            self.conversation.verticalScrollBar().triggerAction(page[event.key()])
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A new text size: the box's height follows (it kept the old one, clipping a line)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()

    def _fit(self) -> None:
        # At most MAX_LINES, and at most an eighth of the screen's height: at the largest text
        # eight lines left no room for the hint and the length note under the box.
        spacing = self.fontMetrics().lineSpacing()
        most = min(MAX_LINES, max(3, self.screen().availableGeometry().height() // 8 // spacing))
        lines = max(1, min(most, int(self.document().size().height())))
        # The lines, the document's own margin and the frame's (border and padding): a fixed
        # 20 px fell short at large text sizes, and a scroll bar showed in a one-line box.
        frame = self.contentsMargins()
        chrome = 2 * self.document().documentMargin() + frame.top() + frame.bottom() + 2
        height = int(self.fontMetrics().lineSpacing() * lines + chrome)
        self.setFixedHeight(max(44, height))


class Composer(QFrame):
    """Input box, Send and Stop; the window decides what sending means."""

    send_requested = Signal(str)
    stop_requested = Signal()
    measure_requested = Signal(str)  # a long text in the box: is it more than the model reads?
    measured = Signal()  # what the box says about the text's length is up to date (tests)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.input = MessageInput()
        self.input.setPlaceholderText("Message MemoryOS")
        self.input.submitted.connect(self._submit)
        self.send_button = QPushButton(icon("send", "#FFFFFF", "#5F69C0"), " Send", objectName="sendButton")
        self.send_button.setIconSize(QSize(16, 16))
        self.send_button.setToolTip("Send (Enter)")
        self.send_button.clicked.connect(self._submit)
        self.stop_button = QPushButton(icon("stop", "#B42318"), " Stop", objectName="stopButton")
        self.stop_button.setIconSize(QSize(14, 14))
        self.stop_button.setToolTip("Stop the answer (Esc)")
        self.stop_button.setShortcut(Qt.Key.Key_Escape)
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.hide()
        self.hint = QLabel(objectName="hint")
        self.hint.setText(DEFAULT_HINT)
        self.hint.setWordWrap(True)  # whole at the largest text size, on two lines if need be
        # "This message is about 5,000 words, more than the model can read at once…"
        self.length_note = QLabel(objectName="hint")  # the hint's size, in a warning colour
        self.length_note.setWordWrap(True)
        self.length_note.setTextFormat(Qt.TextFormat.RichText)
        self.length_note.hide()
        # Why the box holds a text the person did not just type ("Your last message was not
        # answered…"): shown above it until that text is sent or gone from the box (an edit
        # cancelled with Esc, the box cleared, something else typed over it).
        self.notice = QLabel(objectName="hint")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self._put_back_words: set[str] = set()
        self.input.document().contentsChanged.connect(self._drop_stale_notice)
        self._measure_timer = QTimer(self, singleShot=True, interval=MEASURE_MS)
        self._measure_timer.timeout.connect(self._measure)
        self.input.document().contentsChanged.connect(self._measure_timer.start)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 12, 20, 8)
        layout.setSpacing(4)
        layout.addWidget(self.notice)
        layout.addLayout(row)
        layout.addWidget(self.length_note)
        layout.addWidget(self.hint)
        self._busy = False
        self._ready = True
        self._update()

    def set_busy(self, busy: bool) -> None:
        """While an answer streams, Send becomes Stop (one inference at a time)."""
        self._busy = busy
        if not busy and self.hint.text() == BUSY_HINT:
            self.set_hint(DEFAULT_HINT)
        self._update()

    def set_ready(self, ready: bool, why: str = "") -> None:
        """Whether a message can be sent at all (vault open, model loaded)."""
        self._ready = ready
        self.send_button.setToolTip("Send (Enter)" if ready else why)
        self._update()

    def set_hint(self, text: str) -> None:
        self.hint.setText(text)
        self._show_hint()

    def put_back(self, text: str, notice: str) -> None:
        """Put `text` in the box to be sent when the person chooses (never sent from here),
        before what the box holds already, with `notice` saying why it is there."""
        held = self.input.toPlainText().strip()
        self.input.setPlainText(f"{text}\n\n{held}" if held else text)
        self.input.moveCursor(QTextCursor.MoveOperation.End)
        self.notice.setText(notice)
        self.notice.show()
        self._put_back_words = set(text.split())

    def take_back(self, text: str) -> None:
        """`text`, put back in the box, is sent another way (Regenerate): the box empties if
        it holds just that, its notice with it; anything else typed there stays."""
        if self.input.toPlainText().strip() == text.strip():
            self.input.clear()

    def _drop_stale_notice(self) -> None:
        """The notice goes once most of the text it speaks of is gone from the box (a few
        words changed keep it): it said "It is back in the box" over an empty box after an
        edit was cancelled."""
        if not self._put_back_words:  # nothing put back: no split of the box at each key
            return
        kept = self._put_back_words & set(self.input.toPlainText().split())
        if len(kept) * 2 < len(self._put_back_words):
            self._put_back_words = set()
            self.notice.hide()

    def set_placeholder(self, text: str) -> None:
        """The grey text of the empty box. Qt repaints only when the placeholder appears or
        disappears, not when it changes while shown: without the update the old one stays."""
        self.input.setPlaceholderText(text)
        self.input.viewport().update()

    def _measure(self) -> None:
        text = self.input.toPlainText().strip()
        if len(text) < MEASURE_CHARS:
            self.length_note.hide()
            self._show_hint()
            self.measured.emit()
            return
        self.measure_requested.emit(text)

    def show_length(self, text: str, note: str) -> None:
        """What the window found about `text` (measured): `note` says it is more than the
        model reads at once ("" : it is not). A text no longer in the box is not spoken of."""
        if text != self.input.toPlainText().strip():
            return
        color = theme.color(WARNING_COLOR)
        self.length_note.setText(f"<span style='color:{color}'>⚠ {escape(note)}</span>")
        self.length_note.setVisible(bool(note))
        self._show_hint()

    def _show_hint(self) -> None:
        """The keys' hint makes room for the length note (Enter still sends); any other
        hint (busy, loading, editing) stays beside it."""
        self.hint.setVisible(not (self.length_note.isVisibleTo(self)
                                  and self.hint.text() == DEFAULT_HINT))
        self.measured.emit()

    def _update(self) -> None:
        self.send_button.setVisible(not self._busy)
        self.stop_button.setVisible(self._busy)
        self.send_button.setEnabled(self._ready and not self._busy)

    def _submit(self) -> None:
        text = self.input.toPlainText().strip()
        if not text:
            return
        if self._busy:  # never silently dropped: the text stays and the hint says why
            self.set_hint(BUSY_HINT)
            return
        if not self._ready:
            why = self.send_button.toolTip() or "Not ready yet"
            self.set_hint(f"{why}: your message stays here until it can be sent.")
            return
        self.input.clear()
        self.length_note.hide()
        self.notice.hide()
        self._show_hint()
        self.send_requested.emit(text)
