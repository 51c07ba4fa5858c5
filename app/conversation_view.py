"""The conversation: dated, speaker-labelled messages in a document view; answers stream in."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainter,
    QPen,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
)
from PySide6.QtWidgets import (
    QAbstractSlider,
    QLabel,
    QSizePolicy,
    QSpacerItem,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.link_guard import LinkGuard
from app.text_formats import char_format as _format
from app.text_formats import finished_end, keep_line_breaks, unfinished_markdown
from app.text_formats import link_format as _link
from app.view_memory import Message, MessagesMixin, _is_code

FLUSH_MS = 40  # streamed chunks are drawn in batches, not one repaint per token
# The streaming answer is drawn as Markdown, its unfinished end again each time: at most every
# RENDER_MS, and never more than 1/RENDER_SHARE of the time (a long table or code block).
RENDER_MS = 100
RENDER_SHARE = 4
THINKING = "Thinking…"
READING = "Reading your message…"  # while the model reads a long message, before it writes
READING_CHARS = 1500  # a message this long takes the model seconds to read on a CPU
WAITING_MS = 1000  # the seconds waited so far are redrawn at most this often
HOLD_MS = 500  # how long hold_place waits for the view's new width
# A message is set in from the other speaker's side by INDENT px, as long as its text still
# gets READING_LINE characters a line; in a narrower view the indent gives way, down to
# INDENT_LEAST (at the smallest window it took a third of the width and answers wrapped early).
INDENT, INDENT_LEAST, READING_LINE = 96, 4, 60
# In a wide view the messages keep to a centred column whose text is MEASURE characters a line
# at most (at 2,500 px an answer ran some 300 characters a line, hard to follow back).
MEASURE = 80
MESSAGE_PADDING, DOCUMENT_MARGIN = 12, 20
THROWAWAY = "\u200b"  # a zero-width space: see _insert_piece
BREAK, FRAME_END = "\u2029", "\ufdd1"  # a line break and a table's end, in a document
FIXED_HEIGHT = (QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)  # a vertical gap
MARKDOWN = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


def day_label(when: dt.datetime, today: dt.date | None = None, short: bool = False) -> str:
    """'Today', 'Yesterday' or a full date, for the separators between days. `short` for the
    sidebar's narrow column ('Sat 21 Nov', the year only when it is not this one): 'Saturday,
    21 November 20…' was cut at its default width."""
    today = today or dt.date.today()
    day = when.date()
    if day == today:
        return "Today"
    if day == today - dt.timedelta(days=1):
        return "Yesterday"
    if short:
        year = f" {day.year}" if day.year != today.year else ""
        return f"{when:%a} {day.day} {when:%b}{year}"
    return f"{when:%A}, {day.day} {when:%B %Y}"


def _local(timestamp: float | None) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp) if timestamp else dt.datetime.now()


def _holds(frame: Any, position: int) -> bool:
    return frame.firstPosition() <= position <= frame.lastPosition()


def _code_around(block: Any) -> str:
    """The text of the code block `block` is a line of."""
    while block.previous().isValid() and _is_code(block.previous()):
        block = block.previous()
    lines = []
    while block.isValid() and _is_code(block):
        lines.append(block.text())
        block = block.next()
    return "\n".join(lines)


