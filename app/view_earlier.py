"""Earlier exchanges of a long conversation put above those drawn ("Show N earlier")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtGui import QTextCharFormat, QTextCursor

from app import theme
from app.text_formats import char_format as _format
from app.text_formats import link_format as _link
from app.view_memory import EARLIER_SCHEME, LONG_SCHEME

# The links that name their message by its place in the view's list of messages (view_menu)
INDEXED_LINKS = {"remembered", "memory", "undo", "manage", LONG_SCHEME}
SHOWING = "Showing…"  # the "Show N earlier" link while they are read


class EarlierMixin:
    """The "Show N earlier" link and the exchanges it puts above: a mixin of ConversationView
    (kept apart so the view's own module stays small); it uses the view's browser, messages
    and the way it adds an exchange."""

    def earlier_link(self, working: bool) -> None:
        """The "Show N earlier" link above the conversation: "Showing…" (no longer a link, so
        a second click does nothing) while they are read, or back to the link."""
        document = self.browser.document()
        for block in self._blocks_above():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                href = fragment.charFormat().anchorHref()
                # "Showing…" shares its fragment with the "  ·  " before it (one format)
                if (href.partition(":")[0] == EARLIER_SCHEME) if working else \
                        (not href and fragment.text().endswith(SHOWING)):
                    end = fragment.position() + fragment.length()
                    cursor = QTextCursor(document)
                    cursor.setPosition(fragment.position() if working else end - len(SHOWING))
                    cursor.setPosition(end,
                                       QTextCursor.MoveMode.KeepAnchor)
                    if working:
                        self._earlier_label = fragment.text()
                        cursor.insertText(SHOWING, _format(theme.MUTED, size=9))
                    else:
                        cursor.insertText(self._earlier_label, _link(f"{EARLIER_SCHEME}:"))
                    return
                it += 1

    def _blocks_above(self) -> list[Any]:
        """The lines above the first message (the earlier exchanges' line, the day's line)."""
        document = self.browser.document()
        end = self.messages[0].frame.firstPosition() if self.messages else \
            document.characterCount()
        blocks, block = [], document.begin()
        while block.isValid() and block.position() < end:
            blocks.append(block)
            block = block.next()
        return blocks

    def _is_earlier_notice(self, block: Any) -> bool:
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref().partition(":")[0] == EARLIER_SCHEME or \
                    fragment.text().endswith(SHOWING):
                return True
            it += 1
        return False

    def put_earlier(
        self, exchanges: list[tuple[Any, list[Any] | None, str]],
        notice: tuple[str, list[tuple[str, str]]] | None,
    ) -> None:
        """Earlier exchanges of the conversation, (page, memories, note) oldest first, put
        above those drawn, under `notice` (the line saying how many are still not shown, None
        when none are); the exchange that was first on screen stays where it was in the view.
        Only what is new is drawn: drawing them all again took seconds, longer each time."""
        from app.conversation_view import day_label  # here: that module imports this one

        document = self.browser.document()
        old = self.messages
        first = old[0]
        top = self._top_of(first.frame.firstPosition())
        # The day's line above the first exchange: dropped below if the last earlier exchange
        # is of that day (it is then drawn above them instead).
        day = next((b for b in self._blocks_above()
                    if b.text() and not self._is_earlier_notice(b)), None)
        day_line = QTextCursor(document)
        day_line.setPosition(day.position() if day is not None else first.frame.firstPosition())
        day_text = day.text() if day is not None else ""
        last_day = self._last_day
        edit = QTextCursor(document)
        edit.beginEditBlock()  # laid out once, not after each message
        try:
            self._drop_earlier_notice()
            cursor = QTextCursor(document)  # the end of the first, empty line
            if notice is not None:
                self._write_notice(cursor, *notice)
            self._above_at, self._follow = cursor.position(), False
            self._last_day, self.messages = None, []
            for page, memories, note in exchanges:
                self.add_exchange(page, memories, note)
            added = self.messages
            if day is not None and day_label(dt.datetime.combine(self._last_day, dt.time()))\
                    == day_text:
                gap = QTextCursor(document)
                gap.setPosition(added[-1].frame.lastPosition() + 1)
                gap.setPosition(day_line.block().position() + day_line.block().length() - 1,
                                QTextCursor.MoveMode.KeepAnchor)
                gap.removeSelectedText()
                self._shrink_gap(gap)
            elif day is not None:  # a day's line under another: apart as drawn in order
                block = day_line.blockFormat()
                block.setTopMargin(10)
                day_line.setBlockFormat(block)
            self.messages = added + old
            self._shift_links(first.frame.firstPosition(), len(added))
        finally:
            self._above_at, self._follow, self._last_day = None, True, last_day
            edit.endEditBlock()
        self._hold((first.frame.firstPosition(), top))
        self._keep_place()

    def _top_of(self, position: int) -> int:
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(position)
        return self.browser.cursorRect(cursor).top()

    def _drop_earlier_notice(self) -> None:
        for block in self._blocks_above():
            if self._is_earlier_notice(block):
                cursor = QTextCursor(self.browser.document())
                cursor.setPosition(block.position() - 1)
                cursor.setPosition(block.position() + block.length() - 1,
                                   QTextCursor.MoveMode.KeepAnchor)
                cursor.removeSelectedText()
                return

    def _shift_links(self, start: int, count: int) -> None:
        """The links of the messages from `start` on name them by their place in `messages`:
        `count` messages were put above them."""
        document = self.browser.document()
        block = document.findBlock(start)
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                href = fragment.charFormat().anchorHref()
                scheme, _, rest = href.partition(":")
                if scheme in INDEXED_LINKS:
                    index, _, tail = rest.partition(":")
                    moved = QTextCharFormat()
                    moved.setAnchorHref(f"{scheme}:{int(index) + count}" + (f":{tail}" if tail else ""))
                    cursor = QTextCursor(document)
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(fragment.position() + fragment.length(),
                                       QTextCursor.MoveMode.KeepAnchor)
                    cursor.mergeCharFormat(moved)
                it += 1
            block = block.next()
