"""Mid-term memory: topic segments joined by cos + keyword overlap, ranked and evicted by heat."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np

from engine.memory import keywords
from engine.memory.heat import heat
from engine.records import HeatParts, Page, Segment
from engine.settings import MemorySettings


def segment_from_row(row: tuple, now: float, settings: MemorySettings) -> Segment:
    seg_id, summary, kws, created, last_access, visits, length, archived, page_count = row
    parts: HeatParts = heat(visits, length, last_access, now, settings)
    return Segment(
        id=seg_id,
        summary=summary,
        keywords=tuple(json.loads(kws)),
        created=created,
        last_access=last_access,
        visit_count=visits,
        length=length,
        page_count=page_count,
        heat=parts,
        archived=bool(archived),
    )


def best_segment(
    vector: np.ndarray,
    page_keywords: list[str],
    segment_ids: list[int],
    matrix: np.ndarray | None,
    segment_keywords: dict[int, list[str]],
    threshold: float,
) -> tuple[int | None, float]:
    """The segment a page joins: highest cos + Jaccard, if it reaches the threshold."""
    if matrix is None or not segment_ids:
        return None, 0.0
    cosines = matrix @ vector
    best_id, best_score = None, -1.0
    for index, seg_id in enumerate(segment_ids):
        score = float(cosines[index]) + keywords.overlap(
            page_keywords, segment_keywords.get(seg_id, [])
        )
        if score > best_score:
            best_id, best_score = seg_id, score
    return (best_id, best_score) if best_score >= threshold else (None, best_score)


def merged_keywords(pages: list[Page], limit: int) -> list[str]:
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for page in pages:
        for word in page.keywords:
            key = keywords.stem(word)
            counts[key] += 1
            surface.setdefault(key, word)
    return [surface[key] for key, _ in counts.most_common(limit)]


def centroid(vectors: list[np.ndarray]) -> np.ndarray:
    mean = np.mean(np.vstack(vectors), axis=0).astype(np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def _first_sentence(text: str, limit: int = 160) -> str:
    sentence = re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def extractive_summary(pages: list[Page], vectors: list[np.ndarray], words: list[str]) -> str:
    """A summary without an LLM: the topic words and the most central page's first sentence."""
    centre = centroid(vectors)
    best = max(range(len(pages)), key=lambda i: float(np.dot(vectors[i], centre)))
    page = pages[best]
    lead = _first_sentence(page.user_input or page.agent_response)
    speaker = page.user_speaker if page.user_input else page.agent_speaker
    topic = ", ".join(words[:5])
    return f"About {topic}. {speaker}: {lead}" if topic else f"{speaker}: {lead}"


def coldest(segments: list[Segment]) -> Segment | None:
    return min(segments, key=lambda s: s.heat.heat) if segments else None
