"""The two backend interfaces the engine talks to: a chat model and an embedder."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}
# Why a generation ended, as llama.cpp and OpenAI-compatible servers say it: "stop" (the model
# finished) or LENGTH (it reached max_tokens or the context and was cut off mid-answer).
LENGTH = "length"
Progress = Callable[[float, str], None]  # fraction done in [0, 1], a short label


class CancelToken:
    """Set by the caller; backends check it between chunks and stop."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class Usage:
    """Counters a backend keeps: calls and tokens, split by foreground/structured use."""

    generate_calls: int = 0  # streamed generations (foreground answers)
    structured_calls: int = 0  # schema-constrained calls (consolidation)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_prompt_tokens: int = 0
    last_completion_tokens: int = 0

    @property
    def calls(self) -> int:
        return self.generate_calls + self.structured_calls


@dataclass
class ChatBackend(ABC):
    """A chat model. Subclasses implement `_stream` and `_complete_json`.

    `stream` and `complete_json` are the public entry points; they count calls and tokens and
    serialise inference (one at a time per loaded model: a llama.cpp context is not
    thread-safe).
    """

    model_id: str = "unknown"
    context_window: int = 2048
    # True when the model is big enough that its structured extraction (facts, summaries)
    # may be stored. The bundled 135M model is not.
    extraction_capable: bool = False
    usage: Usage = field(default_factory=Usage)
    # Why the last streamed generation ended ("stop", LENGTH), where the backend reports it;
    # None while one runs and for backends that do not say.
    last_finish_reason: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def remote(self) -> bool:
        """True when requests leave this computer (a server that is not loopback)."""
        return False

    @property
    def destination(self) -> str:
        """Where requests go, as shown to the person."""
        return "this computer"

    def load(self, progress: Progress | None = None) -> None:  # noqa: B027 - optional hook
        """Load weights / check the server. Idempotent. Called lazily by the first use."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Free the model."""

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`; the default is an estimate (4 characters a token)."""
        return max(1, len(text) // 4)

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.7,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        """Yield the answer's text chunks. Raises GenerationCancelled if cancelled."""
        from engine.errors import GenerationCancelled

        with self._lock:
            self.load()
            self.usage.generate_calls += 1
            self.last_finish_reason = None
            if cancel is not None and cancel.cancelled:
                raise GenerationCancelled("generation stopped")
            for chunk in self._stream(messages, max_tokens=max_tokens, temperature=temperature):
                if cancel is not None and cancel.cancelled:
                    raise GenerationCancelled("generation stopped")
                yield chunk
            # A stop asked for while the last chunk was being read still counts as a stop: the
            # caller must not store a reply the person cancelled, whatever the model did next.
            if cancel is not None and cancel.cancelled:
                raise GenerationCancelled("generation stopped")

    def complete_json(self, messages: list[Message], schema: dict, *, max_tokens: int = 512) -> str:
        """One schema-constrained generation; returns the raw text (validated by the caller)."""
        with self._lock:
            self.load()
            self.usage.structured_calls += 1
            return self._complete_json(messages, schema, max_tokens=max_tokens)

    @abstractmethod
    def _stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float
    ) -> Iterator[str]:
        """Yield text chunks. Must record usage.last_prompt_tokens / last_completion_tokens,
        and should set last_finish_reason where the model says why it ended."""

    @abstractmethod
    def _complete_json(self, messages: list[Message], schema: dict, *, max_tokens: int) -> str:
        """Return text constrained to `schema` as far as the backend can."""


class Embedder(ABC):
    """A sentence embedder: batches of text in, L2-normalised float32 rows out."""

    model_id: str = "unknown"
    dimension: int = 0

    def load(self, progress: Progress | None = None) -> None:  # noqa: B027 - optional hook
        """Load weights. Idempotent."""

    @abstractmethod
    def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        """Return an array of shape (len(texts), dimension), float32, rows of unit length.

        `kind` is "document" for stored text and "query" for search queries (models that
        define different prompts for the two use them).
        """

    def embed_one(self, text: str, *, kind: str = "document") -> np.ndarray:
        return self.embed([text], kind=kind)[0]
