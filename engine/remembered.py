"""What an answer remembered: the memories that went into its prompt, typed and in rank order.

The list is derived from the very Retrieval the prompt builder received (never a second
search), saved with the exchange, and read back later with each item's current state: an item
deleted since comes back as forgotten, with its text gone (forgetting leaves no copy here); one
whose text the person edited since comes back marked edited, with its text as it reads now (an
edit rewrites the text in place: the vault keeps no copy of the words the answer used); one
replaced since by a newer fact or profile entry comes back marked replaced, with the text the
answer used and the text of what replaced it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from engine.records import ARCHIVED, MID_TERM, Page, Retrieval

# What a remembered item is.
FACT = "fact"  # a user fact
KNOWLEDGE = "knowledge"  # what the assistant did or promised
PROFILE = "profile"  # a profile slot
EXCHANGE = "exchange"  # a stored page (one exchange)

# Where it came from (the memory tier).
PERSONA = "persona"  # long-term: facts, knowledge, profile
RECENT = "recent"  # the short-term queue
TOPIC = "topic"  # a mid-term topic segment
ARCHIVE = "archive"  # a segment evicted from mid-term, still searchable

_PAGE_TIERS = {MID_TERM: TOPIC, ARCHIVED: ARCHIVE}


@dataclass(frozen=True)
class MemoryUsed:
    """One memory in an answer's prompt."""

    kind: str  # FACT | KNOWLEDGE | PROFILE | EXCHANGE
    id: int  # the fact, profile slot or page id
    tier: str  # PERSONA | RECENT | TOPIC | ARCHIVE
    text: str  # as it reads now ("" once forgotten)
    # Epoch seconds: when an exchange was said; when a fact or profile entry was last learned
    # (the date saved with the answer, to which read_back compares its later state)
    date: float
    score: float | None  # its retrieval score; None where everything of its kind is included
    forgotten: bool = False  # deleted since the answer was given
    conversation_id: str = ""  # exchanges: the conversation they belong to

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.id)


@dataclass(frozen=True)
class MemoryReadBack(MemoryUsed):
    """A fact or profile entry of a stored answer's list, as it reads now (read_back): `date`
    is when the person said it, the first of its source exchanges still stored (imported
    history said on 3 November is not new), else when it was learned. A subclass, so that the
    lists MCP clients get (memories_used) keep their fields."""

    learned: float = 0.0  # when it was learned
    edited: bool = False  # its text was edited since the answer (`text` is the new one)
    replaced: bool = False  # a newer item replaced it since the answer (`text` is the old one)
    replaced_by: str = ""  # the text of the item that replaced it ("" if that is gone)


def page_item(page: Page, tier: str, score: float | None) -> MemoryUsed:
    return MemoryUsed(
        kind=EXCHANGE,
        id=page.id,
        tier=tier,
        text=page.text(),
        date=page.timestamp,
        score=score,
        conversation_id=page.conversation_id,
    )


def memories_used(retrieval: Retrieval) -> list[MemoryUsed]:
    """Every memory the prompt builder puts into the prompt for `retrieval`, most important
    first within the prompt's own order: profile, facts, knowledge, ranked exchanges (best
    first), then the recent queue (newest first). Exchanges in the recent queue are listed once,
    as recent, as the prompt shows them once."""
    items = [
        MemoryUsed(PROFILE, s.id, PERSONA, s.text, s.updated, None)
        for s in retrieval.profile
    ]
    items += [
        MemoryUsed(FACT, f.fact.id, PERSONA, f.fact.text, f.fact.updated, f.score)
        for f in retrieval.facts
    ]
    items += [
        MemoryUsed(KNOWLEDGE, f.fact.id, PERSONA, f.fact.text, f.fact.updated, f.score)
        for f in retrieval.knowledge
    ]
    recent_ids = {p.id for p in retrieval.short_term}
    items += [
        page_item(p.page, _PAGE_TIERS.get(p.page.tier, RECENT), p.score)
        for p in retrieval.pages
        if p.page.id not in recent_ids
    ]
    items += [page_item(p, RECENT, None) for p in reversed(retrieval.short_term)]
    return items


def forgotten(item: MemoryUsed) -> MemoryUsed:
    """The same entry with its content gone (the item was deleted since)."""
    return replace(item, text="", forgotten=True)


