"""Baselines over raw turns: dense top-k, BM25 top-k, their rank fusion, and full context."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from engine.eval.locomo import Conversation, Turn
from engine.thinking import strip_thinking

_WORD = re.compile(r"[a-z0-9]+")
# The baselines' constants, chosen on the LoCoMo dev set by the same procedure as ours: a grid
# search maximising recall_turns@10 over categories 1-4 (the same objective as ours).
# BM25 k1 x b over {0.6, 0.9, 1.2, 1.5, 2.0} x {0.3, 0.5, 0.75, 0.9}: best (0.6, 0.3) 0.654;
# the textbook (1.2, 0.75) gave 0.637.
BM25_K1 = 0.6
BM25_B = 0.3
# Fusion of dense and the tuned BM25, RRF constant over {1, 5, 10, 20, 30, 40, 60, 100}:
# 1: 0.669, 5: 0.658, 10: 0.662, 20: 0.622, 60 (Cormack et al. 2009): 0.590.
RRF_K = 1
# A short English stop list: BM25 would otherwise reward 'what', 'did', 'the' matches.
STOP_WORDS = frozenset(
    "a an and are as at be been but by did do does for from had has have he her hers him his "
    "how i if in into is it its me my of on or our she so than that the their them they this "
    "to was we were what when where which who whom why will with would you your".split()
)
ANSWER_SYSTEM = (
    "You answer questions about a conversation between two people, using only the excerpts "
    "given. Answer in a few words. If the excerpts do not contain the answer, say "
    "'Not mentioned in the conversation'."
)


def turn_document(turn: Turn) -> str:
    """A raw turn as a document: 'Speaker: text' (the same words our pages hold)."""
    return f"{turn.speaker}: {turn.text}"


def bm25_tokens(text: str) -> list[str]:
    """Lower-case words, stop words dropped, Porter-stemmed."""
    from engine.eval.metrics import _stem

    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75) over a fixed list of documents, in numpy."""

    def __init__(self, documents: Sequence[str], k1: float = BM25_K1, b: float = BM25_B) -> None:
        self.k1 = k1
        self.b = b
        tokenised = [bm25_tokens(d) for d in documents]
        vocabulary: dict[str, int] = {}
        for tokens in tokenised:
            for token in tokens:
                vocabulary.setdefault(token, len(vocabulary))
        self.vocabulary = vocabulary
        self.counts = np.zeros((len(documents), max(1, len(vocabulary))), dtype=np.float32)
        for row, tokens in enumerate(tokenised):
            for token, count in Counter(tokens).items():
                self.counts[row, vocabulary[token]] = count
        lengths = self.counts.sum(axis=1)
        self.norm = k1 * (1 - b + b * lengths / max(float(lengths.mean()), 1e-9))
        frequency = (self.counts > 0).sum(axis=0)
        n = len(documents)
        self.idf = np.log(1 + (n - frequency + 0.5) / (frequency + 0.5)).astype(np.float32)

    def scores(self, query: str) -> np.ndarray:
        columns = [self.vocabulary[t] for t in set(bm25_tokens(query)) if t in self.vocabulary]
        if not columns:
            return np.zeros(self.counts.shape[0], dtype=np.float32)
        tf = self.counts[:, columns]
        part = tf * (self.k1 + 1) / (tf + self.norm[:, None])
        return (part * self.idf[columns]).sum(axis=1)


def top_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the k highest scores (ties broken by position), zero scores last."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [int(i) for i in order[:k]]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], k: int, constant: int = RRF_K
) -> list[int]:
    """Fuse ranked index lists: score = sum of 1 / (constant + rank)."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, start=1):
            fused[index] = fused.get(index, 0.0) + 1.0 / (constant + rank)
    return [i for i, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))][:k]


class TurnBaselines:
    """Dense, BM25 and fused search over one conversation's raw turns."""

    NAMES = ("dense", "bm25", "fusion")

    def __init__(self, conversation: Conversation, embedder: Any) -> None:
        self.turns = conversation.turns
        documents = [turn_document(t) for t in self.turns]
        self.embedder = embedder
        self.vectors = np.asarray(embedder.embed(documents, kind="document"), dtype=np.float32)
        self.bm25 = BM25(documents)

    def rank(self, query: str, k: int, depth: int = 100) -> dict[str, list[int]]:
        """Top-k turn indices per baseline (fusion fuses the top `depth` of each)."""
        query_vector = np.asarray(self.embedder.embed([query], kind="query"), dtype=np.float32)[0]
        dense = top_indices(self.vectors @ query_vector, depth)
        keyword_scores = self.bm25.scores(query)
        keyword = [i for i in top_indices(keyword_scores, depth) if keyword_scores[i] > 0]
        return {
            "dense": dense[:k],
            "bm25": keyword[:k],
            "fusion": reciprocal_rank_fusion([dense, keyword], k),
        }

    def ids(self, indices: Sequence[int]) -> list[list[str]]:
        """Each retrieved turn as a one-element list of its dia_id (one item = one turn)."""
        return [[self.turns[i].dia_id] for i in indices]

    def context(self, indices: Sequence[int]) -> str:
        """Retrieved turns in conversation order, with their session dates."""
        chosen = sorted(set(indices))
        return "\n".join(
            f"[{_date(self.turns[i].timestamp)}] {turn_document(self.turns[i])}" for i in chosen
        )


def estimate_tokens(text: str) -> int:
    """About 4 characters a token (the engine's budget estimate), for every system alike."""
    return max(1, len(text) // 4)


def dated_turn(turn: Turn) -> str:
    """A turn as a prompt line: '[8 May 2023, 13:56] Speaker: text'."""
    return f"[{_date(turn.timestamp)}] {turn_document(turn)}"


def _date(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return f"{moment.day} {moment:%B %Y, %H:%M}"


def full_context(conversation: Conversation) -> str:
    """The whole conversation, session by session with its date."""
    blocks = []
    for session in conversation.sessions:
        lines = [f"Session {session.number} ({session.date_text}):"]
        lines += [turn_document(t) for t in session.turns]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def answer_messages(question: str, context: str) -> list[dict[str, str]]:
    """The prompt the baselines answer with (one call, short answer)."""
    return [
        {"role": "system", "content": ANSWER_SYSTEM},
        {"role": "user", "content": f"Conversation excerpts:\n{context}\n\nQuestion: {question}"},
    ]


def fits_context(chat: Any, messages: list[dict[str, str]], max_tokens: int) -> bool:
    """True when the prompt plus the answer budget fits the model's context window."""
    prompt = sum(chat.count_tokens(m["content"]) + 8 for m in messages)
    return prompt + max_tokens <= int(chat.context_window)


def answer(chat: Any, messages: list[dict[str, str]], max_tokens: int = 64) -> str:
    """One deterministic generation, the text joined."""
    text = "".join(chat.stream(messages, max_tokens=max_tokens, temperature=0.0))
    return strip_thinking(text).strip()  # a reasoning model's thinking is not its answer
