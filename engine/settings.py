"""Memory parameters in one object, with the paper's defaults (Kang et al., EMNLP 2025)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

# The segment join score on the paper's scale (plain cos + Jaccard) runs about this much higher
# than ours (cos without the direction all of a memory's pages share): the paper's 0.6 is our
# 0.4 (dev figures at MemorySettings.segment_threshold). Used where one scale meets the other:
# placement before a memory knows its background, settings saved by earlier versions, and the
# reference MemoryOS API's mid_term_similarity_threshold.
PLAIN_COS_MARGIN = 0.2
# Saved beside the settings so a later version knows which scale segment_threshold is on.
SEGMENT_SCALE = "topical"


def topical_threshold(plain: float) -> float:
    """A segment join threshold on the paper's plain-cos scale, moved to ours."""
    return round(plain - PLAIN_COS_MARGIN, 6)


def plain_threshold(topical: float) -> float:
    """A segment join threshold on our scale, moved to the paper's plain-cos scale."""
    return round(topical + PLAIN_COS_MARGIN, 6)


@dataclass
class MemorySettings:
    # Short-term memory: a FIFO queue of recent pages; overflow leaves in batches.
    stm_capacity: int = 10
    stm_evict_batch: int = 5
    # Dialogue chains: continuity decided by embedding similarity and time gap first.
    chain_similarity: float = 0.45
    chain_max_gap_seconds: float = 6 * 3600
    # Mid-term memory: segment join threshold on cos + Jaccard, capacity, heat. The paper's
    # 0.6 is on a plain cos; ours is taken without the direction all pages share
    # (engine/memory/segment_index.py), which puts MiniLM's unrelated pages near 0, not 0.46.
    # Dev (conv-26 / conv-30, 214 / 188 pages; replay of placement over the pages,
    # notes/s22/i12seg/sim.py): 0.3 -> 26 / 24 segments, top five holding 54% / 65% of the
    # pages; 0.4 -> 49 / 40, 42% / 59%; 0.5 -> 80 / 72, 32% / 44%, 42 / 46 single pages.
    # Consolidation at 0.4: 46 / 35 segments, largest 33 / 45 pages, top five 39% / 56%
    # (plain cos at 0.6: 11 / 11, largest 83 / 139, top five 91% / 90%). 0.4: topics of a
    # few to a few dozen exchanges. Recall does not depend on it while the segment list is
    # off (retrieval.Stages).
    segment_threshold: float = 0.4
    mtm_capacity: int = 200
    heat_alpha: float = 1.0
    heat_beta: float = 1.0
    heat_gamma: float = 1.0
    heat_mu_seconds: float = 1e7
    heat_threshold: float = 5.0
    segment_keywords: int = 12
    # Retrieval.
    top_segments: int = 5
    top_pages: int = 10
    top_facts: int = 10
    top_knowledge: int = 5
    context_budget_tokens: int = 1500
    # Consolidation: "auto" uses the chat model only if it is capable enough for structured
    # extraction; "never" keeps everything on the non-LLM path; "always" trusts any model.
    llm_consolidation: str = "auto"
    # Background consolidation reads every page and the facts: it never sends them to a model
    # that is not on this computer unless the person turns this on (the rules do the work).
    remote_consolidation: bool = False
    # Retention: exchanges older than this many days are forgotten by consolidation (0: kept
    # for ever); the facts and profile learned from them are kept unless told otherwise.
    retention_days: int = 0
    retention_keeps_facts: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "segment_scale": SEGMENT_SCALE}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> MemorySettings:
        """Settings saved in a vault. Those saved before segments were compared without the
        shared direction carry no `segment_scale`: their threshold was on the plain scale, and
        the same strictness on ours is PLAIN_COS_MARGIN lower (a saved 0.6 becomes 0.4)."""
        data = data or {}
        settings = cls.from_dict(data)
        if "segment_threshold" in data and data.get("segment_scale") != SEGMENT_SCALE:
            settings.segment_threshold = topical_threshold(settings.segment_threshold)
        return settings

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemorySettings:
        """Build from a dict, ignoring unknown keys and coercing types to the defaults'."""
        known = {f.name: f for f in fields(cls)}
        base = cls()
        values: dict[str, Any] = {}
        for key, value in (data or {}).items():
            if key not in known:
                continue
            default = getattr(base, key)
            if isinstance(default, bool):  # bool("false") is True: accept real booleans only
                if isinstance(value, (bool, int)):
                    values[key] = bool(value)
                continue
            try:
                values[key] = type(default)(value)
            except (TypeError, ValueError):
                continue
        return cls(**values)

    def conflicts(self) -> dict[str, str]:
        """Values that each make sense but contradict each other, keyed by the field to change,
        in plain words. Not refused by `validate` (a vault saved with them still opens, and
        tests empty short-term memory on purpose); the Settings dialog refuses to save them."""
        found: dict[str, str] = {}
        if self.stm_evict_batch > self.stm_capacity >= 1:
            found["stm_evict_batch"] = (
                f"At most the short-term capacity ({self.stm_capacity}): a batch of "
                f"{self.stm_evict_batch} empties short-term memory every time it overflows."
            )
        weights = (self.heat_alpha, self.heat_beta, self.heat_gamma)
        if self.heat_threshold > 0 and not any(weight > 0 for weight in weights):
            found["heat_threshold"] = (
                "With α, β and γ all 0 no topic ever gets warm, so the profile and facts are "
                "never updated: give one of them a weight, or set this to 0."
            )
        return found

    def validate(self) -> None:
        from engine.errors import InvalidInputError

        if self.stm_capacity < 1 or self.stm_evict_batch < 1:
            raise InvalidInputError("STM capacity and eviction batch must be at least 1")
        if self.mtm_capacity < 1:
            raise InvalidInputError("MTM capacity must be at least 1")
        if self.heat_mu_seconds <= 0:
            raise InvalidInputError("heat μ must be positive")
        if self.retention_days < 0:
            raise InvalidInputError("retention must be 0 (keep for ever) or a number of days")
        if self.llm_consolidation not in ("auto", "never", "always"):
            raise InvalidInputError("llm_consolidation must be auto, never or always")
