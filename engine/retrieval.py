"""Retrieval from all three tiers for one query: dense + BM25 + segments + time, fused, budgeted.

Holds no SQL: it composes the vault's searches and the in-memory vector mirrors.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from engine.memory import keywords, mid_term, when
from engine.records import (
    ASSISTANT_KNOWLEDGE,
    SHORT_TERM,
    SUPERSEDED,
    USER_FACT,
    Page,
    Retrieval,
    ScoredFact,
    ScoredPage,
)
from engine.vault.store import page_from_row

RRF_K = 20  # reciprocal-rank fusion constant (60 in Cormack et al.; 20 measured better here)


@dataclass(frozen=True)
class Weights:
    """How much each ranked list counts in the fusion.

    Measured on the LoCoMo development conversations (evidence recall@10, categories 1-4):
    ranking pages by their segment's relevance as a third list lowered recall (0.739 -> 0.706),
    because it repeats the dense signal at a coarser grain; segments still reach the prompt
    through their summaries and drive heat, eviction and persona analysis."""

    dense: float = 1.0
    keyword: float = 1.25
    segment: float = 0.0
    time: float = 1.0


def _fuse(
    rankings: dict[str, tuple[float, list[int]]],
) -> tuple[dict[int, float], dict[int, list[str]]]:
    scores: dict[int, float] = defaultdict(float)
    sources: dict[int, list[str]] = defaultdict(list)
    for name, (weight, ids) in rankings.items():
        for rank, item in enumerate(ids):
            scores[item] += weight / (RRF_K + rank + 1)
            sources[item].append(name)
    return scores, sources


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _nothing_to_search(memory) -> bool:
    """True when the vault holds no page, fact or profile slot yet."""
    return (
        len(memory.page_mirror) == 0
        and len(memory.fact_mirror) == 0
        and not memory.vault.slots(include_superseded=False)
    )


def retrieve(
    memory,
    query: str,
    *,
    max_pages: int | None = None,
    now: float | None = None,
    query_vector: np.ndarray | None = None,
    weights: Weights = Weights(),
) -> tuple[Retrieval, set[int]]:
    """Everything relevant to `query`; also returns the segment ids to count as visited."""
    started = time.perf_counter()
    now = time.time() if now is None else now
    settings, vault = memory.settings, memory.vault
    k = max_pages or settings.top_pages
    pool = max(50, 5 * k)
    if query_vector is None and _nothing_to_search(memory):
        # A new vault: the first answer need not wait for the embedder to load (seconds).
        elapsed = (time.perf_counter() - started) * 1000
        return Retrieval(query, (), (), (), (), (), (), elapsed_ms=elapsed), set()
    vector = (
        query_vector if query_vector is not None else memory.embedder.embed_one(query, kind="query")
    )
    short = [page_from_row(r) for r in vault.pages_in_tier(SHORT_TERM)]

    dense = _dense(memory, vector, pool, query)
    match = _keyword_match(vault, "pages_fts", query)
    lexical = vault.keyword_search("pages_fts", match, pool) if match else []
    segments = _top_segments(memory, vector, query, now)
    segment_pages: list[int] = []
    if segments and weights.segment:
        allowed = np.asarray(
            [pid for s in segments for pid in vault.page_ids_of_segment(s.id)], dtype=np.int64
        )
        segment_pages = [pid for pid, _ in memory.page_mirror.search(vector, pool, allowed=allowed)]
    timed: list[int] = []
    window = when.time_window(query, now)
    if window is not None:
        in_window = np.asarray(
            vault.page_ids_in_time_range(window[0], window[1], 5000), dtype=np.int64
        )
        if len(in_window):
            timed = [pid for pid, _ in memory.page_mirror.search(vector, pool, allowed=in_window)]

    scores, sources = _fuse(
        {
            "dense": (weights.dense, [pid for pid, _ in dense]),
            "keyword": (weights.keyword, [pid for pid, _ in lexical]),
            "segment": (weights.segment, segment_pages),
            "time": (weights.time, timed),
        }
    )
    _boost_neighbours(vault, scores, sources, limit=pool)
    ranked_ids = sorted(scores, key=lambda pid: -scores[pid])[: max(k, 1) * 2]
    pages_by_id = {p.id: p for p in map(page_from_row, vault.page_rows(ranked_ids))}

    facts, knowledge = _facts(memory, query, vector, settings)
    profile = tuple(vault.slots(include_superseded=False)[:40])
    budget = settings.context_budget_tokens
    budget -= sum(estimate_tokens(f"{s.name}: {s.value}") for s in profile)
    budget -= sum(estimate_tokens(f.fact.text) for f in facts + knowledge)
    budget -= sum(estimate_tokens(p.text()) for p in short)
    chosen: list[ScoredPage] = []
    for pid in ranked_ids:
        page = pages_by_id.get(pid)
        if page is None:
            continue
        cost = estimate_tokens(page.text())
        if chosen and cost > budget:
            continue
        chosen.append(ScoredPage(page=page, score=scores[pid], sources=tuple(sources[pid])))
        budget -= cost
        if len(chosen) >= k:
            break
    chains = _chain_summaries([c.page for c in chosen] + short)
    visited = {s.id for s in segments} | {c.page.segment_id for c in chosen if c.page.segment_id}
    result = Retrieval(
        query=query,
        short_term=tuple(short),
        pages=tuple(chosen),
        segments=tuple(segments),
        profile=profile,
        facts=tuple(facts),
        knowledge=tuple(knowledge),
        chain_summaries=chains,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )
    return result, visited


COMMON_TERM_SHARE = 0.2  # a term in more than 1 row in 5 says little about any row


def _keyword_match(vault, table: str, query: str) -> str:
    """The FTS query without terms that occur in most rows (like the names of the two people
    of a transcript, present on every page): they drown the rare terms that matter."""
    words = keywords.content_words(query)
    if not words:
        return ""
    rows = vault.count_rows("pages" if table == "pages_fts" else "facts")
    frequency = vault.document_frequency(table, [keywords.fts_term(w) for w in words])
    common = {
        w
        for w in words
        if rows >= 20 and frequency.get(keywords.fts_term(w), 0) > COMMON_TERM_SHARE * rows
    }
    if common == set(words):
        common = set()
    return keywords.fts_query(query, skip=common)


SPEAKER_BONUS = 0.1  # a turn spoken by someone the question names


NEIGHBOUR_SHARE = 0.25  # the question's words often sit in the exchange before the answer


def _boost_neighbours(
    vault, scores: dict[int, float], sources: dict[int, list[str]], limit: int
) -> None:
    """Give the exchanges just before and after each strong page a share of its score
    (measured on the LoCoMo dev set: recall@10 0.773 -> 0.817; any share 0.15-0.35 helps)."""
    top = sorted(scores, key=lambda pid: -scores[pid])[:limit]
    base = {pid: scores[pid] for pid in top}
    for page_id, around in vault.neighbour_ids(top).items():
        for neighbour in around:
            if neighbour is not None:
                scores[neighbour] = scores.get(neighbour, 0.0) + NEIGHBOUR_SHARE * base[page_id]
                if "neighbour" not in sources[neighbour]:
                    sources[neighbour].append("neighbour")


def _dense(memory, vector: np.ndarray, pool: int, query: str = "") -> list[tuple[int, float]]:
    """Pages by the best of their page vector and their two turn vectors; a turn whose speaker
    the question names ("What did Caroline research?") counts a little more."""
    best: dict[int, float] = {}
    for page_id, score in memory.page_mirror.search(vector, pool):
        best[page_id] = score
    turns = memory.turn_mirror.search(vector, 2 * pool)
    named = {w.lower() for w in keywords.tokens(query)}
    speakers: dict[int, dict] = {}
    if named and SPEAKER_BONUS:
        speakers = {
            p.id: p.meta
            for p in map(page_from_row, memory.vault.page_rows({r // 2 for r, _ in turns}))
        }
    for row_id, score in turns:
        page_id, side = divmod(row_id, 2)
        meta = speakers.get(page_id, {})
        speaker = str(meta.get("user_speaker" if side == 0 else "agent_speaker") or "").lower()
        if speaker and speaker in named:
            score += SPEAKER_BONUS
        if score > best.get(page_id, -2.0):
            best[page_id] = score
    return sorted(best.items(), key=lambda item: -item[1])[:pool]


def _top_segments(memory, vector: np.ndarray, query: str, now: float):
    ranked = memory.segment_index.rank(vector, query, memory.settings.top_segments)
    return [mid_term.segment_from_row(row, now, memory.settings) for _, row in ranked]


def _facts(
    memory, query: str, vector: np.ndarray, settings
) -> tuple[list[ScoredFact], list[ScoredFact]]:
    vault = memory.vault
    pool = 4 * (settings.top_facts + settings.top_knowledge) + 20
    dense = memory.fact_mirror.search(vector, pool)
    match = _keyword_match(vault, "facts_fts", query)
    lexical = vault.keyword_search("facts_fts", match, pool) if match else []
    scores, _ = _fuse(
        {"dense": (1.0, [i for i, _ in dense]), "keyword": (1.0, [i for i, _ in lexical])}
    )
    ranked = sorted(scores, key=lambda i: -scores[i])
    by_id = {f.id: f for f in vault.facts(None, include_superseded=False, ids=ranked)}
    facts, knowledge = [], []
    for fact_id in ranked:
        fact = by_id.get(fact_id)
        if fact is None or fact.status == SUPERSEDED:
            continue
        if fact.kind == USER_FACT and len(facts) < settings.top_facts:
            facts.append(ScoredFact(fact, scores[fact_id]))
        elif fact.kind == ASSISTANT_KNOWLEDGE and len(knowledge) < settings.top_knowledge:
            knowledge.append(ScoredFact(fact, scores[fact_id]))
    return facts, knowledge


def _chain_summaries(pages: list[Page], limit: int = 3) -> tuple[str, ...]:
    out: list[str] = []
    for page in pages:
        if page.chain_summary and page.chain_summary not in out:
            out.append(page.chain_summary)
        if len(out) >= limit:
            break
    return tuple(out)
