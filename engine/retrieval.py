"""Retrieval from all three tiers for one query: dense + BM25 + segments + time, fused, budgeted.

Holds no SQL: it composes the vault's searches and the in-memory vector mirrors.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from engine.memory import heat, keywords, vocabulary, when
from engine.memory.context import MemoryContext
from engine.records import (
    ASSISTANT_KNOWLEDGE,
    SHORT_TERM,
    SUPERSEDED,
    USER_FACT,
    Fact,
    Page,
    Retrieval,
    ScoredFact,
    ScoredPage,
    ScoredTurn,
    turn_id,
    turn_page,
    turn_side,
)

# Reciprocal-rank fusion constant (60 in Cormack et al.). Chosen on the LoCoMo dev set by the
# same grid as the fusion baseline's, recall_turns@10 categories 1-4: 40: 0.738, 10: 0.761,
# 5: 0.771, 2: 0.773 (multi-hop 0.399 at 5, 0.383 at 2): 5 for the multi-hop tie-break.
RRF_K = 5

# How deep each list is read (turn and exchange vectors, the turns whose neighbours and speakers are
# weighed; the keyword lists half as deep, below) whatever number of turns the caller wants. It was
# 5 per page asked for, every list alike (50 at the app's 10 pages), while the eval asked for 20
# pages and so measured 100: the app ranked with a shallower pool than the figures it was tuned on.
# Dev recall_turns@10 (overall / multi-hop / @20): 50 0.846/0.558/0.891, 70 0.852/0.589, 100
# 0.859/0.600/0.892, 125 0.856/0.600, 150 0.854/0.589, 200 and 300 0.852/0.577. Deeper lists let
# turns ranked 50-100 in one list gather the other lists' and the neighbours' credit; much deeper,
# weak matches crowd in. The dev conversations have ~200 exchanges, so 100 is half of one; what
# depth suits a vault of 10k pages is not measured.
POOL = 100
# The keyword lists (BM25 pages, the expansion's pages) are read half as deep: their pages are
# weighed turn by turn, which is most of the deeper pool's cost, and their tail adds nothing.
# Dev, each at 50 with the rest at 100: keyword 0.859/0.600, expansion 0.859/0.600, both
# 0.859/0.600 (@20 0.892), both at 30 0.857/0.593; the turn vectors at 50 0.850/0.577, the
# exchange vectors 0.854/0.600, the neighbours' turns 0.843/0.562.
KEYWORD_POOL_SHARE = 0.5
# The least share of the memory budget (settings.context_budget_tokens) left to older exchanges
# after the profile, facts and knowledge: 40 profile entries and ten long facts must not crowd
# them out. Not a ranking constant: the eval's budget is unlimited.
OLDER_SHARE = 0.5


@dataclass(frozen=True)
class Weights:
    """How much each ranked list of turns counts in the fusion. Tuned on the LoCoMo dev set
    (recall_turns@10, categories 1-4, the other constants at their final values unless said)."""

    dense: float = 1.25  # the turn's own vector. 1.0 was the reference while the segment
    # list (a second copy of this ranking over the ~95% of pages its top segments hold) was on;
    # with that list off: 1.0 -> 0.839, 1.25 -> 0.848, 1.5 -> 0.840 (term hop off; halves
    # conv-26 0.846/0.859/0.851, conv-30 0.827/0.827/0.821)
    page: float = 0.5  # the whole exchange's vector: 0.25 -> 0.769, 0.5 -> 0.761 (RRF_K=10)
    keyword: float = 2.0  # BM25 pages, then query-term IDF in each turn: 1.25 -> 0.741,
    # 2.0 -> 0.749, 3.0 -> 0.741 (RRF_K=20)
    segment: float = 0.25  # two-stage read (off by default, see Stages)
    fact: float = 0.5  # facts -> their source turns: 0.5 -> 0.749, 1.0 -> 0.736 (RRF_K=20);
    # switching the stage off: 0.702 -> 0.671 on conv-26
    time: float = 4.0  # the period the question names: 1.0, 2.0 and 4.0 all 0.771 (few dev
    # questions name one); 4 lets a named date outrank turns that only share words with the
    # question (tests/test_retrieval_stages.py)
    hop: float = 0.25  # second hop (off by default, see Stages)
    # The first hop's rare words searched again (term_hop). Dev recall_turns@10 (overall /
    # multi-hop / adversarial) with the segment list on (hop pool 50, share 0.2): off
    # 0.843/0.573/0.880, 0.25 0.849/0.562/0.880, 0.5 0.849/0.562/0.866, 1.0 0.847/0.527/0.880;
    # final mix, 0.25 vs off: @10 0.848/0.579 both, @20 0.893 vs 0.884 (conv-26 0.898 vs
    # 0.891, conv-30 0.884 vs 0.871).
    term_hop: float = 0.25
    # The question's words widened to the vault's own words near them (expansion). Dev
    # recall_turns@10 overall / multi-hop / adversarial, min cos 0.6, 5 words each, share 0.05
    # (grid run on a prototype holding float32 word vectors): off 0.848/0.579/0.880; 0.25
    # 0.850/0.579/0.880, 0.5 0.858/0.598/0.866, 0.75 0.860/0.606/0.866, 1.0 0.857/0.595/0.866.
    # Halves at 0.75: conv-26 0.859 -> 0.877, conv-30 0.827 -> 0.827; chosen on conv-30 alone
    # (1.0, min cos 0.6: 0.839) conv-26 still gains (0.867). As shipped (int8 word vectors):
    # 0.859/0.600/0.866, conv-26 0.876, conv-30 0.827; @20 0.893 -> 0.892.
    expansion: float = 0.75


@dataclass(frozen=True)
class Stages:
    """Which stages run; `memoryos eval locomo` switches them on one by one (the ablation)."""

    # Off: the segment list (turns of the top segments' pages by their own vectors) moved
    # nothing that a heavier dense list does not. With the old placement 65-75% of a
    # conversation's pages sat in one segment (dev: 83+67+33 of 214 pages, 139 of 188), so the
    # top five segments held ~95% of the pages and the list was the dense list again: dev
    # recall_turns@10 with it at 0.25 0.843, without it 0.839, without it and dense 1.25
    # 0.848. Reserving slots for the best turn of each top segment not yet in the top 6 or 8
    # (coverage): 0.798 / 0.832. Placement now makes topics (46 and 35 segments, largest 33
    # and 45 pages, top five 39% / 56% of the pages) and the list is still no gain: off 0.848
    # (conv-26 0.859, conv-30 0.827); on, weight 0.25: 0.834 (0.848 / 0.808), segments ranked
    # topically 0.838 (0.854 / 0.808), weight 0.5 0.835 (0.856 / 0.796), 0.125 0.845 (0.851 /
    # 0.833), top 10 segments 0.843-0.845, top 3 0.837-0.846: no setting helps both halves.
    # Coverage again on these segments (the first 5-9 turns kept, then the best turn of each
    # of the top 3-10 segments not among them, 1-5 slots): 0.761-0.840, multi-hop 0.485-0.562.
    # Segments still rank for the prompt and count as visited.
    segments: bool = False
    facts: bool = True
    neighbours: bool = True
    time: bool = True
    # Off: on the dev set it moved recall_turns@10 0.771 -> 0.770 and multi-hop 0.399 -> 0.391
    # (weight 0.25, one seed; 0.5 with three seeds: 0.731 -> 0.716 without it, RRF_K=20).
    second_hop: bool = False
    # Names in the question matched to the speakers of turns: the question is embedded without
    # them, and turns by speakers it does not name count less (SPEAKER_OTHER).
    speakers: bool = True
    # Keyword search again with the rarest words of the first hop's best turns (names, places,
    # things: "home country" -> the turn that says which): see Weights.term_hop, _term_hop.
    term_hop: bool = True
    # Keyword search for the words the vault itself uses that mean nearly what the question's
    # words mean ("instruments" -> clarinet, violin): see Weights.expansion, _expansion_turns.
    expansion: bool = True
    # A turn that only asks ("Wow, that's awesome! What's your best camping memory?") counts
    # less: the answer to a question about the past is in what was told, not in what was asked
    # (ASKING, _only_asks).
    asking: bool = True


FLAT = Stages(
    segments=False,
    facts=False,
    neighbours=False,
    time=False,
    second_hop=False,
    speakers=False,
    term_hop=False,
    expansion=False,
    asking=False,
)


def _fuse(
    rankings: dict[str, tuple[float, list[tuple[int, int]]]],
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Reciprocal-rank fusion of (item, rank) lists; items sharing a rank tie (a page's turns)."""
    scores: dict[int, float] = defaultdict(float)
    sources: dict[int, list[str]] = defaultdict(list)
    for name, (weight, ranked) in rankings.items():
        if not weight:
            continue
        for item, rank in ranked:
            scores[item] += weight / (RRF_K + rank + 1)
            if name not in sources[item]:
                sources[item].append(name)
    return scores, sources


