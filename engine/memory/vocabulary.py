"""The vocabulary: every word the pages use, with its vector.

A question's words are widened to the words this person actually used that mean nearly the
same ("instruments" -> clarinet, violin; "camped" -> campfire, tent), and retrieval searches
those as keywords (engine/retrieval_lists.py, the expansion stage). Keyword search alone needs the
very word; a turn's vector blurs one word among twenty; a word's own vector does neither.

Learned with no LLM: one embedding per word the vault has not seen before (a few per exchange
once a conversation is under way), in consolidation's background work. Derived from the pages
like the full-text index: a word goes when the last page that says it is forgotten, and the
whole vocabulary goes with a wipe or a change of embedder (then it is learned again).
"""

from __future__ import annotations

import time

import numpy as np

from engine.memory import backfill, keywords
from engine.memory.context import MemoryContext
from engine.records import Page
from engine.vault.jobs import LEARN_WORDS

CHUNK = 500  # pages per transaction when learning a backlog (the LEARN_WORDS job)
CURSOR = "words_learned_upto"  # meta: every page up to this id has had its words learned
CAUGHT_UP = "words_caught_up"  # meta: `catch_up` has run on this vault
IMPORTED_PREFIX = "reference_import:"  # meta: a reference import's record (reference_import.py)


def _learnable(word: str) -> bool:
    """Content words of three letters or more ("de-stress" and "Caroline's" too: dev recall
    0.856 with letters-only words, 0.859 with these)."""
    return len(word) > 2


def words_of(pages: list[Page]) -> dict[str, str]:
    """FTS term -> the word as first written, over both sides of some pages."""
    out: dict[str, str] = {}
    for page in pages:
        for text in (page.user_input, page.agent_response):
            for word in keywords.content_words(text):
                if _learnable(word):
                    out.setdefault(keywords.fts_term(word), word)
    return out


def prepare(ctx: MemoryContext, pages: list[Page]) -> list[tuple[str, str, np.ndarray]]:
    """(term, word, vector) of the pages' words the vault does not know yet. Embeds, so call
    it outside any write transaction; `store` then writes the rows."""
    found = words_of(pages)
    if not found:
        return []
    known = ctx.vault.word_ids(list(found))
    new = [(term, word) for term, word in found.items() if term not in known]
    if not new:
        return []
    vectors = ctx.embedder.embed([word for _, word in new])
    return [
        (term, word, np.asarray(v, np.float32))
        for (term, word), v in zip(new, vectors, strict=True)
    ]


def store(
    ctx: MemoryContext, prepared: list[tuple[str, str, np.ndarray]], pages: list[Page]
) -> list[tuple[int, np.ndarray]]:
    """Write prepared rows (inside the caller's transaction) of the words `pages` (those
    `prepare` read) still say; returns (id, vector) of those added, for
    `ctx.word_mirror.add_many` once the transaction has committed. A page forgotten since it
    was read teaches no word: the forget already took out the words no other page says, and
    one written now would stay with no page to take it out."""
    if not prepared:
        return []
    kept = set(ctx.vault.existing_page_ids([page.id for page in pages]))
    said = words_of([page for page in pages if page.id in kept])
    rows = [row for row in prepared if row[0] in said]
    return ctx.vault.insert_words(rows) if rows else []


def learn(ctx: MemoryContext, pages: list[Page]) -> int:
    """Learn the new words of some pages in one transaction. Returns how many were new."""
    prepared = prepare(ctx, pages)
    with ctx.vault.transaction():
        added = store(ctx, prepared, pages)
    ctx.word_mirror.add_many(added)
    return len(added)


def learn_backlog(ctx: MemoryContext, job_id: int, upto: int) -> None:
    """The LEARN_WORDS job: the words of pages stored before the vocabulary existed (schema
    step 0007) or before a change of embedder, a chunk per transaction, resumable."""
    backfill.run(
        ctx,
        job_id,
        upto=upto,
        cursor=CURSOR,
        chunk=CHUNK,
        prepare=lambda batch: (prepare(ctx, batch), batch),
        write=lambda made: store(ctx, *made),
        committed=ctx.word_mirror.add_many,
    )


def catch_up(ctx: MemoryContext) -> bool:
    """Once per vault: pages that a reference import stored before imports queued their own
    LEARN_WORDS job never joined the vocabulary; queue one for the pages past the backlog's
    cursor (those already learned cost a read and no embedding). After the first run this is
    one meta read. Returns whether a job was queued."""
    vault = ctx.vault
    if vault.get_meta(CAUGHT_UP):
        return False
    with vault.transaction():
        if vault.get_meta(CAUGHT_UP):  # another process got there first
            return False
        imported = any(
            str(row["key"]).startswith(IMPORTED_PREFIX) for row in vault.dump_table("meta")
        )
        newest = vault.newest_page_id()
        queued = imported and newest > int(vault.get_meta(CURSOR) or 0)
        if queued:
            vault.enqueue(LEARN_WORDS, {"upto": newest}, time.time())
        vault.set_meta(CAUGHT_UP, "1")
    return queued


def unsaid(ctx: MemoryContext, terms: list[str], page_ids: list[int]) -> list[int]:
    """Ids of vocabulary entries among `terms` that no page but `page_ids` says: what leaves
    the vocabulary when those pages are forgotten (run it in the forget's transaction)."""
    return ctx.vault.words_unsaid(terms, page_ids)


def similar(
    ctx: MemoryContext,
    words: list[str],
    *,
    per_word: int,
    min_cos: float,
    exclude: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, float]]:
    """The vault's words nearest each of `words`: FTS term -> (word as written, cosine), at
    most `per_word` per word, each at least `min_cos`; never the words themselves nor the
    terms in `exclude` (the rest of the question: already searched)."""
    mirror = ctx.word_mirror
    asked = {keywords.fts_term(w): w for w in words if w}
    if not asked or len(mirror) == 0:
        return {}
    ids = ctx.vault.word_ids(list(asked))
    stored = mirror.vectors(list(ids.values()))
    vectors = {term: stored[ids[term]] for term in asked if ids.get(term) in stored}
    unknown = [term for term in asked if term not in vectors]
    if unknown:  # a word the person never used: embedded now (one batch, short texts)
        embedded = ctx.embedder.embed([asked[term] for term in unknown])
        vectors.update(zip(unknown, (np.asarray(v, np.float32) for v in embedded), strict=True))
    # its own entry comes first, and other words of the question may: ask for a few more
    found = [
        [(i, score) for i, score in mirror.search(v, per_word + len(asked) + 1) if score >= min_cos]
        for v in vectors.values()
    ]
    named = ctx.vault.words_by_id([i for hits in found for i, _ in hits])
    out: dict[str, tuple[str, float]] = {}
    for hits in found:
        taken = 0
        for word_id, score in hits:
            term, word = named.get(word_id, ("", ""))
            if not term or term in asked or term in exclude:
                continue
            if score > out.get(term, ("", 0.0))[1]:
                out[term] = (word, score)
            taken += 1
            if taken >= per_word:
                break
    return out
