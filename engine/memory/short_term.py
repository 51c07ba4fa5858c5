"""Short-term memory: the FIFO queue of the most recent pages; overflow leaves in batches."""

from __future__ import annotations

from engine.records import SHORT_TERM
from engine.settings import MemorySettings


def overflow_count(queue_length: int, settings: MemorySettings) -> int:
    """How many of the oldest pages leave now: none until the queue is over capacity, then a
    batch (at least `stm_evict_batch`, and enough to get back under capacity)."""
    excess = queue_length - settings.stm_capacity
    if excess <= 0:
        return 0
    return min(queue_length, max(excess, settings.stm_evict_batch))


def oldest_rows(vault, count: int) -> list[tuple]:
    return vault.pages_in_tier(SHORT_TERM, limit=count, oldest_first=True)