def _fuse_into(
    scores: dict[int, float], sources: dict[int, list[str]], name: str, weight: float, items
) -> None:
    """Add one more ranked list (best first) to a fusion already made (a later stage's)."""
    extra, extra_sources = _fuse({name: (weight, _ranked(items))})
    for item, score in extra.items():
        scores[item] = scores.get(item, 0.0) + score
        sources[item] += [s for s in extra_sources[item] if s not in sources[item]]


def _ranked(items: list[int]) -> list[tuple[int, int]]:
    return [(item, rank) for rank, item in enumerate(items)]


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
    memory: MemoryContext,
    query: str,
    *,
    max_pages: int | None = None,
    now: float | None = None,
    query_vector: np.ndarray | None = None,
    weights: Weights = Weights(),
    stages: Stages = Stages(),
) -> tuple[Retrieval, set[int]]:
    """Everything relevant to `query`; also returns the segment ids to count as visited.

    Ranks turns, not exchanges: a budget of k turns then holds k turns that matched, not k/2
    exchanges with their other halves. Pages (exchanges) are reported in the order of their
    best turn."""
    started = time.perf_counter()
    now = time.time() if now is None else now
    settings, vault = memory.settings, memory.vault
    k = max_pages or settings.top_pages
    max_turns = 2 * max(k, 1)
    pool = max(POOL, 5 * k)
    keyword_pool = int(pool * KEYWORD_POOL_SHARE)
    if query_vector is None and _nothing_to_search(memory):
        # A new vault: the first answer need not wait for the embedder to load (seconds).
        elapsed = (time.perf_counter() - started) * 1000
        return Retrieval(query, (), (), (), (), (), (), elapsed_ms=elapsed), set()
    short = vault.pages_in_tier(SHORT_TERM)
    match, idf = _keyword_terms(vault, "pages_fts", query)
    lexical = vault.keyword_search("pages_fts", match, keyword_pool) if match else []
    pages = _load_pages(vault, {p for p, _ in lexical})
    # Who speaks is read from the keyword hits and the recent exchanges, before the one
    # embedding: the question is embedded without the names of speakers it names. With the
    # names in, it sits nearest to turns that greet or praise the named person ("Wow,
    # Melanie!"), which are the other speaker's. Dev recall_turns@10 (overall / multi-hop /
    # single-hop): 0.829 / 0.498 / 0.882 with the names, 0.829 / 0.560 / 0.851 without them;
    # removing the names' direction from the vector instead: 0.824 / 0.542 / 0.851.
    # A caller's query_vector is used as given.
    named = _named_speakers(query, [*pages.values(), *short]) if stages.speakers else set()
    vector = (
        query_vector
        if query_vector is not None
        else memory.embedder.embed_one(_without_names(query, named), kind="query")
    )
    turn_hits = _related(memory.turn_mirror.search(vector, 2 * pool))
    page_hits = _related(memory.page_mirror.search(vector, pool))
    _load_missing(vault, pages, {turn_page(r) for r, _ in turn_hits})
    if stages.speakers:  # the dense hits may show speakers the keyword hits did not
        named = _named_speakers(query, [*pages.values(), *short])
    lists: dict[str, tuple[float, list[tuple[int, int]]]] = {
        "dense": (weights.dense, _ranked(_dense_turns(turn_hits))),
        "page": (
            weights.page,
            [(turn_id(p, s), r) for r, (p, _) in enumerate(page_hits) for s in (0, 1)],
        ),
        "keyword": (weights.keyword, _ranked(_keyword_turns(pages, lexical, idf))),
    }
    segments = _top_segments(memory, vector, query, now)
    if stages.segments and segments:
        allowed = vault.page_ids_of_segments([s.id for s in segments])  # order unused
        lists["segment"] = (weights.segment, _ranked(_turns_among(memory, vector, allowed, pool)))
    facts, knowledge = _facts(memory, query, vector, settings)
    if stages.facts:
        lists["fact"] = (weights.fact, _ranked(_fact_turns(vault, pages, facts + knowledge)))
    facts = _current_first(memory, query, facts)  # after the fusion: the turns are unchanged
    if stages.expansion:
        widened = _expansion_turns(memory, pages, query, named, keyword_pool)
        lists["expansion"] = (weights.expansion, _ranked(widened))
    window = when.time_window(query, now) if stages.time else None
    if window is not None:
        in_window = vault.page_ids_in_time_range(window[0], window[1], 5000)
        lists["time"] = (weights.time, _ranked(_turns_among(memory, vector, in_window, pool)))
        lists["dated"] = (weights.time, _ranked(_dated_turns(vault, pages, window, pool)))

    scores, sources = _fuse(lists)
    scores = {t: s for t, s in scores.items() if _has_side(pages, t)}
    if stages.second_hop:
        hop = _second_hop(memory, vector, scores, pool)
        _fuse_into(scores, sources, "hop", weights.hop, hop)
    if stages.term_hop:  # before the neighbours: what it finds lends its neighbours a share
        hop = _term_hop(vault, pages, scores, query, len(memory.page_mirror))
        _fuse_into(scores, sources, "term hop", weights.term_hop, hop)
    if stages.neighbours:
        _boost_neighbours(vault, pages, scores, sources, limit=pool)
    ranked = sorted(scores, key=lambda t: (-scores[t], t))
    if stages.asking:
        _discount_asking(vault, pages, ranked[:pool], scores)
        ranked.sort(key=lambda t: (-scores[t], t))
    if named:
        ranked = _prefer_named_speakers(vault, pages, ranked, scores, named, pool)

    profile = tuple(vault.slots(include_superseded=False)[:40])
    # The memory budget holds the profile, facts, knowledge and older exchanges. The recent
    # exchanges are the conversation itself, fitted to the model's context by the prompt: they
    # used to count here too, and three long answers in the queue left one older exchange, or
    # none. However many facts, older exchanges keep at least OLDER_SHARE of the budget.
    budget = settings.context_budget_tokens
    budget -= sum(estimate_tokens(s.text) for s in profile)
    budget -= sum(estimate_tokens(f.fact.text) for f in facts + knowledge)
    budget = max(budget, int(OLDER_SHARE * settings.context_budget_tokens))
    chosen: list[ScoredTurn] = []
    start = 0
    while start < len(ranked) and len(chosen) < max_turns:
        batch = ranked[start : start + 2 * max_turns]  # pages are read for the best turns only
        start += len(batch)
        _load_missing(vault, pages, {turn_page(t) for t in batch})
        for turn in batch:
            page = pages.get(turn_page(turn))
            text = page.turn_text(turn_side(turn)) if page is not None else ""
            if not text:
                continue  # gone, or the empty side of a one-sided exchange
            cost = estimate_tokens(text)
            if chosen and cost > budget:
                continue
            chosen.append(ScoredTurn(page.id, turn_side(turn), scores[turn], tuple(sources[turn])))
            budget -= cost
            if len(chosen) >= max_turns:
                break
    order: list[int] = []
    for item in chosen:
        if item.page_id not in order:
            order.append(item.page_id)
    best = {pid: max(t.score for t in chosen if t.page_id == pid) for pid in order}
    found = {
        pid: tuple(dict.fromkeys(s for t in chosen if t.page_id == pid for s in t.sources))
        for pid in order
    }
    scored_pages = tuple(ScoredPage(pages[pid], best[pid], found[pid]) for pid in order)
    changed = frozenset(vault.pages_since_changed(order + [p.id for p in short]))
    # A thread is summarised by its keywords, which cannot carry an out-of-date mark: an
    # exchange whose facts were replaced since does not bring its thread ("bristol, live").
    chains = _chain_summaries([p.page for p in scored_pages if p.page.id not in changed]
                              + [p for p in short if p.id not in changed])
    visited = {s.id for s in segments} | {
        p.page.segment_id for p in scored_pages if p.page.segment_id
    }
    result = Retrieval(
        query=query,
        short_term=tuple(short),
        pages=scored_pages,
        segments=tuple(segments),
        profile=profile,
        facts=tuple(facts),
        knowledge=tuple(knowledge),
        chain_summaries=chains,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        turns=tuple(chosen),
        changed=changed,
    )
    return result, visited


