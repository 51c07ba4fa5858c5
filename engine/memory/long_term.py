"""Long-term memory: the persona. Profile slots, user facts and assistant knowledge, with
provenance: what each new page teaches (patterns, no LLM), what a hot segment teaches (one
structured call, capable models only), and the person's own edits. Here: adding a fact or a
profile entry and what it replaces; the learning is in persona_learning.py, the edits in
persona_edits.py."""

from __future__ import annotations

import time

import numpy as np

from engine.memory import fact_values, keywords, persona_compare, persona_life, when
from engine.memory.context import MemoryContext
from engine.memory.persona_edits import ByHand, PersonaEdits
from engine.memory.persona_learning import PersonaLearning
from engine.memory.persona_patterns import SLOT_WORDS, normalise_text
from engine.records import USER_FACT, Fact, ProfileSlot

# The facts a move looks through for the places the person said they lived: those using the
# location patterns' words, best matches first (a person says where they live a few times).
MOVE_FACTS = 500
# The facts a new one is compared with for the same words with another number: the nearest,
# as a sentence embedder scores such pairs (0.89 to 0.99 with MiniLM, 0.75 to 0.88 with the
# tests' hashed words); the words decide, this only keeps the check cheap.
LOOK_ALIKES = 8
LOOK_ALIKE_SCORE = 0.7


class Persona(PersonaLearning, PersonaEdits):
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
        if existing is not None and sources and when.undated(text):
            same = self.vault.find_facts(kind, norm) or [existing]
            existing = self._said_that_day(same, sources)
            alike = alike if existing is not None else []
        if existing is not None:
            self.vault.add_fact_sources(existing, sources)
            self.vault.touch_fact(existing, now)
            return existing
        vector = vector if vector is not None else self.embedder.embed_one(text)
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

    def _said_that_day(self, fact_ids: list[int], sources: list[int]) -> int | None:
        """Of these facts with the words of a new one that names a relative date ("I went
        hiking on Sunday", "my sister visits next week"), the one said on the day its `sources`
        were: said on another day it is another event, not the same fact again. Merged, history
        imported from 2023 gave a 2025 fact its 2023 exchanges: its date was read from one,
        "said" from the other, and the Undo of its Learned notice under the 2023 exchange
        deleted the 2025 fact."""
        days = self._days_said(sources)
        if not days:
            return fact_ids[0]  # its exchanges are gone: nothing tells the days apart
        for fact in self.vault.facts(None, True, ids=fact_ids):
            if self._days_said(fact.source_page_ids) & days:
                return fact.id
        return None

    def _days_said(self, page_ids: list[int]) -> set[str]:
        return {when.describe_day(page.timestamp) for page in self.vault.pages(page_ids)}

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
        value = persona_life.settled(current.value if current else None, value)
        if current is not None and persona_life.still_ended(current.value, value):
            # "my cat Miso used to..." after "cat: Miso (died)": not evidence of the death
            return current.id
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
        if category == persona_life.PEOPLE:
            self._one_step_current(name, slot_id, now)
        if category == "preference":
            self._supersede_opposite(name, value, slot_id, evidence, now, by_hand)
            if value.startswith("switched to "):
                self._retire_switched_away(slot_id, evidence, now, by_hand)
        return slot_id

    def _one_step_current(self, name: str, slot_id: int, now: float) -> None:
        """Of a relation's steps with one person, the latest is current (persona_life.STEPS):
        "wife: Ana" replaces "girlfriend: Ana", and "girlfriend: Ana" said after it (a story
        of the past) is kept as replaced by the wife."""
        for slot in self.vault.slots(include_superseded=False):
            if slot.category != persona_life.PEOPLE or slot.id == slot_id:
                continue
            if persona_life.grows_out_of(name, slot.name):
                self.vault.supersede_slot(slot.id, slot_id, now)
            elif persona_life.grows_out_of(slot.name, name):
                self.vault.supersede_slot(slot_id, slot.id, now)
                return

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