_NAMES = {
    FACT: ("fact", "facts"),
    KNOWLEDGE: ("thing it did or promised", "things it did or promised"),
    PROFILE: ("profile entry", "profile entries"),
}
_EXCHANGE_NAMES = {
    RECENT: ("recent exchange", "recent exchanges"),
    # One exchange, not a whole conversation: "Forget this earlier conversation?" was asked of
    # a single exchange, and the list itself says "Exchange".
    TOPIC: ("earlier exchange", "earlier exchanges"),
    ARCHIVE: ("earlier exchange", "earlier exchanges"),
}


def describe(item: MemoryUsed) -> str:
    """A short label of what the item is: 'fact', 'earlier exchange', ..."""
    if item.kind == EXCHANGE:
        return _EXCHANGE_NAMES.get(item.tier, _EXCHANGE_NAMES[TOPIC])[0]
    return _NAMES[item.kind][0]


def summary(items: list[MemoryUsed]) -> str:
    """'Used 3 memories: 2 facts, 1 earlier exchange' (or 'Used no memories')."""
    if not items:
        return "Used no memories"
    counts: Counter[tuple[str, str]] = Counter()
    order: list[tuple[str, str]] = []
    for item in items:
        names = (
            _EXCHANGE_NAMES.get(item.tier, _EXCHANGE_NAMES[TOPIC])
            if item.kind == EXCHANGE
            else _NAMES[item.kind]
        )
        if names not in order:
            order.append(names)
        counts[names] += 1
    parts = [f"{counts[n]} {n[0] if counts[n] == 1 else n[1]}" for n in order]
    noun = "memory" if len(items) == 1 else "memories"
    lost = sum(1 for item in items if item.forgotten)
    edited = sum(1 for item in items if getattr(item, "edited", False))
    since = [f"{lost} forgotten since"] if lost else []
    since += [f"{edited} edited since"] if edited else []
    swapped = sum(1 for item in items if getattr(item, "replaced", False))
    since += [f"{swapped} replaced since"] if swapped else []
    tail = f" ({', '.join(since)})" if since else ""
    return f"Used {len(items)} {noun}: {', '.join(parts)}{tail}"


def saved_list(page, memories: dict[int, list[MemoryUsed]]) -> list[MemoryUsed] | None:
    """What `page`'s answer remembered as read_back gave it, [] for an answer that used none,
    None for an exchange with no saved list (imported, or stored before lists were saved)."""
    found = memories.get(page.id)
    if found:
        return found
    return [] if page.meta.get("remembered_none") else None


def _edited_since(entry, saved_date: float) -> bool:
    """Whether the person edited a fact or profile entry after the answer: an edit (Privacy,
    `facts edit`) makes it theirs ("user") and dates it then, while the answer saved the date
    the entry had when it was used. An Undo of the edit puts that date back; a replaced entry
    was dated by its replacement, not edited."""
    return (
        entry.origin == "user"
        and entry.updated > saved_date + 1e-3
        and entry.superseded_by is None
    )


def said_at(times: dict[int, float], sources: tuple[int, ...], learned: float) -> float:
    """When the person said it: the first of its source exchanges still stored, else when it
    was learned (typed in, imported without exchanges, or its exchanges forgotten)."""
    found = [times[page_id] for page_id in sources if page_id in times]
    return min(found) if found else learned


def dated_when_said(vault, items: list[MemoryUsed]) -> list[MemoryUsed]:
    """`items` (an answer's list as it was given, dated when each was learned) with each fact
    and profile entry dated as read_back dates it: when it was said, and `learned`."""
    fact_ids = sorted({i.id for i in items if i.kind in (FACT, KNOWLEDGE)})
    facts = {f.id: f for f in vault.facts(None, True, ids=fact_ids)}
    wants_slots = any(i.kind == PROFILE for i in items)
    slots = {s.id: s for s in vault.slots(include_superseded=True)} if wants_slots else {}
    entries = {}
    for item in items:
        found = slots.get(item.id) if item.kind == PROFILE else facts.get(item.id)
        if item.kind != EXCHANGE and found is not None and not item.forgotten:
            ids = found.evidence_page_ids if item.kind == PROFILE else found.source_page_ids
            entries[item.key] = (found, ids)
    sources = sorted({i for _, ids in entries.values() for i in ids})
    times = {p.id: p.timestamp for p in vault.pages(sources)}
    out: list[MemoryUsed] = []
    for item in items:
        if item.key not in entries:
            out.append(item)
            continue
        entry, ids = entries[item.key]
        out.append(
            MemoryReadBack(
                item.kind, item.id, item.tier, item.text, said_at(times, ids, entry.created),
                item.score, item.forgotten, item.conversation_id, learned=entry.created,
            )  # fmt: skip
        )
    return out


