"""Engine records as plain JSON objects for MCP results (ISO 8601 UTC dates, ids, provenance)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from engine.records import Fact, Page, ProfileSlot, ScoredFact, ScoredPage


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


def fact_json(fact: Fact) -> dict[str, Any]:
    return {
        "id": fact.id,
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
        "category": slot.category,
        "name": slot.name,
        "value": slot.value,
        "status": slot.status,
        "created": iso(slot.created),
        "updated": iso(slot.updated),
        "evidence_page_ids": list(slot.evidence_page_ids),
        "origin": slot.origin,
    }
