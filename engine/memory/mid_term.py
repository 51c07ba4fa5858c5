"""Mid-term memory: topic segments. Pages leaving the short-term queue join the segment
closest in meaning and words (cos + keyword Jaccard, the cos taken without the direction all
the memory's pages share), or start one; a segment's summary, keywords and centroid follow
its pages. Heat (engine/memory/heat.py) decides eviction."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import numpy as np

from engine.memory import chains, heat, keywords, short_term
from engine.memory.context import MemoryContext
from engine.memory.model import ConsolidationModel
from engine.records import Page, Segment, StoredSegment
from engine.settings import MemorySettings, plain_threshold
from engine.vault.jobs import ANALYSE_SEGMENT

CHUNK = 32  # pages moved from the queue to segments per transaction
FULL_REFRESH = 32  # segments up to this size are recomputed from all their pages

# JSON schema of the one structured call per evicted batch (capable models only).
BATCH_SCHEMA = {
    "type": "object",
    "properties": {
        "pages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "keywords": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "keywords"],
            },
        },
        "segments": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "summary": {"type": "string"},
                    "keywords": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "summary", "keywords"],
            },
        },
    },
    "required": ["pages", "segments"],
}


def segments(ctx: MemoryContext, include_archived: bool = False) -> list[Segment]:
    """The segments, hottest first."""
    now = ctx.clock()
    items = [heat.segment(s, now, ctx.settings) for s in ctx.vault.segments(include_archived)]
    return sorted(items, key=lambda s: -s.heat.heat)


# ---- the STM_OVERFLOW job: pages leave the queue in a batch and join segments ----------------


def overflow(ctx: MemoryContext, model: ConsolidationModel, job_id: int) -> None:
    """Move the pages leaving the short-term queue (short_term.leaving: the oldest by time)
    into segments, a chunk per transaction (an import of thousands of pages never holds the
    write lock for long); the job ends with the last. Which pages leave is decided once: the
    batch is the one the queue overflowed with, however the chunks cut it."""
    leaving = short_term.leaving(ctx.vault, ctx.settings)
    for start in range(0, max(len(leaving), 1), CHUNK):
        pages = short_term.in_order(ctx.vault, leaving[start : start + CHUNK])
        last = start + CHUNK >= len(leaving)
        touched = place(ctx, pages, job_id if last else None)
        ctx.notify("pages")
        ctx.notify("segments")
        if touched:
            llm_refresh(ctx, model, pages, list(touched))


def place(ctx: MemoryContext, pages: list[Page], finish_job: int | None) -> dict[int, int]:
    """Move `pages` into segments in one transaction (finishing the job with it, if given);
    returns how many pages each touched segment received."""
    vault, settings, index = ctx.vault, ctx.settings, ctx.segment_index
    vectors = vault.page_vectors([p.id for p in pages])
    page_keywords = {
        p.id: keywords.extract(f"{p.user_input}\n{p.agent_response}", 8) for p in pages
    }
    now = ctx.clock()
    touched: dict[int, int] = {}
    try:
        with vault.transaction():
            # read before it: a page forgotten since joins no segment, and its words and
            # vector go into no summary, keywords or centroid (nothing would take them out)
            kept = set(vault.existing_page_ids([p.id for p in pages]))
            pages = [p for p in pages if p.id in kept]
            # what all pages share, taken once per chunk: the segments' pages and this chunk
            background = index.background([vectors[p.id] for p in pages if p.id in vectors])
            threshold = settings.segment_threshold
            if background is None:  # too few pages to know it: plain cos, the paper's scale
                threshold = plain_threshold(threshold)
            for page in pages:
                vector, words = vectors[page.id], page_keywords[page.id]
                prev = vault.previous_page(page.conversation_id, page.timestamp, page.id)
                prev_vector = None
                if prev is not None:
                    prev_vector = vectors.get(prev.id)
                    if prev_vector is None:
                        prev_vector = vault.page_vectors([prev.id]).get(prev.id)
                linked = chains.continues(prev, prev_vector, page, vector, settings)
                summary = chains.running_summary(prev, linked, words)
                seg_id, _ = index.best(vector, words, threshold, background)
                if seg_id is None:
                    heat.make_room(vault, index, now, settings)  # before the new one joins
                    seg_id = vault.insert_segment("", words, vector, now)
                    index.put(_new_segment(seg_id, words, now), vector)
                vault.move_page_to_segment(
                    page.id, seg_id, prev.id if linked else None, summary, words
                )
                touched[seg_id] = touched.get(seg_id, 0) + 1
                _refresh(ctx, seg_id, now, vector, words)
            for seg_id in heat.hot(vault, now, settings):
                payload = {"segment_id": seg_id}
                if not vault.has_pending(ANALYSE_SEGMENT, payload):
                    vault.enqueue(ANALYSE_SEGMENT, payload, now)
            if finish_job is not None:
                vault.finish_job(finish_job)
    except BaseException:
        index.invalidate()  # it holds edits the rollback undid
        raise
    return touched


def _new_segment(seg_id: int, words: list[str], now: float) -> StoredSegment:
    """A segment as insert_segment stored it: no summary yet, no visits, no pages."""
    return StoredSegment(
        id=seg_id, summary="", keywords=tuple(words), created=now, last_access=now,
        visit_count=0, length=0, archived=False, page_count=0,
    )  # fmt: skip


def _refresh(
    ctx: MemoryContext, seg_id: int, now: float, vector: np.ndarray, words: list[str]
) -> None:
    """Update a segment after a page joined: from all its pages while it is small, then
    incrementally (running centroid, merged keywords), with a full refresh every
    FULL_REFRESH pages, so a long import stays linear."""
    vault, settings = ctx.vault, ctx.settings
    stored = vault.segments(include_archived=True, ids=[seg_id])[0]
    count = stored.page_count  # pages in the segment, this one included
    if count <= FULL_REFRESH or count % FULL_REFRESH == 0:
        summary, merged, centre = _from_pages(vault.pages_of_segment(seg_id), vault, settings)
    else:
        old = ctx.segment_index.vector(seg_id)
        centre = centroid([old * (count - 1), vector])
        merged = merge_keyword_lists(list(stored.keywords), words, settings.segment_keywords)
        summary = stored.summary
    vault.update_segment(
        seg_id, summary=summary, keywords=merged, vector=centre, length_delta=1, now=now
    )
    updated = replace(
        stored, summary=summary, keywords=tuple(merged), length=stored.length + 1, last_access=now
    )
    ctx.segment_index.put(updated, centre)


def _from_pages(
    members: list[Page], vault, settings: MemorySettings
) -> tuple[str, list[str], np.ndarray]:
    """(summary, keywords, centroid) of a segment computed from all its pages."""
    by_id = vault.page_vectors([p.id for p in members])
    vectors = [by_id[p.id] for p in members]
    merged = merged_keywords(members, settings.segment_keywords)
    return extractive_summary(members, vectors, merged), merged, centroid(vectors)


def recompute(vault, segment_id: int, settings: MemorySettings) -> None:
    """Rewrite a segment from the pages it still holds (after some were forgotten)."""
    members = vault.pages_of_segment(segment_id)
    if members:
        summary, words, centre = _from_pages(members, vault, settings)
        vault.rewrite_segment(segment_id, summary, words, centre)


def without_page(vault, segment: Segment, page_id: int, settings: MemorySettings) -> Segment | None:
    """`segment` as forgetting the page `page_id` will rewrite it (recompute), read only: its
    summary and keywords from the pages it keeps; None if it held that page alone. An edited
    question is answered before the exchange it replaces is forgotten, and the summary may
    say what that exchange said."""
    members = [p for p in vault.pages_of_segment(segment.id) if p.id != page_id]
    if not members:
        return None
    summary, words, _centre = _from_pages(members, vault, settings)
    return replace(segment, summary=summary, keywords=tuple(words), page_count=len(members))


def llm_refresh(
    ctx: MemoryContext, model: ConsolidationModel, pages: list[Page], segment_ids: list[int]
) -> None:
    """One structured call per evicted batch: better keywords and segment summaries."""
    if model.available() is None:
        return
    vault, settings = ctx.vault, ctx.settings
    kept = set(vault.existing_page_ids([p.id for p in pages]))  # none forgotten is sent
    pages = [p for p in pages if p.id in kept]
    if not pages:
        return
    now = ctx.clock()
    touched = [heat.segment(s, now, settings) for s in vault.segments(ids=segment_ids)]
    text = "\n".join(f"[page {p.id}] {p.text()}" for p in pages)
    current = "\n".join(f"[segment {s.id}] {s.summary}" for s in touched)
    messages = [
        {
            "role": "system",
            "content": "You organise a conversation memory. For each page give 3-8 "
            "topic keywords. For each segment write a one or two sentence summary of everything in it "
            "(its current summary plus the new pages) and 3-10 keywords. Answer with JSON only.",
        },
        {"role": "user", "content": f"Segments:\n{current}\n\nNew pages:\n{text}"},
    ]
    result = model.structured(messages, BATCH_SCHEMA)
    if not result:
        return
    with vault.transaction():
        # A forget while the model wrote: it read a page, or a summary quoting one, that is
        # gone now (the forget rewrote the summary). Its text would quote what was forgotten.
        if len(vault.existing_page_ids(list(kept))) < len(kept):
            return
        shown = {s.id: s.summary for s in touched}
        unchanged = {s.id for s in vault.segments(ids=segment_ids) if shown.get(s.id) == s.summary}
        for seg in result.get("segments", []):
            summary = str(seg.get("summary", "")).strip()
            if seg.get("id") in segment_ids and seg.get("id") in unchanged and summary:
                words = [str(w) for w in seg.get("keywords", []) if str(w).strip()][
                    : settings.segment_keywords
                ]
                vault.set_segment_text(int(seg["id"]), summary[:1000], words)
    ctx.notify("segments")


# ---- a segment's text and centroid, without an LLM -------------------------------------------


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
