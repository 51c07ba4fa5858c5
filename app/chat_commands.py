"""Chat commands and message actions in the window: /remember, /forget, /help, "Remember this",
"Forget this exchange", forgetting a remembered item, and Undo on a "Learned" notice.

Parsing and the vault work are the engine's (engine/chat_commands.py, shared with the CLI);
this module only runs them in workers and shows the results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QKeySequence

from app.errors import describe
from app.learned import undo_same
from engine import chat_commands, errors, remembered

# The exchanges of a conversation drawn when it is shown, its most recent ones; "Show earlier"
# above them adds as many again. Drawing a few thousand took seconds of a frozen window.
SHOWN_EXCHANGES = 200


def load_conversation(
    mem: Any,
    conversation_ids: list[str],
    limit: int = SHOWN_EXCHANGES,
    drawn: Iterable[int] = (),
    around: int | None = None,
) -> dict:
    """Read in a worker: the pages of conversations (the most recent `limit` of each), oldest
    first, with what each answer remembered, but for the pages `drawn` already (after another
    process wrote: only the exchanges it added are drawn in). `around`: an exchange that must
    be among them (a search result further back than `limit`): its conversation is read from a
    few exchanges before it. "earlier" counts the exchanges left out, "limit" is how many of
    each conversation were read (for the next read to keep them)."""
    ids = list(dict.fromkeys(conversation_ids))
    pages = []
    for conversation in ids:
        from_around = 0 if around is None else mem.conversation_length(conversation, around)
        if from_around > limit:  # further back than drawn: a few exchanges above it as well
            limit = from_around + AROUND_BEFORE
        pages.extend(mem.pages(conversation_id=conversation, limit=limit, newest=True))
    pages.sort(key=lambda p: (p.timestamp, p.id))
    known = set(drawn)
    fresh = [p.id for p in pages if p.id not in known]
    return {
        "ids": list(conversation_ids),
        "pages": pages,
        "memories": mem.memories_used(fresh) if fresh else {},
        "earlier": earlier_than(mem, ids, len(pages)),
        "limit": limit,
    }


AROUND_BEFORE = 10  # exchanges drawn above a search result opened far back


def earlier_than(mem: Any, conversation_ids: list[str], drawn: int) -> int:
    """How many exchanges of the conversations are not among the `drawn` most recent."""
    total = sum(mem.conversation_length(c) for c in dict.fromkeys(conversation_ids))
    return max(total - drawn, 0)


NOTE_CHARS = 90  # a "Remembered: …" line longer than this is cut short (the fact is whole)


def _match_for_page(mem: Any, page_id: int) -> list[chat_commands.ForgetMatch]:
    page = mem.page(page_id)
    return [chat_commands.ForgetMatch(remembered.EXCHANGE, page.id, page.text(), page.timestamp)]


@dataclass
class RememberedNote:
    """A "Remembered: …" line /remember showed: part of what the person did in a conversation,
    drawn again in its place whenever the conversation is (after a /forget, say)."""

    conversation_id: str
    after: tuple[int, ...]  # the exchanges on screen above it (page ids)
    fact_id: int
    text: str
    forgotten: bool = False

    def line(self) -> str:
        """One line, whatever was remembered: a multi-paragraph message showed every paragraph
        as a centred line of its own."""
        text = " ".join(self.text.split())
        if len(text) > NOTE_CHARS:
            text = text[: NOTE_CHARS - 1].rstrip() + "…"
        return f"Remembered: {text}" + (" (forgotten since)" if self.forgotten else "")


def forget_and_check(mem: Any, matches: list, fact_ids: list[int]) -> tuple[int, set[int]]:
    """Read in a worker: forget the confirmed matches; how many went, and which of `fact_ids`
    (facts a "Remembered" line shows) are gone now."""
    count = chat_commands.forget_matches(mem, matches)
    gone = set()
    for fact_id in fact_ids:
        try:
            mem.fact(fact_id)
        except errors.NotFoundError:
            gone.add(fact_id)
    return count, gone


class ChatActions(QObject):
    """Runs what the person asked for, then tells the window (`done` carries a short result)."""

    done = Signal(str)  # "remembered", "forgot", "cancelled", "help", "undone", "error", ...

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.panel = window.forget_panel
        self.panel.confirmed.connect(self._forget_confirmed)
        self.panel.cancelled.connect(self._forget_cancelled)
        self.panel.consequences_wanted.connect(self._find_consequences)
        view = window.view
        view.remember_requested.connect(self.remember)
        view.exchange_forget_requested.connect(self.forget_exchange)
        view.memory_forget_requested.connect(self.forget_memory)
        view.learned_undo_requested.connect(self.undo_learned)
        self.notes: list[RememberedNote] = []
        window.conversation_shown.connect(self._draw_notes)

    @property
    def session(self) -> Any:
        return self.window.session

    def run(self, command: chat_commands.Command) -> None:
        view = self.window.view
        if command.name == chat_commands.HELP:
            view.add_notice(
                "Commands\n"
                + "\n".join(f"{u} — {w}" for u, w in chat_commands.HELP_LINES)
                + "\nRight-click a message to copy it, remember it or forget it.\n"
                + self._keys()
            )
            self.done.emit("help")
        elif command.name == chat_commands.UNKNOWN:
            view.add_notice(f"Unknown command {command.typed}. Type /help for the commands.")
            self.done.emit("unknown")
        elif command.name == chat_commands.REMEMBER:
            self.remember(command.argument)
        else:
            self.find_and_ask(command.argument)

    def _keys(self) -> str:
        """The chat's keys, read from the window's own actions so the help never drifts."""
        w = self.window
        pairs = [
            (w.regenerate_action, "answer again"),
            (w.edit_action, "edit your last question"),
            (w.sidebar_action, "conversations"),
            (w.search_action, "search them"),
            (w.inspector_action, "what it remembers"),
            (w.privacy_action, "privacy"),
        ]
        native = QKeySequence.SequenceFormat.NativeText
        return " · ".join(f"{a.shortcut().toString(native)} {what}" for a, what in pairs)

    # --- remember ------------------------------------------------------------------------
    def remember(self, text: str) -> None:
        if self.session is None:
            return
        if self.window.temporary:
            self.window.view.add_notice(
                "Temporary chat: nothing is saved here, so nothing was "
                "remembered. Press Ctrl+T to leave it first."
            )
            self.done.emit("refused")
            return
        self.session.run(
            chat_commands.remember,
            self.session.mem,
            text,
            on_result=self._remembered,
            on_error=self._failed,
        )

    def _remembered(self, fact: Any) -> None:
        view = self.window.view
        shown = self.session.mem.conversation_id if self.session is not None else ""
        note = RememberedNote(shown, tuple(view.page_ids()), fact.id, fact.text)
        self.notes.append(note)
        view.add_notice(note.line())
        self.done.emit("remembered")

    def _draw_notes(self, conversation_id: str) -> None:
        """The conversation was drawn again from the vault: its "Remembered" lines too, each
        after the last exchange above it that is still there."""
        view = self.window.view
        shown = {*self.window.shown_conversations, conversation_id}
        places: dict[int, list[str]] = {}  # message index (-1: above them all) -> lines
        for note in self.notes:
            if note.conversation_id in shown:
                above = [n for n, m in enumerate(view.messages) if m.page_id in note.after]
                places.setdefault(above[-1] if above else -1, []).append(note.line())
        for index, lines in places.items():
            view.insert_notice("\n".join(lines), view.messages[index] if index >= 0 else None)

    # --- forget --------------------------------------------------------------------------
    def find_and_ask(self, words: str) -> None:
        if self.session is None:
            return
        from engine.answer import looked_up_by

        self.session.run(
            chat_commands.find_matches,
            self.session.mem,
            looked_up_by(words),  # a long paste: its start and end (seconds of search for all)
            on_result=lambda matches: self._ask(words, matches),
            on_error=self._failed,
        )

    def _ask(self, words: str, matches: list) -> None:
        from app.forget_panel import quoted
        from engine.answer import looked_up_by

        if not matches:
            self.window.view.add_notice(f"Nothing matches “{quoted(words)}”; nothing was forgotten.")
            self.done.emit("nothing")
            return
        count = len([m for m in matches if not m.consequence])
        self.panel.ask(
            f"Forget {count} item{'s' if count != 1 else ''} matching “{quoted(words)}”?",
            matches, chat_commands.search_words(looked_up_by(words)),
        )
        self.done.emit("asked")

    def forget_exchange(self, page_id: int) -> None:
        if self.session is not None:
            self.session.run(
                _match_for_page,
                self.session.mem,
                page_id,
                on_result=lambda m: self._ask_one("Forget this exchange?", m),
                on_error=self._failed,
            )

    def forget_memory(self, item: Any) -> None:
        match = chat_commands.ForgetMatch(item.kind, item.id, item.text, item.date)
        self._ask_one(f"Forget this {remembered.describe(item)}?", [match])

    def _ask_one(self, title: str, matches: list) -> None:
        self.panel.ask(title, matches)
        self.done.emit("asked")

    def _find_consequences(self, ticked: list) -> None:
        """What goes along with the exchanges ticked now, read in a worker. A failure is not
        shown: the forget itself finds again what goes, and says so if it cannot."""
        if self.session is not None:
            self.session.run(
                chat_commands.consequences,
                self.session.mem,
                ticked,
                on_result=lambda found: self.panel.show_consequences(ticked, found),
            )

    def _forget_confirmed(self, matches: list) -> None:
        if self.session is None:
            return
        self.session.run(
            forget_and_check,
            self.session.mem,
            matches,
            [note.fact_id for note in self.notes],
            on_result=self._forgot,
            on_error=self._failed,
        )

    def _forgot(self, result: tuple[int, set[int]]) -> None:
        count, gone = result
        for note in self.notes:
            note.forgotten = note.forgotten or note.fact_id in gone
        self.window.reload_conversation(f"Forgot {count} item{'s' if count != 1 else ''}.")
        self.done.emit("forgot")

    def _forget_cancelled(self) -> None:
        self.window.view.add_notice("Cancelled; nothing was forgotten.")
        self.done.emit("cancelled")

    # --- learned notices -----------------------------------------------------------------
    def undo_learned(self, item: Any) -> None:
        notices = self.window.learned_notices
        if self.session is not None and notices.owns(item):  # never another memory's notice
            self.session.run(
                undo_same,
                self.session.mem,
                item,
                on_result=lambda result: self._undone(item, result),
                on_error=self._failed,
            )

    def _undone(self, item: Any, result: str = "undone") -> None:
        # Deleted meanwhile (Privacy, /forget) or changed since: not an error to show.
        said = self.window.learned_notices.undo_finished(item, result)
        if said:
            self.window.status.showMessage(said, 5000)
        self.done.emit(result)

    def _failed(self, error: Exception) -> None:
        self.window.view.add_notice(f"⚠ {describe(error)}")
        self.done.emit("error")
