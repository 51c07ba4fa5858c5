"""The main window's conversation as the vault has it: a stored conversation opened, drawn
again (after a forget, a new text size, Show earlier), and the exchanges another process
wrote to it drawn in.

A mixin of MainWindow (kept apart so the window's own module stays small); it uses the
window's view, composer, sidebar, session and settings.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.chat_commands import SHOWN_EXCHANGES, load_conversation


def earlier_notice(earlier: int) -> tuple[str, list[tuple[str, str]]] | None:
    """The line above a conversation drawn without its first `earlier` exchanges, with the
    link that draws more of them; None when there are none."""
    if earlier <= 0:
        return None
    more = min(earlier, SHOWN_EXCHANGES)
    return (
        f"{earlier:,} earlier exchange{'s' if earlier != 1 else ''} of this conversation "
        "not shown",
        [(f"Show {'the' if more == earlier else ''} {more:,} earlier".replace("  ", " "),
          "earlier:")],
    )


def read_earlier(mem: Any, conversation_id: str, first_id: int, count: int) -> dict:
    """Read in a worker: the `count` exchanges of a conversation before `first_id` (the first
    drawn), oldest first, with what each answer remembered; "earlier": how many are before
    those still, "drawn": how many of its most recent exchanges are drawn with them."""
    drawn = mem.conversation_length(conversation_id, first_id)
    pages = mem.pages(conversation_id=conversation_id, limit=count, offset=drawn, newest=True)
    total = mem.conversation_length(conversation_id)
    ids = [page.id for page in pages]
    return {
        "pages": pages,
        "memories": mem.memories_used(ids) if ids else {},
        "earlier": max(total - drawn - len(pages), 0),
        "drawn": drawn + len(pages),
    }


class ConversationWindowMixin:
    """Methods MainWindow gets for drawing its conversation from the vault."""

    def _conversation_ids(self) -> list[str]:
        """The conversations drawn on screen, the one the next message continues last."""
        return [*self.shown_conversations, self.session.mem.conversation_id]

    def show_outside_exchanges(self) -> None:
        """Another process (the MCP server, the CLI) wrote to the vault: the exchanges it added
        to the conversation on screen are drawn in, in time order (one read, in the pool). Not
        in a temporary chat; while an answer streams, the conversation is drawn again or the
        last question is being edited, once that has ended."""
        session = self.session
        if session is None or self.temporary or self._history_due:
            return
        if self._outside_busy():
            self._outside_due = True
            return
        self._outside_due = False
        session.run(load_conversation, session.mem, self._conversation_ids(),
                    self._drawn_limit(), drawn=self.view.page_ids(), on_result=self._outside_read,
                    on_error=lambda _error: None)  # closing or locked: the next write reads again

    def _outside_busy(self) -> bool:
        return bool(self.session.generating or self.reloading or self.composer.property("editing"))

    def _outside_retry(self, *_: object) -> None:
        if self._outside_due:
            self.show_outside_exchanges()

    def _outside_read(self, data: dict) -> None:
        from engine.remembered import saved_list

        session = self.session
        if session is None or self.temporary or data["ids"] != self._conversation_ids():
            return  # locked, or another conversation is on screen now (drawn from the vault)
        if self._outside_busy():  # began while it read: it reads again once that has ended
            self._outside_due = True
            return
        drawn = set(self.view.page_ids())  # the window's own exchanges are among them
        pages = data["pages"]
        # Older exchanges of a long conversation than the first drawn are not new: left out
        first = next((i for i, page in enumerate(pages) if page.id in drawn), 0)
        fresh = [page for page in pages[first:] if page.id not in drawn]
        if not fresh:
            return
        if any(page.id in drawn for page in pages[pages.index(fresh[0]):]):
            # One dated before an exchange on screen: the conversation is drawn again, in order.
            self.reload_conversation(keep_place=True)
            return
        for page in fresh:
            self.view.append_exchange(page, saved_list(page, data["memories"]),
                                      self.stored_note(page))
        self.learned_notices.check()  # what was learned from them since the window opened

    def reload_conversation(
        self, notice: str = "", keep_place: bool = False, read_at: Any = None
    ) -> None:
        """Draw the current conversation again from the vault (after something was forgotten),
        then `notice` under it. `keep_place`: someone reading higher up stays where they are;
        `read_at`: that place as view.reading_place() gave it before the view changed (or
        "end")."""
        if self.session is None or self.temporary or self.session.generating:
            if notice:
                self.view.add_notice(notice)
            return
        ids = self._conversation_ids()
        self._reloads = getattr(self, "_reloads", 0) + 1
        # Where it was read: an exchange higher up, or "end" (kept there while the window and
        # the lines settle: a new text size left the end half-way up); None: not kept.
        place = (read_at or self.view.reading_place() or "end") if keep_place else None
        self.session.run(
            load_conversation,
            self.session.mem,
            ids,
            self._drawn_limit(),
            around=self._show_page,  # a search result further back than those drawn
            on_result=lambda data: self._reloaded(data, notice, place),
            on_error=self._reload_failed,
        )

    def _drawn_limit(self) -> int:
        """How many exchanges of each conversation on screen are drawn: SHOWN_EXCHANGES, or
        more once "Show earlier" or a search result far back asked for them (for the
        conversations on screen then only)."""
        ids, limit = getattr(self, "_drawn", ((), SHOWN_EXCHANGES))
        return limit if ids == tuple(self._conversation_ids()) else SHOWN_EXCHANGES

    def show_earlier_note(self, earlier: int, limit: int) -> None:
        """Above a conversation drawn without its first `earlier` exchanges: that they are
        there, and a link that draws more (the view is empty when this is called)."""
        if self.session is None:  # locked or closed while it was read: nothing is drawn
            return
        self._drawn = (tuple(self._conversation_ids()), limit)
        notice = earlier_notice(earlier)
        if notice is not None:
            self.view.add_notice(*notice)

    def show_earlier(self) -> None:
        """Put SHOWN_EXCHANGES more of the conversation's earlier exchanges above those drawn
        (only they are read and drawn), the exchange that was first on screen kept in view.
        The link says "Showing…" meanwhile; a second click then does nothing."""
        session = self.session
        if session is None or self.temporary or session.generating:
            return
        ids = tuple(self._conversation_ids())
        first_id = next((m.page_id for m in self.view.messages[:1] if m.page_id is not None),
                        None)
        if first_id is None or getattr(self, "_earlier_asked", None) == (ids, first_id):
            return
        self._earlier_asked = (ids, first_id)
        self.view.earlier_link(working=True)
        if len(set(ids)) > 1:  # several conversations on screen: drawn again, in time order
            self._drawn = (ids, self._drawn_limit() + SHOWN_EXCHANGES)
            self._show_page = first_id
            self.reload_conversation()
            return
        session.run(read_earlier, session.mem, ids[-1], first_id, SHOWN_EXCHANGES,
                    on_result=lambda data: self._earlier_read(session, ids, first_id, data),
                    on_error=lambda error: self._earlier_failed(session, ids, first_id, error))

    def _earlier_current(self, session: Any, ids: tuple, first_id: int) -> bool:
        """Whether what was asked for still fits the view: the same memory open, the same
        conversation drawn from the same first exchange, no answer being written."""
        if getattr(self, "_earlier_asked", None) == (ids, first_id):
            self._earlier_asked = None
        messages = self.view.messages
        return (self.session is session and not session.generating and not self.temporary
                and tuple(self._conversation_ids()) == ids
                and bool(messages) and messages[0].page_id == first_id)

    def _earlier_read(self, session: Any, ids: tuple, first_id: int, data: dict) -> None:
        from engine.remembered import saved_list

        if not self._earlier_current(session, ids, first_id):
            return  # locked, another conversation, or drawn again meanwhile: nothing drawn
        pages = data["pages"]
        self.view.put_earlier(
            [(page, saved_list(page, data["memories"]), self.stored_note(page))
             for page in pages],
            earlier_notice(data["earlier"]),
        )
        self._drawn = (ids, data["drawn"])
        self.learned_notices.redraw()

    def _earlier_failed(self, session: Any, ids: tuple, first_id: int, error: Exception) -> None:
        if self._earlier_current(session, ids, first_id):
            self.view.earlier_link(working=False)  # another click tries again
            self._show_error(error)

    @property
    def reloading(self) -> bool:
        """Whether a reload_conversation is still reading (what it draws is read after now)."""
        return getattr(self, "_reloads", 0) > 0

    def _reloaded(self, data: dict, notice: str, place: Any = None) -> None:
        self._reloads -= 1
        self._show_conversation(data, notice)
        if place is not None:  # after the view's own scrolls to the end (queued as this is)
            where = None if place == "end" else place
            QTimer.singleShot(0, self.view, lambda: self.view.go_to_place(where))

    def _reload_failed(self, error: Exception) -> None:
        self._reloads -= 1
        self._show_error(error)

    def _show_conversation(self, data: dict, notice: str = "") -> None:
        from engine.remembered import saved_list

        self.view.clear()
        self._editing = None
        self._set_editing(False)
        self.show_earlier_note(data.get("earlier", 0), data.get("limit", SHOWN_EXCHANGES))
        for page in data["pages"]:
            self.view.add_exchange(page, saved_list(page, data["memories"]),
                                   self.stored_note(page))
        self.learned_notices.redraw()
        if notice:
            self.view.add_notice(notice)
        page_id, self._show_page = self._show_page, None
        if page_id is not None:
            self.view.show_exchange(page_id)
        edit, self._restore_edit = self._restore_edit, None
        if edit is not None:  # a stopped edit: the question typed waits to be sent again
            self._editing = edit[0]
            self._set_editing(True)
            self.composer.input.setPlainText(edit[1])
            self.focus_composer()
        self.conversation_shown.emit(data["ids"][-1])

    def stored_note(self, page: Any) -> str:
        """The note under a stored answer drawn again: an answer cut at the length limit says
        so, as it did when it ended (else it seems to stop mid-sentence for no reason)."""
        from app.session import length_note
        from engine.answer import CONTEXT_FULL

        cut = (getattr(page, "meta", None) or {}).get("cut_short")
        if not cut:
            return ""
        chat = self.session.mem.chat if self.session is not None else None
        return length_note(self.settings, chat, filled=cut == CONTEXT_FULL)

    def open_conversation(self, conversation_id: str, page_id: int | None = None) -> None:
        """Show a stored conversation, at the exchange `page_id` if given (a search result);
        what is said next continues it. From a temporary chat it leaves that chat first (as
        New conversation does: nothing of it was saved)."""
        if self.session is None or self.session.generating:
            return
        if self.temporary:
            self.set_temporary(False)
        self._history_due = False  # the start's conversation is not drawn over this one
        self._show_page = page_id
        # Where the keyboard is as it starts to load (the row or result opened, the message
        # box, none): the box gets it once loaded only if it is still there (see _continue).
        self._focus_at_open = self.focusWidget()
        self.session.run(
            self.session.mem.continue_conversation,
            conversation_id,
            on_result=self._continue,
            on_error=self._show_error,
        )

    def _continue(self, conversation_id: str) -> None:
        self.shown_conversations = [conversation_id]
        self.sidebar.set_current(conversation_id)
        self.reload_conversation()
        self.box_takes_keyboard(self._focus_at_open)

    def box_takes_keyboard(self, was: QWidget | None) -> None:
        """The message box gets the keyboard after work the person started (a conversation
        opened, an answer written) if it is still where it was then (`was`), in the box or
        nowhere: moved to another pane meanwhile (F6, Tab, a click, the search), it stays."""
        focus = self.focusWidget()
        if focus is None or focus is was or focus is self.composer or \
                self.composer.isAncestorOf(focus):
            self.composer.input.setFocus()
