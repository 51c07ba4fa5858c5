"""The "Learned" notices under an answer: what was learned from its exchange, with Undo and
Manage, and what became of it since (forgotten, deleted elsewhere, changed). A mixin of
ConversationView, which declares the signals its links lead to.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import (
    QBrush,
    QColor,
    QTextBlockFormat,
    QTextCursor,
    QTextFrameFormat,
)

from app import theme
from app.text_formats import char_format as _format
from app.text_formats import link_format as _link
from app.view_memory import Message

# A Learned notice whose item was deleted since (without its text: see _draw_learned).
GLUE = "\u00a0\u00a0·\u00a0\u00a0"  # "  ·  " where no line breaks
DELETED_NOTICE = "Deleted: what was learned here is no longer remembered."


class LearnedMixin:
    """Methods ConversationView gets for its Learned notices."""

    def add_learned(self, page_id: int, item: Any) -> bool:
        """ "Learned: ... · Undo · Manage" after the answer of exchange `page_id`."""
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

    def mark_undone(self, item: Any, deleted: bool = False) -> None:
        """The notice's item is gone: "Forgot: …" (Undo), or "Deleted: …" (`deleted`: in the
        privacy panel, by a /forget), with no Undo."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                message.undone.add((item.kind, item.id))
                message.changed.pop(item.key, None)
                if deleted:
                    message.deleted.add((item.kind, item.id))
                else:
                    message.deleted.discard((item.kind, item.id))
                self._draw_learned(message)

    def mark_changed(self, item: Any, text: str | None) -> None:
        """The notice's item was edited since: "Changed since: <its text now>", with no Undo;
        `text` None: "Learned: …" again (the edit was undone)."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                if text is None:
                    message.changed.pop(item.key, None)
                else:
                    message.changed[item.key] = text
                self._draw_learned(message)

    def mark_restored(self, item: Any) -> None:
        """The notice's item, deleted elsewhere, was put back: "Learned: …" with its Undo."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                message.undone.discard((item.kind, item.id))
                message.deleted.discard((item.kind, item.id))
                self._draw_learned(message)

    def _draw_learned(self, message: Message) -> None:
        cursor = self._emptied(message.notices_frame)
        index = self.messages.index(message)
        quiet = theme.MUTED_ON_TINT  # on the notice's green tint (MUTED there is 4.4:1)
        # No-break spaces: the links stay together and with the text's last word, so a line
        # that wraps takes that word along ("· Manage" alone on a line read as stray).
        gap = (GLUE, _format(quiet, size=9))
        for n, item in enumerate(message.learned):
            if n:
                cursor.insertBlock(QTextBlockFormat())
            if (item.kind, item.id) in message.undone:
                # Deleted elsewhere (Privacy, /forget, another program): its text is not shown
                # again, the person chose to have it gone.
                said = (DELETED_NOTICE if (item.kind, item.id) in message.deleted
                        else f"Forgot: {item.text}")
                cursor.insertText(said, _format(quiet, italic=True, size=9))
                continue
            if item.key in message.changed:
                now = message.changed[item.key]
                cursor.insertText(f"Changed since: {now}", _format(quiet, italic=True, size=9))
                cursor.insertText(*gap)
                cursor.insertText("Manage", _link(f"manage:{index}:{n}"))
                continue
            knowledge = item.kind == "knowledge"
            label = "Noted what MemoryOS said: " if knowledge else "Learned: "
            cursor.insertText(label, _format(theme.LEARNED, bold=True, size=9))
            cursor.insertText(item.text.rstrip(), _format(theme.TEXT, size=9))
            cursor.insertText(*gap)
            cursor.insertText("Undo", _link(f"undo:{index}:{n}"))
            cursor.insertText(*gap)
            cursor.insertText("Manage", _link(f"manage:{index}:{n}"))

    def learned_items(self) -> list[Any]:
        return [item for m in self.messages for item in m.learned]
