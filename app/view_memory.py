"""The conversation's messages as things to act on: a long message folded, the Remembered
line under an answer, the exchange a search result opens, and the last exchange ("Learned"
notices: view_learned.py; links and the context menu: view_menu.py). A mixin of
ConversationView.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCursor,
    QTextFrame,
    QTextFrameFormat,
)

from app import remembered as shown
from app import theme
from app.text_formats import char_format as _format
from app.text_formats import link_format as _link
from engine.memory import keywords

# A message of the person's longer than this is shown folded: its first lines and a link that
# unfolds it in place (a long paste took some 85 wheel clicks to get past).
FOLD_LINES, FOLD_CHARS = 40, 3000
SHOWN_LINES, SHOWN_CHARS = 12, 900  # what of a folded message is shown
LONG_SCHEME = "longmessage"  # the link that unfolds (and folds back) a long message
EARLIER_SCHEME = "earlier"  # the link above a long conversation that draws more of it


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
    deleted: set[tuple[str, int]] = field(default_factory=set)  # of `undone`: gone elsewhere
    changed: dict[Any, str] = field(default_factory=dict)  # notice key: its item's text now
    long: bool = False  # the person's message is long: shown folded until unfolded
    unfolded: bool = False
    not_saved: bool = False  # its exchange was answered but could not be stored (disk full)


def is_long(text: str) -> bool:
    return text.count("\n") + 1 > FOLD_LINES or len(text) > FOLD_CHARS


def folded_part(text: str) -> str:
    """The start of a long message: its first lines (a long line cut at a word, "…")."""
    part = "\n".join(text.split("\n")[:SHOWN_LINES])
    if len(part) <= SHOWN_CHARS:
        return part.rstrip()
    part = part[:SHOWN_CHARS]
    cut = max(part.rfind(" "), part.rfind("\n"))
    return (part[:cut] if cut > SHOWN_CHARS // 2 else part).rstrip() + "…"


def show_all_label(text: str) -> str:
    """ "Show all (320 lines)", or in words for a message of few, long lines."""
    lines = text.count("\n") + 1
    if lines > SHOWN_LINES:
        return f"Show all ({lines:,} lines)"
    return f"Show all ({len(text.split()):,} words)"


def _found_at(text: str, words: list[str], start: int) -> int:
    """Where in `text`, at or after `start`, a word of a conversation search matches (as the
    search does: the same stem, the last word also as the start of one); -1 if nowhere."""
    typed = [w.lower() for w in keywords.tokens(" ".join(words))]
    if not typed:
        return -1
    stems = {keywords.fts_term(w) for w in typed}
    for match in re.finditer(r"[^\W_]+", text[start:]):
        word = match.group().lower()
        if keywords.fts_term(word) in stems or word.startswith(typed[-1]):
            return start + match.start()
    return -1


class MessagesMixin:
    """Methods ConversationView gets for acting on its messages."""

    found_words: list[str]  # the words of the conversation search whose result was opened

    # --- long messages of the person: folded -----------------------------------------------
    def _write_user_text(self, message: Message, cursor: QTextCursor) -> None:
        """The person's message at `cursor`; a long one folded (or unfolded) with its link."""
        text = message.text
        message.long = is_long(text)
        if not message.long:
            cursor.insertText(text, _format(theme.TEXT))
            return
        cursor.insertText(text if message.unfolded else folded_part(text), _format(theme.TEXT))
        block = QTextBlockFormat()
        block.setTopMargin(6)
        cursor.insertBlock(block)
        label = "Show less" if message.unfolded else show_all_label(text)
        cursor.insertText(label, _link(f"{LONG_SCHEME}:{self.messages.index(message)}"))

    def toggle_fold(self, message: Message) -> None:
        """Unfold a long message in place, or fold it back (its top is kept in view)."""
        if not message.long:
            return
        document = self.browser.document()
        cursor = QTextCursor(document)
        cursor.setPosition(self._body_start(message))
        cursor.setPosition(message.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.setBlockFormat(QTextBlockFormat())
        message.unfolded = not message.unfolded
        self._write_user_text(message, cursor)
        if not message.unfolded:  # folded back from far below: the view stays on it
            top = document.documentLayout().frameBoundingRect(message.frame).top()
            if top < self.browser.verticalScrollBar().value():
                self.scroll_to(message)

    def _body_start(self, message: Message) -> int:
        """Where a message's text starts: the block after its speaker line."""
        document = self.browser.document()
        return document.findBlock(message.frame.firstPosition()).next().position()

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
            # its links have a menu of their own, for the Menu key too (see eventFilter)
            self.browser.installEventFilter(self)
            # open before the conversation was drawn again (a new text size): open still
            message.expanded = message.page_id in getattr(self, "_open_lists", ())
        self._draw_remembered(message)

    def toggle_remembered(self, message: Message) -> None:
        """Open or close the list under an answer; a line reached with Tab keeps the focus
        (redrawn, it lost it: the next Tab went to the conversation's first link)."""
        focused = self._focused_link() == f"remembered:{self.messages.index(message)}"
        message.expanded = not message.expanded
        self._draw_remembered(message)
        if focused:
            line = QTextCursor(self.browser.document())
            line.setPosition(message.remembered_frame.firstPosition())
            line.movePosition(QTextCursor.MoveOperation.EndOfBlock,
                              QTextCursor.MoveMode.KeepAnchor)
            self.browser.setTextCursor(line)
        if message.expanded:  # the list opens below the line: bring it into view
            self._show_remembered(message)
            QTimer.singleShot(0, self, lambda: self._show_remembered(message))  # laid out since

    def _show_remembered(self, message: Message) -> None:
        """Scroll as little as it takes for the whole Remembered list to be in view; its
        "Used N memories" line stays in view when the list is taller than the view."""
        frame = message.remembered_frame
        shown = any(m is message for m in self.messages)  # not cleared since
        if frame is None or not message.expanded or not shown:
            return
        rect = self.browser.document().documentLayout().frameBoundingRect(frame)
        bar = self.browser.verticalScrollBar()
        value = bar.value()
        value = max(value, int(rect.bottom()) + 12 - self.browser.viewport().height())
        bar.setValue(min(value, int(rect.top())))

    def _draw_remembered(self, message: Message) -> None:
        frame, index = message.remembered_frame, self.messages.index(message)
        cursor = self._emptied(frame)
        cursor.setBlockFormat(QTextBlockFormat())  # not the indent of the answer's last list
        items = message.memories or []
        if not items:
            cursor.insertText("Used no memories", _format(theme.MUTED, size=9))
            return
        arrow = "\u25be" if message.expanded else "\u25b8"
        cursor.insertText(
            f"{arrow} {shown.summary(items)}", _link(f"remembered:{index}", theme.MUTED)
        )
        if not message.expanded:
            return
        for position, item in enumerate(items):
            block = QTextBlockFormat()
            block.setLeftMargin(14)
            block.setTopMargin(2)
            cursor.insertBlock(block)
            label = _format(theme.MUTED, size=8.5)
            if item.forgotten:
                label.setFontStrikeOut(True)
            cursor.insertText(shown.item_label(item) + "   ", label)
            if item.forgotten:
                cursor.insertText(shown.item_text(item), _format(theme.MUTED, italic=True, size=9))
            else:
                cursor.insertText(
                    shown.item_text(item), _link(f"memory:{index}:{position}", theme.TEXT)
                )

    def scroll_to(self, message: Message) -> None:
        """Bring a message's top to the top of the view."""
        layout = self.browser.document().documentLayout()
        self.browser.verticalScrollBar().setValue(
            int(layout.frameBoundingRect(message.frame).top())
        )

    def page_ids(self) -> list[int]:
        return sorted({m.page_id for m in self.messages if m.page_id is not None})

    def show_exchange(self, page_id: int) -> bool:
        """Scroll so the exchange stored as `page_id` starts at the top of the view (a search
        result opened); False if it is not on screen. Where the search's words (found_words)
        are in the folded part of a long message, it is unfolded and they are shown."""
        message = next((m for m in self.messages if m.page_id == page_id), None)
        if message is None:
            return False
        found = self._unfold_found(message, self.found_words)
        self.found_words = []

        def scroll() -> None:
            if any(m is message for m in self.messages):  # not cleared since
                layout = self.browser.document().documentLayout()
                top = layout.frameBoundingRect(message.frame).top()
                if found is not None:  # the line with the word, a third down the view
                    top = self.browser.cursorRect(found).top() + self._scrolled()
                    top -= self.browser.viewport().height() // 3
                self.browser.verticalScrollBar().setValue(max(0, int(top) - 8))

        scroll()
        QTimer.singleShot(0, self, scroll)  # again once the layout has caught up
        return True

    def _unfold_found(self, message: Message, words: list[str]) -> QTextCursor | None:
        """Unfold `message` where `words` match in its folded part; the match, selected."""
        if not words or message.role != "user" or not message.long or message.unfolded:
            return None
        at = _found_at(message.text, words, len(folded_part(message.text).rstrip("…")))
        if at < 0:
            return None
        self.toggle_fold(message)
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(self._body_start(message) + at)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
        self.browser.setTextCursor(cursor)  # the word found, highlighted
        return cursor

    def _scrolled(self) -> int:
        return self.browser.verticalScrollBar().value()

    def answers_with_memories(self) -> list[int]:
        """The stored answers on screen that show a "Used N memories" line."""
        return sorted({
            m.page_id for m in self.messages
            if m.role == "assistant" and m.page_id is not None and m.memories is not None
        })

    def update_memories(self, lists: dict[int, list[Any]]) -> int:
        """Redraw the "Used N memories" lines whose items read differently now (one deleted
        since shows as forgotten); returns how many changed."""
        changed = 0
        for message in self.messages:
            if message.role != "assistant" or message.memories is None:
                continue
            now = lists.get(message.page_id) if message.page_id is not None else None
            if now is not None and list(now) != message.memories:
                self.set_memories(message, now)
                changed += 1
        return changed

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
        if len(self.messages) >= 2 and [m.role for m in self.messages[-2:]] == [
            "user",
            "assistant",
        ]:
            return self.messages[-2:]
        return []

    def remove_last_exchange(self) -> None:
        """Take the last question and answer off the screen (they are being replaced)."""
        exchange = self.last_exchange()
        if not exchange or not all(self._drawn(m) for m in exchange):
            return
        start = max(0, exchange[0].frame.firstPosition() - 1)
        # Off the list before their frames are deleted: the view's width changes as the text
        # goes (its scroll bar goes), and the resize redraws every frame in the list: one
        # deleted under it crashed the app (a long answer regenerated).
        del self.messages[-2:]
        self._messages -= 2
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()

    def _drawn(self, message: Message) -> bool:
        """Whether `message`'s frame is still in the document (compared, never used: a frame
        deleted with its text must not be touched)."""
        return any(frame == message.frame
                   for frame in self.browser.document().rootFrame().childFrames())

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


def _is_code(block: Any) -> bool:
    from PySide6.QtGui import QTextFormat

    return bool(block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence))
