"""What the memory tiers, consolidation and retrieval share: the vault, the models, the settings
and the in-RAM copies that searches read (a typed object, instead of the MemoryOS facade)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.backends.base import ChatBackend, Embedder
from engine.memory.keyword_index import KeywordIndex
from engine.memory.segment_index import SegmentIndex
from engine.memory.vectors import VectorMirror
from engine.network import TransferLog
from engine.policy import Policy
from engine.policy import current as current_policy
from engine.settings import MemorySettings
from engine.vault import Vault


class Foreground:
    """Answers being generated now. Background work waits until there are none, so a model
    runs one inference at a time; it is woken the moment the last answer ends."""

    def __init__(self) -> None:
        self._answers = 0
        self._done = threading.Condition()

    def started(self) -> None:
        with self._done:
            self._answers += 1

    def ended(self) -> None:
        with self._done:
            self._answers -= 1
            self._done.notify_all()

    def wait(self, timeout: float) -> bool:
        """True once no answer runs; False if one still ran at `timeout` seconds."""
        with self._done:
            return self._done.wait_for(lambda: self._answers == 0, timeout)


class Visits:
    """Segment visits counted by retrievals (N_visit of heat), written in batches."""

    def __init__(self) -> None:
        self._counts: Counter[int] = Counter()
        self._lock = threading.Lock()

    def add(self, segment_ids: set[int]) -> None:
        with self._lock:
            self._counts.update(segment_ids)

    def take(self) -> dict[int, int]:
        """The counts gathered so far, emptied."""
        with self._lock:
            counts, self._counts = dict(self._counts), Counter()
        return counts


@dataclass
class MemoryContext:
    """One open memory's parts. `chat` and `settings` may be replaced while it is open."""

    vault: Vault
    embedder: Embedder
    chat: ChatBackend | None
    settings: MemorySettings
    page_mirror: VectorMirror
    fact_mirror: VectorMirror
    turn_mirror: VectorMirror  # one vector per turn, keyed by records.turn_id
    word_mirror: VectorMirror  # the vocabulary's word vectors (engine/memory/vocabulary.py)
    segment_index: SegmentIndex  # the active mid-term segments (placement and retrieval)
    keyword_index: KeywordIndex  # BM25 over the pages in RAM (the vault's keyword_search uses it)
    notify: Callable[[str], None]  # "pages", "segments", "facts", "jobs", "settings"
    transfers: TransferLog = field(default_factory=TransferLog)
    foreground: Foreground = field(default_factory=Foreground)
    visits: Visits = field(default_factory=Visits)
    clock: Callable[[], float] = time.time

    @classmethod
    def open(
        cls,
        vault: Vault,
        embedder: Embedder,
        chat: ChatBackend | None,
        settings: MemorySettings,
        notify: Callable[[str], None],
    ) -> MemoryContext:
        vault.keyword_index = KeywordIndex(vault)
        return cls(
            vault=vault,
            embedder=embedder,
            chat=chat,
            settings=settings,
            page_mirror=VectorMirror(vault, "pages_vec"),
            fact_mirror=VectorMirror(vault, "facts_vec"),
            turn_mirror=VectorMirror(vault, "turns_vec"),
            word_mirror=VectorMirror(vault, "words_vec"),
            segment_index=SegmentIndex(vault),
            keyword_index=vault.keyword_index,
            notify=notify,
        )

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    def policy(self) -> Policy:
        """The administrator's policy in force (engine/policy.py)."""
        return current_policy()

    def remote_consolidation_allowed(self) -> bool:
        """May background consolidation send memories to a model not on this computer?"""
        return self.settings.remote_consolidation and not self.policy().remote_forbidden

    def retention(self) -> tuple[int, bool]:
        """(days, keep facts) in force: the administrator's policy first, else the settings."""
        rules = self.policy()
        days, keep = rules.retention_days, rules.retention_keeps_facts
        return (
            self.settings.retention_days if days is None else days,
            self.settings.retention_keeps_facts if keep is None else keep,
        )

    def flush_visits(self) -> None:
        """Write the visit counts gathered by retrievals (batched: one small transaction)."""
        visits = self.visits.take()
        if visits:
            with self.vault.transaction():
                self.vault.record_visits(visits, self.clock())
            self.segment_index.invalidate()

    def forget_ram(self) -> None:
        """Drop the decrypted copies held in RAM (closing, locking, wiping)."""
        for mirror in (self.page_mirror, self.fact_mirror, self.turn_mirror, self.word_mirror):
            mirror.reset()
        self.keyword_index.reset()
        self.segment_index.invalidate()