def _related(hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Only what shares something with the query: a rank list gives its first place full
    credit however weak the match, so items no closer than orthogonal are left out."""
    return [(i, score) for i, score in hits if score > 0.0]


def _load_pages(vault, ids: set[int]) -> dict[int, Page]:
    return {p.id: p for p in vault.pages(sorted(ids))} if ids else {}


def _load_missing(vault, pages: dict[int, Page], ids) -> None:
    """Add to `pages` those of `ids` not read yet (one batched read)."""
    pages.update(_load_pages(vault, set(ids) - set(pages)))


def _has_side(pages: dict[int, Page], turn: int) -> bool:
    """False for the empty side of a one-sided page, or a page not loaded (yet)."""
    page = pages.get(turn_page(turn))
    if page is None:
        return True  # loaded later, checked again then
    return bool(page.user_input if turn_side(turn) == 0 else page.agent_response)


COMMON_TERM_SHARE = 0.2  # a term in more than 1 row in 5 says little about any row


def _keyword_terms(vault, table: str, query: str) -> tuple[str, dict[str, float]]:
    """The FTS query without terms that occur in most rows (like the names of the two people
    of a transcript, present on every page): they drown the rare terms that matter. Also the
    inverse document frequency of each kept term (FTS stems), to weigh terms inside a turn."""
    words = keywords.search_words(query)
    if not words:
        return "", {}
    rows = vault.count_rows("pages" if table == "pages_fts" else "facts")
    terms = {w: keywords.fts_term(w) for w in words}
    frequency = vault.document_frequency(table, sorted(set(terms.values())))
    common = {
        w for w in words if rows >= 20 and frequency.get(terms[w], 0) > COMMON_TERM_SHARE * rows
    }
    if common == set(words):
        common = set()
    idf = {terms[w]: _idf(rows, frequency.get(terms[w], 0)) for w in words if w not in common}
    return keywords.fts_query(query, skip=common), idf


def _idf(rows: int, count: int) -> float:
    """BM25's inverse document frequency of a term held by `count` of `rows` rows."""
    return math.log(1 + (rows - count + 0.5) / (count + 0.5))


def _keyword_match(vault, table: str, query: str) -> str:
    return _keyword_terms(vault, table, query)[0]


def _dense_turns(hits: list[tuple[int, float]]) -> list[int]:
    """Turns by their own vector (the mirror returns them best first)."""
    return [row_id for row_id, _ in hits]


def _speaker(page: Page, side: int) -> str:
    return str(page.meta.get("user_speaker" if side == 0 else "agent_speaker") or "").lower()


def _named_speakers(query: str, pages: list[Page]) -> set[str]:
    """The speakers of these pages that the question names ("Melanie's kids": melanie)."""
    words = {w.removesuffix("'s") for w in keywords.tokens(query.replace("\u2019", "'"))}
    spoken = {_speaker(p, side) for p in pages for side in (0, 1)}
    return {w for w in words if w in spoken}


def _without_names(query: str, names: set[str]) -> str:
    """The question without the names of its speakers, if anything is left to search for."""
    if not names:
        return query
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")(?:['\u2019]s)?\b"
    topic = " ".join(re.sub(pattern, " ", query, flags=re.IGNORECASE).split())
    return topic if keywords.content_words(topic) else query


def _keyword_turns(
    pages: dict[int, Page], lexical: list[tuple[int, float]], idf: dict[str, float]
) -> list[int]:
    """The turns of the BM25 pages, by the summed IDF of the query terms each turn holds
    (the page's BM25 rank breaks ties): the matching half of an exchange comes first."""
    scored = []
    for rank, (page_id, _) in enumerate(lexical):
        page = pages.get(page_id)
        if page is None:
            continue
        for side, text in ((0, page.user_input), (1, page.agent_response)):
            held = _held_terms(text) if text else frozenset()
            weight = sum(v for term, v in idf.items() if term in held)
            if weight > 0:
                scored.append((-weight, rank, turn_id(page_id, side)))
    scored.sort()
    return [turn for _, _, turn in scored]


@lru_cache(maxsize=8192)  # the same turns come back question after question
def _held_terms(text: str) -> frozenset[str]:
    """The FTS terms of a text's words (a turn's or the question's, compared in _keyword_turns)."""
    return frozenset(keywords.fts_term(w) for w in keywords.tokens(text))


@lru_cache(maxsize=8192)
def _resolved_lower(text: str, timestamp: float) -> str:
    """A turn with its relative dates resolved from when it was said, lower-cased."""
    return when.resolve_relative(text, timestamp).lower()


def _turns_among(memory, vector: np.ndarray, page_ids: list[int], pool: int) -> list[int]:
    """The best turns of some pages by their own vectors."""
    if not page_ids:
        return []
    # both turns of each page, the one rule applied to arrays (up to 5,000 pages a window)
    allowed = turn_id(np.asarray(page_ids, dtype=np.int64)[:, None], np.arange(2)).ravel()
    return [row for row, _ in _related(memory.turn_mirror.search(vector, pool, allowed=allowed))]


def _fact_turns(vault, pages: dict[int, Page], facts: list[ScoredFact]) -> list[int]:
    """Facts lead back to the turns they were read from: the side whose speaker the fact
    names ("Caroline: I ..."), or both sides when it names none."""
    _load_missing(vault, pages, {pid for f in facts for pid in f.fact.source_page_ids})
    out: list[int] = []
    for item in facts:
        speaker = item.fact.text.split(":", 1)[0].strip().lower() if ":" in item.fact.text else ""
        for page_id in item.fact.source_page_ids:
            page = pages.get(page_id)
            if page is None:
                continue
            sides = [
                side
                for side, key in ((0, "user_speaker"), (1, "agent_speaker"))
                if speaker and str(page.meta.get(key) or "").lower() == speaker
            ] or [0, 1]
            out += [turn_id(page_id, s) for s in sides if turn_id(page_id, s) not in out]
    return out


def _dated_turns(
    vault, pages: dict[int, Page], window: tuple[float, float], pool: int
) -> list[int]:
    """Turns that name a day of the window, as written or as resolved when they were stored
    ("yesterday [7 May 2023]"): what was said on the 8th about the 7th."""
    phrases = when.date_phrases(window)
    match = " OR ".join(f'"{p}"' for p in phrases)
    hits = vault.keyword_search("pages_fts", match, pool) if match else []
    _load_missing(vault, pages, {p for p, _ in hits})
    wanted = [p.lower() for p in phrases]
    out: list[int] = []
    for page_id, _ in hits:
        page = pages.get(page_id)
        if page is None:
            continue
        for side in (0, 1):
            text = _resolved_lower(page.turn_text(side), page.timestamp)
            if text and any(p in text for p in wanted):
                out.append(turn_id(page_id, side))
    return out


# The term hop: words of the best TERM_HOP_SEEDS turns that the question does not hold, the
# TERM_HOP_TERMS rarest of them that occur on another page too (a word only the seed holds
# finds nothing new) and on at most TERM_HOP_SHARE of the pages, searched in TERM_HOP_POOL
# pages. Dev recall_turns@10 (overall / multi-hop), weight 0.5, segment list on, pool 50,
# share 0.2: seeds 1 0.842/0.567, 2 0.849/0.562, 3 0.840/0.562; terms 2 0.845/0.562, 4
# 0.849/0.562, 8 0.844/0.556; only words within 2-4 of a question word: 0.846-0.847 /
# 0.573-0.579; capitalised words only: 0.843/0.573 (no change); seeds from the named
# speaker's turns only: 0.845/0.562; after the neighbours: 0.847/0.573. Final mix, @20:
# pool 50, 20 and 10 all 0.893; share 0.2, 0.1 and 0.05 0.893, 0.02 0.888. Pool 10 and
# share 0.05 keep its cost at 10k pages under 1 ms (pool 50, share 0.2: +4-5 ms).
TERM_HOP_SEEDS = 2
TERM_HOP_TERMS = 4
TERM_HOP_POOL = 10
TERM_HOP_SHARE = 0.05


def _term_hop(
    vault, pages: dict[int, Page], scores: dict[int, float], query: str, rows: int
) -> list[int]:
    """Turns that hold the rare words of the first hop's best turns (pseudo-relevance feedback
    on keywords): a multi-part question's other part often shares a name or a thing with the
    part found ("moved from my home country" -> "my home country, Sweden")."""
    seeds = sorted(scores, key=lambda t: (-scores[t], t))[:TERM_HOP_SEEDS]
    _load_missing(vault, pages, {turn_page(t) for t in seeds})
    asked = _held_terms(query)
    own = {turn_page(t) for t in seeds}
    spoken = {_speaker(pages[p], side) for p in own if p in pages for side in (0, 1)}
    found: dict[str, str] = {}  # FTS term -> the word as written
    for turn in seeds:
        page = pages.get(turn_page(turn))
        text = page.turn_text(turn_side(turn)) if page is not None else ""
        for word in keywords.content_words(text):
            term = keywords.fts_term(word)
            if term not in asked and word not in spoken and len(word) > 2:
                found.setdefault(term, word)
    if not found:
        return []
    frequency = vault.document_frequency("pages_fts", sorted(found))
    rare = sorted(
        (count, term)
        for term, count in frequency.items()
        if 2 <= count <= max(2, TERM_HOP_SHARE * rows)
    )[:TERM_HOP_TERMS]
    if not rare:
        return []
    idf = {term: _idf(rows, count) for count, term in rare}
    return _turns_saying(vault, pages, found, idf, TERM_HOP_POOL, skip=own)


def _turns_saying(
    vault,
    pages: dict[int, Page],
    written: dict[str, str],
    weight: dict[str, float],
    limit: int,
    skip: set[int] = frozenset(),
) -> list[int]:
    """Turns of the best `limit` pages (but `skip`) holding any term of `weight` (searched as
    `written`, the word as the pages write it), by the summed weight of the terms they hold."""
    match = " OR ".join(f'"{written[term]}"' for term in weight)
    hits = [(p, s) for p, s in vault.keyword_search("pages_fts", match, limit) if p not in skip]
    _load_missing(vault, pages, {p for p, _ in hits})
    return _keyword_turns(pages, hits, weight)


# The expansion: for each word of the question (speakers' names aside), the EXPANSION_WORDS
# words of the vault's vocabulary nearest it with cosine >= EXPANSION_MIN_COS, kept if they
# occur on at most EXPANSION_SHARE of the pages. Dev recall_turns@10 (overall / multi-hop /
# adversarial), weight 0.75: min cos 0.5 0.856-0.859, 0.55 0.860/0.606/0.852, 0.6
# 0.860/0.606/0.866, 0.65 0.857/0.593/0.866, 0.7 0.854/0.598/0.866; words 3, 5 and 10 the same
# at 0.6; share 0.05 and 0.2 the same at 0.6 (0.2 lets common words in: kept at 0.05). Words
# of letters only in the vocabulary: 0.856 (hyphenated and possessive words kept: 0.859). With
# "activities" -> hobby, dancing, games; "camped" -> camping, campfire, hike; "pets" -> dog,
# cat. Costs one vocabulary scan per question word and one keyword search.
EXPANSION_WORDS = 5
EXPANSION_MIN_COS = 0.6
EXPANSION_SHARE = 0.05


def _expansion_turns(
    memory, pages: dict[int, Page], query: str, named: set[str], pool: int
) -> list[int]:
    """Turns that hold words near the question's words in meaning, by the summed cosine x IDF
    of those they hold: what keyword search misses for want of the very word, and a turn's
    vector blurs among its other words."""
    vault = memory.vault
    words = [w for w in keywords.content_words(query) if w.removesuffix("'s") not in named]
    near = vocabulary.similar(
        memory,
        words,
        per_word=EXPANSION_WORDS,
        min_cos=EXPANSION_MIN_COS,
        exclude=_held_terms(query),
    )
    if not near:
        return []
    rows = len(memory.page_mirror)
    frequency = vault.document_frequency("pages_fts", sorted(near))
    kept = {t: c for t, c in frequency.items() if 1 <= c <= max(2, EXPANSION_SHARE * rows)}
    if not kept:
        return []
    weight = {term: near[term][1] * _idf(rows, kept[term]) for term in sorted(kept)}
    written = {term: word for term, (word, _) in near.items()}
    return _turns_saying(vault, pages, written, weight, pool)


HOP_SEEDS = 1  # the first hop's best turns that steer the second (1 and 3: see Stages)


def _second_hop(memory, vector: np.ndarray, scores: dict[int, float], pool: int) -> list[int]:
    """Turns near the query moved towards the first hop's best turns (pseudo-relevance
    feedback): what a multi-part question needs often shares the found part's topic words."""
    seeds = sorted(scores, key=lambda t: (-scores[t], t))[:HOP_SEEDS]
    found = memory.turn_mirror.vectors(seeds)
    if not found:
        return []
    moved = vector + np.mean(list(found.values()), axis=0)
    moved = moved / (np.linalg.norm(moved) or 1.0)
    return [row for row, _ in _related(memory.turn_mirror.search(moved.astype(np.float32), pool))]


# The question's words often sit in the turn before the answer. Dev recall_turns@10 with the
# stage off 0.664, share 0.25 0.702 (conv-26); 0.4 -> 0.741 vs 0.25 -> 0.731 on both. With
# the named-speakers stage (overall / multi-hop; other-speaker factor 0.3): 0.3 0.849/0.606,
# 0.4 0.841/0.566, 0.5 0.835/0.554; with the final factor 0.5: 0.3 0.843/0.573, 0.4 0.838/0.538.
NEIGHBOUR_SHARE = 0.3
# The reply to a strong turn that asks something is where its answer usually is. Dev
# recall_turns@10: 0.4 (as any neighbour) 0.771, 0.5 0.781, 0.6 0.786 (multi-hop 0.409),
# 0.7 0.782, 0.8 0.775, 1.0 0.775; with 0.6, NEIGHBOUR_SHARE 0.3 0.777, 0.5 0.782.
ANSWER_SHARE = 0.6


def _boost_neighbours(
    vault,
    pages: dict[int, Page],
    scores: dict[int, float],
    sources: dict[int, list[str]],
    limit: int,
) -> None:
    """Give the turns just before and after each strong turn a share of its score."""
    top = sorted(scores, key=lambda t: (-scores[t], t))[:limit]
    base = {t: scores[t] for t in top}
    around = vault.neighbour_ids(sorted({turn_page(t) for t in top}))

    def last_side(page_id: int) -> int:  # a page not read yet: most exchanges have a reply
        page = pages.get(page_id)
        return 1 if page is None or page.agent_response else 0

    for turn in top:
        page_id, side = turn_page(turn), turn_side(turn)
        before, after = around.get(page_id, (None, None))
        near = []  # (turn, True when it follows `turn`)
        if side == 1:
            near.append((turn_id(page_id, 0), False))
            if after is not None:
                near.append((turn_id(after, 0), True))
        else:
            if _has_side(pages, turn_id(page_id, 1)):
                near.append((turn_id(page_id, 1), True))
            if before is not None:
                near.append((turn_id(before, last_side(before)), False))
        asks = "?" in (pages[page_id].turn_text(side) if page_id in pages else "")
        for neighbour, follows in near:
            share = ANSWER_SHARE if follows and asks else NEIGHBOUR_SHARE
            scores[neighbour] = scores.get(neighbour, 0.0) + share * base[turn]
            if "neighbour" not in sources[neighbour]:
                sources[neighbour].append("neighbour")


# Score factor for a turn by a speaker the question does not name. Dev recall_turns@10,
# question embedded without the names (overall 1-4 / multi-hop / adversarial, category 5,
# whose questions name the wrong person and whose evidence is the other speaker's turn):
# 1.0 0.786/0.418/0.944, 0.7 0.807/0.484/0.915, 0.5 0.843/0.573/0.880, 0.3 0.849/0.595/0.634.
# 0.5: a question that names the wrong person must still find who really said it. Applied
# after the neighbour shares: before them, 0.781/0.430 (at 0.3, names kept in the query).
SPEAKER_OTHER = 0.5


# Score factor for a turn that only asks (_only_asks). Dev recall_turns@10 (overall / multi-hop
# / adversarial; conv-26, conv-30), against 0.859 / 0.600 / 0.866 (0.876, 0.827) without it:
# 0.6 0.862 / 0.608, 0.7 0.864 / 0.608 / 0.894 (0.878, 0.839), 0.8 0.864 / 0.608 / 0.866;
# 0.3 and 0.5 (without the first-person guard below) 0.858 and 0.862. The turns it lowers are
# the other speaker's "What do you love most about camping?" that ranked above the answers.
# Without the guard the same 0.864 for limits of 6-12 words, but 0.858 at 20.
ASKING = 0.7
# What else an asking turn may say: sentences up to this many words with no first person in
# them ("Wow, Mel, that's awesome!"). A sentence about oneself ("I adopted a dog last week.
# Any tips?") is something told, so that turn is not discounted. Dev, at ASKING 0.7: 6, 8, 10,
# 12 and 20 words all 0.864 / 0.608 (adversarial 0.866-0.894).
REACTION_WORDS = 12
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
# Wider than the persona's list (engine/memory/persona_patterns.py), which leaves out us and ours:
# one list for both (this one, plus "ourselves") made the persona also keep sentences whose only
# first-person word is "us" or "ours", and cost dev 0.864 / 0.608 -> 0.863 / 0.600.
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours)\b",
    re.IGNORECASE,
)


