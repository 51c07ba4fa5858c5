"""One open vault and its chat model: generation, model loading and reads run in workers."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.settings_store import AppSettings
from app.workers import Worker, WorkerPool

log = logging.getLogger("memoryos.app")

# Model states shown in the status bar. UNREACHABLE: the chosen server did not answer the
# last question (down, stuck, its connection broke); messages can still be sent, and the next
# answer that arrives makes it READY again.
NO_MODEL, LOADING, READY, FAILED = "none", "loading", "ready", "error"
UNREACHABLE = "unreachable"

# How often an open session looks whether another process (the MCP server, `memoryos import`
# or `chat`) wrote to the vault: one PRAGMA in the worker pool, never on the GUI thread.
OUTSIDE_CHECK_MS = 3000
# What a write from outside may have changed: the listeners of these events redraw.
OUTSIDE_EVENTS = ("pages", "segments", "facts")
# Requests of memories closed since the app started that the inspector's Sent tab still lists.
SENT_KEPT = 2000


@dataclass(frozen=True)
class Answer:
    """How a generation ended: the text, the stored page (None if temporary) and why it ended."""

    text: str
    page: Any
    stopped: bool
    memories: tuple = ()  # what the prompt remembered (engine MemoryUsed items, rank order)
    cut_short: bool = False  # it ended at the length limit, not where the model finished


def length_note(settings: AppSettings, chat: Any, filled: bool | None = None) -> str:
    """The note under an answer cut at the length limit: where to raise it, or why not.
    `filled`: whether it filled the model's context (None: read from the chat's last answer;
    a stored answer drawn again says what was stored with it)."""
    from app.demo_banner import answer_limit as app_limit
    from engine.answer import context_filled
    from engine.prompt import answer_limit

    if filled is None:
        filled = context_filled(chat)
    if filled:  # the context was full, whatever the setting says
        return ("Stopped at the length limit: your message and the answer filled all the "
                "model can read at once; a shorter message leaves more room for the answer")
    if answer_limit(chat, app_limit(settings)) < settings.max_tokens:  # a tiny model's cap
        return ("Stopped at the length limit: a model this small writes short answers; "
                "a larger one (Tools › Choose a model) writes longer ones")
    return "Stopped at the length limit · raise it in Settings › Model › Longest answer"


def message_fit(mem: Any, text: str, max_tokens: int) -> str:
    """Read in a worker: "" when the model can read `text` whole with its instructions, its
    memories and room for the answer; else what happens to it, said plainly. Tokens are
    counted as the engine counts them (the model's own tokenizer where it has one)."""
    from engine.prompt import SYSTEM, TEMPLATE_TOKENS, answer_limit

    chat = mem.chat
    window = int(getattr(chat, "context_window", 0) or 0)
    if chat is None or window <= 0:
        return ""
    tokens = max(1, chat.count_tokens(text))
    # As the backends make room: the answer takes up to half the context (engine/backends).
    answer = min(answer_limit(chat, max_tokens), window // 2)
    room = window - answer - chat.count_tokens(SYSTEM) - 2 * TEMPLATE_TOKENS - window // 8
    if tokens <= room:
        return ""
    words = len(text.split())
    readable = max(0, room) * words // tokens
    # What the backends do with a prompt too long (engine/backends/fit.py): they leave out the
    # conversation before it and the instructions, then the middle of the message (said short:
    # at the largest text a longer note did not fit under the box).
    note = (f"This message is about {_about(words)} words, more than the model can read at "
            f"once (about {_about(readable)}).")
    # The wait: the model reads a whole context, all but the answer's room, none of it cached
    # (the instructions are cut too). A walkthrough was told nothing and waited 56 s to 110 s.
    reading = getattr(chat, "reading_seconds", None)
    seconds = reading(window - answer) if reading is not None else 0.0
    if seconds >= 10:
        return f"{note} Reading its beginning and end takes about {_duration(seconds)}."
    return f"{note} Only its beginning and end will be read."


def _duration(seconds: float) -> str:
    """A wait as people say it: "40 s", "1 min", "3 min"."""
    if seconds < 55:
        return f"{max(5, round(seconds / 5) * 5)} s"
    return f"{max(1, round(seconds / 60))} min"


def _about(count: int) -> str:
    """A round number: 4,937 as 4,900, 87 as 90."""
    step = 100 if count >= 1000 else 10
    return f"{max(step, round(count / step) * step):,}"


def answer_chunks(mem: Any, question: str, cancel: Any, temporary: bool, max_tokens: int,
                  replaces: int | None = None) -> Iterator[str]:
    """Stream one answer; the engine stores the exchange (or the stopped part) at the end.
    With `replaces` (a page id) the new exchange takes that one's place (regenerate, edit)."""
    from engine.errors import DiskFullError, GenerationCancelled

    if replaces is not None:
        stream = mem.replace_response(replaces, question, cancel=cancel, max_tokens=max_tokens)
    else:
        stream = mem.get_response(question, cancel=cancel, max_tokens=max_tokens,
                                  temporary=temporary)
    try:
        yield from stream
    except GenerationCancelled:
        pass
    except DiskFullError as error:
        # The question's record stays in the vault (its drop failed too): the window lets it
        # go once the question sent again is stored (else the next start offers it back).
        error.kept_question = getattr(stream, "unanswered", None)
        raise
    return Answer(text=stream.text, page=stream.page, stopped=cancel.cancelled,
                  memories=tuple(getattr(stream, "memories", ())),
                  cut_short=bool(getattr(stream, "cut_short", False)))


class SentHistory(QObject):
    """What the memories opened in one window sent to models since the app started, for the
    inspector's Sent tab. Each open memory logs its own requests and its log ends when it
    closes (Lock, the idle lock, Switch memory): a walkthrough found the tab empty after an
    unlock though answers had been written. So a closing session hands its requests here; the
    window (the sessions' parent) keeps this for the app's lifetime. In memory only: never
    written to disk."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sentHistory")
        self._closed: deque[tuple[str, Any]] = deque(maxlen=SENT_KEPT)
        self._lock = threading.Lock()  # kept on the GUI thread, read in the inspector's worker

    @classmethod
    def of(cls, owner: QObject | None) -> SentHistory:
        """The window's history (made on first use); its own when a session has no window."""
        found = owner.findChild(cls, "sentHistory") if owner is not None else None
        return found if found is not None else cls(owner)

    def keep(self, memory: str, transfers: list) -> None:
        """The requests of a memory that closes."""
        with self._lock:
            self._closed.extend((memory, item) for item in transfers)

    def items(self, memory: str, current: list) -> list:
        """The closed memories' requests and `current` (the open memory's), oldest first; each
        one's "For" names its memory when the list holds more than one memory's requests."""
        with self._lock:
            rows = [*self._closed, *((memory, item) for item in current)]
        rows.sort(key=lambda row: row[1].when)
        if len({name for name, _ in rows}) <= 1:
            return [item for _, item in rows]
        return [replace(item, purpose=f"{item.purpose} ({name})") for name, item in rows]


class Session(QObject):
    """Owns the MemoryOS facade and the chat model behind one window."""

    model_state = Signal(str, str)  # NO_MODEL | LOADING | READY | FAILED | UNREACHABLE, text
    model_progress = Signal(float, str)
    memory_changed = Signal(str)  # engine events ("pages", "segments", "facts", "jobs", ...)
    outside_written = Signal()  # another process committed to the vault (before its events)
    status_changed = Signal(object)  # ConsolidationStatus

    def __init__(
        self,
        mem: Any,
        pool: WorkerPool,
        settings: AppSettings | None = None,
        chat: Any = None,
        parent: QObject | None = None,
        chat_factory: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(parent)
        from app.model_choice import load_chat

        # (settings, progress) -> a loaded ChatBackend; tests inject fakes here
        self.chat_factory = chat_factory or load_chat
        self.mem = mem
        self.pool = pool
        self.settings = settings or AppSettings()
        self.state = NO_MODEL
        self.state_text = ""
        self.status: Any = None
        self.generation: Worker | None = None
        self._loader: Worker | None = None
        self._closed = False
        self.sent_history = SentHistory.of(parent)
        self._status_timer = QTimer(self)
        self._status_timer.setSingleShot(True)
        self._status_timer.setInterval(150)  # events come in bursts: one status read per burst
        self._status_timer.timeout.connect(self.refresh_status)
        self.memory_changed.connect(self._on_memory_changed)
        mem.subscribe(self._on_engine_event)
        # Writes from other processes raise no engine event: look at the file now and then.
        self._outside_version: int | None = None
        self._outside_checking = False
        self._outside_timer = QTimer(self)
        self._outside_timer.setInterval(OUTSIDE_CHECK_MS)
        self._outside_timer.timeout.connect(self.check_outside)
        if hasattr(mem, "data_version"):
            self.check_outside()  # the baseline, queued before the window's first reads
            self._outside_timer.start()
        if chat is not None:
            if mem.chat is not chat:
                mem.set_chat(chat)
            self._set_state(READY, chat.model_id)
        elif mem.chat is not None:
            self._set_state(READY, mem.chat.model_id)

    # --- engine events (any thread) -> Qt signal (GUI thread) --------------------------
    def _on_engine_event(self, event: str) -> None:
        if self._closed:
            return
        try:
            self.memory_changed.emit(str(event))
        except RuntimeError:  # the Qt side is gone (quitting); nothing to tell
            pass

    def _on_memory_changed(self, event: str) -> None:
        self._status_timer.start()

    def refresh_status(self) -> None:
        if not self._closed:
            self.run(self.mem.consolidation_status, on_result=self._got_status)
            if self.state == READY and not self.generating:
                # Consolidation moved pages or changed the profile: the next prompt starts
                # differently, so let the model read the new start now rather than at the question.
                from engine.prompt import warm_conversation

                self.run(warm_conversation, self.mem)

    def _got_status(self, status: Any) -> None:
        if self._closed:  # locked meanwhile: no counts from the closed vault
            return
        self.status = status
        self.status_changed.emit(status)

    # --- writes from other processes ----------------------------------------------------
    def check_outside(self) -> None:
        """Ask (in the pool) whether another process committed to the vault since last time."""
        if self._closed or self._outside_checking:
            return
        self._outside_checking = True
        self.run(self.mem.data_version, on_result=self._got_outside_version,
                 on_error=self._outside_failed)

    def _got_outside_version(self, version: int) -> None:
        self._outside_checking = False
        previous, self._outside_version = self._outside_version, version
        if self._closed or previous is None or version == previous:
            return
        log.debug("the vault changed outside this process: refreshing")
        self.outside_written.emit()
        for event in OUTSIDE_EVENTS:  # as if this process had written: status, sidebar, panels
            self.memory_changed.emit(event)

    def _outside_failed(self, error: Exception) -> None:
        self._outside_checking = False  # busy or closing: look again next time
        log.debug("checking the vault for outside writes failed: %s", error)

    # --- generic work ------------------------------------------------------------------
    def run(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        **kwargs: Any,
    ) -> Worker:
        """Run a facade call in the pool (reads and writes alike: the GUI thread never waits)."""
        return self.pool.run(fn, *args, on_result=on_result, on_error=on_error, **kwargs)

    def warm_up(self) -> Worker:
        """Load the embedder in the background now, so the first answer does not wait for it."""
        return self.run(self.mem.embedder.load)

    @property
    def memory_name(self) -> str:
        """The open memory's name, as Switch memory lists it (its file's name)."""
        return Path(str(getattr(self.mem, "path", "") or "memory")).stem

    def sent_log(self) -> list:
        """What was sent to models since the app started, this memory's requests and those of
        memories closed before (the inspector's Sent tab; safe in a worker)."""
        return self.sent_history.items(self.memory_name, self.mem.sent_log())

    # --- the chat model ----------------------------------------------------------------
    @property
    def generating(self) -> bool:
        return self.generation is not None

    @property
    def can_answer(self) -> bool:
        answers = self.state in (READY, UNREACHABLE)
        return answers and not self.generating and not self._closed

    def _set_state(self, state: str, text: str) -> None:
        self.state, self.state_text = state, text
        self.model_state.emit(state, text)

    def load_model(self, settings: AppSettings | None = None) -> Worker | None:
        """Load the model the settings name, in the background; swap it in when ready."""
        from app.model_choice import model_label

        if settings is not None:
            self.settings = settings
        if self.generating or self._closed:
            return None
        if self._loader is not None:
            self._loader.cancel()
        self._set_state(LOADING, model_label(self.settings))
        worker = Worker(self.chat_factory, self.settings, progress=True)
        worker.signals.progress.connect(self.model_progress)
        worker.signals.returned.connect(partial(self._model_loaded, id(worker)))
        worker.signals.errored.connect(partial(self._model_failed, id(worker)))
        self._loader = worker
        return self.pool.start(worker)

    def _model_loaded(self, key: int, chat: Any) -> None:
        current = self._loader is not None and id(self._loader) == key
        if current:
            self._loader = None
        if self._closed or not current:  # quitting, or a newer choice replaced this one
            if not self._closed:
                self.run(chat.close)
            return
        previous = self.mem.chat
        self.mem.set_chat(chat)
        if previous is not None and previous is not chat:
            self.run(previous.close)
        self._set_state(READY, chat.model_id)
        from engine.prompt import warm_conversation

        self.run(warm_conversation, self.mem)  # the first answer finds its prompt's start cached

    def _model_failed(self, key: int, error: Exception) -> None:
        from app.errors import describe

        if self._loader is None or id(self._loader) != key:
            return
        self._loader = None
        self._set_state(FAILED, describe(error))

    # --- answers -------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        temporary: bool = False,
        on_chunk: Callable[[str], None] | None = None,
        on_done: Callable[[Answer], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        replaces: int | None = None,
    ) -> Worker | None:
        """Start one answer (one inference at a time); None if busy or no model is ready."""
        from engine.backends.base import CancelToken

        if not self.can_answer:
            return None
        token = CancelToken()
        from app.demo_banner import answer_limit

        worker = Worker(
            answer_chunks, self.mem, question, token, temporary, answer_limit(self.settings),
            replaces, stop_on_cancel=False,  # the stream stops itself and stores what was said so far
        )
        worker.on_cancel(token.cancel)
        # Connected first, so the model is free again before the window hears of the end.
        worker.signals.returned.connect(self._generation_finished)
        worker.signals.errored.connect(self._generation_finished)
        worker.signals.yielded.connect(self._answering)
        if on_chunk is not None:
            worker.signals.yielded.connect(on_chunk)
        if on_done is not None:
            worker.signals.returned.connect(on_done)
        if on_error is not None:
            worker.signals.errored.connect(on_error)
        self.generation = worker
        return self.pool.start(worker)

    def measure(self, text: str, on_result: Callable[[str], None]) -> Worker | None:
        """Whether the model can read `text` whole (message_fit), in the pool."""
        from app.demo_banner import answer_limit

        if self._closed or self.mem.chat is None:
            return None
        return self.run(message_fit, self.mem, text, answer_limit(self.settings),
                        on_result=on_result, on_error=lambda _error: None)

    def stop(self) -> None:
        if self.generation is not None:
            self.generation.cancel()

    def _answering(self, chunk: object) -> None:
        """The first words of an answer: a server shown as not answering answers again (the
        status line stayed red until the answer's end, while its words streamed in)."""
        if chunk and self.state == UNREACHABLE and not self._closed and self.mem.chat is not None:
            self._set_state(READY, self.mem.chat.model_id)

    def _generation_finished(self, result: object = None) -> None:
        """The model is free again; a server that stopped answering, or answers again, shows."""
        from engine.errors import ServerNotAnsweringError

        self.generation = None
        if self._closed or self.state not in (READY, UNREACHABLE):
            return  # a newer model is loading, or failed: its state stands
        if isinstance(result, ServerNotAnsweringError):
            from app.errors import describe

            self._set_state(UNREACHABLE, describe(result))
        elif isinstance(result, Answer) and result.text and self.state == UNREACHABLE:
            self._set_state(READY, self.mem.chat.model_id)

    # --- shutdown ------------------------------------------------------------------------
    def close(self, timeout: float = 15.0) -> None:
        """Cancel what runs, wait for it, close the vault (stops consolidation) and the model."""
        if self._closed:
            return
        self._closed = True
        self._status_timer.stop()
        self._outside_timer.stop()
        unsubscribe = getattr(self.mem, "unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe(self._on_engine_event)
        self.pool.cancel_all()
        abort = getattr(self.mem.embedder, "abort_start", None)
        if abort is not None:
            abort()  # a helper still loading its model is not worth waiting for
        if not self.pool.wait(int(timeout * 1000)):
            log.warning("workers did not stop within %.0f s", timeout)
        self.status = None
        self.status_changed.emit(None)  # locked or closed: no counts left on screen
        try:  # the Sent tab goes on listing them after an unlock or a switch
            self.sent_history.keep(self.memory_name, self.mem.sent_log())
        except Exception:  # a log that cannot be read must not keep the vault open
            log.exception("keeping the sent log failed")
        chat, embedder = self.mem.chat, self.mem.embedder
        try:
            self.mem.close()
        finally:
            for backend in (chat, embedder):
                try:
                    close = getattr(backend, "close", None)
                    if close is not None:
                        close()
                except Exception:  # closing must never stop the app from quitting
                    log.exception("closing a model failed")
