"""Answering a question: one streamed generation from the retrieved memories, then the
exchange is stored (or replaces the one being regenerated)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from engine import errors, validation
from engine.backends.base import CancelToken
from engine.network import Transfer
from engine.prompt import (
    answer_limit,
    build_messages,
    compact_retrieval,
    fit_memory,
    is_small_model,
    shown_history,
    warm_next_prompt,
)
from engine.records import Page, Retrieval
from engine.remembered import MemoryUsed, memories_used
from engine.thinking import ThinkingSplitter

if TYPE_CHECKING:
    from engine.api import MemoryOS


def ask(
    memory: MemoryOS,
    query: str,
    cancel: CancelToken | None,
    max_tokens: int,
    temporary: bool,
    now: float | None,
) -> ResponseStream:
    """A stream answering `query` (see MemoryOS.get_response)."""
    _check_chat(memory)
    if memory.chat_is_remote() and memory.policy().remote_forbidden:
        raise errors.PolicyError(
            "models that are not on this computer are turned off by your administrator"
        )
    query = _question(query)
    retrieval = memory.retrieve(query, record_visits=not temporary, now=now)
    limit = answer_limit(memory.chat, max_tokens)
    return ResponseStream(
        memory, query, retrieval, cancel or CancelToken(), limit, temporary, now=now
    )


def ask_again(
    memory: MemoryOS, page_id: int, query: str | None, cancel: CancelToken | None, max_tokens: int
) -> ResponseStream:
    """A stream answering a stored exchange's question again (see MemoryOS.replace_response)."""
    _check_chat(memory)
    old = memory.page(page_id)
    query = _question(old.user_input if query is None else query)
    retrieval = memory.retrieve(query)
    retrieval = replace(  # the exchange being replaced is kept out of the prompt
        retrieval,
        short_term=tuple(p for p in retrieval.short_term if p.id != old.id),
        pages=tuple(p for p in retrieval.pages if p.page.id != old.id),
    )
    limit = answer_limit(memory.chat, max_tokens)
    stream = ResponseStream(
        memory, query, retrieval, cancel or CancelToken(), limit, temporary=False
    )
    stream.replaces = old
    return stream


def _check_chat(memory: MemoryOS) -> None:
    if memory.chat is None:
        raise errors.BackendError("no chat model is configured: choose one in the settings")


def _question(query: str) -> str:
    query = validation.text(query, "query")
    if not query.strip():
        raise errors.InvalidInputError("the question is empty")
    return query


class ResponseStream(Iterator[str]):
    """The chunks of one answer. Iterating drives the generation; the end stores the exchange."""

    def __init__(
        self,
        memory: MemoryOS,
        query: str,
        retrieval: Retrieval,
        cancel: CancelToken,
        max_tokens: int,
        temporary: bool,
        now: float | None = None,
    ) -> None:
        self.memory = memory
        self.query = query
        # The exchange is dated when it was asked, as the question shows on screen: dated when
        # the answer ended, it could move to the next minute when the conversation was redrawn.
        self.asked_at = now if now is not None else memory.ctx.clock()
        self._compact = compact = is_small_model(memory.chat)
        if compact:  # a small model is shown less: the prompt and the memories list alike
            retrieval = compact_retrieval(retrieval)
        self._shown = shown_history(memory)  # the conversation as the model saw it (cache)
        retrieval = fit_memory(retrieval, query, memory.chat, compact, self._shown)
        self.retrieval = retrieval
        self.messages = build_messages(
            retrieval, query, now=now, compact=compact, history=self._shown
        )
        # From the same Retrieval the prompt was built from: exactly what the prompt holds.
        self.memories: list[MemoryUsed] = memories_used(retrieval)
        self.temporary = temporary
        self.replaces: Page | None = None  # an exchange this answer replaces (regenerate, edit)
        self.raw = ""  # everything the model wrote, thinking included (what is yielded)
        self.text = ""  # the answer alone: stored, consolidated, scored
        self.thinking = ""  # a reasoning model's <think> part: shown folded, never stored
        self._splitter = ThinkingSplitter()
        self.page: Page | None = None
        self.cancelled = False
        self.error: BaseException | None = None
        self.transfer: Transfer | None = None  # what this answer sent where, once it ran
        self._cancel = cancel
        self._chunks = self._generate(max_tokens)

    def cancel(self) -> None:
        self._cancel.cancel()

    def __iter__(self) -> ResponseStream:
        return self

    def __next__(self) -> str:
        return next(self._chunks)

    def _generate(self, max_tokens: int) -> Iterator[str]:
        memory = self.memory
        memory.ctx.foreground.started()
        try:
            for chunk in memory.chat.stream(
                self.messages, max_tokens=max_tokens, cancel=self._cancel
            ):
                self.raw += chunk
                self._splitter.feed(chunk)
                self.text, self.thinking = self._splitter.answer, self._splitter.thinking
                yield chunk
        except errors.GenerationCancelled:
            self.cancelled = True
        except BaseException as exc:
            self.error = exc
            raise  # nothing is stored: an error text is never memory
        finally:
            memory.ctx.foreground.ended()
            self._splitter.finish()
            self.text, self.thinking = self._splitter.answer, self._splitter.thinking
            self.transfer = memory.transfers.record(memory.chat, "answer", self.messages, self.text)
        answer = self.text.strip()  # a reasoning model's <think> part is not memory
        if self.temporary or (not answer and (self.cancelled or self.thinking)):
            return
        if self.replaces is not None and self.cancelled:
            return  # a regeneration stopped half-way does not take the finished answer's place
        if not answer and not self.cancelled:
            # An exchange with an empty answer is no memory; it was stored and shown as one.
            self.error = errors.BackendError(
                "The model wrote nothing this time: send the message again, or choose another "
                "model if it keeps happening."
            )
            raise self.error
        meta = {"stopped": True} if self.cancelled else {}
        if not self.memories:  # saved as such: "Used no memories" reads back, not nothing
            meta["remembered_none"] = True
        conversation = self.replaces.conversation_id if self.replaces else None
        self.page = memory.add_memory(
            self.query,
            answer,
            self.asked_at,
            memories_used=self.memories,
            conversation_id=conversation,
            _program_meta=meta,
        )
        self._shown.remember(self.page.id, self.messages)
        warm_next_prompt(
            memory.chat, self.retrieval, memory.short_term, self._compact, self._shown
        )
        if self.replaces is not None:  # stored first: a crash here leaves two, never none
            memory.forget_page(self.replaces.id)

    def collect(self) -> str:
        """Run the whole generation and return the answer text."""
        for _ in self:
            pass
        return self.text