def _only_asks(text: str) -> bool:
    """True for a turn that ends in a question and says nothing else of its own: its other
    sentences, if any, are short reactions without "I", "my", "we"..."""
    sentences = [s for s in _SENTENCE_BREAK.split(text.strip()) if s]
    if not sentences or not sentences[-1].endswith("?"):
        return False
    return all(
        s.endswith("?")
        or (len(s.split()) <= REACTION_WORDS and not _FIRST_PERSON.search(s))
        for s in sentences
    )


def _discount_asking(
    vault, pages: dict[int, Page], head: list[int], scores: dict[int, float]
) -> None:
    """Turns of `head` (the best of the pool) that only ask (_only_asks) count ASKING of their
    score."""
    _load_missing(vault, pages, {turn_page(t) for t in head})
    for turn in head:
        page = pages.get(turn_page(turn))
        if page is not None and _only_asks(page.turn_text(turn_side(turn))):
            scores[turn] *= ASKING


def _prefer_named_speakers(
    vault,
    pages: dict[int, Page],
    ranked: list[int],
    scores: dict[int, float],
    named: set[str],
    pool: int,
) -> list[int]:
    """When the question names who spoke ("What has Melanie painted?"), turns by others
    count less: their words about the named person are second-hand."""
    head = ranked[:pool]
    _load_missing(vault, pages, {turn_page(t) for t in head})
    for turn in head:
        page = pages.get(turn_page(turn))
        who = _speaker(page, turn_side(turn)) if page is not None else ""
        if who and who not in named:
            scores[turn] *= SPEAKER_OTHER
    head.sort(key=lambda t: (-scores[t], t))
    return head + ranked[pool:]


