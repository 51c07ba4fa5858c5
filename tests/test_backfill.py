"""Backfills over old pages (turn vectors, the vocabulary) resume where a crash stopped them:
each chunk is written with its cursor in one transaction, so no page is done twice or missed."""

from __future__ import annotations

import pytest

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.memory import backfill

PASS = "pw-long-enough"


class Crash(Exception):
    """Stands for the process dying in the middle of a chunk."""


@pytest.fixture
def mem(tmp_path, fail_keyring):
    with MemoryOS.open(
        tmp_path / "v.memoryos",
        create=True,
        passphrase=PASS,
        embedder=HashEmbedder(256),
        background=False,
    ) as memory:
        yield memory


def _job(mem) -> int:
    with mem.vault.transaction():
        return mem.vault.enqueue("test_backfill", {}, 0.0)


def _run(mem, job: int, upto: int, write, committed=None, chunk: int = 2) -> None:
    backfill.run(
        mem.ctx,
        job,
        upto=upto,
        cursor="backfill_test_upto",
        chunk=chunk,
        prepare=lambda batch: [p.id for p in batch],
        write=write,
        committed=committed,
    )


def test_a_backfill_interrupted_mid_chunk_resumes_and_does_each_page_once(mem):
    pages = [mem.add_memory(f"note number {i}", f"reply {i}") for i in range(7)]
    upto = pages[-1].id
    job = _job(mem)
    written: list[int] = []  # chunks whose transaction committed
    committed: list[list[int]] = []

    def write(ids: list[int], fail_on: int | None = None) -> list[int]:
        # a row written inside the chunk's transaction, like the vectors a real job stores
        mem.vault.set_meta("backfill_test_log", ",".join(map(str, written + ids)))
        if fail_on is not None and fail_on in ids:
            raise Crash
        written.extend(ids)
        return ids

    with pytest.raises(Crash):  # the third chunk (pages 5-6) dies before it commits
        _run(mem, job, upto, lambda ids: write(ids, fail_on=pages[4].id), committed.append)
    assert written == [p.id for p in pages[:4]]
    assert mem.vault.get_meta("backfill_test_upto") == str(pages[3].id)
    assert mem.vault.get_meta("backfill_test_log") == ",".join(str(p.id) for p in pages[:4])
    assert job in {j.id for j in mem.vault.pending_jobs()}  # not finished

    _run(mem, job, upto, write, committed.append)
    assert written == [p.id for p in pages]  # each page once, in order
    assert [c for c in committed if c] == [
        [pages[0].id, pages[1].id],
        [pages[2].id, pages[3].id],
        [pages[4].id, pages[5].id],
        [pages[6].id],
    ]
    assert job not in {j.id for j in mem.vault.pending_jobs()}


def test_a_backfill_stops_at_the_pages_it_was_queued_for(mem):
    old = [mem.add_memory(f"old note {i}", "ok") for i in range(3)]
    newer = mem.add_memory("written after the step", "ok")
    seen: list[int] = []
    _run(mem, _job(mem), old[-1].id, seen.extend, chunk=10)
    assert seen == [p.id for p in old] and newer.id not in seen
