"""What an edited question is answered from: the memory as if the exchange it replaces had
never been said, as forgetting that exchange will make it once the new one is stored."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.records import Retrieval

if TYPE_CHECKING:
    from engine.api import MemoryOS


def without_exchange(memory: MemoryOS, retrieval: Retrieval, page_id: int) -> Retrieval:
    """`retrieval` as if the exchange `page_id` had never been said, as forgetting it will make
    the memory once the new exchange is stored: the exchange itself and every memory learned
    from it alone are left out, a profile entry or fact it replaced stands again (in the place
    of the one that replaced it), and a topic summary it went into is read from the topic's
    other exchanges. Edited from "I moved to Lisbon" to "Madrid", the answer read "location:
    Lisbon" and the fact "I moved to Lisbon" the replaced exchange taught; edited from "I take
    40 mg" it lacked "I take 20 mg". A memory another exchange also says stays."""
    from engine.memory import mid_term

    def only_from(sources: tuple[int, ...]) -> bool:
        return bool(sources) and set(sources) == {page_id}

    profile = [s for s in retrieval.profile if not only_from(s.evidence_page_ids)]
    dropped = {s.id for s in retrieval.profile} - {s.id for s in profile}
    if dropped:  # what the dropped entries replaced is current again ("location: Paris")
        shown = {s.id for s in profile}
        profile += [
            s for s in memory.profile(include_superseded=True)
            if s.superseded_by in dropped and s.id not in shown
            and not only_from(s.evidence_page_ids)
        ]  # fmt: skip
        profile.sort(key=lambda s: (s.category, s.name, s.id))
    again = _facts_again(memory, page_id)
    old = memory.vault.pages([page_id])
    segments = list(retrieval.segments)
    if old and old[0].segment_id is not None:
        segments = [
            mid_term.without_page(memory.vault, s, page_id, memory.settings)
            if s.id == old[0].segment_id else s
            for s in segments
        ]  # fmt: skip
    pages = tuple(p for p in retrieval.pages if p.page.id != page_id)
    short = tuple(p for p in retrieval.short_term if p.id != page_id)
    threads = {p.page.chain_summary for p in pages} | {p.chain_summary for p in short}
    said = old[0].chain_summary if old else ""
    # A page whose every fact was replaced shows as out of date: one replaced only by what the
    # exchange taught is not any more.
    current_again = {pid for facts in again.values() for f in facts for pid in f.source_page_ids}
    return replace(
        retrieval,
        short_term=short,
        pages=pages,
        turns=tuple(t for t in retrieval.turns if t.page_id != page_id),
        segments=tuple(s for s in segments if s is not None),
        chain_summaries=tuple(c for c in retrieval.chain_summaries if c != said or c in threads),
        profile=tuple(profile),
        facts=_facts_in_place(retrieval.facts, again, only_from),
        knowledge=_facts_in_place(retrieval.knowledge, again, only_from),
        changed=retrieval.changed - {page_id} - current_again,
    )


def _facts_again(memory: MemoryOS, page_id: int) -> dict[int, list]:
    """The facts that a current fact learned from the exchange `page_id` alone had replaced
    ("I take 20 mg" by "I take 40 mg", "I need two cups of coffee" by "I've switched from
    coffee to tea"), by the id of the fact that replaced them, as they read once it is
    forgotten (engine/vault/persona.py delete_facts makes them current again)."""
    from engine.records import ACTIVE, CANDIDATE, USER_FACT

    gone = memory.vault.only_derived_from([page_id])["facts"]
    current = {f.id for f in memory.vault.facts(None, include_superseded=False, ids=gone)}
    again: dict[int, list] = {}
    if not current:
        return again
    for fact in memory.vault.facts(None, include_superseded=True):
        if fact.superseded_by in current and fact.id not in gone:
            verbatim = fact.kind == USER_FACT and fact.origin == "verbatim"
            status = CANDIDATE if verbatim else ACTIVE
            again.setdefault(fact.superseded_by, []).append(
                replace(fact, status=status, superseded_by=None)
            )
    return again


def _facts_in_place(items: tuple, again: dict[int, list], only_from) -> tuple:
    """`items` (scored facts) less those learned from the replaced exchange alone, each in the
    place of the one that replaced it, with its score."""
    out, seen = [], {item.fact.id for item in items}
    for item in items:
        if not only_from(item.fact.source_page_ids):
            out.append(item)
            continue
        for fact in again.get(item.fact.id, []):
            if fact.id not in seen:
                seen.add(fact.id)
                out.append(replace(item, fact=fact))
    return tuple(out)