# Segments are ranked for a question as placement compares them: the cos without the
# direction all pages share (a big segment is not near every question for being big). With
# the segment list on (dev, recall_turns@10): 0.838 ranked so, 0.834 by plain cos; off, the
# ranking only chooses the segments the prompt shows and counts as visited.
TOPICAL_SEGMENTS = True


def _top_segments(memory, vector: np.ndarray, query: str, now: float):
    ranked = memory.segment_index.rank(
        vector, query, memory.settings.top_segments, topical=TOPICAL_SEGMENTS
    )
    return [heat.segment(stored, now, memory.settings) for _, stored in ranked]


def _facts(
    memory, query: str, vector: np.ndarray, settings
) -> tuple[list[ScoredFact], list[ScoredFact]]:
    vault = memory.vault
    pool = 4 * (settings.top_facts + settings.top_knowledge) + 20
    dense = _related(memory.fact_mirror.search(vector, pool))
    match = _keyword_match(vault, "facts_fts", query)
    lexical = vault.keyword_search("facts_fts", match, pool) if match else []
    scores, _ = _fuse(
        {
            "dense": (1.0, _ranked([i for i, _ in dense])),
            "keyword": (1.0, _ranked([i for i, _ in lexical])),
        }
    )
    # A tie (one fact first by meaning, another first by words) goes to meaning: for "What is
    # my cat's name?" the cat fact, not "My name is Sam", which only shares the word "name".
    closeness = {fact_id: rank for rank, (fact_id, _) in enumerate(dense)}
    ranked = sorted(scores, key=lambda i: (-scores[i], closeness.get(i, len(closeness))))
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
    said = _said_at(vault, facts + knowledge)
    return _dated(facts, said), _dated(knowledge, said)


