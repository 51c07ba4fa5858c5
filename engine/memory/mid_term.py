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


class SegmentTable:
    """The active segments while pages are being placed: vectors in a growable matrix and
    keyword stem sets, so placing a page is one matrix product plus set overlaps."""

    def __init__(self, dimension: int) -> None:
        self.ids: list[int] = []
        self._matrix = np.zeros((64, dimension), dtype=np.float32)
        self.stems: dict[int, set[str]] = {}

    @classmethod
    def load(cls, vault) -> SegmentTable:
        ids, matrix = vault.segment_vectors()
        rows = {row[0]: row for row in vault.segment_rows(ids=ids)}
        dimension = (
            matrix.shape[1]
            if matrix is not None
            else int(vault.get_meta("embedder_dimension") or 1)
        )
        table = cls(dimension)
        for index, seg_id in enumerate(ids):
            table.add(seg_id, matrix[index], json.loads(rows[seg_id][2]) if seg_id in rows else [])
        return table

    def add(self, seg_id: int, vector: np.ndarray, words: list[str]) -> None:
        if len(self.ids) == len(self._matrix):
            self._matrix = np.vstack([self._matrix, np.zeros_like(self._matrix)])
        self._matrix[len(self.ids)] = vector
        self.ids.append(seg_id)
        self.stems[seg_id] = keywords.normalise(list(words))

    def vector(self, seg_id: int) -> np.ndarray:
        return self._matrix[self.ids.index(seg_id)].copy()

    def update(self, seg_id: int, vector: np.ndarray, words: list[str]) -> None:
        self._matrix[self.ids.index(seg_id)] = vector
        self.stems[seg_id] = keywords.normalise(list(words))

    def remove(self, seg_id: int) -> None:
        index = self.ids.index(seg_id)
        count = len(self.ids)
        self._matrix[index : count - 1] = self._matrix[index + 1 : count]
        self.ids.pop(index)
        self.stems.pop(seg_id, None)

    def best(
        self, vector: np.ndarray, page_words: list[str], threshold: float
    ) -> tuple[int | None, float]:
        """The segment a page joins: highest cos + Jaccard(stems), if it reaches the threshold."""
        if not self.ids:
            return None, 0.0
        cosines = self._matrix[: len(self.ids)] @ vector
        page_stems = keywords.normalise(list(page_words))
        order = np.argsort(-cosines)
        best_id, best_score = None, -2.0
        for index in order:
            cosine = float(cosines[index])
            if cosine + 1.0 < best_score:
                break  # sorted by cosine and Jaccard <= 1: nobody further down can win
            seg_id = self.ids[index]
            score = cosine + keywords.jaccard(page_stems, self.stems[seg_id])
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


def merge_keyword_lists(current: list[str], new: list[str], limit: int) -> list[str]:
    """A segment's keywords after a page joined: its ranked keywords weighted by rank, plus
    the page's keywords; counted by stem."""
    weights: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for rank, word in enumerate(current):
        key = keywords.stem(word)
        weights[key] += len(current) - rank
        surface.setdefault(key, word)
    for word in new:
        key = keywords.stem(word)
        weights[key] += 1
        surface.setdefault(key, word)
    return [surface[key] for key, _ in weights.most_common(limit)]


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
