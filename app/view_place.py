"""Where the conversation is read: its place kept through a change of width or text size,
and the view kept at the end while it grows.

A mixin of ConversationView (kept apart so the view's own module stays small); it uses the
view's browser, messages and hold timer.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtGui import QTextCursor


class PlaceMixin:
    """Keeps the reading place: at the end, or the text at the top of the view."""


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