# Two chosen facts are about the same thing ("My levothyroxine went up to 75 micrograms", "My
# levothyroxine is now 88 micrograms") when their vectors (the fact mirror's) have at least this
# cosine and they hold the same words of the question. Measured with all-MiniLM-L6-v2 on pairs
# of sentences written for it (not LoCoMo): 22 of one thing said twice, the second a change (a
# dose, a rent, a flight, a gym day, a therapist, a sister's city), 0.44 to 0.94, 13 >= 0.72;
# 24 of two things (another medicine, pet, drink, person), 0.04 to 0.82, one >= 0.72: "My
# sister Anna lives in Oslo" / "My mother lives in Oslo" 0.82, which the question's words tell
# apart (asked about the sister, one holds "sister", the other not); three at 0.70-0.72 ("My
# best friend is Kari" / "My boss is Kari", a rent and a salary, a sister and a brother in
# Oslo). A pair missed keeps its rank order; a pair joined wrongly puts a newer, other fact
# first, so the threshold errs high. Not caught: "I take 100 micrograms now instead of 88"
# beside "My levothyroxine is now 88 micrograms" (0.51; engine/memory replaces that one).
SAME_THING_COS = 0.72


def _current_first(memory, query: str, facts: list[ScoredFact]) -> list[ScoredFact]:
    """`facts` (chosen and ranked for `query`) with each group about the same thing
    (SAME_THING_COS) in the order it was said, newest first, in the places the group holds: a
    prompt with room for one dose shows the current one, not the first ever said. Which facts
    are chosen, and where each group stands, is unchanged."""
    if len(facts) < 2:
        return facts
    vectors = memory.fact_mirror.vectors([item.fact.id for item in facts])
    asked = keywords.normalise(keywords.content_words(query))
    held = [asked & keywords.normalise(keywords.content_words(f.fact.text)) for f in facts]
    group = list(range(len(facts)))  # union-find: each place's link towards its group's root

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, j in itertools.combinations(range(len(facts)), 2):
        a, b = vectors.get(facts[i].fact.id), vectors.get(facts[j].fact.id)
        if a is None or b is None or held[i] != held[j] or float(a @ b) < SAME_THING_COS:
            continue
        group[root(j)] = root(i)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(facts)):
        members[root(i)].append(i)
    joined = [places for places in members.values() if len(places) > 1]
    if not joined:
        return facts
    said = _said_last(memory.vault, [facts[i].fact for places in joined for i in places])
    out = list(facts)
    for places in joined:
        newest = sorted(places, key=lambda i: (-said.get(facts[i].fact.id, 0.0), i))
        for place, i in zip(places, newest, strict=True):
            out[place] = facts[i]
    return out


