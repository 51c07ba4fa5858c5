"""The persona's edits by the person: facts added by hand, edited, deleted and put back, and
profile entries edited and deleted, through Persona (long_term.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import errors, validation
from engine.backends.base import Embedder
from engine.memory import when
from engine.memory.context import MemoryContext
from engine.memory.persona_patterns import SlotCandidate, normalise_text, slots_said
from engine.memory.vectors import VectorMirror
from engine.records import ACTIVE, SUPERSEDED, USER_FACT, Fact, ProfileSlot
from engine.vault import Vault


class PersonaEdits:
    """Persona's edits by the person; what an added fact replaces goes through Persona.set_slot
    and the supersede methods of long_term.py, as when the same words are said in an exchange."""

    # set by Persona.__init__ (long_term.py): these methods are Persona's
    ctx: MemoryContext
    vault: Vault
    embedder: Embedder
    facts_mirror: VectorMirror

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


def _by_hand(fact: Fact) -> bool:
    """Whether the person added `fact` by hand (add_fact): theirs, from no exchange."""
    return fact.kind == USER_FACT and fact.origin == "user" and not fact.source_page_ids


def _slots_of(fact: Fact) -> list[SlotCandidate]:
    """The profile entries add_fact read from the words of `fact`, as typed (undated)."""
    return slots_said(when.without_resolved(fact.text))


def _said_key(slot: SlotCandidate | ProfileSlot) -> tuple[str, str, str]:
    return (slot.category, slot.name, normalise_text(slot.value))
