""" "Learned" notices: after consolidation adds or changes a fact, knowledge or profile entry
from the conversation on screen, say so after the exchange it came from (never in a
temporary chat, never when the setting is off)."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from engine.learned import learned_from


class LearnedNotices(QObject):
    """Watches the session's "facts" events and adds one notice per new or changed item."""

    shown = Signal(object)  # a LearnedItem that got its notice (tests wait on it)
    checked = Signal()  # a check finished (with or without new notices)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.since = time.time()  # items learned before this window opened are not news
        self.announced: set[tuple[str, int, float]] = set()
        self.items: list[Any] = []  # notices given, in order (drawn again when the view is)
        self.undone: set[tuple[str, int]] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(100)  # events come in bursts: one check per burst
        self._timer.timeout.connect(self.check)

    def watch(self, session: Any) -> None:
        self.since = time.time()
        session.memory_changed.connect(self._on_event)

    def _on_event(self, event: str) -> None:
        if event == "facts":
            self._timer.start()

    @property
    def enabled(self) -> bool:
        return (
            bool(getattr(self.window.settings, "learned_notices", True))
            and not self.window.temporary
        )

    def check(self) -> None:
        session = self.window.session
        page_ids = self.window.view.page_ids()
        if session is None or not self.enabled or not page_ids:
            self.checked.emit()
            return
        session.run(
            learned_from,
            session.mem,
            page_ids,
            self.since,
            on_result=self._show,
            on_error=lambda _error: self.checked.emit(),
        )

    def _show(self, items: list) -> None:
        if self.enabled:
            for item in items:
                if item.key in self.announced:
                    continue
                if self.window.view.add_learned(item.page_id, item):
                    self.announced.add(item.key)
                    self.items.append(item)
                    self.shown.emit(item)
        self.checked.emit()

    def mark_undone(self, item: Any) -> None:
        self.undone.add((item.kind, item.id))
        self.window.view.mark_undone(item)

    def redraw(self) -> None:
        """After the conversation was drawn again: the notices of its exchanges come back."""
        view = self.window.view
        for item in self.items:
            if view.add_learned(item.page_id, item) and (item.kind, item.id) in self.undone:
                view.mark_undone(item)
