"""Moving an open memory to another embedding model: what it takes, and doing it.

Vectors from two models cannot be compared, so a vault records the model that made its
vectors and refuses another (engine/vault/store.py). Switching means re-embedding every page
and fact (engine/vault/reembed.py, resumable); this module plans that for the app's Settings
and runs it on a memory that is open, after which the memory must be reopened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.backends.base import Embedder
from engine.terminal import wording


@dataclass(frozen=True)
class EmbedderSwitch:
    """The vault's embedder now, the one asked for, and how much re-embedding it takes."""

    current_id: str
    current_dimension: int
    new_id: str
    new_dimension: int
    pages: int
    facts: int

    @property
    def needed(self) -> bool:
        """False when the new model makes the same vectors (same model, same size)."""
        return (self.current_id, self.current_dimension) != (self.new_id, self.new_dimension)

    def refusal(self) -> str:
        """Why the new model cannot simply be used: for a person who declined re-embedding."""
        return (
            f"Not switched: your memories were embedded with {self.current_id} "
            f"({self.current_dimension} dimensions), and vectors from {self.new_id} "
            f"({self.new_dimension} dimensions) cannot be compared with them. Re-embed the "
            f"vault to switch, or keep {self.current_id}."
        )

    def question(self) -> str:
        texts = (f"{wording.count(self.pages, 'exchange', grouped=True)} and "
                 f"{wording.count(self.facts, 'fact', grouped=True)}")
        return (
            f"Your memories were embedded with {self.current_id} ({self.current_dimension} "
            f"dimensions). To search them with {self.new_id} ({self.new_dimension} dimensions), "
            f"{texts} are embedded again. Memory is closed while it runs and reopens afterwards; "
            "if it is interrupted, choosing the same model again resumes it."
        )


def plan_switch(mem: Any, embedder: Embedder) -> EmbedderSwitch:
    """What moving `mem`'s vault to `embedder` takes (reads the vault; loads no model)."""
    from engine.vault.reembed import count

    info = mem.info()
    return EmbedderSwitch(
        current_id=info.embedder_id,
        current_dimension=info.embedder_dimension,
        new_id=embedder.model_id,
        new_dimension=int(embedder.dimension or 0),
        pages=info.pages,
        facts=count(mem.vault, "facts")[1],
    )


def reembed_memory(
    mem: Any, embedder: Embedder, progress: Callable[[float, str], None] | None = None
) -> str:
    """Re-embed every page and fact of the open memory with `embedder`; returns its model id.

    Background consolidation is stopped first (it would write vectors of the old model); the
    memory still holds the old embedder afterwards, so the caller closes and reopens it.
    """
    from engine.vault.reembed import reembed

    mem.consolidator.stop()
    if progress:
        progress(0.0, f"Loading {embedder.model_id}")

    def step(done: int, total: int) -> None:
        if progress:
            progress(done / max(1, total), f"Re-embedded {done:,} of {total:,}")

    reembed(mem.vault, embedder, step)
    return embedder.model_id
