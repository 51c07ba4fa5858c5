"""Fast deterministic backends for tests and for running without models."""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from engine.backends.base import ChatBackend, Embedder, Message

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder(Embedder):
    """Bag-of-words hashed into a fixed dimension: similar wording gives similar vectors.

    Not a semantic model, but deterministic, instant and good enough for tests of storage,
    segmenting and retrieval plumbing.
    """

    def __init__(self, dimension: int = 64, model_id: str = "fake/hash-embedder") -> None:
        self.dimension = dimension
        self.model_id = f"{model_id}-{dimension}"
        self.calls = 0

    def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, index] += sign
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out


@dataclass
class FakeChat(ChatBackend):
    """A chat model that replays queued replies (or echoes), chunked word by word.

    `replies` are consumed by streamed generations; `json_replies` by structured calls
    (a dict is serialised, a string is returned as is, so tests can feed malformed output).
    """

    model_id: str = "fake/chat"
    context_window: int = 4096
    extraction_capable: bool = True
    replies: deque = field(default_factory=deque)
    json_replies: deque = field(default_factory=deque)
    default_reply: str = "I remember."
    seen_messages: list = field(default_factory=list)
    chunk_delay: float = 0.0  # seconds between chunks (GUI tests of Stop)

    def queue(self, *replies: str) -> None:
        self.replies.extend(replies)

    def queue_json(self, *replies: object) -> None:
        self.json_replies.extend(replies)

    def _stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float
    ) -> Iterator[str]:
        import time

        self.seen_messages.append(messages)
        reply = self.replies.popleft() if self.replies else self.default_reply
        self.usage.last_prompt_tokens = sum(self.count_tokens(m["content"]) for m in messages)
        self.usage.prompt_tokens += self.usage.last_prompt_tokens
        words = _chunks(reply)
        self.usage.last_completion_tokens = len(words)
        self.usage.completion_tokens += len(words)
        for word in words:
            if self.chunk_delay:
                time.sleep(self.chunk_delay)
            yield word

    def _complete_json(self, messages: list[Message], schema: dict, *, max_tokens: int) -> str:
        self.seen_messages.append(messages)
        if not self.json_replies:
            return "{}"
        reply = self.json_replies.popleft()
        return reply if isinstance(reply, str) else json.dumps(reply)


def _chunks(text: str) -> list[str]:
    parts: Iterable[str] = re.findall(r"\S+\s*|\s+", text)
    return [p for p in parts if p]
