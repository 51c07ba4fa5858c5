"""The ranked lists of turns that retrieval fuses, and the fusion."""

from __future__ import annotations

import math
from collections import defaultdict
from functools import lru_cache

import numpy as np

from engine.memory import keywords, vocabulary, when
from engine.records import Page, ScoredFact, turn_id, turn_page, turn_side

# Reciprocal-rank fusion constant (60 in Cormack et al.). Chosen on the LoCoMo dev set by the
# same grid as the fusion baseline's, recall_turns@10 categories 1-4: 40: 0.738, 10: 0.761,
# 5: 0.771, 2: 0.773 (multi-hop 0.399 at 5, 0.383 at 2): 5 for the multi-hop tie-break.
RRF_K = 5


def fuse(
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


def fuse_into(
    scores: dict[int, float], sources: dict[int, list[str]], name: str, weight: float, items
) -> None:
    """Add one more ranked list (best first) to a fusion already made (a later stage's)."""
    extra, extra_sources = fuse({name: (weight, ranked(items))})
    for item, score in extra.items():
        scores[item] = scores.get(item, 0.0) + score
        sources[item] += [s for s in extra_sources[item] if s not in sources[item]]


def ranked(items: list[int]) -> list[tuple[int, int]]:
    return [(item, rank) for rank, item in enumerate(items)]


def related(hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Only what shares something with the query: a rank list gives its first place full
    credit however weak the match, so items no closer than orthogonal are left out."""
    return [(i, score) for i, score in hits if score > 0.0]


def load_pages(vault, ids: set[int]) -> dict[int, Page]:
    return {p.id: p for p in vault.pages(sorted(ids))} if ids else {}


def load_missing(vault, pages: dict[int, Page], ids) -> None:
    """Add to `pages` those of `ids` not read yet (one batched read)."""
    pages.update(load_pages(vault, set(ids) - set(pages)))


def has_side(pages: dict[int, Page], turn: int) -> bool:
    """False for the empty side of a one-sided page, or a page not loaded (yet)."""
    page = pages.get(turn_page(turn))
    if page is None:
        return True  # loaded later, checked again then
    return bool(page.user_input if turn_side(turn) == 0 else page.agent_response)


COMMON_TERM_SHARE = 0.2  # a term in more than 1 row in 5 says little about any row


def keyword_terms(vault, table: str, query: str) -> tuple[str, dict[str, float]]:
    """The FTS query without terms that occur in most rows (like the names of the two people
    of a transcript, present on every page): they drown the rare terms that matter. Also the
    inverse document frequency of each kept term (FTS stems), to weigh terms inside a turn."""
    words = keywords.query_words(query)
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


def keyword_match(vault, table: str, query: str) -> str:
    return keyword_terms(vault, table, query)[0]


def dense_turns(hits: list[tuple[int, float]]) -> list[int]:
    """Turns by their own vector (the mirror returns them best first)."""
    return [row_id for row_id, _ in hits]


def speaker(page: Page, side: int) -> str:
    return str(page.meta.get("user_speaker" if side == 0 else "agent_speaker") or "").lower()


def keyword_turns(
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
    """The FTS terms of a text's words (a turn's or the question's, compared in keyword_turns)."""
    return frozenset(keywords.fts_term(w) for w in keywords.tokens(text))


@lru_cache(maxsize=8192)
def _resolved_lower(text: str, timestamp: float) -> str:
    """A turn with its relative dates resolved from when it was said, lower-cased."""
    return when.resolve_relative(text, timestamp).lower()


def turns_among(memory, vector: np.ndarray, page_ids: list[int], pool: int) -> list[int]:
    """The best turns of some pages by their own vectors."""
    if not page_ids:
        return []
    # both turns of each page, the one rule applied to arrays (up to 5,000 pages a window)
    allowed = turn_id(np.asarray(page_ids, dtype=np.int64)[:, None], np.arange(2)).ravel()
    return [row for row, _ in related(memory.turn_mirror.search(vector, pool, allowed=allowed))]


def fact_turns(vault, pages: dict[int, Page], facts: list[ScoredFact]) -> list[int]:
    """Facts lead back to the turns they were read from: the side whose speaker the fact
    names ("Caroline: I ..."), or both sides when it names none."""
    load_missing(vault, pages, {pid for f in facts for pid in f.fact.source_page_ids})
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


def dated_turns(
    vault, pages: dict[int, Page], window: tuple[float, float], pool: int
) -> list[int]:
    """Turns that name a day of the window, as written or as resolved when they were stored
    ("yesterday [7 May 2023]"): what was said on the 8th about the 7th."""
    phrases = when.date_phrases(window)
    match = " OR ".join(f'"{p}"' for p in phrases)
    hits = vault.keyword_search("pages_fts", match, pool) if match else []
    load_missing(vault, pages, {p for p, _ in hits})
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


def term_hop(
    vault, pages: dict[int, Page], scores: dict[int, float], query: str, rows: int
) -> list[int]:
    """Turns that hold the rare words of the first hop's best turns (pseudo-relevance feedback
    on keywords): a multi-part question's other part often shares a name or a thing with the
    part found ("moved from my home country" -> "my home country, Sweden")."""
    seeds = sorted(scores, key=lambda t: (-scores[t], t))[:TERM_HOP_SEEDS]
    load_missing(vault, pages, {turn_page(t) for t in seeds})
    asked = _held_terms(query)
    own = {turn_page(t) for t in seeds}
    spoken = {speaker(pages[p], side) for p in own if p in pages for side in (0, 1)}
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
    load_missing(vault, pages, {p for p, _ in hits})
    return keyword_turns(pages, hits, weight)


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


def expansion_turns(
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


HOP_SEEDS = 1  # the first hop's best turns that steer the second (1 and 3: see retrieval.Stages)


def second_hop(memory, vector: np.ndarray, scores: dict[int, float], pool: int) -> list[int]:
    """Turns near the query moved towards the first hop's best turns (pseudo-relevance
    feedback): what a multi-part question needs often shares the found part's topic words."""
    seeds = sorted(scores, key=lambda t: (-scores[t], t))[:HOP_SEEDS]
    found = memory.turn_mirror.vectors(seeds)
    if not found:
        return []
    moved = vector + np.mean(list(found.values()), axis=0)
    moved = moved / (np.linalg.norm(moved) or 1.0)
    return [row for row, _ in related(memory.turn_mirror.search(moved.astype(np.float32), pool))]
