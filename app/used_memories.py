""""Used N memories" under answers already on screen stay true: when a fact, profile entry or
exchange is deleted or forgotten (here, in the privacy panel, or by another process), the
lists are read again and the lines that changed are redrawn ("1 forgotten since"). An
exchange on screen that was itself forgotten there has the conversation drawn again without it
(it stayed on screen until the person switched conversations)."""

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
        shown = self.window.view.page_ids()
        if session is None or not (page_ids or shown):
            return
        session.run(read_used, session.mem, page_ids, shown, on_result=self._draw,
                    on_error=lambda _error: None)  # closing or locked: the next event reads again

    def _draw(self, result: tuple[dict, set[int]]) -> None:
        lists, gone = result
        window = self.window
        if gone & set(window.view.page_ids()):
            if window.reloading:
                self._timer.start()  # a redraw under way (/forget's): look again after it
            elif window.session is not None and not window.session.generating:
                window.reload_conversation()
            # While an answer streams: the "pages" event of its end brings the next look.
            return
        self.refreshed.emit(window.view.update_memories(lists))


def read_used(mem: Any, page_ids: list[int], shown: list[int]) -> tuple[dict, set[int]]:
    """Read in a worker: what the answers `page_ids` used, as it reads now, and which of the
    exchanges `shown` are no longer stored."""
    gone = set(shown) - mem.stored_pages(shown)
    return (mem.memories_used(page_ids) if page_ids else {}), gone
