"""Answering a question: one streamed generation from the retrieved memories, then the
exchange is stored (or replaces the one being regenerated)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from engine import errors, replaced, unanswered, validation
from engine.backends.base import LENGTH, CancelToken
from engine.network import Transfer
from engine.prompt import (
    ANSWER_MARK,
    MEMORY_HEADER,
    answer_limit,
    build_messages,
    is_small_model,
    memory_sections,
    recent_exchanges,
    shown_history,
    warm_next_prompt,
)
from engine.prompt_memories import compact_retrieval, fit_memory
from engine.records import Page, Retrieval
from engine.remembered import MemoryUsed, memories_used
from engine.thinking import CLOSE, OPEN, THINKING, ThinkingSplitter

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
    # Kept before anything slow (the lookup, the answer): the exchange is written only when
    # the answer ends, and a program killed before that lost the question (a temporary chat
    # writes nothing to disk, this neither).
    asked_at = now if now is not None else memory.ctx.clock()
    record = None if temporary else unanswered.keep(
        memory.vault, query, memory.conversation_id, asked_at
    )
    try:
        retrieval = own_turns(
            memory,
            memory.retrieve(looked_up_by(query), record_visits=not temporary, now=now),
            memory.conversation_id,
        )
        limit = answer_limit(memory.chat, max_tokens)
        stream = ResponseStream(
            memory, query, retrieval, cancel or CancelToken(), limit, temporary, now=now
        )
    except Exception:  # interrupted (Ctrl+C), the program ends: the question stays kept
        _let_go(memory, record)  # the caller shows the error, the question beside it
        raise
    stream.unanswered = record
    return stream


def ask_again(
    memory: MemoryOS, page_id: int, query: str | None, cancel: CancelToken | None, max_tokens: int
) -> ResponseStream:
    """A stream answering a stored exchange's question again (see MemoryOS.replace_response).

    An edited question is kept as ask() keeps one, with the exchange it replaces: that
    exchange stays until the new one is stored, and a program killed meanwhile lost the new
    wording. The same question answered again (regenerate) is not: the exchange that stays
    holds it, and offered back it would be sent as a second copy."""
    _check_chat(memory)
    old = memory.page(page_id)
    query = _question(old.user_input if query is None else query)
    record = None
    if query != old.user_input:
        record = unanswered.keep(
            memory.vault, query, old.conversation_id, memory.ctx.clock(), replaces=old.id
        )
    try:
        retrieval = replaced.without_exchange(
            memory, own_turns(memory, memory.retrieve(looked_up_by(query)), old.conversation_id),
            old.id,
        )
        limit = answer_limit(memory.chat, max_tokens)
        stream = ResponseStream(
            memory, query, retrieval, cancel or CancelToken(), limit, temporary=False
        )
    except Exception:
        _let_go(memory, record)  # the caller shows the error, the edited question beside it
        raise
    stream.replaces = old
    stream.unanswered = record
    return stream


# Why a stored answer was cut short (its page's meta["cut_short"]): the question and the
# answer filled all the model can read at once, or the answer reached its length limit.
CONTEXT_FULL, ANSWER_LIMIT = "context", "limit"


def context_filled(chat) -> bool:
    """Whether the last generation of `chat` filled its context window (read right after it)."""
    window = int(getattr(chat, "context_window", 0) or 0)
    usage = getattr(chat, "usage", None)
    used = usage.last_prompt_tokens + usage.last_completion_tokens if usage is not None else 0
    return bool(window) and used >= window - 16


# Memories for a message longer than this are looked up by its start and end alone, the parts a
# model reads of a message too long for it (engine/backends/fit.py). A walkthrough's 356 KB
# paste was looked up word by word (a vocabulary scan and embeddings for each of its thousands
# of words: 2 to 9 s on a 2-core laptop) for memories that matched words nobody read.
LOOKUP_MAX_CHARS = 4000


def looked_up_by(query: str) -> str:
    """What memories are looked up by for `query` (a question, a /forget search): all of it,
    or its start and end, each cut at a space (half a word matches nothing)."""
    if len(query) <= LOOKUP_MAX_CHARS:
        return query
    half = LOOKUP_MAX_CHARS // 2
    head, tail = query[:half], query[-half:]
    if not query[half].isspace() and len(head.split(None, 1)) > 1:
        head = head.rsplit(None, 1)[0]
    if not query[-half - 1].isspace() and len(tail.split(None, 1)) > 1:
        tail = tail.split(None, 1)[1]
    return f"{head}\n{tail}"


def _let_go(memory: MemoryOS, record: str | None) -> None:
    """The question `record` needs keeping no more: its answer failed or was stopped with
    nothing stored, and the person saw it happen. A vault that cannot be written now keeps
    it (offered back at the next start): the error that ended the answer is the one to show."""
    if record is not None:
        try:
            unanswered.drop(memory.vault, record)
        except Exception:
            pass


def own_turns(memory: MemoryOS, retrieval: Retrieval, conversation_id: str) -> Retrieval:
    """`retrieval` whose recent exchanges, the prompt's conversation turns, are the last ones
    of the conversation asked in (prompt.recent_exchanges), not the short-term queue's. The
    queue's exchanges of other conversations are memories like any other: shown when retrieval
    ranked them, as older exchanges."""
    recent = tuple(recent_exchanges(memory, conversation_id))
    changed = memory.vault.pages_since_changed([p.id for p in recent])
    return dataclasses.replace(retrieval, short_term=recent, changed=retrieval.changed | changed)


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
        self.conversation = memory.conversation_id
        self.messages = build_messages(
            retrieval, query, now=now, compact=compact, history=self._shown,
            conversation=self.conversation,
        )
        # From the same Retrieval the prompt was built from: exactly what the prompt holds.
        self.memories: list[MemoryUsed] = memories_used(retrieval)
        self.temporary = temporary
        self.replaces: Page | None = None  # an exchange this answer replaces (regenerate, edit)
        self.raw = ""  # what is yielded: the model's text, thinking included, less any echo
        self.text = ""  # the answer alone: stored, consolidated, scored
        self.thinking = ""  # a reasoning model's <think> part: shown folded, never stored
        self._splitter = ThinkingSplitter()  # of what is yielded
        self._source = ThinkingSplitter()  # of what the model writes
        self._inside = False  # the yielded text is inside a <think> part
        self._echo = EchoFilter(self.messages, query)
        self.page: Page | None = None
        self.cancelled = False
        # True when the answer ended because it reached the length limit (max_tokens), not
        # because the model finished: it stops mid-sentence, and the caller says so.
        self.cut_short = False
        self.error: BaseException | None = None
        self.transfer: Transfer | None = None  # what this answer sent where, once it ran
        # The question's record in the vault until the exchange is stored (engine/unanswered)
        self.unanswered: str | None = None
        # Ctrl+C (KeyboardInterrupt) while the answer streams is a Stop, what was said kept: set
        # by `memoryos chat`; elsewhere it ends the program, the question kept for its next start.
        self.stop_on_interrupt = False
        self._cancel = cancel
        self._chunks = self._generate(max_tokens)

    def cancel(self) -> None:
        self._cancel.cancel()

    def __iter__(self) -> ResponseStream:
        return self

    def __next__(self) -> str:
        return next(self._chunks)

    def _show(self, parts: list[tuple[str, str]], final: bool = False) -> str:
        """The model's text as it is shown and stored: the thinking as written, the answer
        through the echo filter (held back at its start until it is clear what it is)."""
        out = ""
        for kind, text in parts:
            if kind == THINKING:
                out += text if self._inside else OPEN + text
                self._inside = True
                continue
            if self._inside:
                out += CLOSE
                self._inside = False
            out += self._echo.feed(text)
        if final:
            out += self._echo.finish()
        self.raw += out
        self._splitter.feed(out)
        self.text, self.thinking = self._splitter.answer, self._splitter.thinking
        return out

    def _generate(self, max_tokens: int) -> Iterator[str]:
        memory = self.memory
        memory.ctx.foreground.started()
        rest = ""
        try:
            for chunk in memory.chat.stream(
                self.messages, max_tokens=max_tokens, cancel=self._cancel
            ):
                shown = self._show(self._source.feed(chunk))
                if shown:
                    yield shown
            self.cut_short = getattr(memory.chat, "last_finish_reason", None) == LENGTH
        except errors.GenerationCancelled:
            self.cancelled = True
        except GeneratorExit:
            raise  # dropped half-way (its program ending): the question stays unanswered
        except KeyboardInterrupt:
            if not self.stop_on_interrupt:
                raise  # the program ends: the question stays unanswered
            self._cancel.cancel()  # Ctrl+C in `memoryos chat`: the person's Stop
            self.cancelled = True
        except BaseException as exc:
            self.error = exc
            if isinstance(exc, Exception):
                _let_go(memory, self.unanswered)
            raise  # nothing is stored: an error text is never memory
        finally:
            memory.ctx.foreground.ended()
            rest = self._show(self._source.finish(), final=True)
            self._splitter.finish()
            self.text, self.thinking = self._splitter.answer, self._splitter.thinking
            self.transfer = memory.transfers.record(memory.chat, "answer", self.messages, self.text)
        if rest:
            yield rest  # what was held back to the end: a short answer, or one stopped early
        answer = self.text.strip()  # a reasoning model's <think> part is not memory
        # Stopped because the program quits (the window closed, Ctrl+Q): no choice to drop the
        # question, which is kept for the next start where nothing of it is stored.
        kept = self.cancelled and memory.quitting
        if self.temporary or (not answer and (self.cancelled or self.thinking)):
            if not kept:
                _let_go(memory, self.unanswered)
            return
        if self.replaces is not None and self.cancelled:
            if not kept:  # the person's Stop: the window puts an edited question back
                _let_go(memory, self.unanswered)
            return  # a regeneration stopped half-way does not take the finished answer's place
        if not answer and not self.cancelled:
            # An exchange with an empty answer is no memory; it was stored and shown as one.
            self.error = errors.BackendError(
                "The model wrote nothing this time: send the message again, or choose another "
                "model if it keeps happening."
            )
            _let_go(memory, self.unanswered)
            raise self.error
        meta = {"stopped": True} if self.cancelled else {}
        if self.cut_short:  # kept with the exchange: drawn again, it still says why it ends
            meta["cut_short"] = CONTEXT_FULL if context_filled(memory.chat) else ANSWER_LIMIT
        if not self.memories:  # saved as such: "Used no memories" reads back, not nothing
            meta["remembered_none"] = True
        conversation = self.replaces.conversation_id if self.replaces else None
        try:
            self.page = memory.add_memory(
                self.query,
                answer,
                self.asked_at,
                memories_used=self.memories,
                conversation_id=conversation,
                _program_meta=meta,
                _unanswered=self.unanswered,  # dropped in the page's transaction
            )
        except Exception as exc:
            self.error = exc
            _let_go(memory, self.unanswered)
            raise
        self._shown.remember(self.page.id, self.messages)
        conversation = memory.conversation_id
        warm_next_prompt(
            memory.chat, self.retrieval, lambda: recent_exchanges(memory, conversation),
            self._compact, self._shown, conversation,
        )
        if self.replaces is not None:  # stored first: a crash here leaves two, never none
            memory.forget_page(self.replaces.id)

    def collect(self) -> str:
        """Run the whole generation and return the answer text."""
        for _ in self:
            pass
        return self.text


# How the prompt's own parts begin (engine/prompt.py): a small model sometimes starts its answer
# by copying them ("Memories that may help:", "User facts:", "My message: ..."). The system
# message's two titles are written as build_messages writes them.
_EMPTY = Retrieval(
    query="", short_term=(), pages=(), segments=(), profile=(), facts=(), knowledge=()
)
HEADERS = tuple(
    dict.fromkeys(
        [MEMORY_HEADER, ANSWER_MARK.strip()]
        + [title for small in (False, True) for title, _ in memory_sections(_EMPTY, [], small)]
        + ["What you know about the user:", "About the user:"]
    )
)


class EchoFilter:
    """Takes out the prompt a model copies at the very start of its answer: the prompt's
    headers, the memory lines under them, "My message: <the question>". Fed the answer as it
    streams; its first characters are held back only while they could still be such an echo
    (the start of a header or of a prompt line), so an echo never reaches the screen. An answer
    that merely mentions a memory is passed on as written."""

    def __init__(self, messages: list[dict[str, str]], query: str) -> None:
        self.headers = tuple(h.lower() for h in HEADERS)
        self.mark = ANSWER_MARK.strip().lower()
        self.query = query.strip().lower()
        self.lines: set[str] = set()  # the prompt's own lines: instructions and memories
        for message in messages:
            if message["role"] == "system":
                self.lines.update(message["content"].splitlines())
        last = messages[-1]["content"] if messages and messages[-1]["role"] == "user" else ""
        if ANSWER_MARK in last:  # the memory block and the mark; the question alone is not one
            block, mark, question = last.rpartition(ANSWER_MARK)
            self.lines.update(block.splitlines())
            self.lines.add(mark + question.split("\n", 1)[0])
        self.lines = {line.strip() for line in self.lines if line.strip()}
        self.decided = False
        self._held = ""

    def feed(self, text: str) -> str:
        """What of the answer so far can be shown now."""
        if self.decided:
            return text
        self._held += text
        return self._release(final=False)

    def finish(self) -> str:
        """The end of the answer: whatever is still held back, without its echo."""
        return "" if self.decided else self._release(final=True)

    def _release(self, final: bool) -> str:
        answer = self._strip(self._held, final)
        if answer is None:
            return ""  # not clear yet
        self.decided, self._held = True, ""
        return answer

    def _strip(self, text: str, final: bool) -> str | None:
        """`text` without the echo at its start; None while it cannot be told yet."""
        rest, removed, header, after_mark = text, False, False, False
        while True:
            start = rest.lstrip()
            if not start:
                if not final:
                    return None
                break
            line, newline, after = start.partition("\n")
            complete = bool(newline) or final
            low = line.lower()
            if after_mark and self.query:  # "My message: <the question>": the question too
                after_mark = False
                if low.startswith(self.query):
                    rest, removed = start[len(self.query) :], True
                    continue
                if not complete and self.query.startswith(low.rstrip()):
                    return None
            if complete and line.strip() in self.lines:
                header = header or low.startswith(self.headers)
                rest, removed = after, True
                continue
            if not complete and any(p.startswith(line) for p in self.lines):
                return None
            found = next((h for h in self.headers if low.startswith(h)), None)
            if found is not None:
                header, after_mark, removed = True, found == self.mark, True
                rest = start[len(found) :]
                continue
            if not complete and any(h.startswith(low) for h in self.headers):
                return None
            break
        if not removed:
            return text  # no echo
        if rest.strip() or header:
            return rest.lstrip()
        return text  # only lines the prompt also holds, as an answer: a list of what it knows
