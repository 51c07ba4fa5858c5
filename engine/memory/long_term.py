"""Long-term memory: the persona. Profile slots, user facts and assistant knowledge, with
provenance: what each new page teaches (patterns, no LLM), what a hot segment teaches (one
structured call, capable models only), and the person's own edits."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import errors, validation
from engine.memory import fact_values, keywords, persona_compare, when
from engine.memory.context import MemoryContext
from engine.memory.model import ConsolidationModel
from engine.memory.persona_analysis import ANALYSIS_SCHEMA, analysis_messages, analysis_texts
from engine.memory.persona_patterns import (
    SLOT_WORDS,
    SlotCandidate,
    normalise_text,
    slot_candidates,
    slots_said,
    statement_candidates,
)
from engine.records import (
    ACTIVE,
    ASSISTANT_KNOWLEDGE,
    CANDIDATE,
    SUPERSEDED,
    USER_FACT,
    Fact,
    Page,
    ProfileSlot,
)
from engine.vault.jobs import ANALYSE_SEGMENT

# The facts a move looks through for the places the person said they lived: those using the
# location patterns' words, best matches first (a person says where they live a few times).
MOVE_FACTS = 500
# The facts a new one is compared with for the same words with another number: the nearest,
# as a sentence embedder scores such pairs (0.89 to 0.99 with MiniLM, 0.75 to 0.88 with the
# tests' hashed words); the words decide, this only keeps the check cheap.
LOOK_ALIKES = 8
LOOK_ALIKE_SCORE = 0.7


class Persona:
    """Writes to the long-term tier: merge duplicates, supersede contradictions, keep provenance."""

    def __init__(self, ctx: MemoryContext) -> None:
        self.ctx = ctx
        self.vault = ctx.vault
        self.embedder = ctx.embedder
        self.facts_mirror = ctx.fact_mirror

    def remember_fact(
        self,
        kind: str,
        text: str,
        *,
        status: str,
        origin: str,
        sources: list[int],
        now: float | None = None,
        vector: np.ndarray | None = None,
    ) -> int:
        """Add a fact, or merge it into an equal / near-identical one (sources are unioned).
        A near-identical one with another number, time or date is another fact; where it
        gives the same subject another value, the older of the two is replaced (kept)."""
        now = now or time.time()
        norm = normalise_text(text)
        existing = self.vault.find_fact(kind, norm)
        alike: list[Fact] = []
        if existing is None:
            vector = vector if vector is not None else self.embedder.embed_one(text)
            hits = self.facts_mirror.search(vector, LOOK_ALIKES)
            near = {fact_id for fact_id, score in hits if score >= LOOK_ALIKE_SCORE}
            alike = self.vault.facts(kind, False, ids=list(near))
            if hits and hits[0][1] >= 0.97:
                top = next((f for f in alike if f.id == hits[0][0]), None)
                if top is not None and fact_values.same_values(top.text, text):
                    existing = top.id
        if existing is not None:
            self.vault.add_fact_sources(existing, sources)
            self.vault.touch_fact(existing, now)
            return existing
        fact_id = self.vault.insert_fact(
            kind=kind,
            text=text,
            norm=norm,
            status=status,
            origin=origin,
            vector=vector,
            sources=sources,
            now=now,
        )
        self.facts_mirror.add(fact_id, vector)
        # the person's states only: what the assistant did ("I set a timer for 8:30") happened
        if kind == USER_FACT:
            changed = [f for f in alike if fact_values.value_changed(f.text, text)]
            known = {fact_id, *(c.id for c in changed)}
            changed += [f for f in self._said_values(text) if f.id not in known]
            if changed:
                self._supersede_older_value(fact_id, sources, changed, now)
        return fact_id

    def _said_values(self, text: str) -> list[Fact]:
        """Current user facts that `text` gives another value ("I take 100 micrograms now
        instead of 88" after "My levothyroxine is now 88 micrograms"), or that give the thing
        `text` states another value (an older exchange imported after the change): found by
        the words of what is counted, not by meaning, as the two sentences may share no
        other word (fact_values.replaces)."""
        words = fact_values.search_words(text)
        if not words:
            return []
        found = self._facts_matching(" OR ".join(persona_compare.phrase(word) for word in words))
        return [
            f for f in found
            if fact_values.replaces(text, f.text) or fact_values.replaces(f.text, text)
        ]  # fmt: skip

    def _supersede_older_value(
        self, fact_id: int, sources: list[int], others: list[Fact], now: float
    ) -> None:
        """The same statement with another value ("I take 40 mg of citalopram" after "I take
        20 mg ..."): the one said later is current, the other is replaced (kept for the
        Privacy panel, linked, so forgetting the newer exchange brings the older value back).
        Said later by the exchanges' own times, not the order they were imported in; one
        exchange saying both ("8:30 on weekdays. 9:15 ...") replaces neither."""
        said = {p.id: (p.timestamp, p.id) for p in self.vault.pages(
            {*sources, *(page for f in others for page in f.source_page_ids)}
        )}  # fmt: skip

        def when(page_ids: list[int] | tuple[int, ...], created: float) -> tuple[float, int]:
            times = [said[i] for i in page_ids if i in said]
            return max(times) if times else (created, 0)

        new_when = when(sources, now)
        newest = None
        for other in others:
            if set(other.source_page_ids) & set(sources):
                continue
            other_when = when(other.source_page_ids, other.created)
            if other_when < new_when:
                self.vault.supersede_fact(other.id, fact_id, now)
            elif newest is None or other_when > newest[0]:
                newest = (other_when, other.id)
        if newest is not None:  # an older exchange, imported after the newer one
            self.vault.supersede_fact(fact_id, newest[1], now)

    def set_slot(
        self,
        category: str,
        name: str,
        value: str,
        *,
        origin: str,
        evidence: list[int],
        now: float | None = None,
        by_hand: ByHand | None = None,
    ) -> int:
        """Fill a profile slot; a different value supersedes the old one (kept, marked).
        `by_hand`: the value was read from a fact the person added (it has no exchange)."""
        now = now or time.time()
        current = self.vault.active_slot(category, name)
        if current is not None and normalise_text(current.value) == normalise_text(value):
            self.vault.add_slot_evidence(current.id, evidence)
            self.vault.touch_slot(current.id, now)
            if by_hand is not None:
                by_hand.slot_ids.append(current.id)
            return current.id
        slot_id = self.vault.insert_slot(category, name, value, origin, evidence, now)
        if by_hand is not None:
            by_hand.slot_ids.append(slot_id)
        if current is not None:
            self.vault.supersede_slot(current.id, slot_id, now)
        if (category, name) == ("identity", "location"):
            self._supersede_old_home(value, evidence, now, by_hand)
        if category == "preference":
            self._supersede_opposite(name, value, slot_id, evidence, now, by_hand)
            if value.startswith("switched to "):
                self._retire_switched_away(slot_id, evidence, now, by_hand)
        return slot_id

    def _retire_switched_away(
        self, slot_id: int, evidence: list[int], now: float, by_hand: ByHand | None
    ) -> None:
        """ "I've switched from coffee to green tea" fills "switched away from coffee" (which
        replaced "likes coffee") and "switched to green tea from coffee": the second, the new
        habit, is current. Both stayed, and a profile cut short ("coffee" files before "green
        tea") showed the old habit and never the new one. Forgetting the exchange brings back
        what was current before it."""
        for slot in self.vault.slots(include_superseded=False):
            if (
                slot.category == "preference"
                and slot.value.startswith("switched away from ")
                and (
                    set(slot.evidence_page_ids) & set(evidence)
                    or (by_hand is not None and slot.id in by_hand.slot_ids)
                )
            ):
                self.vault.supersede_slot(slot.id, slot_id, now)

    def _supersede_opposite(
        self,
        name: str,
        value: str,
        slot_id: int,
        evidence: list[int],
        now: float,
        by_hand: ByHand | None,
    ) -> None:
        """A taste that changed: "no longer likes spicy food" replaces "likes spicy Thai food"
        (and the words it was learned from, "I really love spicy Thai food"), and a new like
        replaces an old dislike. Preferences are filed by their object's words, so the two
        were different entries and both stayed in the profile the model was shown. Matched
        when one object's words hold all of the other's. "I've switched from coffee to tea"
        replaces "likes coffee" the same way, and the habit said of it ("I need two cups of
        coffee every morning"); "I love hiking" names no coffee and stays, and so does "I had
        coffee with Ana" (one day, not a habit)."""
        for slot in self._opposite_tastes(name, value, slot_id):
            self.vault.supersede_slot(slot.id, slot_id, now)
        self._supersede_liked(name, value, evidence, now, by_hand)

    def _opposite_tastes(self, name: str, value: str, slot_id: int | None) -> list[ProfileSlot]:
        """The current preference entries the taste `value` (filed as `name`) turns round."""
        polarity = persona_compare.polarity(value)
        words = set(name.split())
        if not polarity or not words:
            return []
        about = persona_compare.taste_stems(value)
        return [
            slot for slot in self.vault.slots(include_superseded=False)
            if slot.category == "preference" and slot.id != slot_id
            and persona_compare.polarity(slot.value) == -polarity
            and (
                (other := set(slot.name.split())) >= words or words >= other
                or persona_compare.same_taste(about, persona_compare.taste_stems(slot.value))
            )
        ]  # fmt: skip

    def _supersede_liked(
        self, name: str, value: str, evidence: list[int], now: float, by_hand: ByHand | None
    ) -> None:
        """The facts a taste lost (`value`, filed as `name`) no longer holds: "I really love
        spicy Thai food" after "no longer likes spicy food", and after a switch the habit."""
        words = set(name.split())
        if persona_compare.polarity(value) < 0 and words:
            found = self._facts_matching(" AND ".join(f'"{word}"' for word in sorted(words)))
            changed = [f for f in found if persona_compare.changed_taste(f.text)]
            # Linked to the words that said the change: deleting them, or forgetting their
            # exchange, makes the old taste current again.
            by = self._said_in(changed, evidence, by_hand)
            stems = keywords.normalise(sorted(words))
            # a habit goes with a switch only: one who no longer likes coffee may still need it
            switched = value.startswith("switched away from ")
            for fact in found:
                if persona_compare.changed_taste(fact.text):
                    continue
                if stems <= persona_compare.liked_stems(fact.text) or (
                    switched and stems <= persona_compare.habit_stems(fact.text)
                ):
                    self.vault.supersede_fact(fact.id, by, now)

    def _supersede_old_home(
        self, new: str, evidence: list[int], now: float, by_hand: ByHand | None
    ) -> None:
        """A move: once the person lives in Paris, "I live in Lyon" and "I work at a bakery in
        Lyon" (the words location=Lyon was read from) no longer say where they are. Only a
        fact the location patterns read as another place goes: "I visited Lyon" stays. Every
        such fact goes, not only those of the entry replaced: after "location: Madrid" was
        deleted, "I moved to Rome" left "I moved to Madrid last month" current beside it."""
        new_place = normalise_text(new)
        said = " OR ".join(f'"{word}"' for word in SLOT_WORDS["location"].split())
        stale = [
            f for f in self._facts_matching(said, limit=MOVE_FACTS)
            if (places := persona_compare.places(f.text))
            and not any(persona_compare.same_place(p, new_place) for p in places)
        ]  # fmt: skip
        if not stale:
            return
        by = self._said_in(
            [
                f
                for f in self._facts_matching(persona_compare.phrase(new))
                if new_place in persona_compare.places(f.text)
            ],
            evidence,
            by_hand,
        )
        for fact in stale:
            self.vault.supersede_fact(fact.id, by, now)

    def _facts_matching(self, match: str, limit: int = 50) -> list[Fact]:
        """Current user facts that an FTS5 query over their text finds."""
        hits = [i for i, _ in self.vault.keyword_search("facts_fts", match, limit)]
        return self.vault.facts(USER_FACT, False, ids=hits) if hits else []

    @staticmethod
    def _said_in(facts: list[Fact], evidence: list[int], by_hand: ByHand | None) -> int | None:
        """The newest of `facts` learned from the exchanges in `evidence`, else None; the fact
        added by hand, where the change was read from one."""
        if by_hand is not None:
            return by_hand.fact_id
        ids = [f.id for f in facts if set(f.source_page_ids) & set(evidence)]
        return max(ids) if ids else None

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

    # ---- the person's own edits -------------------------------------------------------------

    def add_fact(self, text: str, kind: str) -> Fact:
        """A fact the person typed (`facts add`, /remember, MCP add_fact, Remember this), kept
        in their words and read as the same words said in an exchange are: each relative date
        gets the day it meant when added ("last Tuesday [24 November 2026]", as a learned fact
        is shown), and what it changes is replaced by it (a move the old home, in the facts
        and the profile; a new dose the older one; a dropped taste the profile entry). A
        profile entry is made from it only to replace one: it is one item, the person's."""
        text = validation.text(text, "fact").strip()
        if not text:
            raise errors.InvalidInputError("the fact is empty")
        now = self.ctx.clock()
        # the profile entries the same words fill when said, read from them as typed
        slots = slots_said(text) if kind == USER_FACT else []
        # stored dated: a fact with no exchange has no other record of when it was said
        text = when.dated(text, now)
        vector = self.embedder.embed_one(text)
        with self.vault.transaction():
            fact_id = self.remember_fact(
                kind, text, status=ACTIVE, origin="user", sources=[], now=now, vector=vector
            )
            self._profile_by_hand(fact_id, slots, now)
        return self.vault.fact(fact_id)

    def _profile_by_hand(self, fact_id: int, slots: list[SlotCandidate], now: float) -> None:
        """What the profile entries `slots`, read from the fact added by hand `fact_id`,
        change (inside the caller's transaction; see add_fact)."""
        by_hand = ByHand(fact_id)
        for slot in slots:
            if self._changes_profile(slot, by_hand):
                self.set_slot(slot.category, slot.name, slot.value, origin="user",
                              evidence=[], now=now, by_hand=by_hand)  # fmt: skip
            elif (slot.category, slot.name) == ("identity", "location"):
                self._supersede_old_home(slot.value, [], now, by_hand)
            elif slot.category == "preference":
                self._supersede_liked(slot.name, slot.value, [], now, by_hand)

    def _changes_profile(self, slot: SlotCandidate, by_hand: ByHand) -> bool:
        """Whether filling `slot` replaces a current profile entry: another value of it, a
        taste it turns round, or the "switched away from" entry said with it."""
        current = self.vault.active_slot(slot.category, slot.name)
        if current is not None:
            return normalise_text(current.value) != normalise_text(slot.value)
        if slot.category != "preference":
            return False
        if slot.value.startswith("switched to ") and any(
            self.vault.slot(i).value.startswith("switched away from ") for i in by_hand.slot_ids
        ):
            return True
        return bool(self._opposite_tastes(slot.name, slot.value, None))

    def edit_fact(self, fact_id: int, text: str) -> Fact:
        text = validation.text(text, "fact").strip()
        if not text:
            raise errors.InvalidInputError("the fact is empty: delete it instead")
        self.vault.fact(fact_id)  # NotFoundError for unknown ids
        vector = self.embedder.embed_one(text)
        with self.vault.transaction():
            self.vault.update_fact_text(
                fact_id, text, normalise_text(text), vector, "user", self.ctx.clock()
            )
            self.vault.bump_vector_generation()
        self.facts_mirror.update(fact_id, vector)
        return self.vault.fact(fact_id)

    def delete_facts(self, fact_ids: list[int]) -> None:
        """Delete the facts, and the profile entries made only from those of them the person
        added by hand (made_by_hand), as forgetting an exchange deletes the entries whose every
        source it was: what those entries replaced is current again."""
        facts = [self.vault.fact(fact_id) for fact_id in fact_ids]  # NotFoundError first
        with self.vault.transaction():
            slot_ids = self.made_by_hand(facts)
            self.vault.delete_facts(fact_ids, self.ctx.dimension)
            self.vault.delete_slots(slot_ids)
            self.vault.bump_vector_generation()
        self.facts_mirror.remove(fact_ids)

    def made_by_hand(self, facts: list[Fact]) -> list[int]:
        """The current profile entries whose only evidence is among `facts`: entries with no
        exchange, made by add_fact from the words of one of them added by hand, that no other
        fact added by hand still says. The vault records no link from an entry to its fact,
        so the words are read again as add_fact read them."""
        gone = {fact.id for fact in facts}
        said = {_said_key(slot) for fact in facts if _by_hand(fact) for slot in _slots_of(fact)}
        if not said:
            return []
        kept = {
            _said_key(slot) for fact in self.vault.facts(USER_FACT, False)
            if fact.id not in gone and _by_hand(fact) for slot in _slots_of(fact)
        }  # fmt: skip
        return [
            slot.id for slot in self.vault.slots(include_superseded=False)
            if slot.origin == "user" and not slot.evidence_page_ids
            and _said_key(slot) in said - kept
        ]  # fmt: skip

    def edit_slot(self, slot_id: int, value: str) -> ProfileSlot:
        value = validation.text(value, "value").strip()
        if not value:
            raise errors.InvalidInputError("the value is empty: delete the slot instead")
        self.vault.slot(slot_id)
        with self.vault.transaction():
            self.vault.update_slot_value(slot_id, value, "user", self.ctx.clock())
        return self.vault.slot(slot_id)

    def restore_edit(self, before: Fact | ProfileSlot) -> Fact | ProfileSlot:
        """Undo an edit: the fact or profile entry gets back its text, status, origin and dates
        as read just before the edit (`before`); an edit changes neither its id nor sources."""
        if isinstance(before, ProfileSlot):
            self.vault.slot(before.id)  # NotFoundError when it went since
            with self.vault.transaction():
                self.vault.update_slot_value(before.id, before.value, before.origin, before.updated)
            return self.vault.slot(before.id)
        self.vault.fact(before.id)
        vector = self.embedder.embed_one(before.text)
        with self.vault.transaction():
            self.vault.update_fact_text(before.id, before.text, normalise_text(before.text),
                                        vector, before.origin, before.updated)
            # an edit makes the fact current: it gets back the status it had
            self.vault.relink("facts", before.id, before.status, before.superseded_by)
            self.vault.bump_vector_generation()
        self.facts_mirror.update(before.id, vector)
        return self.vault.fact(before.id)

    def delete_slot(self, slot_id: int) -> None:
        self.vault.slot(slot_id)
        with self.vault.transaction():
            self.vault.delete_slots([int(slot_id)])

    def restore(
        self, facts: list[Fact], slots: list[ProfileSlot], replaced: list[Fact | ProfileSlot]
    ) -> None:
        """Undo a delete: the facts and profile entries come back as they were read just before
        it (text, kind, status, dates, origin, what replaced them, the sources still stored),
        and the entries they had replaced, which the delete made current again (`replaced`,
        as read then too), are replaced by them again. Facts already back are skipped."""
        held = {fact.id for fact in self.vault.facts(None, True, ids=[f.id for f in facts])}
        facts = [fact for fact in facts if fact.id not in held]
        vectors = [self.embedder.embed_one(fact.text) for fact in facts]
        with self.vault.transaction():
            for fact, vector in zip(facts, vectors, strict=True):
                self.vault.restore_fact(fact, normalise_text(fact.text), vector)
            # a profile id may have been given to a newer entry since: links follow the new id
            slot_ids = {slot.id: self.vault.restore_slot(slot) for slot in slots}
            for slot in slots:
                by = slot_ids.get(slot.superseded_by, slot.superseded_by)
                self.vault.relink("profile", slot_ids[slot.id], slot.status, by)
            for entry in [*facts, *replaced]:
                if isinstance(entry, ProfileSlot):
                    by = slot_ids.get(entry.superseded_by, entry.superseded_by)
                    self.vault.relink("profile", entry.id, entry.status, by)
                else:
                    self.vault.relink("facts", entry.id, entry.status, entry.superseded_by)
            # the profile entries a fact added by hand made went with it (delete_facts)
            for fact in facts:
                if _by_hand(fact) and fact.status != SUPERSEDED:
                    self._profile_by_hand(fact.id, _slots_of(fact), self.ctx.clock())
            self.vault.bump_vector_generation()  # ids below the last one came back
        for fact, vector in zip(facts, vectors, strict=True):
            self.facts_mirror.add(fact.id, vector)


@dataclass
class ByHand:
    """A fact the person added by hand, and the profile entries read from it so far. The facts
    it replaces are linked to it, as those an exchange replaces are to the fact learned from
    it: deleting it makes them current again, and deletes a profile entry made from it
    (Persona.made_by_hand)."""

    fact_id: int
    slot_ids: list[int] = field(default_factory=list)


@dataclass
class Learned:
    """What one page teaches without an LLM: verbatim statements (embedded) and profile slots."""

    page_id: int
    statements: list[tuple[str, str]]
    vectors: list[np.ndarray]
    slots: list[SlotCandidate]


def _by_hand(fact: Fact) -> bool:
    """Whether the person added `fact` by hand (add_fact): theirs, from no exchange."""
    return fact.kind == USER_FACT and fact.origin == "user" and not fact.source_page_ids


def _slots_of(fact: Fact) -> list[SlotCandidate]:
    """The profile entries add_fact read from the words of `fact`, as typed (undated)."""
    return slots_said(when.without_resolved(fact.text))


def _said_key(slot: SlotCandidate | ProfileSlot) -> tuple[str, str, str]:
    return (slot.category, slot.name, normalise_text(slot.value))
