"""Retrieval from all three tiers for one query: dense + BM25 + segments + time, fused, budgeted.

Holds no SQL: it composes the vault's searches and the in-memory vector mirrors. The ranked
lists and their fusion are in retrieval_lists.py, what moves a fused turn's score in
retrieval_scores.py, the facts chosen for the question in retrieval_facts.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engine.memory import heat, when
from engine.memory.context import MemoryContext
from engine.question_parts import interleaved, question_parts
from engine.records import (
    SHORT_TERM,
    Page,
    Retrieval,
    ScoredPage,
    ScoredTurn,
    turn_id,
    turn_page,
    turn_side,
)
from engine.retrieval_facts import choose_facts, current_first, dated_profile
from engine.retrieval_lists import (
    dated_turns,
    dense_turns,
    expansion_turns,
    fact_turns,
    fuse,
    fuse_into,
    has_side,
    keyword_terms,
    keyword_turns,
    load_missing,
    load_pages,
    ranked,
    related,
    second_hop,
    term_hop,
    turns_among,
)
from engine.retrieval_scores import (
    boost_neighbours,
    discount_asking,
    named_speakers,
    prefer_named_speakers,
    without_names,
)

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
    # them, and turns by speakers it does not name count less (retrieval_scores.SPEAKER_OTHER).
    speakers: bool = True
    # Keyword search again with the rarest words of the first hop's best turns (names, places,
    # things: "home country" -> the turn that says which): see Weights.term_hop,
    # retrieval_lists.term_hop.
    term_hop: bool = True
    # Keyword search for the words the vault itself uses that mean nearly what the question's
    # words mean ("instruments" -> clarinet, violin): see Weights.expansion,
    # retrieval_lists.expansion_turns.
    expansion: bool = True
    # A turn that only asks ("Wow, that's awesome! What's your best camping memory?") counts
    # less: the answer to a question about the past is in what was told, not in what was asked
    # (retrieval_scores.ASKING, only_asks).
    asking: bool = True
    # A question that asks two things is retrieved for whole and part by part, the rankings'
    # turns taken in turn (engine/question_parts.py; no development question is split, so no
    # dev figure).
    parts: bool = True


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
    parts=False,
)


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
    parts = question_parts(query) if stages.parts and query_vector is None else [query]
    # Asked in parts, the whole question is ranked too and leads: a part may lean on the rest
    # ("…, and what did Melanie think?"), and the whole keeps its best turns.
    queries = [query, *parts] if len(parts) > 1 else parts
    rankings = [
        _rank(memory, text, query_vector, now, weights, stages, pool, keyword_pool, short)
        for text in queries
    ]
    turns, scores, sources, pages, facts, knowledge, segments = _merged(rankings)

    profile = dated_profile(vault, tuple(vault.slots(include_superseded=False)[:40]))
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
    while start < len(turns) and len(chosen) < max_turns:
        batch = turns[start : start + 2 * max_turns]  # pages are read for the best turns only
        start += len(batch)
        load_missing(vault, pages, {turn_page(t) for t in batch})
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


@dataclass
class _Ranking:
    """One question's (or one part's) turns, best first, with what the prompt takes beside them."""

    turns: list[int]
    scores: dict[int, float]
    sources: dict[int, list[str]]
    pages: dict[int, Page]
    facts: list
    knowledge: list
    segments: list


def _rank(memory, query, query_vector, now, weights, stages, pool, keyword_pool, short) -> _Ranking:
    """Every list for `query`, fused, then moved by neighbours, asking and speakers."""
    settings, vault = memory.settings, memory.vault
    match, idf = keyword_terms(vault, "pages_fts", query)
    lexical = vault.keyword_search("pages_fts", match, keyword_pool) if match else []
    pages = load_pages(vault, {p for p, _ in lexical})
    # Who speaks is read from the keyword hits and the recent exchanges, before the one
    # embedding: the question is embedded without the names of speakers it names. With the
    # names in, it sits nearest to turns that greet or praise the named person ("Wow,
    # Melanie!"), which are the other speaker's. Dev recall_turns@10 (overall / multi-hop /
    # single-hop): 0.829 / 0.498 / 0.882 with the names, 0.829 / 0.560 / 0.851 without them;
    # removing the names' direction from the vector instead: 0.824 / 0.542 / 0.851.
    # A caller's query_vector is used as given.
    named = named_speakers(query, [*pages.values(), *short]) if stages.speakers else set()
    vector = (
        query_vector
        if query_vector is not None
        else memory.embedder.embed_one(without_names(query, named), kind="query")
    )
    turn_hits = related(memory.turn_mirror.search(vector, 2 * pool))
    page_hits = related(memory.page_mirror.search(vector, pool))
    load_missing(vault, pages, {turn_page(r) for r, _ in turn_hits})
    if stages.speakers:  # the dense hits may show speakers the keyword hits did not
        named = named_speakers(query, [*pages.values(), *short])
    lists: dict[str, tuple[float, list[tuple[int, int]]]] = {
        "dense": (weights.dense, ranked(dense_turns(turn_hits))),
        "page": (
            weights.page,
            [(turn_id(p, s), r) for r, (p, _) in enumerate(page_hits) for s in (0, 1)],
        ),
        "keyword": (weights.keyword, ranked(keyword_turns(pages, lexical, idf))),
    }
    segments = _top_segments(memory, vector, query, now)
    if stages.segments and segments:
        allowed = vault.page_ids_of_segments([s.id for s in segments])  # order unused
        lists["segment"] = (weights.segment, ranked(turns_among(memory, vector, allowed, pool)))
    facts, knowledge = choose_facts(memory, query, vector, settings)
    if stages.facts:
        lists["fact"] = (weights.fact, ranked(fact_turns(vault, pages, facts + knowledge)))
    facts = current_first(memory, query, facts)  # after the fusion: the turns are unchanged
    if stages.expansion:
        widened = expansion_turns(memory, pages, query, named, keyword_pool)
        lists["expansion"] = (weights.expansion, ranked(widened))
    window = when.time_window(query, now) if stages.time else None
    if window is not None:
        in_window = vault.page_ids_in_time_range(window[0], window[1], 5000)
        lists["time"] = (weights.time, ranked(turns_among(memory, vector, in_window, pool)))
        lists["dated"] = (weights.time, ranked(dated_turns(vault, pages, window, pool)))

    scores, sources = fuse(lists)
    scores = {t: s for t, s in scores.items() if has_side(pages, t)}
    if stages.second_hop:
        hop = second_hop(memory, vector, scores, pool)
        fuse_into(scores, sources, "hop", weights.hop, hop)
    if stages.term_hop:  # before the neighbours: what it finds lends its neighbours a share
        hop = term_hop(vault, pages, scores, query, len(memory.page_mirror))
        fuse_into(scores, sources, "term hop", weights.term_hop, hop)
    if stages.neighbours:
        boost_neighbours(vault, pages, scores, sources, limit=pool)
    turns = sorted(scores, key=lambda t: (-scores[t], t))
    if stages.asking:
        discount_asking(vault, pages, turns[:pool], scores)
        turns.sort(key=lambda t: (-scores[t], t))
    if named:
        turns = prefer_named_speakers(vault, pages, turns, scores, named, pool)
    return _Ranking(turns, scores, sources, pages, facts, knowledge, segments)


def _merged(rankings: list[_Ranking]):
    """A question and its parts taken in turn (question_parts): the best turn of the whole
    and of each part, then the second of each…; facts, knowledge and segments alike, no more
    of each than one ranking had."""
    if len(rankings) == 1:
        r = rankings[0]
        return r.turns, r.scores, r.sources, r.pages, r.facts, r.knowledge, r.segments
    turns = interleaved([r.turns for r in rankings])
    scores: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    pages: dict[int, Page] = {}
    for r in rankings:
        pages.update(r.pages)
        for turn, score in r.scores.items():
            scores[turn] = max(score, scores.get(turn, score))
            sources.setdefault(turn, [])
            sources[turn] += [s for s in r.sources.get(turn, ()) if s not in sources[turn]]

    def taken(name: str, key) -> list:
        lists = [getattr(r, name) for r in rankings]
        return interleaved(lists, key)[: max(len(items) for items in lists)]

    facts = taken("facts", lambda f: f.fact.id)
    knowledge = taken("knowledge", lambda f: f.fact.id)
    segments = taken("segments", lambda s: s.id)
    return turns, scores, sources, pages, facts, knowledge, segments


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


def _chain_summaries(pages: list[Page], limit: int = 3) -> tuple[str, ...]:
    out: list[str] = []
    for page in pages:
        if page.chain_summary and page.chain_summary not in out:
            out.append(page.chain_summary)
        if len(out) >= limit:
            break
    return tuple(out)
