"""Editing what the memory learned about the person (facts, knowledge, profile): MemoryOS's part."""

from __future__ import annotations

from collections.abc import Iterable

from engine import forgetting
from engine.records import USER_FACT, Fact, ProfileSlot


class PersonaEditsMixin:
    """Methods expect to run inside MemoryOS (engine/api.py: self.persona, self._notify)."""

    # ---- editing the persona (engine/memory/persona_edits.py) -----------------------------

    def add_fact(self, text: str, kind: str = USER_FACT) -> Fact:
        fact = self.persona.add_fact(text, kind)
        self._notify("facts")
        return fact

    def edit_fact(self, fact_id: int, text: str) -> Fact:
        fact = self.persona.edit_fact(fact_id, text)
        self._notify("facts")
        return fact

    def delete_fact(self, fact_id: int) -> None:
        self.delete_facts([fact_id])

    def delete_facts(self, fact_ids: list[int]) -> None:
        self.persona.delete_facts([int(i) for i in fact_ids])
        forgetting.scrub(self.ctx)
        self._notify("facts")

    def edit_profile_slot(self, slot_id: int, value: str) -> ProfileSlot:
        slot = self.persona.edit_slot(slot_id, value)
        self._notify("facts")
        return slot

    def delete_profile_slot(self, slot_id: int) -> None:
        self.persona.delete_slot(slot_id)
        forgetting.scrub(self.ctx)
        self._notify("facts")

    def restore_deleted(
        self,
        facts: Iterable[Fact],
        slots: Iterable[ProfileSlot] = (),
        replaced: Iterable[Fact | ProfileSlot] = (),
    ) -> None:
        """Undo a delete: facts and profile entries as read just before it come back, and the
        entries they had replaced (`replaced`, read then too) are replaced by them again."""
        self.persona.restore(list(facts), list(slots), list(replaced))
        self._notify("facts")

    def restore_edited(self, before: Fact | ProfileSlot) -> Fact | ProfileSlot:
        """Undo an edit: the fact or profile entry as read just before it (text, dates, origin)."""
        entry = self.persona.restore_edit(before)
        self._notify("facts")
        return entry
