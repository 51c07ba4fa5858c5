"""Background work runs below the window's CPU priority, so the window never waits for a core."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from app.priority import BACKGROUND_NICE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="per-thread nice is Linux-only")


def nice_of(native_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, native_id)


def test_workers_and_other_threads_run_below_the_window(qtbot):
    from app.workers import WorkerPool

    window_nice = nice_of(threading.main_thread().native_id)
    expected = min(19, window_nice + BACKGROUND_NICE)
    started = threading.Event()
    stop = threading.Event()
    other = threading.Thread(target=lambda: (started.set(), stop.wait(10)), name="consolidation")
    other.start()
    started.wait(5)
    pool = WorkerPool()
    seen: list[int] = []  # connected before the worker starts: a quick worker cannot be missed
    pool.run(lambda: nice_of(threading.get_native_id()), on_result=seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    other_nice = nice_of(other.native_id)
    stop.set()
    other.join(5)
    pool.wait(5000)

    assert seen == [expected]  # the worker itself
    assert other_nice == expected  # a thread the engine started (consolidation, a warm-up)
    assert nice_of(threading.main_thread().native_id) == window_nice  # the window is untouched