class ConversationBrowser(QTextBrowser):
    """The conversation's text, with the link that has the keyboard (Tab) in a 2 px ring of
    the accent, in either scheme: Qt marks it only with a dotted 1 px box in the text colour,
    hard to see, and faint on the dark scheme."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The ring reaches past the link, where Qt repaints when the mark moves: drawn whole
        self.selectionChanged.connect(self.viewport().update)
        self.cursorPositionChanged.connect(self.viewport().update)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """Ctrl+Home and Ctrl+End (and Home and End) go to the conversation's top and end: Qt
        scrolls for Home and End alone, and did nothing with Ctrl."""
        ends = {Qt.Key.Key_Home: QAbstractSlider.SliderAction.SliderToMinimum,
                Qt.Key.Key_End: QAbstractSlider.SliderAction.SliderToMaximum}
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        plain_or_ctrl = modifiers in (Qt.KeyboardModifier.NoModifier,
                                      Qt.KeyboardModifier.ControlModifier)
        if event.key() in ends and plain_or_ctrl:
            event.accept()
            self.verticalScrollBar().triggerAction(ends[event.key()])
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt override
        """Tab and Shift+Tab from link to link: Qt moves the mark without selectionChanged and
        repaints only the links' own text, which left the old ring in part and drew the new
        one without its top and bottom."""
        moved = super().focusNextPrevChild(next)
        self.viewport().update()
        return moved

    def focusInEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().focusInEvent(event)
        self.viewport().update()

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().focusOutEvent(event)
        self.viewport().update()

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        cursor = self.textCursor()
        # the link's own format, at its end: Shift+Tab leaves the cursor at its start, where
        # charFormat() is the text's before it (no ring was drawn)
        end = QTextCursor(cursor)
        end.setPosition(cursor.selectionEnd())
        if not self.hasFocus() or not cursor.hasSelection() or not end.charFormat().isAnchor():
            return
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(theme.color(theme.ACCENT)), 2))
        for line in self._lines_of(cursor):
            painter.drawRoundedRect(QRectF(line).adjusted(-5, -2, 5, 2), 3, 3)
        painter.end()

    def _lines_of(self, cursor: QTextCursor) -> list[QRect]:
        """The rectangles, one a line, that the selected text takes in the viewport."""
        lines: list[QRect] = []
        at = QTextCursor(cursor)
        for position in range(cursor.selectionStart(), cursor.selectionEnd() + 1):
            at.setPosition(position)
            spot = self.cursorRect(at)
            if lines and lines[-1].top() == spot.top() and position > cursor.selectionStart():
                lines[-1] = lines[-1].united(spot)
            else:
                lines.append(spot)
        return [line for line in lines if line.width() > 2]


class EmptyState(QWidget):
    """What an empty conversation shows: what the app does and where to look.

    Its text wraps to the width it gets; where the height is short (the smallest window, the
    demo banner above, the largest text) the logo goes first, then the tips, then the title
    (the hint says more), so that what stays is whole: it asks for no room of its own, the
    banner and the message box come first.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        from app.icons import pixmap

        self.logo = logo = QLabel()
        logo.setPixmap(pixmap("memoryos", 64, ratio=2.0))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel(objectName="emptyTitle", alignment=Qt.AlignmentFlag.AlignCenter)
        self.hint = QLabel(objectName="emptyHint", alignment=Qt.AlignmentFlag.AlignCenter)
        self.tips = QLabel(objectName="emptyTips", alignment=Qt.AlignmentFlag.AlignCenter)
        self.tips.setTextFormat(Qt.TextFormat.RichText)
        for label in (self.title, self.hint, self.tips):
            label.setWordWrap(True)
        self._wanted = (True, False)  # the logo, the tips: shown when there is room
        self.layout_ = layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 0, 16, 0)  # the stretches give it air where there is room
        # Each part with the gap that goes with it, gone with it (see _fit).
        self._gaps = [
            (part, size, QSpacerItem(0, size, *FIXED_HEIGHT))
            for part, size in ((logo, 12), (self.title, 4), (self.tips, 18))
        ]
        gap = {part: item for part, _size, item in self._gaps}
        layout.addStretch(3)
        layout.addWidget(logo)
        layout.addSpacerItem(gap[logo])
        layout.addWidget(self.title)
        layout.addSpacerItem(gap[self.title])
        layout.addWidget(self.hint)
        layout.addSpacerItem(gap[self.tips])
        # Centred, as wide as its text on one line or as the room there is (see _fit).
        layout.addWidget(self.tips, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(4)

    def show_text(self, title: str, hint: str, tips: str, locked: bool = False) -> None:
        """`locked`: the vault dialogs sit centred over this; no logo, and the text centred
        exactly, so that they cover it whole instead of leaving fragments around them."""
        self.title.setText(title)
        self.hint.setText(hint)
        self.tips.setText(tips)
        self._wanted = (not locked, bool(tips))
        self.layout_.setStretch(0, 1 if locked else 3)
        self.layout_.setStretch(self.layout_.count() - 1, 1 if locked else 4)
        self._fit(self.size())

    # Its size is what the view is given: none asked for, none passed on to the window.
    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return False

    def heightForWidth(self, _width: int) -> int:  # noqa: N802 - Qt override
        return -1

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self._fit(event.size())
        super().resizeEvent(event)

    def changeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new text size: once all of it is in
            QTimer.singleShot(0, self, lambda: self._fit(self.size()))

    def _fit(self, size: Any) -> None:
        """Show what fits in `size`, in the order above; the tips wrap within the width."""
        layout = self.layout_
        margins = layout.contentsMargins()
        room = size.width() - margins.left() - margins.right()
        # A fixed width: at the width of its size hint the tips wrapped into more lines than
        # the height the layout gave them (the height at its full width).
        self.tips.setWordWrap(False)
        self.tips.setFixedWidth(max(1, min(self.tips.sizeHint().width(), room)))
        self.tips.setWordWrap(True)
        logo, tips = self._wanted
        title = not self.hint.text()  # with no hint the title stays
        for shown in ((logo, tips, True), (False, tips, True), (False, False, True),
                      (False, False, title)):
            for part, visible in zip((self.logo, self.tips, self.title), shown, strict=True):
                part.setVisible(visible)
            for part, height, gap in self._gaps:
                gap.changeSize(0, height if part.isVisibleTo(self) else 0, *FIXED_HEIGHT)
            layout.invalidate()
            if layout.totalHeightForWidth(size.width()) <= size.height():
                break
        layout.activate()  # laid out now, at this size (a request posted was not always seen)


class ConversationView(MessagesMixin, QStackedWidget):
    """Messages of the current conversation; `append_chunk` buffers, a timer draws the batch."""

    flushed = Signal()  # a batch of streamed text reached the document (tests wait on it)
    memory_opened = Signal(object)  # a remembered item (MemoryUsed): show its provenance
    memory_forget_requested = Signal(object)  # a remembered item to forget
    remember_requested = Signal(str)  # "Remember this" on a message
    exchange_forget_requested = Signal(int)  # "Forget this exchange" (page id)
    learned_undo_requested = Signal(object)  # a LearnedItem to delete
    learned_manage_requested = Signal(object)  # a LearnedItem to show in the privacy panel
    regenerate_requested = Signal()  # answer the last question again
    edit_requested = Signal()  # put the last question back in the message box
    earlier_requested = Signal()  # "Show earlier exchanges" above a long conversation
    exchange_drawn = Signal()  # a stored exchange was drawn: what was learned from it is shown

    COPY_CODE_KEY = "Ctrl+Shift+K"  # the window's "Copy code block"; the menu shows it too

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = theme.dark  # the scheme the document is drawn in (see changeEvent)
        self.empty = EmptyState()
        self.browser = ConversationBrowser(objectName="conversation")
        self.browser.setAccessibleName("Conversation")
        self.browser.setTabChangesFocus(True)  # Tab leaves; Menu key / Shift+F10 opens actions
        # Our own links (memories, undo) are handled here; a web link asks first (LinkGuard).
        self.links = LinkGuard(self.browser, connect=False)
        self.browser.anchorClicked.connect(self._on_link)
        self.browser.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.browser.customContextMenuRequested.connect(self._show_menu)
        self.browser.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.browser.document().setDocumentMargin(DOCUMENT_MARGIN)
        self._indent = INDENT  # the messages' indent for the view's width now (see _fit_indent)
        self._side = 0  # and the room left and right of the messages' column (a wide view)
        # The exchanges whose "Used N memories" list was open when the view was cleared: drawn
        # again (a new text size, something forgotten), their list stays open.
        self._open_lists: set[int] = set()
        self.addWidget(self.empty)
        self.addWidget(self.browser)
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.flush)
        self._pending: list[str] = []
        self._answer: QTextCursor | None = None
        self._answer_frame: Any = None  # the streaming answer's message frame
        # Where the streaming answer's text starts, as an offset from its message frame's first
        # position: an earlier message redrawn meanwhile (its "Used N memories" line, a
        # "Learned" notice) moves the frame, and document positions kept as numbers with it.
        self._answer_start = 0
        self._answer_chunks: list[str] = []
        # Drawn for good while it streams: the answer's finished blocks, up to these many
        # characters of its text, end before `_tail_start` (an offset, as `_answer_start`); the
        # rest is drawn again each time.
        self._done_chars = 0
        self._tail_start = 0
        # Before the first words: "Thinking…" (or READING), with the seconds waited so far.
        self._waiting = QTimer(self, interval=WAITING_MS)
        self._waiting.timeout.connect(self._draw_waiting)
        self._waiting_label = THINKING
        self._waiting_since = 0.0
        self._next_render = 0.0  # time.monotonic() before which nothing is drawn again
        self._last_day: dt.date | None = None
        self._messages = 0
        self.messages: list[Message] = []
        self.found_words: list[str] = []  # a search result opened: its words (show_exchange)
        # What hold_place keeps in place: "end", or a position and its top in the view.
        self._held: tuple[int, int] | str | None = None
        self._held_width = 0  # the view's width when it was asked
        self._hold_timer = QTimer(self, singleShot=True, interval=HOLD_MS)
        self._hold_timer.timeout.connect(self._release_place)
        self._follow = True  # False while an exchange is added that must not scroll the view
        # A new size (the window resized, the text relaid): the place is kept as for Ctrl+B.
        self.browser.viewport().installEventFilter(self)
        self.set_empty_text(*self.default_empty_text())

    # --- content -------------------------------------------------------------------------
    @staticmethod
    def default_empty_text() -> tuple[str, str, str]:
        return (
            "What's on your mind?",
            "MemoryOS remembers what you tell it, in an encrypted file on this computer.\n"
            "You can see, correct and erase everything it keeps.",
            # Narrow, the tips wrap between them, never inside one (non-breaking spaces).
            "&nbsp;&nbsp;·&nbsp; ".join(
                f"<b>{key}</b>&nbsp;&nbsp;{what.replace(' ', '&nbsp;')}"
                for key, what in (
                    ("Ctrl+I", "what it remembers"), ("Ctrl+P", "privacy"),
                    ("Ctrl+T", "temporary chat"),
                )
            ),
        )

    def set_empty_text(self, title: str, hint: str, tips: str = "", locked: bool = False) -> None:
        self.empty.show_text(title, hint, tips, locked)

    @property
    def message_count(self) -> int:
        return self._messages

    def changeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # the column is so many characters wide
            QTimer.singleShot(0, self, lambda: self._fit_indent(self.browser.viewport().width()))
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            from app.recolour import recolour

            recolour(self.browser.document(), self._dark)  # a saved one is drawn anew, too
            self._dark = theme.dark

    def clear(self) -> None:
        self._timer.stop()
        self._waiting.stop()
        self._pending.clear()
        self._answer = None
        self._answer_frame = None
        self._answer_chunks = []
        self._last_day = None
        self._messages = 0
        self._open_lists = {m.page_id for m in self.messages if m.expanded and m.page_id is not None}
        self.messages = []
        self.browser.clear()
        self.setCurrentWidget(self.empty)

    def add_user_message(self, text: str, timestamp: float | None = None) -> None:
        self._add_message("You", text, timestamp, user=True)

    def add_assistant_message(
        self, text: str, timestamp: float | None = None, note: str = "", speaker: str = "MemoryOS",
        memories: list[Any] | None = None, page_id: int | None = None,
    ) -> None:
        cursor = self._add_message(speaker, "", timestamp, user=False)
        self._insert_markdown(cursor, text)
        if note:
            self._insert_note(cursor, note)
        message = self.messages[-1]
        message.text = text
        message.page_id = page_id
        self.set_memories(message, memories)
        self._scroll_to_end()

    def add_exchange(
        self, page: object, memories: list[Any] | None = None, note: str = ""
    ) -> None:
        """Show a stored page (a Page record) as the two messages it holds; `note` under the
        answer (why it was cut short) unless it was stopped."""
        from app.widgets import speakers

        user, agent = speakers(page)
        timestamp = getattr(page, "timestamp", None)
        meta = getattr(page, "meta", {}) or {}
        page_id = getattr(page, "id", None)
        if getattr(page, "user_input", ""):
            self._add_message(user, page.user_input, timestamp, user=True)  # type: ignore[attr-defined]
            self.messages[-1].page_id = page_id
        note = "Stopped" if meta.get("stopped") else note
        self.add_assistant_message(getattr(page, "agent_response", ""), timestamp, note, agent,
                                   memories, page_id)
        self.exchange_drawn.emit()

    def append_exchange(
        self, page: object, memories: list[Any] | None = None, note: str = ""
    ) -> None:
        """A stored exchange that came from elsewhere (another process), at the end: the view
        follows it only when it showed the end, as for a streamed answer (someone reading
        higher up stays where they are)."""
        self._follow = self.currentWidget() is not self.browser or self._at_end()
        try:
            self.add_exchange(page, memories, note)
        finally:
            self._follow = True

    def add_learned(self, page_id: int, item: Any) -> bool:
        """A "Learned" notice after its answer; at the end of the conversation it is scrolled
        into view (it arrives after the answer ended: its line was cut off at the bottom)."""
        follow = self._at_end()
        added = super().add_learned(page_id, item)
        if added and follow:
            self._scroll_to_end()
        return added

    def add_notice(self, text: str, links: list[tuple[str, str]] = ()) -> None:
        """A small line between messages (command results, help), with optional links."""
        self.setCurrentWidget(self.browser)
        cursor = QTextCursor(self.browser.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self._write_notice(cursor, text, links)
        self._scroll_to_end()

    def insert_notice(self, text: str, after: Message | None) -> None:
        """A notice drawn again where it was: after the message `after` (its frame), or before
        the first message (None), not at the end."""
        document = self.browser.document()
        cursor = QTextCursor(document)
        if after is not None:
            cursor.setPosition(after.frame.lastPosition() + 1)  # the line after its frame
        elif self.messages:  # the day's line above the first message
            cursor.setPosition(document.findBlock(self.messages[0].frame.firstPosition() - 1)
                               .position())
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        self._write_notice(cursor, text, ())

    def _write_notice(self, cursor: QTextCursor, text: str, links: Any) -> None:
        block = QTextBlockFormat()
        block.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        block.setTopMargin(4)
        block.setBottomMargin(6)
        cursor.insertBlock(block)
        lines = text.split("\n")
        for n, line in enumerate(lines):
            if n:
                cursor.insertText("\u2028", _format(theme.MUTED, size=9))
            cursor.insertText(line, _format(theme.MUTED, size=9))
        for label, href in links:
            cursor.insertText("  ·  ", _format(theme.MUTED, size=9))
            cursor.insertText(label, _link(href))

    # --- streaming -----------------------------------------------------------------------
    def begin_answer(self, timestamp: float | None = None, reading: bool = False) -> None:
        """Start the answer's message with "Thinking…" (`reading`: "Reading your message…",
        for a long one); the seconds waited are added each second until its first words."""
        self.flush()
        self._answer = self._add_message("MemoryOS", "", timestamp, user=False)
        self._answer_frame = self.messages[-1].frame
        self._answer_start = self._tail_start = self._offset(self._answer.position())
        self._answer_chunks = []
        self._done_chars = 0
        self._next_render = 0.0
        self._waiting_label = READING if reading else THINKING
        self._waiting_since = time.monotonic()
        self._answer.insertText(self._waiting_label, _format(theme.MUTED, italic=True))
        self._waiting.start()
        self._scroll_to_end()

    def writing_started(self) -> None:
        """The model writes (a reasoning model's thinking, not drawn): it has read the message,
        so "Reading your message…" becomes "Thinking…"."""
        if "".join(self._pending).strip():  # its first words: drawn in a moment
            return
        if self._waiting.isActive() and self._waiting_label == READING:
            self._waiting_label = THINKING
            self._draw_waiting()

    def _draw_waiting(self) -> None:
        if self._answer is None or "".join(self._answer_chunks).strip():
            self._waiting.stop()
            return
        seconds = round(time.monotonic() - self._waiting_since)  # a coarse timer, early or late
        text = f"{self._waiting_label} {seconds} s" if seconds >= 1 else self._waiting_label
        cursor = self._answer
        cursor.beginEditBlock()
        self._erase_answer(self._answer_start)
        cursor.insertText(text, _format(theme.MUTED, italic=True))
        cursor.endEditBlock()

    def append_chunk(self, chunk: str) -> None:
        if self._answer is None:
            return
        self._pending.append(chunk)
        if not self._timer.isActive():
            wait = (self._next_render - time.monotonic()) * 1000
            self._timer.start(max(FLUSH_MS, int(wait)))

    def flush(self) -> None:
        """Draw every buffered chunk at once, formatted: the blocks finished since the last time
        for good, the unfinished end as it reads so far (an open code fence as a code block)."""
        self._timer.stop()
        if not self._pending or self._answer is None:
            return
        self._answer_chunks.append("".join(self._pending))
        self._pending.clear()
        text = "".join(self._answer_chunks)
        if not text.strip():
            return  # still "Thinking…"
        self._waiting.stop()
        started = time.monotonic()
        follow = self._at_end()
        cursor = self._answer
        cursor.beginEditBlock()  # one layout and repaint for the whole change
        self._erase_answer(self._tail_start)
        end = finished_end(text, self._done_chars)
        if end > self._done_chars:
            self._insert_piece(cursor, text[self._done_chars:end])
            self._tail_start, self._done_chars = self._offset(cursor.position()), end
        self._insert_piece(cursor, unfinished_markdown(text[end:]))
        cursor.endEditBlock()
        now = time.monotonic()
        self._next_render = now + max(RENDER_MS / 1000, RENDER_SHARE * (now - started))
        if follow:
            self._scroll_to_end()
        self.flushed.emit()

    def end_answer(self, note: str = "") -> str:
        """Finish the streamed answer: render it as Markdown, add a note; return its text."""
        self._timer.stop()
        self._waiting.stop()
        if self._answer is None:
            return ""
        self._answer_chunks.append("".join(self._pending))  # drawn whole below, not twice
        self._pending.clear()
        text = "".join(self._answer_chunks)
        follow = self._at_end()
        self._erase_answer(self._answer_start)
        self._insert_markdown(self._answer, text)
        if note:
            self._insert_note(self._answer, note)
        answers = [m for m in self.messages if m.role == "assistant"]
        if answers:
            answers[-1].text = text
        self._answer = self._answer_frame = None
        if follow:
            self._scroll_to_end()
        return text

    def answer_text(self) -> str:
        """The streamed text drawn so far (the answer in progress)."""
        return "".join(self._answer_chunks)

    def plain_text(self) -> str:
        return self.browser.toPlainText()

    def code_to_copy(self) -> str | None:
        """What "Copy code block" from the keyboard copies: the code block holding the text
        cursor (a click or a selection in it), else the last code block of the answer holding
        it, else of the last answer. None: no answer on screen; "": that answer has none."""
        answers = [m for m in self.messages if m.role == "assistant"]
        if not answers:
            return None
        position = self.browser.textCursor().position()
        inside = [m for m in answers if _holds(m.frame, position)]
        answer = inside[0] if inside else answers[-1]
        document = self.browser.document()
        block = document.findBlock(position)
        if inside and _is_code(block):
            return _code_around(block)
        block = document.findBlock(answer.frame.lastPosition())
        while block.isValid() and block.position() >= answer.frame.firstPosition():
            if _is_code(block):
                return _code_around(block)
            block = block.previous()
        return ""

    # --- helpers -------------------------------------------------------------------------
    def _add_message(self, speaker: str, text: str, timestamp: float | None, *, user: bool) -> QTextCursor:
        self.setCurrentWidget(self.browser)
        when = _local(timestamp)
        document = self.browser.document()
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._last_day != when.date():
            self._insert_day(cursor, when)
        elif cursor.block().length() == 1:  # not a notice's line: it keeps its own look
            self._shrink_gap(cursor)
        frame_format = QTextFrameFormat()
        frame_format.setPadding(MESSAGE_PADDING)
        frame_format.setTopMargin(4)
        frame_format.setBottomMargin(8)
        self._set_indent(frame_format, user)
        frame_format.setBorder(0)
        if user:
            frame_format.setBackground(QBrush(QColor(theme.color(theme.USER_TINT))))
        frame = cursor.insertFrame(frame_format)
        self.messages.append(Message("user" if user else "assistant", text, frame))
        header = QTextBlockFormat()
        header.setBottomMargin(4)
        cursor.setBlockFormat(header)
        color = "#374151" if user else theme.ACCENT
        cursor.insertText(speaker, _format(color, bold=True))
        # muted, a shade darker: a question's time sits on its tint (#9CA3AF was 2.5:1)
        cursor.insertText(f"   {when:%H:%M}", _format(theme.MUTED_ON_TINT, size=8.5))
        cursor.insertBlock(QTextBlockFormat(), _format(theme.TEXT))
        if text and user:
            self._write_user_text(self.messages[-1], cursor)  # folded when long (view_memory)
        elif text:
            cursor.insertText(text, _format(theme.TEXT))
        self._messages += 1
        self._scroll_to_end()
        return cursor

    def _set_indent(self, frame_format: QTextFrameFormat, user: bool) -> None:
        frame_format.setLeftMargin(self._side + (self._indent if user else INDENT_LEAST))
        frame_format.setRightMargin(self._side + (INDENT_LEAST if user else self._indent))

    def _fit_indent(self, width: int) -> None:
        """The messages' indent for a view `width` px wide: INDENT where the text keeps
        READING_LINE characters a line beside it, less (down to INDENT_LEAST) where not, so
        that in a narrow view the text uses the view's width. Where the text would get more
        than MEASURE characters a line, the messages keep to a centred column that gives it
        MEASURE (the room beside it is `_side`, on each side)."""
        character = self.browser.fontMetrics().averageCharWidth()
        room = width - 2 * (DOCUMENT_MARGIN + MESSAGE_PADDING) - INDENT_LEAST
        indent = max(INDENT_LEAST, min(INDENT, room - character * READING_LINE))
        side = max(0, (room - indent - character * MEASURE) // 2)
        if (indent, side) != (self._indent, self._side):
            self._indent, self._side = indent, side
            for message in self.messages:
                frame_format = message.frame.frameFormat().toFrameFormat()
                self._set_indent(frame_format, message.role == "user")
                message.frame.setFrameFormat(frame_format)

    @staticmethod
    def _shrink_gap(cursor: QTextCursor) -> None:
        """The empty block a document keeps between two frames: make it 2 px high."""
        gap = QTextBlockFormat()
        gap.setLineHeight(2, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        cursor.setBlockFormat(gap)
        tiny = QTextCharFormat()
        tiny.setFontPointSize(1)
        cursor.setBlockCharFormat(tiny)

    def _insert_day(self, cursor: QTextCursor, when: dt.datetime) -> None:
        block = QTextBlockFormat()
        block.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        block.setTopMargin(10 if self._last_day else 0)
        block.setBottomMargin(6)
        if cursor.block().text() or cursor.position() > 0:
            cursor.insertBlock(block)
        else:
            cursor.setBlockFormat(block)
        cursor.insertText(day_label(when), _format(theme.MUTED, bold=True, size=8.5))
        self._last_day = when.date()

    def _offset(self, position: int) -> int:
        """A document position in the streaming answer as an offset from its frame's start."""
        return position - self._answer_frame.firstPosition()

    def _position(self, offset: int) -> int:
        """The document position now of an offset in the streaming answer (see _offset)."""
        return self._answer_frame.firstPosition() + offset

    def _erase_answer(self, start: int) -> None:
        """Take the streaming answer's text from offset `start` (see _offset) to its end off the
        screen (the end of its message frame: a table in it is a frame of its own)."""
        if self._answer is None or self._answer_frame is None:
            return
        cursor = self._answer
        cursor.setPosition(self._position(start))
        cursor.setPosition(self._answer_frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        block = cursor.block()
        if block.length() == 1:  # an empty line left: not in the format of a line erased
            cursor.setBlockFormat(QTextBlockFormat())
            if block.textList() is not None:
                block.textList().remove(block)

    def _insert_markdown(self, cursor: QTextCursor, text: str) -> None:
        if not text.strip():
            cursor.insertText("(no answer)", _format(theme.MUTED, italic=True))
            return
        self._insert_piece(cursor, text)

    def _insert_piece(self, cursor: QTextCursor, text: str) -> None:
        """Markdown at `cursor`: in an empty block, or after the text of one (the blocks it
        starts follow that one). Inserted Markdown goes on in the block it is inserted in, with
        that block's format (an answer's first code line was drawn as text): a throwaway first
        line takes that place and is removed, in an empty block with its line break, so that
        the line after it keeps its own format."""
        if not text.strip():
            return
        document = self.browser.document()
        start = cursor.position()
        empty = cursor.block().length() == 1
        after_table = document.characterAt(start - 1) == FRAME_END  # Qt's empty line stays
        cursor.setCharFormat(_format(theme.TEXT))
        cursor.insertMarkdown(f"{THROWAWAY}\n\n{keep_line_breaks(text.strip())}", MARKDOWN)
        if document.characterAt(start) == THROWAWAY:
            line = QTextCursor(document)
            line.setPosition(start)
            # (no line break after it: a table follows, or nothing did)
            whole = empty and not after_table and document.characterAt(start + 1) == BREAK
            line.setPosition(start + (2 if whole else 1), QTextCursor.MoveMode.KeepAnchor)
            line.removeSelectedText()
        self._style_code(start, cursor.position())

    def _style_code(self, start: int, end: int) -> None:
        """Code blocks in the system's fixed-width font on a light panel (Qt's Markdown reader
        only names a 'monospace' family, which is not fixed-pitch everywhere). One change per
        code block, not per line: it runs each time a streaming answer is drawn."""
        from app.text_formats import fixed_family

        document = self.browser.document()
        code: QTextCharFormat | None = None
        block = document.findBlock(start)
        while block.isValid() and block.position() <= end:
            if _is_code(block):
                if code is None:
                    code = QTextCharFormat()
                    code.setFontFamilies([fixed_family()])
                    code.setFontFixedPitch(True)
                    panel = QTextBlockFormat()
                    panel.setBackground(QBrush(QColor(theme.color(theme.CODE_TINT))))
                cursor = QTextCursor(document)
                cursor.setPosition(block.position())
                while block.next().isValid() and _is_code(block.next()):
                    block = block.next()
                end_of_code = block.position() + block.length() - 1
                cursor.setPosition(end_of_code, QTextCursor.MoveMode.KeepAnchor)
                cursor.mergeCharFormat(code)
                cursor.mergeBlockFormat(panel)
            block = block.next()

    def _insert_note(self, cursor: QTextCursor, note: str) -> None:
        cursor.insertBlock(QTextBlockFormat(), _format(theme.MUTED, italic=True, size=9))
        cursor.insertText(note, _format(theme.MUTED, italic=True, size=9))

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """The view's new size (the window resized): seen before the text is laid out for it,
        so the place held is the one shown until now (at the end, the end stays in view)."""
        if (
            watched is self.browser.viewport()
            and event.type() == QEvent.Type.Resize
            and event.oldSize().isValid()
            and event.oldSize() != event.size()
        ):
            self.hold_place(event.oldSize().width())
        if watched is self.browser.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_indent(event.size().width())
        return super().eventFilter(watched, event)

    def hold_place(self, width: int | None = None) -> None:
        """Keep the text at the top of the view (or the end, when scrolled there) where it is
        while the view's width changes next (the sidebar shown or hidden, the window resized):
        the lines wrap anew, and the same scroll value showed another message. `width`: the
        view's width before the change (a resize seen as it happens), else its width now."""
        browser = self.browser
        if self.currentWidget() is not browser:
            return
        if self._at_end():
            place: tuple[int, int] | str = "end"
        else:
            cursor = browser.cursorForPosition(QPoint(0, 0))
            place = (cursor.position(), browser.cursorRect(cursor).top())
        self._hold(place, width)

    def _hold(self, place: tuple[int, int] | str, width: int | None = None) -> None:
        browser = self.browser
        if self._held is None:  # the new width's layout changes the range: put it back at once
            browser.verticalScrollBar().rangeChanged.connect(self._keep_place)
        self._held = place
        self._held_width = browser.viewport().width() if width is None else width
        self._hold_timer.start()  # no new width came (the window's layout is not done yet)

    def holding_place(self) -> bool:
        """True while a place is kept through a change of width or text size."""
        return self._held is not None

    def _keep_place(self, *_range: int) -> None:
        if self._held == "end":
            self._scroll_now()
        elif self._held is not None:
            position, top = self._held
            cursor = QTextCursor(self.browser.document())
            cursor.setPosition(min(position, self.browser.document().characterCount() - 1))
            moved = self.browser.cursorRect(cursor).top() - top
            if moved:
                bar = self.browser.verticalScrollBar()
                bar.setValue(bar.value() + moved)
        if self._held is not None and self.browser.viewport().width() != self._held_width:
            QTimer.singleShot(0, self, self._settle_place)  # the new width is in: once more

    def _settle_place(self) -> None:
        if self._held is not None:
            self._held_width = self.browser.viewport().width()  # no more rounds
            self._keep_place()
            self._release_place()

    def _release_place(self) -> None:
        if self._held is None:
            return
        self._hold_timer.stop()
        self.browser.verticalScrollBar().rangeChanged.disconnect(self._keep_place)
        self._held = None

    def reading_place(self) -> tuple[int, str, float] | None:
        """Where someone reads higher up: the exchange and message at the top of the view and
        how far into it (a share of its height), for go_to_place after the conversation is
        drawn again; None at the end. (A scroll value showed another message after a new
        text size.)"""
        if self._at_end():
            return None
        value = self.browser.verticalScrollBar().value()
        layout = self.browser.document().documentLayout()
        for message in self.messages:
            rect = layout.frameBoundingRect(message.frame)
            if message.page_id is not None and rect.bottom() > value:
                share = (value - rect.top()) / max(1.0, rect.height())
                return message.page_id, message.role, share
        return None

    def go_to_place(self, place: tuple[int, str, float] | None) -> None:
        """Scroll back to a reading_place (the end for None, or a message no longer shown)."""
        message = next((m for m in self.messages if place is not None
                        and (m.page_id, m.role) == place[:2]), None)
        if message is None:
            # At the end, kept there while the window and the lines settle to the new text
            # size: scrolled there once, a later relayout left it half-way up (Ctrl+=).
            self._scroll_now()
            if self.currentWidget() is self.browser:
                self._hold("end")
            return
        rect = self.browser.document().documentLayout().frameBoundingRect(message.frame)
        self.browser.verticalScrollBar().setValue(round(rect.top() + place[2] * rect.height()))

    def _at_end(self) -> bool:
        bar = self.browser.verticalScrollBar()
        return bar.value() >= bar.maximum() - 24

    def _scroll_to_end(self) -> None:
        if not self._follow:
            return
        self._scroll_now()
        QTimer.singleShot(0, self, self._scroll_now)  # again once the layout has caught up

    def _scroll_now(self) -> None:
        bar = self.browser.verticalScrollBar()
        bar.setValue(bar.maximum())