def _entry_as_now(row, entry, sources, times: dict[int, float], replacement) -> MemoryReadBack:
    """A saved list's fact or profile entry (`row`) as `entry` reads now: its text, when it was
    said (the first of its `sources` exchanges still stored), edited or replaced since."""
    return MemoryReadBack(
        row.kind, row.item_id, row.tier, entry.text,
        said_at(times, sources, entry.created), row.score,
        learned=entry.created, edited=_edited_since(entry, row.date),
        replaced=entry.superseded_by is not None,
        replaced_by="" if replacement is None else replacement.text,
    )  # fmt: skip


def read_back(memory, page_ids: list[int]) -> dict[int, list[MemoryUsed]]:
    """The saved lists of stored answers, each item as it reads now; an item deleted since
    (or whose id a later item took) comes back forgotten, without its text; one edited since,
    marked edited; one replaced since by a newer item, marked replaced with that item's text.
    Facts and profile entries are dated when they were said (see `date`)."""
    from engine.retrieval_facts import dated_facts

    vault = memory.vault
    rows = vault.page_memory_rows(page_ids)
    answered = {p.id: p.timestamp for p in vault.pages(page_ids)}
    wanted: dict[str, set[int]] = {}
    for row in rows:
        wanted.setdefault(row.kind, set()).add(row.item_id)
    fact_ids = sorted(wanted.get(FACT, set()) | wanted.get(KNOWLEDGE, set()))
    # As the prompt read them: "Next Friday [4 December 2026]", dated from when each was said
    facts = {f.id: f for f in dated_facts(vault, vault.facts(None, True, ids=fact_ids))}
    # What replaced them since: read only when something was (a retrieved fact was current)
    newer_ids = sorted({f.superseded_by for f in facts.values() if f.superseded_by} - set(facts))
    newer = {f.id: f for f in dated_facts(vault, vault.facts(None, True, ids=newer_ids))}
    newer |= facts
    slots = {s.id: s for s in vault.slots(include_superseded=True)} if PROFILE in wanted else {}
    all_slots = slots
    slots = {i: slots[i] for i in wanted.get(PROFILE, set()) if i in slots}
    pages = {p.id: p for p in vault.pages(sorted(wanted.get(EXCHANGE, ())))}
    sources = {i for f in facts.values() for i in f.source_page_ids}
    sources |= {i for s in slots.values() for i in s.evidence_page_ids}
    times = {p.id: p.timestamp for p in vault.pages(sorted(sources))}
    out: dict[int, list[MemoryUsed]] = {i: [] for i in page_ids}
    for row in rows:
        answered_at = answered.get(row.page_id, row.date) + 1.0
        item = MemoryUsed(row.kind, row.item_id, row.tier, "", row.date, row.score)
        if row.kind in (FACT, KNOWLEDGE):
            fact = facts.get(row.item_id)
            # A later item may reuse a deleted one's id: it was created after the answer.
            if fact is not None and fact.created <= answered_at:
                replacement = newer.get(fact.superseded_by)
                item = _entry_as_now(row, fact, fact.source_page_ids, times, replacement)
        elif row.kind == PROFILE:
            slot = slots.get(row.item_id)
            if slot is not None and slot.created <= answered_at:
                replacement = all_slots.get(slot.superseded_by)
                item = _entry_as_now(row, slot, slot.evidence_page_ids, times, replacement)
        else:
            page = pages.get(row.item_id)
            if page is not None and abs(page.timestamp - row.date) < 1e-3:
                item = page_item(page, row.tier, row.score)
        out[row.page_id].append(item if item.text else forgotten(item))
    return out
