"""Dialogue chains: link a page to its predecessor when the conversation continues the thread."""

from __future__ import annotations

import numpy as np

from engine.records import Page
from engine.settings import MemorySettings


def continues(
    prev: Page | None,
    prev_vector: np.ndarray | None,
    page: Page,
    vector: np.ndarray,
    settings: MemorySettings,
) -> bool:
    """Cheap continuity: same conversation, close in time, and similar in meaning."""
    if prev is None or prev_vector is None:
        return False
    if page.timestamp - prev.timestamp > settings.chain_max_gap_seconds:
        return False
    return float(np.dot(prev_vector, vector)) >= settings.chain_similarity


def running_summary(
    prev: Page | None, linked: bool, page_keywords: list[str], limit: int = 8
) -> str:
    """The chain's "meta info" without an LLM: the thread's main keywords, newest first."""
    words = list(page_keywords)
    if linked and prev is not None:
        inherited = (
            prev.chain_summary.removeprefix("Thread about: ").split(", ")
            if prev.chain_summary
            else list(prev.keywords)
        )
        words += [w for w in inherited if w and w not in words]
    words = words[:limit]
    return f"Thread about: {', '.join(words)}" if words else ""
