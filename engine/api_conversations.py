"""Storing exchanges, answering questions and reading the memory back: MemoryOS's part."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from engine import answer, errors, unanswered, validation
from engine.answer import ResponseStream
from engine.backends.base import CancelToken
from engine.memory import mid_term, short_term
from engine.records import (
    ConversationInfo,
    Fact,
    Page,
    ProfileSlot,
    Retrieval,
    Segment,
    new_conversation_id,
)
from engine.remembered import MemoryUsed
from engine.retrieval import retrieve as _retrieve
from engine.unanswered import Unanswered


class ConversationsMixin:
    """Methods expect to run inside MemoryOS (engine/api.py: self.ctx, self.vault, self._notify)."""

    # ---- writing -------------------------------------------------------------------------

    def new_conversation(self) -> str:
        self._conversation_id = new_conversation_id()
        return self._conversation_id

    def continue_conversation(self, conversation_id: str, *, check: bool = True) -> str:
        """New exchanges join this stored conversation (opened from the conversations list).
        check=False: the caller has just read its pages, so the vault is not read again (a
        window sets it on its own thread, in order with New chat and Send)."""
        if check and not self.vault.page_ids_of_conversation(conversation_id):
            raise errors.NotFoundError(f"no conversation {conversation_id!r}")
        self._conversation_id = conversation_id
        return conversation_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    def add_memory(
        self,
        user_input: str,
        agent_response: str,
        timestamp: Any = None,
        meta: dict | None = None,
        *,
        conversation_id: str | None = None,
        source: str | None = None,
        memories_used: list[MemoryUsed] | None = None,
        _program_meta: dict | None = None,
        _unanswered: str | None = None,
        _also: Callable[[], None] | None = None,
    ) -> Page:
        """Store one exchange as a page. No LLM call: one embedding and one transaction.

        `meta` is the caller's: it may not set reserved keys (validation.RESERVED_META);
        `source` names where the page came from ("mcp", "import", ...) and is stored as
        meta["source"]; `memories_used`: what the answer's prompt held (saved with the page);
        `_also` runs in the page's transaction, the embedding done: raising rolls it back."""
        conversation = validation.text(conversation_id, "conversation_id") or self._conversation_id
        draft = validation.exchange(
            user_input, agent_response, timestamp, meta, conversation_id=conversation,
            source=source, program_meta=_program_meta, now=time.time(),
        )  # fmt: skip

        def also() -> None:
            # The question's record (engine/unanswered.py) goes in the page's own transaction.
            if _unanswered is not None:
                unanswered.drop(self.vault, _unanswered)
            if _also is not None:
                _also()

        page = short_term.write(self.ctx, draft, memories_used, also=also)
        self.consolidator.wake()  # PAGE_ADDED is queued: the persona learns from it
        self._notify("pages")
        return page

    def add_memories(
        self,
        exchanges: Iterable[Any],
        *,
        conversation_id: str | None = None,
        source: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[int]:
        """Many exchanges at once, in order, each stored as add_memory stores one but embedded
        and written a batch at a time; returns their page ids. Every exchange is checked first:
        nothing is stored if one is invalid. `progress(done, total)` after each batch."""
        conversation = validation.text(conversation_id, "conversation_id") or self._conversation_id
        drafts = validation.exchanges(
            exchanges, conversation_id=conversation, source=source, now=time.time()
        )
        pages = short_term.write_many(self.ctx, drafts, progress=progress)
        if pages:
            self.consolidator.wake()  # PAGE_ADDED is queued for each
            self._notify("pages")
        return [page.id for page in pages]

    # ---- reading -------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        *,
        max_pages: int | None = None,
        record_visits: bool = True,
        now: float | None = None,
        query_vector=None,
    ) -> Retrieval:
        """Pages, segments, profile, facts and knowledge relevant to `query`. Writes nothing."""
        query = validation.text(query, "query")
        result, visited = _retrieve(
            self.ctx, query, max_pages=max_pages, now=now, query_vector=query_vector
        )
        self.ctx.keyword_index.start_building()  # a large vault's, after its first question
        if record_visits and visited:
            self.ctx.visits.add(visited)  # heat: written in a batch by the worker
            self.consolidator.wake()
        return result

    def flush_visits(self) -> None:
        """Write the visit counts gathered by retrievals (batched: one small transaction)."""
        self.ctx.flush_visits()

    def get_response(
        self,
        query: str,
        *,
        cancel: CancelToken | None = None,
        max_tokens: int = 512,
        temporary: bool = False,
        now: float | None = None,
    ) -> ResponseStream:
        """Answer `query` with exactly one streamed generation, then store the exchange.

        `now` (epoch seconds, default the clock) is the moment the question is asked: it sets
        what "last week" means for retrieval and the date the model is told. Unless
        `temporary`, the question is kept in the vault until its exchange is stored: a program
        killed meanwhile loses nothing (see unanswered())."""
        return self._kept(answer.ask(self, query, cancel, max_tokens, temporary, now))

    def _kept(self, stream: ResponseStream) -> ResponseStream:
        if stream.unanswered is not None:  # released when the vault closes (close())
            self._asked.add(stream.unanswered)
        return stream

    def unanswered(self) -> Unanswered | None:
        """The last question asked in a program that stopped (killed, crashed, the computer
        turned off), or in a MemoryOS closed meanwhile (a window's Lock now), before its answer
        was stored: its text, conversation and when it was asked; None if there is none. Meant
        to be offered back to the person, never sent by itself. A question a running program is
        answering is not one. Reading it leaves it there: take_unanswered() is the read of a
        program that puts it back before the person."""
        return unanswered.last(self.vault)

    def take_unanswered(self) -> Unanswered | None:
        """unanswered(), handed over: from now on it is the person's, in their message box
        like anything they typed, and not offered again in this program (deleted from the
        box, it would otherwise come back at every open). It stays in the vault until a
        question is sent there or dismiss_unanswered() is called: a program that stops first
        (`memoryos chat` then /quit) offers it again at its next start."""
        return unanswered.offer(self.vault)

    def withdraw_unanswered(self, record_id: str) -> None:
        """The offered question `record_id` left the person's box unsent (its vault closed
        with it there): offered again at the next open, in this program too. No I/O."""
        unanswered.withdraw(record_id)

    def dismiss_unanswered(self, record_id: str) -> None:
        """The person does not want the offered question `record_id` (Unanswered.id) back."""
        unanswered.drop(self.vault, record_id)

    def replace_response(
        self,
        page_id: int,
        query: str | None = None,
        *,
        cancel: CancelToken | None = None,
        max_tokens: int = 512,
    ) -> ResponseStream:
        """Answer a stored exchange's question again (or `query`, an edited question): the old
        exchange is kept out of the prompt and forgotten once the new one is stored, so exactly
        one exchange remains. Nothing is replaced when the new answer fails, is empty or is
        stopped (the old answer was whole; the new one would be a part). An edited `query` is
        kept in the vault until then, as get_response keeps a question (unanswered(): its
        `replaces` is `page_id`)."""
        return self._kept(answer.ask_again(self, page_id, query, cancel, max_tokens))

    def wait_for_foreground(self, timeout: float = 120.0) -> bool:
        """Background work yields to a running answer (one inference at a time per model).
        Woken the moment the last answer ends; False if one was still running at `timeout`."""
        return self.ctx.foreground.wait(timeout)

    def short_term(self) -> list[Page]:
        return short_term.pages(self.ctx)

    def segments(self, include_archived: bool = False) -> list[Segment]:
        return mid_term.segments(self.ctx, include_archived)

    def segment_pages(self, segment_id: int) -> list[Page]:
        return self.vault.pages_of_segment(segment_id)

    def page(self, page_id: int) -> Page:
        found = self.vault.pages([int(page_id)])
        if not found:
            raise errors.NotFoundError(f"no page with id {page_id}")
        return found[0]

    def stored_pages(self, page_ids: list[int]) -> set[int]:
        """Which of `page_ids` are still stored (one read, however many)."""
        return {page.id for page in self.vault.pages([int(i) for i in page_ids])}

    def pages(
        self,
        conversation_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        newest: bool = False,
    ) -> list[Page]:
        """Stored exchanges, oldest first: the first `limit`, or with `newest` the most recent
        `limit` (what a conversation shown on screen ends with)."""
        return self.vault.list_pages(conversation_id, limit, offset, newest)

    def conversation_length(self, conversation_id: str, from_page: int | None = None) -> int:
        """How many exchanges the conversation holds; with `from_page`, how many are that
        exchange or later (0 if it is not in the conversation)."""
        return self.vault.count_conversation_pages(conversation_id, from_page)

    def memories_used(self, page_ids: list[int]) -> dict[int, list[MemoryUsed]]:
        """What each stored answer remembered, as it reads now (deleted items: forgotten)."""
        from engine.remembered import read_back

        return read_back(self.ctx, [int(i) for i in page_ids])

    def conversations(self) -> list[ConversationInfo]:
        return self.vault.conversations()

    def facts(
        self, kind: str | None = None, include_superseded: bool = False, search: str | None = None
    ) -> list[Fact]:
        items = self.vault.facts(kind, include_superseded)
        if search:
            needle = search.lower()
            items = [f for f in items if needle in f.text.lower()]
        return items

    def fact(self, fact_id: int) -> Fact:
        return self.vault.fact(int(fact_id))

    def profile(self, include_superseded: bool = False) -> list[ProfileSlot]:
        return self.vault.slots(include_superseded)
