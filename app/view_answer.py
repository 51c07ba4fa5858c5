"""The conversation's answers as Markdown: drawn into the document, and streamed in.

A mixin of ConversationView (kept apart so the view's own module stays small); it uses the
view's browser, messages and place-keeping.
"""

from __future__ import annotations

import time

from PySide6.QtGui import (
    QBrush,
    QColor,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)

from app import theme
from app.text_formats import char_format as _format
from app.text_formats import finished_end, keep_line_breaks, unfinished_markdown
from app.view_memory import _is_code

FLUSH_MS = 40  # streamed chunks are drawn in batches, not one repaint per token
# The streaming answer is drawn as Markdown, its unfinished end again each time: at most every
# RENDER_MS, and never more than 1/RENDER_SHARE of the time (a long table or code block).
RENDER_MS = 100
RENDER_SHARE = 4
THINKING = "Thinking…"
READING = "Reading your message…"  # while the model reads a long message, before it writes
THROWAWAY = "\u200b"  # a zero-width space: see _insert_piece
BREAK, FRAME_END = "\u2029", "\ufdd1"  # a line break and a table's end, in a document
MARKDOWN = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


class AnswerMixin:
    """Draws an answer's Markdown, and the answer that streams in, in batches."""

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

    def end_answer(self, note: str = "", begun: bool = True) -> str:
        """Finish the streamed answer: render it as Markdown, add a note; return its text.
        `begun` False: no answer was asked for (the question could not be kept), so its place
        holds the note alone, not "(no answer)"."""
        self._timer.stop()
        self._waiting.stop()
        if self._answer is None:
            return ""
        self._answer_chunks.append("".join(self._pending))  # drawn whole below, not twice
        self._pending.clear()
        text = "".join(self._answer_chunks)
        follow = self._at_end()
        self._erase_answer(self._answer_start)
        if begun or text.strip():
            self._insert_markdown(self._answer, text)
            if note:
                self._insert_note(self._answer, note)
        elif note:  # on the answer's first line
            self._answer.insertText(note, _format(theme.MUTED, italic=True, size=9))
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

    # --- helpers -------------------------------------------------------------------------
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
