"""Engine records as plain JSON objects for MCP results (ISO 8601 UTC dates, ids, provenance)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from engine.mcp.fit import PREVIEW_CHARS, compact, cut
from engine.records import Fact, Page, ProfileSlot, ScoredFact, ScoredPage
from engine.remembered import FACT, KNOWLEDGE, PROFILE, MemoryUsed
from engine.terminal.facts import FACT_PREFIX, PROFILE_PREFIX


def iso(timestamp: float) -> str:
    """Epoch seconds as an ISO 8601 UTC string, e.g. 2024-05-01T12:00:00Z."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


PAGE_TEXTS = ("user_input", "agent_response", "chain_summary")


def page_json(
    page: Page, limit: int | None = None, *, offset: int = 0, paged: bool = False
) -> dict[str, Any]:
    """A page; with `limit`, each text sliced to [offset, offset + limit) and noted under
    "shortened" (see engine.mcp.fit.cut), and metadata longer than `limit` characters of JSON
    left out, unless `paged` (get_page: metadata is at most 64 KiB, returned whole)."""
    meta = {k: v for k, v in page.meta.items() if k not in ("external_id", "external_ids")}
    out = {
        "id": page.id,
        "date": iso(page.timestamp),
        "timestamp": page.timestamp,
        "conversation_id": page.conversation_id,
        "tier": page.tier,
        "segment_id": page.segment_id,
        "user_speaker": page.user_speaker,
        "user_input": page.user_input,
        "agent_speaker": page.agent_speaker,
        "agent_response": page.agent_response,
        "external_ids": list(page.external_ids),
        "chain_summary": page.chain_summary,
        "metadata": meta,
    }
    if limit is not None and not paged and len(compact(meta)) > limit:
        out["metadata"] = {}
        out["shortened"] = {"metadata": len(compact(meta))}
    return cut(out, PAGE_TEXTS, limit, offset)


def scored_page_json(item: ScoredPage, limit: int | None = None) -> dict[str, Any]:
    out = page_json(item.page, limit)
    return {**out, "score": round(item.score, 4), "found_by": list(item.sources)}


def retrieved_page_json(
    page: Page,
    replaced: dict[int, list[Fact]],
    limit: int,
    scored: ScoredPage | None = None,
) -> dict[str, Any]:
    """A page of retrieve_memory's result: `out_of_date` true when every fact learned from it
    was replaced since (Retrieval.changed: the app's prompt marks it "out of date"), and then
    `replaced_by`, the facts current in their place (`replaced`, by page id:
    engine.mcp.out_of_date.replacements), each with its ref; with `scored`, the score and how
    the query found it."""
    out = page_json(page, limit) if scored is None else scored_page_json(scored, limit)
    if page.id not in replaced:
        return {**out, "out_of_date": False}
    now = [
        cut({"id": f.id, "ref": fact_ref(f.id), "text": f.text}, ("text",), limit)
        for f in replaced[page.id]
    ]
    return {**out, "out_of_date": True, "replaced_by": now}


def fact_ref(fact_id: int) -> str:
    """A fact's id as `memoryos facts list` shows it and `memoryos facts delete` takes it: f12."""
    return f"{FACT_PREFIX}{fact_id}"


def slot_ref(slot_id: int) -> str:
    """A profile entry's id as the CLI shows and takes it: p3."""
    return f"{PROFILE_PREFIX}{slot_id}"


def fact_json(fact: Fact, limit: int | None = None) -> dict[str, Any]:
    out = {
        "id": fact.id,
        "ref": fact_ref(fact.id),
        "kind": fact.kind,
        "text": fact.text,
        "status": fact.status,
        "created": iso(fact.created),
        "updated": iso(fact.updated),
        "source_page_ids": list(fact.source_page_ids),
        "origin": fact.origin,
        "superseded_by": fact.superseded_by,
    }
    return cut(out, ("text",), limit)


def scored_fact_json(item: ScoredFact, limit: int | None = None) -> dict[str, Any]:
    return {**fact_json(item.fact, limit), "score": round(item.score, 4)}


def slot_json(slot: ProfileSlot, limit: int | None = None) -> dict[str, Any]:
    """A profile entry; its `id` is its ref (p3), never a bare number: delete_fact takes a
    bare number as a fact's, and deleted fact 2 when given profile entry 2's."""
    out = {
        "id": slot_ref(slot.id),
        "ref": slot_ref(slot.id),
        "category": slot.category,
        "name": slot.name,
        "value": slot.value,
        "status": slot.status,
        "created": iso(slot.created),
        "updated": iso(slot.updated),
        "evidence_page_ids": list(slot.evidence_page_ids),
        "origin": slot.origin,
    }
    return cut(out, ("value",), limit)


def memory_used_json(item: MemoryUsed, limit: int = PREVIEW_CHARS) -> dict[str, Any]:
    """One item an answer's prompt would hold; facts and profile entries with their `ref`.
    Its `text` is a preview of at most `limit` characters: the same result gives it in full
    (or shortened there too) under pages/recent/facts/knowledge/profile, by kind and id."""
    refs = {FACT: fact_ref, KNOWLEDGE: fact_ref, PROFILE: slot_ref}
    ref = refs[item.kind](item.id) if item.kind in refs else None
    out = {**item.__dict__, "date": iso(item.date), "ref": ref}
    if item.kind == PROFILE:
        out["id"] = ref  # as in `profile` (slot_json): a bare number would read as a fact's
    return cut(out, ("text",), limit)
