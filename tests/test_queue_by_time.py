"""The short-term queue holds the most recent exchanges by their time, however they arrive: an
import or a restore of older exchanges goes to the mid-term tier by the overflow job, and
never pushes newer exchanges out. Real encrypted vaults, the fake embedder and chat."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from engine import restore
from engine.api import MemoryOS
from engine.records import MID_TERM, SHORT_TERM
from engine.settings import MemorySettings

YEAR = 365 * 86400
POTTERY = "I threw a stoneware bowl on the pottery wheel and glazed it in the kiln"
HIKING = "We hiked the granite ridge trail near the alpine lake with trekking poles"


def _queue(memory) -> list[str]:
    return [p.user_input for p in memory.short_term()]


def _newest(memory, count: int) -> list[str]:
    """What the `count` most recent exchanges of the whole memory said, oldest first."""
    pages = sorted(memory.pages(limit=10_000), key=lambda p: (p.timestamp, p.id))
    return [p.user_input for p in pages[len(pages) - count :]]


def _assert_in_segments(memory, page_ids) -> None:
    for page_id in page_ids:
        page = memory.page(page_id)
        assert page.tier == MID_TERM and page.segment_id is not None, page.user_input


def _retrieved(memory, query: str) -> set[int]:
    retrieval = memory.retrieve(query, record_visits=False)
    return {item.page.id for item in retrieval.pages}


@pytest.mark.parametrize("how", ["one batch", "one at a time"])
def test_exchanges_two_years_old_go_to_mid_term_and_the_newest_stay(memory, how):
    memory.update_settings(MemorySettings(stm_capacity=10, stm_evict_batch=2))
    now = time.time()
    for n in range(12):
        memory.add_memory(f"{HIKING}, walk {n}", f"Lovely {n}", timestamp=now - (12 - n) * 60)
    memory.run_consolidation()
    newest = _queue(memory)
    assert newest == _newest(memory, 10)
    old = [(f"{POTTERY}, piece {n}", "Nice glaze.", now - 2 * YEAR + n * 600) for n in range(4)]
    old.append(("I work as a potter in Lisbon.", "Noted.", now - 2 * YEAR + 3000))
    if how == "one batch":  # the app's import: add_memories
        old_ids = memory.add_memories(old, source="import")
        memory.run_consolidation()
    else:  # `memoryos import`, one add_memory each, the worker running between them
        old_ids = []
        for user_input, answer, when in old:
            old_ids.append(memory.add_memory(user_input, answer, when, source="import").id)
            memory.run_consolidation()

    assert _queue(memory) == newest  # the 10 newest by time, none pushed out
    assert memory.consolidation_status().short_term_pages == 10
    _assert_in_segments(memory, old_ids)
    assert set(old_ids[:4]) <= _retrieved(memory, "stoneware bowl pottery wheel kiln glaze")
    # learned from as any exchange that left the queue is
    potter = [f for f in memory.facts() if "potter in Lisbon" in f.text]
    assert potter and potter[0].source_page_ids == (old_ids[4],)


def test_an_older_exchange_into_a_full_queue_pushes_no_newer_one_out(memory):
    now = time.time()
    for n in range(10):  # the default capacity: full, nothing has left yet
        memory.add_memory(f"{HIKING}, walk {n}", f"Lovely {n}", timestamp=now - (10 - n) * 60)
    memory.run_consolidation()
    full = _queue(memory)
    [old] = memory.add_memories([(POTTERY, "Nice glaze.", now - 2 * YEAR)], source="import")
    memory.run_consolidation()
    assert _queue(memory) == full
    _assert_in_segments(memory, [old])


def test_an_import_interleaved_in_time(memory):
    """Exchanges within the queue's span join it and leave by time, the oldest first; one
    older than an exchange that already left goes to mid-term."""
    base = datetime(2026, 11, 2, 9, 0).timestamp()

    def at(minutes: int) -> float:
        return base + minutes * 60

    for n in range(12):  # stored at 0, 10, ..., 110: 0-40 leave, 50-110 stay (7)
        memory.add_memory(f"{HIKING}, at {n * 10}", "Lovely.", timestamp=at(n * 10))
    memory.run_consolidation()
    assert _queue(memory) == [f"{HIKING}, at {n}" for n in range(50, 120, 10)]

    late = memory.add_memories(
        [(f"{POTTERY}, at 25", "Nice.", at(25)), (f"{POTTERY}, at 75", "Nice.", at(75))],
        source="import",
    )
    memory.run_consolidation()
    _assert_in_segments(memory, late[:1])  # older than the exchange at 40, which left already
    assert memory.page(late[1]).tier == SHORT_TERM
    assert _queue(memory) == _newest(memory, 8)

    memory.add_memories(
        [(f"{POTTERY}, at {m}", "Nice.", at(m)) for m in (115, 55, 95)], source="import"
    )
    memory.run_consolidation()  # 11 in the queue: the 5 oldest by time leave together
    assert _queue(memory) == [
        f"{HIKING}, at 80", f"{HIKING}, at 90", f"{POTTERY}, at 95", f"{HIKING}, at 100",
        f"{HIKING}, at 110", f"{POTTERY}, at 115",
    ]  # fmt: skip
    left = [p for p in memory.pages(limit=100) if p.tier != SHORT_TERM]
    assert max(p.timestamp for p in left) < min(p.timestamp for p in memory.short_term())


def test_restoring_an_older_export_keeps_the_newest_exchanges_short_term(
    tmp_path, memory_keyring, embedder, chat
):
    older = MemoryOS.open(tmp_path / "older.memoryos", create=True, embedder=embedder,
                          chat=chat, background=False)  # fmt: skip
    june = datetime(2024, 6, 10, 12, 0).timestamp()
    for n in range(8):
        older.add_memory(f"{POTTERY}, piece {n}", "Nice glaze.", timestamp=june + n * 600)
    older.run_consolidation()
    export = older.export_json()
    older.close()

    memory = MemoryOS.open(tmp_path / "vault.memoryos", create=True, embedder=embedder,
                           chat=chat, background=False)  # fmt: skip
    try:
        november = datetime(2026, 11, 20, 12, 0).timestamp()
        for n in range(12):
            memory.add_memory(f"{HIKING}, walk {n}", "Lovely.", timestamp=november + n * 600)
        memory.run_consolidation()
        newest = _queue(memory)
        assert newest == _newest(memory, 7)

        report = restore.restore(memory, export)
        assert report.exchanges == 8
        memory.run_consolidation()
        assert _queue(memory) == newest
        restored = [p.id for p in memory.pages(limit=100) if p.user_input.startswith(POTTERY)]
        assert len(restored) == 8
        _assert_in_segments(memory, restored)
        assert set(restored) & _retrieved(memory, "stoneware bowl pottery wheel kiln glaze")
    finally:
        memory.close()
