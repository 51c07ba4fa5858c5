"""Segment heat H = α·N_visit + β·L_interaction + γ·exp(-Δt/μ), computed when read; what it
decides: which segments leave the mid-term store when it is full, which are hot enough to
teach the persona."""

from __future__ import annotations

import math

from engine.memory.segment_index import SegmentIndex
from engine.records import HeatParts, Segment, StoredSegment
from engine.settings import MemorySettings


def heat(
    visits: int, length: int, last_access: float, now: float, settings: MemorySettings
) -> HeatParts:
    elapsed = max(0.0, now - last_access)
    recency = math.exp(-elapsed / settings.heat_mu_seconds)
    value = (
        settings.heat_alpha * visits + settings.heat_beta * length + settings.heat_gamma * recency
    )
    return HeatParts(visits=visits, length=length, recency=recency, heat=value)


def segment(stored: StoredSegment, now: float, settings: MemorySettings) -> Segment:
    """A stored segment with its heat as of `now`."""
    return Segment(
        id=stored.id,
        summary=stored.summary,
        keywords=stored.keywords,
        created=stored.created,
        last_access=stored.last_access,
        visit_count=stored.visit_count,
        length=stored.length,
        page_count=stored.page_count,
        heat=heat(stored.visit_count, stored.length, stored.last_access, now, settings),
        archived=stored.archived,
    )


def make_room(vault, index: SegmentIndex, now: float, settings: MemorySettings) -> None:
    """At mid-term capacity, archive the lowest-heat segment(s) until one more fits (inside
    the placing transaction). Archived pages stay searchable: nothing is silently lost."""
    if len(index) < settings.mtm_capacity:
        return
    heats = {s.id: segment(s, now, settings).heat.heat for s in vault.segments()}
    for seg_id in sorted(heats, key=heats.get)[: len(heats) - settings.mtm_capacity + 1]:
        vault.archive_segment(seg_id)
        index.drop(seg_id)


def hot(vault, now: float, settings: MemorySettings) -> list[int]:
    """Active segments at or above the heat threshold that hold pages not yet analysed."""
    return [
        s.id
        for s in vault.segments()
        if segment(s, now, settings).heat.heat >= settings.heat_threshold
        and vault.unanalysed_page_ids(s.id)
    ]
