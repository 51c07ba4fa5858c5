"""Questions asked while the background worker learns and places pages never hang (the vault's
lock is taken before any in-RAM cache's), and find the segments placement wrote (placement and
retrieval share one segment cache)."""

from __future__ import annotations

import threading
import time

import pytest

from engine.api import MemoryOS
from engine.records import turn_id, turn_ids, turn_page, turn_side
from engine.settings import MemorySettings

HIKING = (
    "We hiked the granite ridge trail near the alpine lake with hiking boots and trekking poles"
)
BAKING = "I baked sourdough bread with rye flour, a starter culture and a hot dutch oven"
PAGES = 60


def test_questions_during_background_learning_and_placement_never_hang(
    tmp_path, memory_keyring, embedder, chat
):
    settings = MemorySettings(stm_capacity=2, stm_evict_batch=1, heat_threshold=1000)
    mem = MemoryOS.open(
        tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat, settings=settings,
        background=True,
    )  # fmt: skip
    adding = threading.Event()
    adding.set()
    asked, failures = [], []

    def ask() -> None:  # questions while the worker learns facts and places pages
        while adding.is_set() or not asked:
            try:
                asked.append(mem.retrieve("granite ridge hiking", record_visits=False))
            except Exception as exc:
                failures.append(exc)
                return

    def add() -> None:
        for i in range(PAGES):
            mem.add_memory(f"{(HIKING, BAKING)[i % 2]} day {i}", f"Sounds good {i}")
        adding.clear()

    threads = [threading.Thread(target=ask, daemon=True) for _ in range(3)]
    threads.append(threading.Thread(target=add, daemon=True))
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60  # all of them together: a hang fails, never waits longer
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in threads):  # a deadlock: closing would hang too
        pytest.fail("adding and asking at once hung (lock order between vault and caches)")
    try:
        assert failures == [] and asked
        assert mem.wait_idle(timeout=60)
        status = mem.consolidation_status()
        assert (status.short_term_pages, status.mid_term_pages, status.segments) == (
            2,
            PAGES - 2,
            2,
        )
        hiking = {mem.page(p).segment_id for p in range(1, PAGES - 1, 2)}  # odd ids: the hikes
        assert len(hiking) == 1
        found = mem.retrieve("granite ridge hiking", record_visits=False)
        assert [s.id for s in found.segments][0] == hiking.pop()
        assert sorted(s.id for s in found.segments) == sorted(s.id for s in mem.segments())
    finally:
        mem.close()


def test_one_rule_names_each_turn_of_a_page():
    assert [turn_id(7, 0), turn_id(7, 1)] == [14, 15] == turn_ids([7])
    assert [(turn_page(t), turn_side(t)) for t in turn_ids([3, 7])] == [
        (3, 0),
        (3, 1),
        (7, 0),
        (7, 1),
    ]


def test_the_worker_says_when_it_has_gone_idle(tmp_path, memory_keyring, embedder, chat):
    """The jobs' own events come while the worker is busy, so a status read on them says
    "consolidating"; one more event once it is idle lets the status line say "up to date"."""
    mem = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat,
                        background=True)
    idle_seen = threading.Event()
    main = threading.current_thread()

    def listener(_event: str) -> None:
        if threading.current_thread() is not main and not mem.consolidator.running:
            idle_seen.set()

    mem.subscribe(listener)
    try:
        for n in range(3):
            mem.add_memory(f"I climbed granite ridge number {n}", "Nice climb.")
        assert mem.wait_idle(timeout=60)
        assert idle_seen.wait(timeout=10)
        assert mem.consolidation_status().running is False
    finally:
        mem.close()
