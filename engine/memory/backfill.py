"""Background backfills over the pages stored before a schema step: a chunk per transaction,
resumable after a crash or a quit from a cursor kept in the vault's meta table.

Used by the jobs that give old pages what new pages get when they are written: turn vectors
(EMBED_TURNS, schema step 0002) and the vocabulary (LEARN_WORDS, step 0007, and after a change
of embedder).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from engine.memory.context import MemoryContext
from engine.records import Page

Prepared = TypeVar("Prepared")
Written = TypeVar("Written")


def run(
    ctx: MemoryContext,
    job_id: int,
    *,
    upto: int,
    cursor: str,
    chunk: int,
    prepare: Callable[[list[Page]], Prepared],
    write: Callable[[Prepared], Written],
    committed: Callable[[Written], None] | None = None,
) -> None:
    """Walk the pages with ids in (meta[cursor], upto], `chunk` at a time, then finish the job.

    `prepare` gets each chunk outside any transaction (it may embed, which takes seconds);
    `write` stores what it made inside the chunk's transaction, together with the cursor, so a
    chunk is either wholly done or not at all; `committed` gets what `write` returned once that
    transaction has committed (to update the in-memory mirrors)."""
    vault = ctx.vault
    while True:
        done = int(vault.get_meta(cursor) or 0)
        batch = vault.pages_after(done, upto, chunk)
        prepared = prepare(batch)
        with vault.transaction():
            written = write(prepared)
            if batch:
                vault.set_meta(cursor, str(batch[-1].id))
            else:
                vault.finish_job(job_id)
        if committed is not None:
            committed(written)
        if not batch:
            return
