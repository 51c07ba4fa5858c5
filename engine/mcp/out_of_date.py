"""What replaced the facts of a page retrieve_memory marks out of date: the current facts an
agent reads in its place."""

from __future__ import annotations

from typing import Any

from engine.records import SUPERSEDED, USER_FACT, Fact


def replacements(memory: Any, page_ids: set[int]) -> dict[int, list[Fact]]:
    """The current facts that replaced the user facts learned from each of `page_ids` (pages
    Retrieval.changed marks out of date), by page id: "I moved to Lisbon" for a page that taught
    "I live in Chorlton". A fact replaced again since is followed to the one current now; one
    whose replacement was deleted or replaced by nothing leads to none, so a page's list may
    be empty."""
    if not page_ids:
        return {}
    replaced = [
        fact
        for fact in memory.vault.facts_from_pages(sorted(page_ids), USER_FACT)
        if fact.status == SUPERSEDED and fact.superseded_by is not None
    ]
    current = _current(memory, {fact.superseded_by for fact in replaced})
    found: dict[int, list[Fact]] = {page_id: [] for page_id in page_ids}
    for fact in replaced:
        now = current.get(fact.superseded_by)
        for page_id in page_ids.intersection(fact.source_page_ids):
            if now is not None and all(other.id != now.id for other in found[page_id]):
                found[page_id].append(now)
    return found


def _current(memory: Any, fact_ids: set[int]) -> dict[int, Fact]:
    """For each of `fact_ids`, the fact current now at the end of its chain of replacements
    (itself when it is current); none for a chain that ends in a deleted fact or one replaced
    by nothing. One read per step of the longest chain."""
    at = {fact_id: fact_id for fact_id in fact_ids}  # where each chain has got to
    passed: dict[int, set[int]] = {fact_id: set() for fact_id in fact_ids}
    known: dict[int, Fact] = {}
    found: dict[int, Fact] = {}
    while at:
        wanted = sorted(set(at.values()) - set(known))
        if wanted:
            known.update((f.id, f) for f in memory.vault.facts(None, True, ids=wanted))
        ahead: dict[int, int] = {}
        for origin, fact_id in at.items():
            fact = known.get(fact_id)
            if fact is None:  # deleted since
                continue
            if fact.status != SUPERSEDED:
                found[origin] = fact
            elif fact.superseded_by is not None and fact.superseded_by not in passed[origin]:
                passed[origin].add(fact_id)  # a loop, which no write makes, ends too
                ahead[origin] = fact.superseded_by
        at = ahead
    return found
