"""Past conversations for the sidebar: full-text search with highlights, rename, and a preview
of what forgetting one also removes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine import errors, validation
from engine.memory import keywords, when
from engine.records import Fact, ProfileSlot, SearchHit
from engine.terminal.wording import count
from engine.vault.search import MARK_END, MARK_START

__all__ = [
    "MARK_END",
    "MARK_START",
    "Found",
    "ForgetPreview",
    "SearchHit",
    "conversations_saying",
    "find",
    "preview_forget",
    "rename",
    "search",
]


def _match(text: str) -> str:
    """Every word must occur; the last one may be unfinished (search as you type)."""
    words = [w.replace('"', "") for w in keywords.tokens(text)]
    words = [w for w in words if w]
    if not words:
        return ""
    terms = [f'"{w}"' for w in words[:-1]] + [f'"{words[-1]}"*']
    return " AND ".join(terms)


@dataclass(frozen=True)
class Found:
    """What a search found: the first `hits` (best match first) of all the matching exchanges."""

    hits: list[SearchHit]
    exchanges: int  # every exchange that matches, shown or not
    conversations: int  # the conversations those are in

    def summary(self) -> str:
        """'12 exchanges in 5 conversations, best match first'; 'The first 50 of 212 …' when
        the list was cut."""
        exchanges = count(self.exchanges, "exchange", grouped=True)
        found = f"{exchanges} in {count(self.conversations, 'conversation', grouped=True)}"
        if len(self.hits) < self.exchanges:
            found = f"The first {len(self.hits)} of {found}"
        return f"{found}, best match first" if len(self.hits) > 1 else found


def find(memory, text: str, limit: int = 50) -> Found:
    """Exchanges of past conversations that contain all of `text`'s words, and how many there
    are. Best match first: FTS5's BM25 rank, what the person said scored on its own too so that
    a long answer does not bury it (engine/vault/search.py); equal matches newest first."""
    text = validation.text(text, "search")
    match = _match(text)
    hits = memory.vault.search_pages(match, limit)
    exchanges, conversations = memory.vault.count_matches(match) if hits else (0, 0)
    shown = [replace(hit, snippet=snippet(as_said(hit.snippet))) for hit in hits]
    return Found(shown, max(exchanges, len(shown)), conversations)


def conversations_saying(memory, text: str) -> set[str]:
    """The ids of every conversation with an exchange that contains all of `text`'s words, as
    find() matches them, however many exchanges match (Privacy's conversation search)."""
    return memory.vault.conversations_matching(_match(validation.text(text, "search")))


def search(memory, text: str, limit: int = 50) -> list[SearchHit]:
    """The hits of find(): exchanges holding all of `text`'s words, best match first."""
    return find(memory, text, limit).hits


# A marked word, or a run of marked words ("last Tuesday" found by a date), or any other word
_WORD = re.compile(f"(?:{MARK_START}[^{MARK_END}]*{MARK_END}|[^\\s{MARK_START}{MARK_END}])+")


def as_said(marked: str) -> str:
    """An indexed text with its matches marked, as the person said it: the index holds relative
    dates resolved ("yesterday [24 March 2026]") so that a search for the date finds them; the
    resolved date goes, and a match inside it marks the words said ("yesterday") instead."""
    out, at = [], 0
    for start in _resolved_dates(marked):
        end = marked.index("]", start) + 1
        before = marked[at:start]
        if MARK_START in marked[start:end]:
            before = _mark_last_phrase(before)
        out.append(before)
        at = end
    out.append(marked[at:])
    return "".join(out)


def _resolved_dates(marked: str) -> list[int]:
    """Where resolve_relative's dates (" [24 March 2026]") start in `marked`."""
    starts = []
    for found in re.finditer(r" \[[^\[\]\n]*\]", marked):
        plain = found[0].replace(MARK_START, "").replace(MARK_END, "")
        if not when.without_resolved(plain):  # the whole bracket is a resolved date
            starts.append(found.start())
    return starts


def _mark_last_phrase(text: str) -> str:
    """`text` with its last words marked: the relative date that ends it ("last Tuesday", "two
    weeks ago"), or its last word when none is found."""
    plain = text.replace(MARK_START, "").replace(MARK_END, "")
    starts = [word.start() for word in re.finditer(r"\S+", plain)][-5:] or [len(plain)]
    at = next((s for s in reversed(starts) if when.undated(plain[s:])), starts[-1])
    phrase, head = plain[at:], plain[:at]
    # marks already in the phrase's words are dropped: the whole phrase is marked once
    kept = text[: _position(text, len(head))]
    return f"{kept}{MARK_START}{phrase}{MARK_END}"


def _position(marked: str, plain_index: int) -> int:
    """Where in `marked` the first `plain_index` characters other than marks end."""
    seen = 0
    for index, char in enumerate(marked):
        if seen == plain_index:
            return index
        seen += char not in (MARK_START, MARK_END)
    return len(marked)


SNIPPET_WORDS = 14  # as FTS5's snippet() was asked for
LEAD = 3  # words shown before a snippet's first match, where there are some


def snippet(text: str, words: int = SNIPPET_WORDS) -> str:
    """The `words` of `text` that hold the most different matches (the first such stretch, LEAD
    words before its first match), "…" where text was left out. Marks are never cut: a marked
    phrase is one word here."""
    found = list(_WORD.finditer(text))
    if len(found) <= words:
        return text
    matched = [w[0].casefold() if MARK_START in w[0] else "" for w in found]
    best, most = 0, (-1, 0)
    for first in range(len(found) - words + 1):
        window = matched[first : first + words]
        lead = next((n for n, m in enumerate(window) if m), words)  # words before the first
        score = (len({m for m in window if m}), -abs(lead - LEAD))
        if score > most:
            best, most = first, score
    start = found[best].start()
    end = found[best + words - 1].end()
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def rename(memory, conversation_id: str, title: str) -> str:
    """Give a conversation a new title (one line, not empty). Returns the title stored."""
    title = " ".join(validation.text(title, "title").split())
    if not title:
        raise errors.InvalidInputError("the title is empty")
    with memory.vault.transaction():
        renamed = memory.vault.set_conversation_title(conversation_id, title)
    if not renamed:
        raise errors.NotFoundError(f"no conversation {conversation_id!r}")
    memory._notify("pages")
    return title


@dataclass(frozen=True)
class ForgetPreview:
    """What `forget_conversation` removes: its exchanges, and what was learned only from them."""

    conversation_id: str
    pages: int
    facts: tuple[Fact, ...]
    slots: tuple[ProfileSlot, ...]


def preview_forget(memory, conversation_id: str) -> ForgetPreview:
    page_ids = memory.vault.page_ids_of_conversation(conversation_id)
    if not page_ids:
        raise errors.NotFoundError(f"no conversation {conversation_id!r}")
    cascade = memory.preview_forget_pages(page_ids)  # exactly what forgetting will remove
    fact_ids, slot_ids = cascade.facts, cascade.slots
    facts = tuple(memory.vault.facts(None, True, ids=fact_ids)) if fact_ids else ()
    slots = tuple(s for s in memory.profile(include_superseded=True) if s.id in set(slot_ids))
    return ForgetPreview(conversation_id, len(page_ids), facts, slots)