def _said_last(vault, facts: list[Fact]) -> dict[int, float]:
    """By fact id, when the last exchange it came from was said (an imported exchange: when it
    was said, not imported); a fact with no exchange left (typed in Privacy): when made."""
    pages = _load_pages(vault, {i for fact in facts for i in fact.source_page_ids})
    return {
        fact.id: max(
            (pages[i].timestamp for i in fact.source_page_ids if i in pages),
            default=fact.created,
        )
        for fact in facts
    }


def _said_at(vault, items: list[ScoredFact]) -> dict[int, float]:
    """By page id, when the exchange was stored that each fact with an unresolved relative
    date came from: one read for all of them, none when no fact says "yesterday" or the like."""
    ids = {
        item.fact.source_page_ids[0]
        for item in items
        if item.fact.source_page_ids and when.undated(item.fact.text)
    }
    return {page.id: page.timestamp for page in _load_pages(vault, ids).values()}


def _dated(items: list[ScoredFact], said: dict[int, float]) -> list[ScoredFact]:
    """A fact keeps the words that were said ("my dog chewed my bow yesterday"); shown to a
    model days later, each relative date in it gets the day it meant, from the exchange the fact
    came from. Ranking is not affected: the facts are already chosen."""
    out = []
    for item in items:
        ids = item.fact.source_page_ids
        if ids and ids[0] in said:
            text = when.dated(item.fact.text, said[ids[0]])
            item = replace(item, fact=replace(item.fact, text=text))
        out.append(item)
    return out


def dated_facts(vault, facts: list[Fact]) -> list[Fact]:
    """`facts` as a prompt shows them (_dated): "Next Friday [4 December 2026] I fly to Lisbon",
    the day meant when the fact was said, never today's. For lists of what the model read."""
    items = [ScoredFact(fact, 0.0) for fact in facts]
    return [item.fact for item in _dated(items, _said_at(vault, items))]


def _chain_summaries(pages: list[Page], limit: int = 3) -> tuple[str, ...]:
    out: list[str] = []
    for page in pages:
        if page.chain_summary and page.chain_summary not in out:
            out.append(page.chain_summary)
        if len(out) >= limit:
            break
    return tuple(out)
