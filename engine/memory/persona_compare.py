"""Which exchanges a learned item came from, and whether two tastes, habits or places are one."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from engine.memory import keywords
from engine.memory.persona_patterns import habits, moved_away, normalise_text, places_lived
from engine.records import Page


def polarity(value: str) -> int:
    """+1 for a "likes ..." or "switched to ..." preference, -1 for "dislikes" / "no longer
    likes" / "switched away from", 0 otherwise."""
    if value.startswith(("likes ", "switched to ", "prefers ")):
        return 1
    lost = ("dislikes ", "no longer likes ", "switched away from ", "stopped ", "gave up ")
    return -1 if value.startswith(lost) else 0


_PREFERENCE_WORDS = re.compile(
    r"^(?:likes|dislikes|no longer likes|switched to|switched away from|stopped|gave up|"
    r"prefers) | from .*$"
)


def taste_stems(value: str) -> list[str]:
    """The stemmed words of what a preference entry is about, all of them, in order ("run
    along nidelva river morn" of "likes running along the Nidelva river in the mornings"); its
    name holds four."""
    words = keywords.content_words(_PREFERENCE_WORDS.sub("", value))
    return list(dict.fromkeys(keywords.stem(word) for word in words))


def same_taste(one: list[str], other: list[str]) -> bool:
    """Whether two entries are about one thing by all their words: those of one hold the
    other's, first word included. "no longer likes running in the mornings" (named "running
    mornings") left "likes running along the Nidelva river in the mornings" (named "running
    along nidelva river"); "dislikes mornings" is about something else."""
    if not one or not other:
        return False
    short, long = sorted((one, other), key=len)
    return set(short) <= set(long) and long[0] in short


# A fact that says the person likes something (group 1: what), and one that says they no
# longer do.
_LIKING = re.compile(r"\bi (?:really |absolutely )?(?:love|like|enjoy|adore) ([^,.;!?]+)", re.I)
_NOT_LIKING = re.compile(
    r"\b(?:no longer|don['’]t|do not|not|stopped|quit|gave up|given up)\b", re.I
)


def changed_taste(text: str) -> bool:
    return bool(_NOT_LIKING.search(text)) or moved_away(text)


def liked_stems(text: str) -> set[str]:
    """The stemmed words of what a fact says the person likes ("spicy Thai food" of "I really
    love spicy Thai food, especially green curry"); empty for a fact that likes nothing."""
    return {
        stem for match in _LIKING.finditer(text)
        for stem in keywords.normalise(keywords.content_words(match.group(1)))
    }  # fmt: skip


def habit_stems(text: str) -> set[str]:
    """The stemmed words of what a fact says the person does regularly ("two cups coffee
    every morning" of "I need two cups of coffee every morning"); empty for no habit."""
    return {
        stem for said in habits(text)
        for stem in keywords.normalise(keywords.content_words(said))
    }  # fmt: skip


def phrase(text: str) -> str:
    """An FTS5 query for `text` as a phrase (FTS5 tokenises it, any script)."""
    return '"' + text.replace('"', " ") + '"'


def places(text: str) -> set[str]:
    return {normalise_text(place) for place in places_lived(text)}


def same_place(one: str, other: str) -> bool:
    """Whether two normalised places name one ("lisbon" and "lisbon portugal")."""
    a, b = set(one.split()), set(other.split())
    return bool(a and b) and (a <= b or b <= a)


class Embedded:
    """An embedder whose answers for `texts` are computed at once, in one batch; any other
    text is embedded as it comes."""

    def __init__(self, embedder: Any, texts: list[str]) -> None:
        self.embedder = embedder
        rows = embedder.embed(texts) if texts else []
        self.done = {text: row for text, row in zip(texts, rows, strict=True)}

    def embed_one(self, text: str, *, kind: str = "document") -> np.ndarray:
        if kind == "document" and text in self.done:
            return self.done[text]
        return self.embedder.embed_one(text, kind=kind)


def attribute(text: str, pages: list[Page], vectors: dict, embedder) -> list[int]:
    """The pages an uncited extracted item comes from: those sharing the most content words
    with it, else the one closest in meaning. One page at least, never the whole batch."""
    if not pages:
        return []
    wanted = keywords.normalise(keywords.content_words(text))
    if wanted:
        overlap = {
            p.id: len(wanted & keywords.normalise(keywords.content_words(p.text()))) for p in pages
        }
        best = max(overlap.values())
        if best > 0:
            return sorted(pid for pid, count in overlap.items() if count == best)
    query = embedder.embed_one(text)
    scored = [(float(np.dot(vectors[p.id], query)), p.id) for p in pages if p.id in vectors]
    return [max(scored)[1]] if scored else [pages[0].id]
