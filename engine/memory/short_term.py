"""Short-term memory: the queue of the most recent pages by their time; overflow leaves in
batches, the oldest first.

Writing a page is one embedding batch (the page and each of its turns) and one transaction
that also enqueues the PAGE_ADDED job, so consolidation never misses a page. A page stored
with an older time than the queue holds (an import or a restore of older exchanges) joins
the queue only while it is among the most recent; otherwise the overflow job moves it on to
the mid-term tier as soon as it has been learned from (`leaving`), and no newer page leaves
for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from engine.memory import backfill, when
from engine.memory.context import MemoryContext
from engine.records import SHORT_TERM, SIDES, Page, turn_id
from engine.settings import MemorySettings
from engine.vault.jobs import PAGE_ADDED, STM_OVERFLOW

CHUNK = 32  # pages embedded per transaction by the turn backfill
BATCH = 256  # exchanges per embedding call and per transaction when many are stored at once


def write(
    ctx: MemoryContext,
    draft: Page,
    memories_used: list | None = None,
    also: Callable[[], None] | None = None,
) -> Page:
    """Store one exchange at the back of the queue; returns it with its id. No LLM call.
    `memories_used`: what the answer's prompt held, saved with the page; `also`: a write that
    commits in the page's transaction (its question's unanswered record dropped)."""
    return write_many(ctx, [draft], memories_used, also=also)[0]


def embed(embedder, drafts: list[Page]) -> list[tuple[np.ndarray, dict[int, np.ndarray]]]:
    """Each exchange's vectors, in one embedding call: the page's (its whole text) and one per
    side that says something (its turn vectors, keyed USER_SIDE / ANSWER_SIDE)."""
    sides = [{side: text for side, text in _sides(d) if text.strip()} for d in drafts]
    texts = [t for d, s in zip(drafts, sides, strict=True) for t in (d.text(), *s.values())]
    vectors = iter(embedder.embed(texts))
    return [(next(vectors), {side: next(vectors) for side in s}) for s in sides]


def insert(vault, draft: Page, vector, turn_vectors: dict, now: float) -> int:
    """One exchange into the vault's pages, its conversation already there; returns its id.
    The searchable body has relative dates resolved from the page's own time ("yesterday [7 May
    2023]"), so a question naming the date finds it; the vectors embed the words as said."""
    return vault.insert_page(
        conversation_id=draft.conversation_id,
        user_input=draft.user_input,
        agent_response=draft.agent_response,
        ts=draft.timestamp,
        meta=draft.meta,
        body=when.resolve_relative(draft.text(), draft.timestamp),
        vector=vector,
        now=now,
        turn_vectors=turn_vectors,
    )


def write_many(
    ctx: MemoryContext,
    drafts: list[Page],
    memories_used: list | None = None,
    progress: Callable[[int, int], None] | None = None,
    also: Callable[[], None] | None = None,
) -> list[Page]:
    """Store exchanges at the back of the queue, in order; returns them with their ids.

    Each batch of BATCH exchanges is one embedding call (every page and each of its turns) and
    one transaction; `memories_used` belongs to a single exchange's answer; `progress(done,
    total)` is called after each batch. No LLM call."""
    now = ctx.clock()
    vault, stored = ctx.vault, []
    for start in range(0, len(drafts), BATCH):
        chunk = drafts[start : start + BATCH]
        embedded = embed(ctx.embedder, chunk)
        pages, turns = [], []
        with vault.transaction():
            for draft, (vector, turn_vectors) in zip(chunk, embedded, strict=True):
                vault.ensure_conversation(
                    draft.conversation_id,
                    now,
                    title=title(draft.user_input or draft.agent_response),
                )
                page_id = insert(vault, draft, vector, turn_vectors, now)
                if memories_used:
                    vault.insert_page_memories(page_id, memories_used)
                vault.enqueue(PAGE_ADDED, {"page_id": page_id}, now)
                pages.append((page_id, vector))
                turns += [(turn_id(page_id, side), v) for side, v in turn_vectors.items()]
                stored.append(replace(draft, id=page_id, tier=SHORT_TERM))
            if also is not None and start + BATCH >= len(drafts):  # with the last batch
                also()
        ctx.page_mirror.add_many(pages)
        ctx.turn_mirror.add_many(turns)
        if progress is not None:
            progress(start + len(chunk), len(drafts))
    return stored


