"""A question that asks two things ("What is my dog called, and where did I go in March?"):
its parts, each retrieved for on its own.

Embedded whole, such a question sits near whatever its stronger half is about, and its keyword
list is led by the rarer half's words: the memories for the other half never reached the model.
A part is a question of its own: it begins with a question word after ", and", "and", ";" or
the question mark that ends the part before it, and says something of its own (a content word:
"and how do I make it?" leans on the first half and stays with it). The whole question is
ranked too and leads (engine/retrieval.py): a part can still lean on the rest ("…, and what did
Melanie think?") and then the whole keeps its best turns. No part of LoCoMo's
development questions is split this way (one reads two parts, neither asked separately), so
there is no development figure for it; tests/test_retrieval_stages.py shows what it finds.
"""

from __future__ import annotations

import re

from engine.memory import keywords

MAX_PARTS = 3  # more than three questions at once is a list, not a question

_WH = r"(?:what|what's|where|where's|when|when's|who|who's|whom|whose|which|why|how|how's)"
# A boundary before a question word: ", and what", " and where", "; who", "? And how", "? Which".
_BOUNDARY = re.compile(
    rf"(?:\s*,?\s+and\s+|\s*;\s*|(?<=\?)\s+(?:and\s+|also,?\s+)?)(?={_WH}\b)", re.IGNORECASE
)


def question_parts(query: str) -> list[str]:
    """The parts of a question that asks several things, or the question alone."""
    pieces = [p.strip(" ,;") for p in _BOUNDARY.split(query.strip())]
    pieces = [p for p in pieces if p]
    if len(pieces) < 2 or len(pieces) > MAX_PARTS:
        return [query]
    if not all(keywords.content_words(p) for p in pieces):
        return [query]  # a part without words of its own ("and how?") belongs to the one before
    return pieces


def interleaved(lists: list[list], key=lambda item: item) -> list:
    """The lists taken in turn (the first of each, then the second of each…), each item once:
    every part gets its share of a budget, the first part first."""
    out, seen = [], set()
    for rank in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if rank < len(items) and key(items[rank]) not in seen:
                seen.add(key(items[rank]))
                out.append(items[rank])
    return out
