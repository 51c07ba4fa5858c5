""" "Learned" notices: after consolidation adds or changes a fact, knowledge or profile entry
from the conversation on screen, say so after the exchange it came from (never in a
temporary chat, never when the setting is off). A conversation drawn from the vault (opened,
or after a restart) shows them again for the items learned from its exchanges and still held."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from engine import remembered
from engine.learned import USER_ORIGIN, learned_from, undo
from engine.retrieval_facts import dated_facts

# What Undo found (undo_same's result): the item was deleted; it was already gone (deleted in
# Privacy, forgotten) or is no longer the item the notice names; or it was changed since (edited
# in Privacy, learned again): nothing was deleted.
UNDONE, GONE, CHANGED = "undone", "gone", "changed"


def undo_same(memory: Any, item: Any) -> str:
    """Delete the item a notice names, only if this memory still holds it under that id and
    with that text (in the session's worker). An id alone named another item once: another
    memory's notice, shown after a switch, deleted this one's fact with the same id. An item
    changed since is kept: the person's own edit is not what the notice offered to undo."""
    if item.kind == remembered.PROFILE:
        held = {slot.id: slot for slot in memory.profile()}
        texts = {slot.id: {slot.text} for slot in held.values()}
    else:
        held = {fact.id: fact for fact in memory.facts() if fact.id == item.id}
        texts = {fact.id: {fact.text} for fact in held.values()}  # shown dated (below)
        for fact in dated_facts(memory.vault, list(held.values())):
            texts[fact.id].add(fact.text)
    now = held.get(item.id)
    if now is not None and _changed(now, item, texts[item.id]):
        return CHANGED
    if item.text not in texts.get(item.id, ()):
        return GONE
    undo(memory, item.kind, item.id)
    return UNDONE


def _changed(now: Any, item: Any, texts: set[str]) -> bool:
    """Whether `now`, held under the notice's id with `texts`, is the notice's item changed
    since: edited by the person (in Privacy), or given another text after the notice (not
    another item given its id, nor one only replaced or touched since)."""
    if now.created > item.updated:
        return False  # a newer item with the deleted item's id
    if now.origin == USER_ORIGIN:
        return True
    return now.updated > item.updated and item.text not in texts


def gone_items(memory: Any, items: list[Any]) -> list[Any]:
    """Which of the notices' items this memory no longer holds (in the session's worker):
    deleted in the privacy panel, forgotten with their exchange, deleted by another program.
    An item edited or replaced since is still held; an id held by an item made after the
    notice's (a deleted last id given again) is not the notice's."""
    return held_items(memory, items)[0]


def held_items(memory: Any, items: list[Any]) -> tuple[list[Any], dict[Any, str]]:
    """The notices' items gone (see gone_items), and those changed since (edited in Privacy,
    learned again) with the text they have now, by notice key (in the session's worker)."""
    held: dict[tuple[bool, int], Any] = {}
    if any(item.kind == remembered.PROFILE for item in items):
        held.update(((True, s.id), s) for s in memory.profile(include_superseded=True))
    fact_ids = [item.id for item in items if item.kind != remembered.PROFILE]
    if fact_ids:  # only the notices' own facts: a check follows every consolidation burst
        facts = memory.vault.facts(None, True, ids=fact_ids)
        held.update(((False, f.id), f) for f in dated_facts(memory.vault, facts))
    gone, changed = [], {}
    for item in items:
        now = held.get((item.kind == remembered.PROFILE, item.id))
        if now is None or now.created > item.updated:
            gone.append(item)
        elif _changed(now, item, {now.text}):
            changed[item.key] = now.text
    return gone, changed


def learned_and_gone(
    memory: Any, page_ids: list[int], since: float, shown: list[Any]
) -> tuple[list[Any], list[Any], dict[Any, str]]:
    """Read in the session's worker: items learned from `page_ids` since `since`, and which of
    the notices `shown` name items that are gone, or changed since (their text now)."""
    learned = _dated(memory, learned_from(memory, page_ids, since)) if page_ids else []
    gone, changed = held_items(memory, shown) if shown else ([], {})
    return learned, gone, changed


def _dated(memory: Any, items: list[Any]) -> list[Any]:
    """The facts among `items` as Privacy, the Used list and `facts list` show them: "Next
    Friday [4 December 2026] I fly to Lisbon", the day meant when it was said."""
    ids = {item.id for item in items if item.kind != remembered.PROFILE}
    if not ids:
        return items
    facts = [fact for fact in memory.facts() if fact.id in ids]
    text = {fact.id: fact.text for fact in dated_facts(memory.vault, facts)}
    return [
        item if item.kind == remembered.PROFILE else replace(item, text=text.get(item.id, item.text))
        for item in items
    ]


class LearnedNotices(QObject):
    """Watches the session's "facts" events and adds one notice per new or changed item."""

    shown = Signal(object)  # a LearnedItem that got its notice (tests wait on it)
    checked = Signal()  # a check finished (with or without new notices)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        # Every item still held that was learned from an exchange on screen gets its notice,
        # however long ago: only those learned since the window opened did, and a quit and a
        # start lost the trace of what was learned where.
        self.since = 0.0
        self.announced: set[tuple[str, int, float]] = set()
        self.items: list[Any] = []  # notices given, in order (drawn again when the view is)
        self.undone: set[tuple[str, int]] = set()
        self.deleted: set[tuple[str, int]] = set()  # of `undone`: deleted elsewhere, not undone
        # Notices whose item was changed since (edited in Privacy): its text now, by notice key.
        self.changed: dict[tuple[str, int, float], str] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(100)  # events come in bursts: one check per burst
        self._timer.timeout.connect(self.check)
        # Notices learned, or undone, while an answer streams wait for its end (see _show).
        self._waiting = False
        self._undone_due: list[Any] = []
        self._changed_due: list[Any] = []
        window.answer_finished.connect(self._answer_ended)
        # A conversation drawn from the vault (at the start, opened, drawn again): the notices
        # of what was learned from its exchanges
        window.view.exchange_drawn.connect(self._timer.start)

    def watch(self, session: Any) -> None:
        self.reset()
        session.memory_changed.connect(self._on_event)

    def reset(self) -> None:
        """The vault closed (lock, switch, erase): its notices go with it. Kept, they were
        drawn again after the exchanges of another memory with the same ids, and their Undo
        deleted that memory's items."""
        self._timer.stop()
        self.announced.clear()
        self.items.clear()
        self.undone.clear()
        self.deleted.clear()
        self.changed.clear()
        self._undone_due.clear()
        self._changed_due.clear()
        self._waiting = False

    def owns(self, item: Any) -> bool:
        """Whether `item` is one of the notices given in the memory open now."""
        return any(given is item for given in self.items)

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
        """New items learned from the exchanges on screen get notices, and notices whose items
        were deleted meanwhile say so (after a "facts" event, or a change in the privacy panel),
        before anyone clicks their Undo."""
        session = self.window.session
        page_ids = self.window.view.page_ids()
        # The notices still offering Undo, and those marked deleted elsewhere: Undo in the
        # privacy panel may have put their item back.
        shown = [item for item in self.items
                 if (item.kind, item.id) not in self.undone
                 or (item.kind, item.id) in self.deleted]
        if session is None or not self.enabled or not (page_ids or shown):
            self.checked.emit()
            return
        session.run(
            learned_and_gone,
            session.mem,
            page_ids,
            self.since,
            shown,
            on_result=lambda result: self._show(result, shown),
            on_error=lambda _error: self.checked.emit(),
        )

    def _show(self, result: tuple[list, list, dict], checked: list | None = None) -> None:
        items, gone, changed = result
        gone_keys = {(item.kind, item.id) for item in gone}
        for item in gone:
            if self.owns(item) and (item.kind, item.id) not in self.undone:  # not reset since
                self.changed.pop(item.key, None)
                self.mark_undone(item, deleted=True)
        for item in checked or []:
            key = (item.kind, item.id)
            if key in self.deleted and key not in gone_keys and self.owns(item):
                self.undone.discard(key)  # put back (Undo in the privacy panel): offered again
                self.deleted.discard(key)
                self.window.view.mark_restored(item)
            if key in self.undone or not self.owns(item):
                continue
            # Edited in Privacy: the notice says so, with no Undo; the edit undone there: back.
            text = changed.get(item.key)
            if text != self.changed.get(item.key):
                if text is None:
                    del self.changed[item.key]
                else:
                    self.changed[item.key] = text
                self.mark_changed(item)
        fresh = [item for item in items if item.key not in self.announced]
        session = self.window.session
        if fresh and session is not None and session.generating:
            # Text put into an earlier answer while the next one streams shifts what the view
            # is still drawing: the streaming answer lost text, or its frame and all that
            # followed. The notices are drawn once it has ended (nothing is announced yet).
            self._waiting = True
            self.checked.emit()
            return
        if self.enabled:
            for item in fresh:
                if self.window.view.add_learned(item.page_id, item):
                    self.announced.add(item.key)
                    self.items.append(item)
                    self.shown.emit(item)
        self.checked.emit()

    def _answer_ended(self, _answer: object = None) -> None:
        due, self._undone_due = self._undone_due, []
        for item in due:
            self.window.view.mark_undone(item, (item.kind, item.id) in self.deleted)
        changed, self._changed_due = self._changed_due, []
        for item in changed:
            self.window.view.mark_changed(item, self.changed.get(item.key))
        if self._waiting:
            self._waiting = False
            self._timer.start()

    def mark_undone(self, item: Any, deleted: bool = False) -> None:
        """Undo done: the notice says "Forgot: …"; `deleted` elsewhere: "Deleted: …" (once the
        answer streaming now has ended: a notice drawn again shifts it as a new one does)."""
        self.undone.add((item.kind, item.id))
        if deleted:
            self.deleted.add((item.kind, item.id))
        else:
            self.deleted.discard((item.kind, item.id))
        session = self.window.session
        if session is not None and session.generating:
            self._undone_due.append(item)
        else:
            self.window.view.mark_undone(item, deleted)

    def mark_changed(self, item: Any) -> None:
        """The notice's item was edited since: "Changed since: …" with its text now and no Undo,
        or "Learned: …" again once the edit was undone (after the answer streaming now)."""
        session = self.window.session
        if session is not None and session.generating:
            self._changed_due.append(item)
        else:
            self.window.view.mark_changed(item, self.changed.get(item.key))

    def undo_finished(self, item: Any, result: str) -> str:
        """After Undo on a notice (undo_same's `result`): what the status bar says, if anything.
        An item changed since was kept, and its notice says so once checked again."""
        if result == CHANGED:
            self._timer.start()
            return "It was changed since: nothing was deleted."
        self.mark_undone(item)  # either way it is gone now
        return "Already deleted." if result == GONE else ""

    def redraw(self) -> None:
        """After the conversation was drawn again: the notices given in this window come back at
        once, with what became of them (the others with the check its exchanges started)."""
        view = self.window.view
        for item in self.items:
            if view.add_learned(item.page_id, item) and (item.kind, item.id) in self.undone:
                view.mark_undone(item, (item.kind, item.id) in self.deleted)
            elif item.key in self.changed:
                view.mark_changed(item, self.changed[item.key])
