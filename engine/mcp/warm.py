"""The MCP server's embedding model, loading on a thread of its own from the server's start."""

from __future__ import annotations

import logging
import threading
from typing import Any

LOADING, LOADED, FAILED, NOT_LOADED = "loading", "loaded", "failed", "not loaded"


class EmbedderLoad:
    """Loads `embedder` (torch and sentence-transformers: 10-30 s on a laptop) in the
    background, so that an agent's first retrieve_memory finds it ready; says how far it got
    (memory_status). A tool that embeds still calls embedder.load(), which waits for what is
    left, or tries again and reports why after a failed load."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self._started = False
        self._done = False
        self._problem: str | None = None

    def start(self) -> None:
        self._started = True
        threading.Thread(target=self._load, name="embedder-load", daemon=True).start()

    def _load(self) -> None:
        try:
            self.embedder.load()
        except Exception as exc:  # the first tool call that embeds reports it to the client
            self._problem = str(exc) or type(exc).__name__
            logging.getLogger(__name__).warning("the embedding model failed to load: %s", exc)
        else:
            self._done = True

    def state(self) -> dict[str, Any]:
        """{"state": "loading" | "loaded" | "failed" | "not loaded", "problem": why it failed
        or None}. "not loaded": no load was started (it loads at the first call that embeds)."""
        if not self._started:  # an embedder without `loaded` has nothing to load
            state = LOADED if getattr(self.embedder, "loaded", True) else NOT_LOADED
        elif self._done or getattr(self.embedder, "loaded", False):  # a tool call's load too
            state = LOADED
        else:
            state = FAILED if self._problem is not None else LOADING
        return {"state": state, "problem": self._problem if state == FAILED else None}