def title(text: str) -> str:
    """A conversation's title: its first words, on one line."""
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:59] + "…"


def pages(ctx: MemoryContext) -> list[Page]:
    """The queue, oldest first."""
    return ctx.vault.pages_in_tier(SHORT_TERM)


def overflow_count(queue_length: int, settings: MemorySettings) -> int:
    """How many of the oldest pages leave now: none until the queue is over capacity, then a
    batch (at least `stm_evict_batch`, and enough to get back under capacity)."""
    excess = queue_length - settings.stm_capacity
    if excess <= 0:
        return 0
    return min(queue_length, max(excess, settings.stm_evict_batch))


def oldest(vault, count: int) -> list[Page]:
    return vault.pages_in_tier(SHORT_TERM, limit=count, oldest_first=True)


def leaving(vault, settings: MemorySettings) -> list[int]:
    """The ids of the pages that leave the queue now, oldest first (by time, then id).

    Taken in the order they were stored, a page is past the queue when it is older than a page
    that already left it, or when the queue was full and it is older than all the queue held:
    it was never one of the most recent, so it leaves and no newer page leaves for it. The
    others are the queue; once it is over capacity its oldest leave in a batch
    (`overflow_count`). Stored in time order (a chat, the LoCoMo ingest), no page is past it."""
    newest_left = vault.newest_outside_queue()
    past: list[tuple[float, int]] = []
    queue: list[tuple[float, int]] = []
    queue_oldest = float("inf")
    for page_id, ts in vault.queue_arrivals():
        if (newest_left is not None and ts < newest_left) or (
            len(queue) >= settings.stm_capacity and ts < queue_oldest
        ):
            past.append((ts, page_id))
        else:
            queue.append((ts, page_id))
            queue_oldest = min(queue_oldest, ts)
    queue.sort()
    out = sorted(past + queue[: overflow_count(len(queue), settings)])
    return [page_id for _, page_id in out]


def in_order(vault, ids: list[int]) -> list[Page]:
    """The pages with these ids (those still stored), in the order of `ids`."""
    by_id = {page.id: page for page in vault.pages(ids)}
    return [by_id[page_id] for page_id in ids if page_id in by_id]


def check_overflow(ctx: MemoryContext, now: float) -> None:
    """After pages joined the queue (inside the caller's transaction): once some must leave
    (`leaving`), one STM_OVERFLOW job moves them into the mid-term store."""
    vault = ctx.vault
    # the pending check first: leaving() reads the whole queue, at every page stored
    if not vault.has_pending(STM_OVERFLOW, {}) and leaving(vault, ctx.settings):
        vault.enqueue(STM_OVERFLOW, {}, now)


def embed_turns(ctx: MemoryContext, job_id: int, upto: int) -> None:
    """The EMBED_TURNS job: one vector per turn for pages stored before schema step 0002
    (which gave pages their turn vectors), a chunk per transaction, resumable."""

    def prepare(batch: list[Page]) -> list[tuple[int, int, np.ndarray]]:
        items = [(p.id, side, text) for p in batch for side, text in _sides(p) if text.strip()]
        vectors = ctx.embedder.embed([text for _, _, text in items]) if items else []
        return [(page_id, side, v) for (page_id, side, _), v in zip(items, vectors, strict=True)]

    def write(prepared: list[tuple[int, int, np.ndarray]]) -> None:
        # a page forgotten while its turns were embedded gets none: nothing would remove them
        kept = set(ctx.vault.existing_page_ids(sorted({page_id for page_id, _, _ in prepared})))
        for page_id, side, vector in prepared:
            if page_id in kept:
                ctx.vault.insert_turn_vectors(page_id, {side: vector})

    backfill.run(
        ctx,
        job_id,
        upto=upto,
        cursor="turns_embedded_upto",
        chunk=CHUNK,
        prepare=prepare,
        write=write,
    )


def _sides(page: Page) -> list[tuple[int, str]]:
    return list(zip(SIDES, (page.user_input, page.agent_response), strict=True))
