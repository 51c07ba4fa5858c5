"""Text cut into sentences, but not at the period of a short form ("Dr. Hansen", "e.g.")."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# A period that ends a short form, not a sentence. Before a name or a number the form never ends
# one ("Dr. Hansen", "St. Olav", "No. 5"); "e.g." and "vs." are followed by more of the same
# sentence. A form that can also close a sentence ("etc.", "a.m.", "Jr.", "Inc.") ends one only
# before a capital ("... at 7 a.m. every day" is one sentence, "... etc. My dog ..." two). An
# initial ("J. K. Rowling") is one capital letter; a number's decimal point has no space after
# it and never split.
_TITLES = frozenset(
    "mr mrs ms mx dr prof st mt ft rev fr gen col capt lt sgt cpl maj adm gov sen rep "
    "pres hon supt insp det messrs mme mlle".split()
)
_NEVER_LAST = frozenset("e.g eg i.e ie vs viz cf approx ca incl esp fig figs vol vols ch".split())
_MAY_BE_LAST = frozenset(
    "etc a.m p.m am pm inc ltd co corp bros jr sr phd ph.d b.a m.a b.sc m.sc u.s u.k "
    "ave rd blvd dept est".split()
)
_BEFORE_NUMBER = frozenset("no nos nr pp p".split())


def sentences(text: str) -> list[str]:
    """`text` cut into sentences at ".", "!", "?" and line breaks, but not at the period of a
    short form ("Dr. Hansen", "St. Olav", "e.g. tea", "J. K. Rowling")."""
    sentences: list[str] = []
    for line in text.split("\n"):  # a line break always ends a sentence
        joined: list[str] = []
        for piece in (s.strip() for s in _SENTENCE.split(line)):
            if not piece:
                continue
            if joined and joined[-1].endswith(".") and _short_form_before(joined[-1], piece):
                joined[-1] += " " + piece
            else:
                joined.append(piece)
        sentences += joined
    return sentences


def _short_form_before(before: str, after: str) -> bool:
    """Whether the period that ends `before` closes a short form that `after` continues."""
    words = before.split()
    last = words[-1].rstrip(".").lstrip("(\"'‘“").lower()
    nxt = after[:1]
    if last in _TITLES or last in _NEVER_LAST:
        return True
    if last in _BEFORE_NUMBER:
        return nxt.isdigit()
    if len(last) == 1 and last.isalpha():
        # an initial inside a name ("J. K. Rowling", "John F. Kennedy"), not "I got a B. Then"
        named = len(words) > 1 and words[-2][:1].isupper() or re.match(r"[A-Z]\.(?:\s|$)", after)
        return words[-1][:1].isupper() and nxt.isupper() and bool(named)
    if last in _MAY_BE_LAST or re.fullmatch(r"(?:[a-z]\.)+[a-z]", last):
        return not nxt.isupper()
    return False
