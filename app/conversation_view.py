"""The conversation: dated, speaker-labelled messages in a document view; answers stream in."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFrameFormat,
)
from PySide6.QtWidgets import (
    QStackedWidget,
    QTextBrowser,
    QWidget,
)

from app import theme
from app.conversation_widgets import ConversationBrowser, EmptyState
from app.link_guard import LinkGuard
from app.text_formats import char_format as _format
from app.text_formats import link_format as _link
from app.view_answer import THINKING, AnswerMixin
from app.view_earlier import EarlierMixin
from app.view_learned import LearnedMixin
from app.view_memory import Message, MessagesMixin, _is_code
from app.view_menu import MenuMixin
from app.view_place import PlaceMixin

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



class ConversationView(
    MessagesMixin, LearnedMixin, MenuMixin, AnswerMixin, PlaceMixin, EarlierMixin, QStackedWidget
):
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
        # While earlier exchanges are put above those drawn (put_earlier): where the first of
        # them goes; None: messages go at the end.
        self._above_at: int | None = None
        self._earlier_label = ""  # the "Show N earlier" link's text while it says SHOWING
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
        if self._above_at is None:
            cursor.movePosition(QTextCursor.MoveOperation.End)
        elif self.messages:  # put_earlier: after the last of them, before those drawn
            cursor.setPosition(self.messages[-1].frame.lastPosition() + 1)
        else:
            cursor.setPosition(self._above_at)
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

