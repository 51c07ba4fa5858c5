"""The persona's learning: what each new page teaches (patterns, no LLM) and what a hot segment
teaches (one structured call, capable models only), written through Persona (long_term.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.backends.base import Embedder
from engine.memory import persona_compare
from engine.memory.context import MemoryContext
from engine.memory.model import ConsolidationModel
from engine.memory.persona_analysis import ANALYSIS_SCHEMA, analysis_messages, analysis_texts
from engine.memory.persona_patterns import SlotCandidate, slot_candidates
from engine.memory.persona_statements import statement_candidates
from engine.records import (
    ACTIVE,
    ASSISTANT_KNOWLEDGE,
    CANDIDATE,
    USER_FACT,
    Fact,
    Page,
    ProfileSlot,
)
from engine.vault import Vault
from engine.vault.jobs import ANALYSE_SEGMENT


class PersonaLearning:
    """Persona's learning from pages and hot segments; it writes with Persona.remember_fact
    and Persona.set_slot, which replace what a new item changes."""

    # set by Persona.__init__ (long_term.py): these methods are Persona's
    ctx: MemoryContext
    vault: Vault
    embedder: Embedder

    def prepare(self, page: Page) -> Learned:
        """The non-LLM path for one new page, read and embedded (outside any transaction)."""
        statements = statement_candidates(page)
        vectors = self.embedder.embed([text for _, text in statements]) if statements else []
        return Learned(page.id, statements, list(vectors), slot_candidates(page))

    def learn(self, learned: Learned, now: float | None = None) -> int:
        """Write what `prepare` found (inside the caller's transaction). Returns items touched."""
        for (kind, text), vector in zip(learned.statements, learned.vectors, strict=True):
            self.remember_fact(
                kind,
                text,
                status=CANDIDATE if kind == USER_FACT else ACTIVE,
                origin="verbatim",
                sources=[learned.page_id],
                now=now,
                vector=vector,
            )
        for slot in learned.slots:
            self.set_slot(
                slot.category,
                slot.name,
                slot.value,
                origin="pattern",
                evidence=[learned.page_id],
                now=now,
            )
        return len(learned.statements) + len(learned.slots)

    # ---- a hot segment: one structured call over its unanalysed pages ----------------------

    def analyse_segment(self, model: ConsolidationModel, job_id: int, segment_id: int) -> bool:
        """The ANALYSE_SEGMENT job. The segment's heat counters restart either way; returns
        whether the model taught anything."""
        ctx, vault = self.ctx, self.vault
        page_ids = vault.unanalysed_page_ids(segment_id)
        pages = vault.pages(page_ids)
        result = None
        known: list[Fact] = []
        shown: list[ProfileSlot] = []
        if pages and model.available() is not None:
            known = vault.facts(USER_FACT, False)[:40]
            shown = vault.slots(include_superseded=False)
            messages = analysis_messages(pages, known, shown)
            result = model.structured(messages, ANALYSIS_SCHEMA)
        now = ctx.clock()
        # Embedded before the write lock is taken, in one batch: the transaction only writes
        # (embedding 16 items one by one inside it held the lock up to 1.6 s under load,
        # while another program's writes waited).
        embedder = persona_compare.Embedded(self.embedder, analysis_texts(result) if result else [])
        with vault.transaction():
            if result and not self._all_still_there(pages, known, shown):
                # A forget (or a delete) while the model read them: anything it wrote may
                # quote what is gone. Nothing is written; the pages left are analysed again.
                result = None
                if vault.existing_page_ids(page_ids) and not vault.has_pending(
                    ANALYSE_SEGMENT, {"segment_id": segment_id}
                ):
                    vault.enqueue(ANALYSE_SEGMENT, {"segment_id": segment_id}, now)
                page_ids = []
            if result:
                self._apply_analysis(result, pages, f"llm:{ctx.chat.model_id}", now, embedder)
            if page_ids:
                vault.mark_analysed(page_ids)
            vault.reset_segment_counters(segment_id)
            vault.finish_job(job_id)
        return bool(result)

    def _all_still_there(
        self, pages: list[Page], facts: list[Fact], slots: list[ProfileSlot]
    ) -> bool:
        """Whether every page, fact and profile entry an analysis was shown is still stored
        (inside the write's transaction)."""
        vault = self.vault
        page_ids = [p.id for p in pages]
        if len(vault.existing_page_ids(page_ids)) < len(page_ids):
            return False
        fact_ids = {f.id for f in facts}
        if fact_ids and {f.id for f in vault.facts(None, True, ids=list(fact_ids))} != fact_ids:
            return False
        slot_ids = {s.id for s in slots}
        return slot_ids <= {s.id for s in vault.slots(include_superseded=True)}

    def _apply_analysis(
        self, result: dict, pages: list[Page], origin: str, now: float, embedder: Any = None
    ) -> None:
        vault = self.vault
        embedder = embedder or self.embedder
        page_ids = [p.id for p in pages]
        allowed = set(page_ids)
        vectors: dict[int, np.ndarray] = {}

        def evidence(item: dict, text: str) -> list[int]:
            # Exact provenance per item: the pages the model cited, else the pages that say
            # it; never the whole batch, or the item would outlive forgetting its true source.
            cited = [
                int(i) for i in item.get("evidence", []) if isinstance(i, int) and i in allowed
            ]
            if cited:
                return sorted(set(cited))
            if not vectors:
                vectors.update(vault.page_vectors(page_ids))
            return persona_compare.attribute(text, pages, vectors, embedder)

        for slot in result.get("profile", []):
            name, value = str(slot.get("name", "")).strip(), str(slot.get("value", "")).strip()
            if name and value:
                self.set_slot(
                    str(slot.get("category", "trait")),
                    name[:80],
                    value[:300],
                    origin=origin,
                    evidence=evidence(slot, f"{name} {value}"),
                    now=now,
                )
        new_facts = []
        for fact in result.get("user_facts", []):
            text = str(fact.get("text", "")).strip()
            if not text:
                continue
            fact_id = self.remember_fact(
                USER_FACT, text[:500], status=ACTIVE, origin=origin,
                sources=evidence(fact, text), now=now, vector=embedder.embed_one(text[:500]),
            )  # fmt: skip
            new_facts.append(fact_id)
            for old in fact.get("supersedes", []) or []:
                if isinstance(old, int) and old != fact_id:
                    try:
                        vault.fact(old)
                    except Exception:
                        continue
                    vault.supersede_fact(old, fact_id, now)
        for item in result.get("assistant_knowledge", []):
            text = str(item.get("text", "")).strip()
            if text:
                self.remember_fact(
                    ASSISTANT_KNOWLEDGE, text[:500], status=ACTIVE, origin=origin,
                    sources=evidence(item, text), now=now, vector=embedder.embed_one(text[:500]),
                )  # fmt: skip
        if new_facts:  # clean facts now stand for the verbatim candidates of these pages
            for fact_id in vault.candidate_facts_from_pages(list(page_ids), CANDIDATE):
                vault.supersede_fact(fact_id, None, now)


@dataclass
class Learned:
    """What one page teaches without an LLM: verbatim statements (embedded) and profile slots."""

    page_id: int
    statements: list[tuple[str, str]]
    vectors: list[np.ndarray]
    slots: list[SlotCandidate]
