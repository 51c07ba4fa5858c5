"""The conversation: dated, speaker-labelled messages in a document view; answers stream in."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QDesktopServices,
    QFont,
    QGuiApplication,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
    QTextFrameFormat,
)
from PySide6.QtWidgets import QLabel, QMenu, QStackedWidget, QTextBrowser, QVBoxLayout, QWidget

from app import remembered as shown
from app import theme

FLUSH_MS = 40  # streamed chunks are drawn in batches, not one repaint per token
THINKING = "Thinking…"


def day_label(when: dt.datetime, today: dt.date | None = None) -> str:
    """'Today', 'Yesterday' or a full date, for the separators between days."""
    today = today or dt.date.today()
    day = when.date()
    if day == today:
        return "Today"
    if day == today - dt.timedelta(days=1):
        return "Yesterday"
    return f"{when:%A}, {day.day} {when:%B %Y}"


def _local(timestamp: float | None) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp) if timestamp else dt.datetime.now()


def _format(color: str, *, bold: bool = False, italic: bool = False, size: float = 0) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QBrush(QColor(theme.color(color))))  # colours of the light design, mapped
    if bold:
        fmt.setFontWeight(QFont.Weight.DemiBold)
    fmt.setFontItalic(italic)
    if size:
        fmt.setFontPointSize(theme.points(size))
    return fmt


class EmptyState(QWidget):
    """What an empty conversation shows: what the app does and where to look."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        from app.icons import pixmap

        logo = QLabel()
        logo.setPixmap(pixmap("memoryos", 64, ratio=2.0))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel(objectName="emptyTitle", alignment=Qt.AlignmentFlag.AlignCenter)
        # Lines are broken by hand: a word-wrapped label in a centred layout gets a wrong height.
        self.hint = QLabel(objectName="emptyHint", alignment=Qt.AlignmentFlag.AlignCenter)
        self.tips = QLabel(objectName="emptyTips")
        self.tips.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.addStretch(3)
        layout.addWidget(logo)
        layout.addSpacing(12)
        layout.addWidget(self.title)
        layout.addSpacing(4)
        layout.addWidget(self.hint)
        layout.addSpacing(18)
        layout.addWidget(self.tips, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(4)

    def show_text(self, title: str, hint: str, tips: str) -> None:
        self.title.setText(title)
        self.hint.setText(hint)
        self.tips.setText(tips)
        self.tips.setVisible(bool(tips))


@dataclass
class Message:
    """One message on screen, with where it sits in the document."""

    role: str  # "user" | "assistant"
    text: str
    frame: QTextFrame
    page_id: int | None = None
    memories: list[Any] | None = None  # assistant: what its prompt remembered (None: unknown)
    expanded: bool = False
    remembered_frame: QTextFrame | None = None
    notices_frame: QTextFrame | None = None
    learned: list[Any] = field(default_factory=list)  # LearnedItem notices shown after it
    undone: set[tuple[str, int]] = field(default_factory=set)


def _link(href: str, color: str = theme.ACCENT, size: float = 9) -> QTextCharFormat:
    fmt = _format(color, size=size)
    fmt.setAnchor(True)
    fmt.setAnchorHref(href)
    return fmt


class ConversationView(QStackedWidget):
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

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty = EmptyState()
        self.browser = QTextBrowser(objectName="conversation")
        self.browser.setAccessibleName("Conversation")
        self.browser.setTabChangesFocus(True)  # Tab leaves; Menu key / Shift+F10 opens actions
        self.browser.setOpenLinks(False)  # our links (memories, undo) are handled here
        self.browser.anchorClicked.connect(self._on_link)
        self.browser.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.browser.customContextMenuRequested.connect(self._show_menu)
        self.browser.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.browser.document().setDocumentMargin(20)
        self.addWidget(self.empty)
        self.addWidget(self.browser)
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self._pending: list[str] = []
        self._answer: QTextCursor | None = None
        self._answer_start = 0
        self._answer_chunks: list[str] = []
        self._thinking = False
        self._last_day: dt.date | None = None
        self._messages = 0
        self.messages: list[Message] = []
        self.set_empty_text(*self.default_empty_text())

    # --- content -------------------------------------------------------------------------
    @staticmethod
    def default_empty_text() -> tuple[str, str, str]:
        return (
            "What's on your mind?",
            "MemoryOS remembers what you tell it, in an encrypted file on this computer.\n"
            "You can see, correct and erase everything it keeps.",
            "<b>Ctrl+I</b>&nbsp; what it remembers &nbsp;·&nbsp; <b>Ctrl+P</b>&nbsp; privacy "
            "&nbsp;·&nbsp; <b>Ctrl+T</b>&nbsp; temporary chat",
        )

    def set_empty_text(self, title: str, hint: str, tips: str = "") -> None:
        self.empty.show_text(title, hint, tips)

    @property
    def message_count(self) -> int:
        return self._messages

    def clear(self) -> None:
        self._timer.stop()
        self._pending.clear()
        self._answer = None
        self._answer_chunks = []
        self._last_day = None
        self._messages = 0
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

    def add_exchange(self, page: object, memories: list[Any] | None = None) -> None:
        """Show a stored page (a Page record) as the two messages it holds."""
        from app.widgets import speakers

        user, agent = speakers(page)
        timestamp = getattr(page, "timestamp", None)
        meta = getattr(page, "meta", {}) or {}
        page_id = getattr(page, "id", None)
        if getattr(page, "user_input", ""):
            self._add_message(user, page.user_input, timestamp, user=True)  # type: ignore[attr-defined]
            self.messages[-1].page_id = page_id
        note = "Stopped" if meta.get("stopped") else ""
        self.add_assistant_message(getattr(page, "agent_response", ""), timestamp, note, agent,
                                   memories, page_id)

    def add_notice(self, text: str, links: list[tuple[str, str]] = ()) -> None:
        """A small line between messages (command results, help), with optional links."""
        self.setCurrentWidget(self.browser)
        cursor = QTextCursor(self.browser.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
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
        self._scroll_to_end()

    # --- what an answer remembered, what was learned ----------------------------------------
    def set_memories(self, message: Message, memories: list[Any] | None) -> None:
        """Show (or redraw) the quiet "Used N memories" line under an answer."""
        message.memories = None if memories is None else list(memories)
        if message.memories is None:
            return
        if message.remembered_frame is None:
            cursor = QTextCursor(self.browser.document())
            cursor.setPosition(message.frame.lastPosition())
            frame_format = QTextFrameFormat()
            frame_format.setTopMargin(6)
            frame_format.setBorder(0)
            message.remembered_frame = cursor.insertFrame(frame_format)
        self._draw_remembered(message)

    def toggle_remembered(self, message: Message) -> None:
        message.expanded = not message.expanded
        self._draw_remembered(message)

    def _draw_remembered(self, message: Message) -> None:
        frame, index = message.remembered_frame, self.messages.index(message)
        cursor = self._emptied(frame)
        cursor.setBlockFormat(QTextBlockFormat())  # not the indent of the answer's last list
        items = message.memories or []
        if not items:
            cursor.insertText("Used no memories", _format(theme.MUTED, size=9))
            return
        arrow = "\u25be" if message.expanded else "\u25b8"
        cursor.insertText(f"{arrow} {shown.summary(items)}",
                          _link(f"remembered:{index}", theme.MUTED))
        if not message.expanded:
            return
        for position, item in enumerate(items):
            block = QTextBlockFormat()
            block.setLeftMargin(14)
            block.setTopMargin(2)
            cursor.insertBlock(block)
            label = _format("#9CA3AF", size=8.5)
            if item.forgotten:
                label.setFontStrikeOut(True)
            cursor.insertText(shown.item_label(item) + "   ", label)
            if item.forgotten:
                cursor.insertText(shown.item_text(item), _format("#9CA3AF", italic=True, size=9))
            else:
                cursor.insertText(shown.item_text(item), _link(f"memory:{index}:{position}", theme.TEXT))

    def scroll_to(self, message: Message) -> None:
        """Bring a message's top to the top of the view."""
        layout = self.browser.document().documentLayout()
        self.browser.verticalScrollBar().setValue(int(layout.frameBoundingRect(message.frame).top()))

    def add_learned(self, page_id: int, item: Any) -> bool:
        """"Learned: ... · Undo · Manage" after the answer of exchange `page_id`."""
        message = self._answer_of(page_id)
        if message is None or any(i.key == item.key for i in message.learned):
            return False
        message.learned.append(item)
        if message.notices_frame is None:
            cursor = QTextCursor(self.browser.document())
            cursor.setPosition(message.frame.lastPosition())
            frame_format = QTextFrameFormat()
            frame_format.setTopMargin(6)
            frame_format.setPadding(6)
            frame_format.setBorder(0)
            frame_format.setBackground(QBrush(QColor(theme.color(theme.LEARNED_TINT))))
            message.notices_frame = cursor.insertFrame(frame_format)
        self._draw_learned(message)
        return True

    def mark_undone(self, item: Any) -> None:
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                message.undone.add((item.kind, item.id))
                self._draw_learned(message)

    def _draw_learned(self, message: Message) -> None:
        cursor = self._emptied(message.notices_frame)
        index = self.messages.index(message)
        for n, item in enumerate(message.learned):
            if n:
                cursor.insertBlock(QTextBlockFormat())
            if (item.kind, item.id) in message.undone:
                cursor.insertText(f"Forgot: {item.text}", _format(theme.MUTED, italic=True, size=9))
                continue
            knowledge = item.kind == "knowledge"
            label = "Noted what MemoryOS said: " if knowledge else "Learned: "
            cursor.insertText(label, _format(theme.LEARNED, bold=True, size=9))
            cursor.insertText(item.text, _format(theme.TEXT, size=9))
            cursor.insertText("  ·  ", _format(theme.MUTED, size=9))
            cursor.insertText("Undo", _link(f"undo:{index}:{n}"))
            cursor.insertText("  ·  ", _format(theme.MUTED, size=9))
            cursor.insertText("Manage", _link(f"manage:{index}:{n}"))

    def learned_items(self) -> list[Any]:
        return [item for m in self.messages for item in m.learned]

    def page_ids(self) -> list[int]:
        return sorted({m.page_id for m in self.messages if m.page_id is not None})

    def finish_last_answer(self, page_id: int | None, memories: list[Any] | None) -> None:
        """After an answer ends: tie the last exchange to its stored page, show what it used."""
        answers = [m for m in self.messages if m.role == "assistant"]
        if not answers:
            return
        answer = answers[-1]
        answer.page_id = page_id
        position = self.messages.index(answer)
        if position and self.messages[position - 1].role == "user":
            self.messages[position - 1].page_id = page_id
        self.set_memories(answer, memories)
        if self._at_end():
            self._scroll_to_end()

    def last_exchange(self) -> list[Message]:
        """The last question and its answer, when the conversation ends with both."""
        if len(self.messages) >= 2 and [m.role for m in self.messages[-2:]] == ["user", "assistant"]:
            return self.messages[-2:]
        return []

    def remove_last_exchange(self) -> None:
        """Take the last question and answer off the screen (they are being replaced)."""
        exchange = self.last_exchange()
        if not exchange:
            return
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(max(0, exchange[0].frame.firstPosition() - 1))
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del self.messages[-2:]
        self._messages -= 2

    def _answer_of(self, page_id: int) -> Message | None:
        for message in self.messages:
            if message.role == "assistant" and message.page_id == page_id:
                return message
        return None

    def _emptied(self, frame: QTextFrame) -> QTextCursor:
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(frame.firstPosition())
        cursor.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        return cursor

    # --- links and the context menu -------------------------------------------------------
    def _on_link(self, url: QUrl) -> None:
        href = url.toString()
        scheme, _, rest = href.partition(":")
        parts = rest.split(":")
        try:
            if scheme == "remembered":
                self.toggle_remembered(self.messages[int(parts[0])])
            elif scheme == "memory":
                message = self.messages[int(parts[0])]
                self.memory_opened.emit(message.memories[int(parts[1])])
            elif scheme in ("undo", "manage"):
                item = self.messages[int(parts[0])].learned[int(parts[1])]
                signal = self.learned_undo_requested if scheme == "undo" else self.learned_manage_requested
                signal.emit(item)
            elif scheme in ("http", "https", "mailto"):
                QDesktopServices.openUrl(url)
        except (IndexError, ValueError, TypeError):
            pass  # a link from a message redrawn since: nothing to do

    def message_at(self, point: QPoint) -> Message | None:
        """The message under a point of the browser's viewport."""
        position = self.browser.cursorForPosition(point).position()
        for message in self.messages:
            if message.frame.firstPosition() <= position <= message.frame.lastPosition():
                return message
        return None

    def point_of(self, message: Message) -> QPoint:
        """A viewport point inside `message` (tests, keyboard menu)."""
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(message.frame.firstPosition() + 1)
        return self.browser.cursorRect(cursor).center()

    def context_menu(self, point: QPoint) -> QMenu:
        """The actions for what is under `point`: a remembered item, a code block, a message."""
        menu = QMenu(self)
        href = self.browser.anchorAt(point)
        if href.startswith("memory:"):
            _, index, position = href.split(":")
            item = self.messages[int(index)].memories[int(position)]
            menu.addAction("Show where it came from", lambda: self.memory_opened.emit(item))
            menu.addAction("Forget this memory…", lambda: self.memory_forget_requested.emit(item))
            return menu
        selected = self.browser.textCursor().selectedText()
        if selected:
            copy = QAction("Copy", menu)
            copy.triggered.connect(self.browser.copy)
            menu.addAction(copy)
        message = self.message_at(point)
        if message is not None:
            code = self._code_block_at(point)
            if code:
                menu.addAction("Copy code block", lambda: _copy(code))
            menu.addAction("Copy message", lambda: _copy(message.text))
            menu.addSeparator()
            remember = message.text
            if remember.strip():
                menu.addAction("Remember this", lambda: self.remember_requested.emit(remember))
            if message.page_id is not None:
                page_id = message.page_id
                menu.addAction("Forget this exchange…",
                               lambda: self.exchange_forget_requested.emit(page_id))
            if self._answer is None and message in self.last_exchange():
                menu.addSeparator()
                if message.role == "assistant":
                    menu.addAction("Regenerate answer", self.regenerate_requested.emit)
                else:
                    menu.addAction("Edit and resend", self.edit_requested.emit)
        menu.addSeparator()
        menu.addAction("Select all", self.browser.selectAll)
        return menu

    def _code_block_at(self, point: QPoint) -> str:
        """The text of the fenced code block under `point`, or ""."""
        block = self.browser.cursorForPosition(point).block()
        if not _is_code(block):
            return ""
        first = block
        while first.previous().isValid() and _is_code(first.previous()):
            first = first.previous()
        lines = []
        while first.isValid() and _is_code(first):
            lines.append(first.text())
            first = first.next()
        return "\n".join(lines)

    def _show_menu(self, point: QPoint) -> None:
        menu = self.context_menu(point)
        menu.exec(self.browser.viewport().mapToGlobal(point))
        menu.deleteLater()

    # --- streaming -----------------------------------------------------------------------
    def begin_answer(self, timestamp: float | None = None) -> None:
        self.flush()
        self._answer = self._add_message("MemoryOS", "", timestamp, user=False)
        self._answer_start = self._answer.position()
        self._answer_chunks = []
        self._answer.insertText(THINKING, _format(theme.MUTED, italic=True))
        self._thinking = True
        self._scroll_to_end()

    def append_chunk(self, chunk: str) -> None:
        if self._answer is None:
            return
        self._pending.append(chunk)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Draw every buffered chunk at once."""
        if not self._pending or self._answer is None:
            self._timer.stop()
            return
        text = "".join(self._pending)
        self._pending.clear()
        follow = self._at_end()
        if self._thinking:
            self._clear_answer_body()
            self._thinking = False
        self._answer.insertText(text, _format(theme.TEXT))
        self._answer_chunks.append(text)
        if follow:
            self._scroll_to_end()
        self.flushed.emit()

    def end_answer(self, note: str = "") -> str:
        """Finish the streamed answer: render it as Markdown, add a note; return its text."""
        self.flush()
        self._timer.stop()
        if self._answer is None:
            return ""
        text = "".join(self._answer_chunks)
        follow = self._at_end()
        self._clear_answer_body()
        self._thinking = False
        self._insert_markdown(self._answer, text)
        if note:
            self._insert_note(self._answer, note)
        answers = [m for m in self.messages if m.role == "assistant"]
        if answers:
            answers[-1].text = text
        self._answer = None
        if follow:
            self._scroll_to_end()
        return text

    def answer_text(self) -> str:
        """The streamed text drawn so far (the answer in progress)."""
        return "".join(self._answer_chunks)

    def plain_text(self) -> str:
        return self.browser.toPlainText()

    # --- helpers -------------------------------------------------------------------------
    def _add_message(self, speaker: str, text: str, timestamp: float | None, *, user: bool) -> QTextCursor:
        self.setCurrentWidget(self.browser)
        when = _local(timestamp)
        document = self.browser.document()
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._last_day != when.date():
            self._insert_day(cursor, when)
        else:
            self._shrink_gap(cursor)
        frame_format = QTextFrameFormat()
        frame_format.setPadding(12)
        frame_format.setTopMargin(4)
        frame_format.setBottomMargin(8)
        frame_format.setLeftMargin(96 if user else 4)
        frame_format.setRightMargin(4 if user else 96)
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
        cursor.insertText(f"   {when:%H:%M}", _format("#9CA3AF", size=8.5))
        cursor.insertBlock(QTextBlockFormat(), _format(theme.TEXT))
        if text:
            cursor.insertText(text, _format(theme.TEXT))
        self._messages += 1
        self._scroll_to_end()
        return cursor

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
        cursor.insertText(day_label(when), _format("#9CA3AF", bold=True, size=8.5))
        self._last_day = when.date()

    def _clear_answer_body(self) -> None:
        if self._answer is None:
            return
        self._answer.setPosition(self._answer_start)
        frame = self._answer.currentFrame()
        self._answer.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        self._answer.removeSelectedText()

    def _insert_markdown(self, cursor: QTextCursor, text: str) -> None:
        if not text.strip():
            cursor.insertText("(no answer)", _format(theme.MUTED, italic=True))
            return
        features = (
            QTextDocument.MarkdownFeature.MarkdownDialectGitHub
            | QTextDocument.MarkdownFeature.MarkdownNoHTML
        )
        cursor.setCharFormat(_format(theme.TEXT))
        start = cursor.position()
        cursor.insertMarkdown(text.strip(), features)
        self._style_code(start, cursor.position())

    def _style_code(self, start: int, end: int) -> None:
        """Code blocks in the system's fixed-width font on a light panel (Qt's Markdown reader
        only names a 'monospace' family, which is not fixed-pitch everywhere)."""
        from PySide6.QtGui import QFontDatabase

        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        block = self.browser.document().findBlock(start)
        while block.isValid() and block.position() <= end:
            if _is_code(block):
                cursor = QTextCursor(block)
                cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
                code = QTextCharFormat()
                code.setFontFamilies([fixed.family()])
                code.setFontFixedPitch(True)
                cursor.mergeCharFormat(code)
                panel = QTextBlockFormat()
                panel.setBackground(QBrush(QColor(theme.color(theme.CODE_TINT))))
                cursor.mergeBlockFormat(panel)
            block = block.next()

    def _insert_note(self, cursor: QTextCursor, note: str) -> None:
        cursor.insertBlock(QTextBlockFormat(), _format(theme.MUTED, italic=True, size=9))
        cursor.insertText(note, _format(theme.MUTED, italic=True, size=9))

    def _at_end(self) -> bool:
        bar = self.browser.verticalScrollBar()
        return bar.value() >= bar.maximum() - 24

    def _scroll_to_end(self) -> None:
        self._scroll_now()
        QTimer.singleShot(0, self, self._scroll_now)  # again once the layout has caught up

    def _scroll_now(self) -> None:
        bar = self.browser.verticalScrollBar()
        bar.setValue(bar.maximum())


def _is_code(block: Any) -> bool:
    from PySide6.QtGui import QTextFormat

    return bool(block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence))


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
