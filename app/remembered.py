"""How the "Remembered" line and "Learned" notices read: plain text helpers for the view."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from engine import remembered
from engine.memory import keywords

_WORD = re.compile(r"[^\W_][\w'’-]*")

KIND_TITLES = {
    remembered.FACT: "Fact",
    remembered.KNOWLEDGE: "Assistant knowledge",
    remembered.PROFILE: "Profile",
    remembered.EXCHANGE: "Exchange",
}
TIER_TITLES = {
    remembered.PERSONA: "persona",
    remembered.RECENT: "recent",
    remembered.TOPIC: "topic",
    remembered.ARCHIVE: "archive",
}


def day(timestamp: float) -> str:
    when = dt.datetime.fromtimestamp(timestamp)
    return f"{when.day} {when:%b %Y}"


def item_label(item: Any) -> str:
    """'Fact · persona · 3 Nov 2026' for one remembered item: the day it was said, and the day
    it was learned when that was later ('3 Nov 2026, learned 27 Nov 2026': imported history)."""
    kind = KIND_TITLES.get(item.kind, item.kind)
    if item.forgotten:
        return f"{kind} · forgotten"
    learned = getattr(item, "learned", 0.0)  # read back from the vault (MemoryReadBack)
    said, learned = day(item.date), day(learned) if learned else ""
    later = f", learned {learned}" if learned and learned != said else ""
    return f"{kind} · {TIER_TITLES.get(item.tier, item.tier)} · {said}{later}"


def item_text(item: Any, limit: int = 110) -> str:
    """The item on one line; an exchange as “what was said” → what was answered. One edited
    since says so before its new text: the answer used the words it had before. One replaced
    since says so before the words the answer used, and names what replaced it."""
    if item.forgotten:
        return "deleted since this answer"
    if getattr(item, "edited", False):
        return one_line(item.kind, f"edited since this answer, now: {item.text}", limit)
    if getattr(item, "replaced", False):
        now = f" by “{item.replaced_by}”" if item.replaced_by else ""
        return one_line(item.kind, f"replaced since this answer{now}: {item.text}", limit)
    return one_line(item.kind, item.text, limit)


def one_line(kind: str, text: str, limit: int = 110) -> str:
    """Any memory on one line; an exchange as “what was said” → what was answered."""
    if kind == remembered.EXCHANGE:
        sides = [line.split(": ", 1)[-1] for line in text.splitlines() if line.strip()]
        text = " → ".join(" ".join(side.split()) for side in sides)
    else:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line_around(kind: str, text: str, words: list[str], limit: int = 150) -> str:
    """one_line, but where the first of `words` (or a word with its stem: "dogs" for "dog")
    comes after the cut, the line starts shortly before it ("…the reply mentioned Biscuit"), so
    the reason a long exchange matched is on screen."""
    line = one_line(kind, text, limit=10**9)
    stems = {keywords.fts_term(w) for w in words}
    found = next(
        (m for m in _WORD.finditer(line) if keywords.fts_term(m.group()) in stems), None
    )
    if found is None or found.end() <= limit - 1:
        return one_line(kind, text, limit)
    start = line.rfind(" ", 0, max(0, found.start() - limit // 3)) + 1
    piece = "…" + line[start:]
    return piece if len(piece) <= limit else piece[: limit - 1] + "…"


def summary(items: list[Any]) -> str:
    return remembered.summary(list(items))
