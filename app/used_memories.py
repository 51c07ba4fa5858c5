""""Used N memories" under answers already on screen stay true: when a fact, profile entry or
exchange is deleted or forgotten (here, in the privacy panel, or by another process), the
lists are read again and the lines that changed are redrawn ("1 forgotten since")."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

# The events after which an item an answer used may be gone.
EVENTS = ("facts", "pages")


class UsedMemoriesRefresh(QObject):
    """Watches the session's events; one read of the shown answers' lists per burst."""

    refreshed = Signal(int)  # how many lines were redrawn (tests wait on it)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)  # a delete brings several events: one read for them all
        self._timer.timeout.connect(self.refresh)

    def watch(self, session: Any) -> None:
        session.memory_changed.connect(self._on_event)

    def _on_event(self, event: str) -> None:
        if event in EVENTS:
            self._timer.start()

    def refresh(self) -> None:
        session = self.window.session
        page_ids = self.window.view.answers_with_memories()
        if session is None or not page_ids:
            return
        session.run(session.mem.memories_used, page_ids, on_result=self._draw,
                    on_error=lambda _error: None)  # closing or locked: the next event reads again

    def _draw(self, lists: dict) -> None:
        self.refreshed.emit(self.window.view.update_memories(lists))
