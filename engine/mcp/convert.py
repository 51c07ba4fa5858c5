"""Engine records as plain JSON objects for MCP results (ISO 8601 UTC dates, ids, provenance)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from engine.commands import FACT_PREFIX, PROFILE_PREFIX
from engine.records import Fact, Page, ProfileSlot, ScoredFact, ScoredPage
from engine.remembered import FACT, KNOWLEDGE, PROFILE, MemoryUsed


def iso(timestamp: float) -> str:
    """Epoch seconds as an ISO 8601 UTC string, e.g. 2024-05-01T12:00:00Z."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def page_json(page: Page) -> dict[str, Any]:
    meta = {k: v for k, v in page.meta.items() if k not in ("external_id", "external_ids")}
    return {
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


def scored_page_json(item: ScoredPage) -> dict[str, Any]:
    return {**page_json(item.page), "score": round(item.score, 4), "found_by": list(item.sources)}


def fact_ref(fact_id: int) -> str:
    """A fact's id as `memoryos facts list` shows it and `memoryos facts delete` takes it: f12."""
    return f"{FACT_PREFIX}{fact_id}"


def slot_ref(slot_id: int) -> str:
    """A profile entry's id as the CLI shows and takes it: p3."""
    return f"{PROFILE_PREFIX}{slot_id}"


def fact_json(fact: Fact) -> dict[str, Any]:
    return {
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


def scored_fact_json(item: ScoredFact) -> dict[str, Any]:
    return {**fact_json(item.fact), "score": round(item.score, 4)}


def slot_json(slot: ProfileSlot) -> dict[str, Any]:
    return {
        "id": slot.id,
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


def memory_used_json(item: MemoryUsed) -> dict[str, Any]:
    """One item an answer's prompt would hold; facts and profile entries with their `ref`."""
    refs = {FACT: fact_ref, KNOWLEDGE: fact_ref, PROFILE: slot_ref}
    ref = refs[item.kind](item.id) if item.kind in refs else None
    return {**item.__dict__, "date": iso(item.date), "ref": ref}
