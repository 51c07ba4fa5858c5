"""Persona items for the privacy panel: facts, knowledge and profile slots in one list, with sources."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

USER_FACT = "user_fact"
KNOWLEDGE = "assistant_knowledge"
PROFILE = "profile"
KIND_LABELS = {USER_FACT: "About you", PROFILE: "Profile", KNOWLEDGE: "Assistant knowledge"}


@dataclass(frozen=True)
class PersonaItem:
    """One thing MemoryOS knows, whatever its table, with where it came from."""

    kind: str  # USER_FACT | KNOWLEDGE | PROFILE
    id: int
    text: str
    status: str
    learned: float
    updated: float
    sources: tuple[int, ...]
    origin: str
    conversation_id: str = ""
    conversation_title: str = ""
    segment_id: int | None = None  # the topic the first source page belongs to, if any
    exchanges: tuple[int, ...] = ()  # the source pages still stored (what can be forgotten)
    # The text as the model's prompt reads it: "Next Friday [27 November 2026] I fly to
    # Lisbon", the day it meant when it was said ("" when that is the text itself)
    dated: str = ""
    # When it was said: its first source exchange still stored (imported history said on
    # 3 November was learned today), else when it was learned (0: as `learned`)
    said: float = 0.0

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.id)

    @property
    def shown(self) -> str:
        """What the Privacy panel shows: the text, with the days its relative dates meant."""
        return self.dated or self.text

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


# A candidate (engine.records.CANDIDATE) is a statement about the person kept word for word;
# when a capable model analyses its topic it writes clean facts, and these copies are replaced.
CANDIDATE_TIP = (
    "Kept word for word, as you said it. It is recalled as it is until a capable model "
    "analyses its topic and writes it as a clean fact, which then replaces it."
)


def status_words(status: str, origin: str) -> tuple[str, str]:
    """A fact's status as a person reads it, and a tooltip saying what that means."""
    if status == "candidate":
        return "As you said it", CANDIDATE_TIP
    if status == "superseded":
        return "Replaced", "A newer item replaced it; it is no longer recalled."
    if origin == "user":
        return "Written by you", "You added or corrected it."
    if origin.startswith("llm:"):
        return "Written by the model", f"The model {origin[4:]} wrote it from your exchanges."
    if origin.startswith("imported"):
        return "Imported", "Imported from the reference MemoryOS."
    return "Learned", "Learned from your exchanges."


def origin_text(origin: str) -> str:
    """How an item was learned, in words."""
    if origin == "verbatim":
        return "Kept word for word from what you said"
    if origin == "pattern":
        return "Recognised in what you said"
    if origin == "user":
        return "Written or corrected by you"
    if origin.startswith("llm:"):
        return f"Extracted by the model {origin[4:]}"
    if origin.startswith("imported"):  # "imported from the reference" (reference_import.ORIGIN)
        return "Imported from the reference MemoryOS"
    return origin[:1].upper() + origin[1:] if origin else "Unknown"


def load_items(mem: Any, include_superseded: bool = False) -> dict[str, Any]:
    """Read every persona item and conversation (in a worker), resolving each first source page."""
    from engine.errors import NotFoundError
    from engine.memory import when

    conversations = mem.conversations()
    titles = {c.id: c.title for c in conversations}
    pages: dict[int, Any] = {}

    def first_page(ids: tuple[int, ...]) -> Any:
        for page_id in ids:
            if page_id not in pages:
                try:
                    pages[page_id] = mem.page(page_id)
                except NotFoundError:
                    pages[page_id] = None
            if pages[page_id] is not None:
                return pages[page_id]
        return None

    def stored(ids: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(page_id for page_id in ids if first_page((page_id,)) is not None)

    def said(ids: tuple[int, ...], learned: float) -> float:
        times = [pages[page_id].timestamp for page_id in stored(ids)]
        return min(times) if times else learned

    def dated(text: str, ids: tuple[int, ...]) -> str:
        """As retrieval dates a fact for the prompt: from when its first exchange was said."""
        said = first_page(ids[:1]) if ids and when.undated(text) else None
        return when.dated(text, said.timestamp) if said is not None else ""

    items: list[PersonaItem] = []
    for fact in mem.facts(include_superseded=include_superseded):
        items.append(_item(fact.kind, fact.id, fact.text, fact.status, fact.created, fact.updated,
                           fact.source_page_ids, fact.origin, first_page(fact.source_page_ids),
                           titles, stored(fact.source_page_ids),
                           dated(fact.text, fact.source_page_ids),
                           said(fact.source_page_ids, fact.created)))
    for slot in mem.profile(include_superseded=include_superseded):
        text = slot.text
        items.append(_item(PROFILE, slot.id, text, slot.status, slot.created, slot.updated,
                           slot.evidence_page_ids, slot.origin, first_page(slot.evidence_page_ids),
                           titles, stored(slot.evidence_page_ids),
                           said=said(slot.evidence_page_ids, slot.created)))
    items.sort(key=lambda item: item.learned, reverse=True)
    return {"items": items, "conversations": conversations}


def _item(kind: str, item_id: int, text: str, status: str, learned: float, updated: float,
          sources: tuple[int, ...], origin: str, page: Any, titles: dict[str, str],
          exchanges: tuple[int, ...] = (), dated: str = "", said: float = 0.0) -> PersonaItem:
    return PersonaItem(
        kind=kind, id=item_id, text=text, status=status, learned=learned, updated=updated,
        sources=tuple(sources), origin=origin,
        conversation_id=page.conversation_id if page else "",
        conversation_title=titles.get(page.conversation_id, "") if page else "",
        segment_id=page.segment_id if page else None, exchanges=exchanges, dated=dated,
        said=said,
    )


@dataclass(frozen=True)
class Deleted:
    """What a delete removed, read just before it: what its Undo puts back."""

    items: tuple[PersonaItem, ...]  # as the panel listed them
    facts: tuple[Any, ...]  # the engine's Fact and ProfileSlot records, as they were
    slots: tuple[Any, ...]
    # Entries the deleted ones had replaced, as they were: the delete made them current again
    replaced: tuple[Any, ...]


def delete_items(mem: Any, items: list[PersonaItem]) -> Deleted:
    """Delete facts in one call and profile slots one by one (in a worker); returns what went,
    with what Undo needs to put it back."""
    fact_ids = [item.id for item in items if item.kind != PROFILE]
    slot_ids = [item.id for item in items if item.kind == PROFILE]
    facts = mem.facts(include_superseded=True) if fact_ids else []
    slots = mem.profile(include_superseded=True) if slot_ids else []
    gone_facts, gone_slots = set(fact_ids), set(slot_ids)
    deleted = Deleted(
        items=tuple(items),
        facts=tuple(fact for fact in facts if fact.id in gone_facts),
        slots=tuple(slot for slot in slots if slot.id in gone_slots),
        replaced=tuple([fact for fact in facts if fact.superseded_by in gone_facts
                        and fact.id not in gone_facts]
                       + [slot for slot in slots if slot.superseded_by in gone_slots
                          and slot.id not in gone_slots]),
    )  # fmt: skip
    if fact_ids:
        mem.delete_facts(fact_ids)
    for slot_id in slot_ids:
        mem.delete_profile_slot(slot_id)
    return deleted


def undo_delete(mem: Any, deleted: Deleted) -> set[tuple[str, int]]:
    """Put back what `delete_items` removed (in a worker); the keys of the items put back (a
    profile entry whose id a newer entry took meanwhile comes back under another id).
    NotFoundError, putting nothing back, when an exchange they were learned from was forgotten
    since (the Undo is kept until a lock, and a forget elsewhere, a /forget or another program,
    does not end it): forgotten, what was learned from it stays gone."""
    from engine.errors import NotFoundError

    had = {page for item in deleted.items for page in item.exchanges}
    if had and mem.stored_pages(sorted(had)) != had:
        raise NotFoundError("an exchange they were learned from was forgotten since")
    mem.restore_deleted(deleted.facts, deleted.slots, deleted.replaced)
    keys = {item.key for item in deleted.items if item.kind != PROFILE}
    if deleted.slots:
        back = {(s.category, s.name, s.value, s.created) for s in deleted.slots}
        keys |= {(PROFILE, s.id) for s in mem.profile(include_superseded=True)
                 if (s.category, s.name, s.value, s.created) in back}  # fmt: skip
    return keys


def delete_and_forget(mem: Any, items: list[PersonaItem], pages: list[int]) -> Any:
    """Delete the items, then forget the exchanges they came from (the pages previewed).
    In that order: forgetting first would already have removed the items learned only there."""
    delete_items(mem, items)
    return mem.forget_pages(pages)


@dataclass(frozen=True)
class Edited:
    """What an edit changed, read just before it: what its Undo puts back."""

    item: PersonaItem  # as the panel listed it before the edit
    before: Any  # the engine's Fact or ProfileSlot record, as it was


def edit_item(mem: Any, item: PersonaItem, text: str) -> Edited:
    """Correct an item's text (in a worker); returns what Undo needs to put the old one back."""
    if item.kind == PROFILE:
        before = next((s for s in mem.profile(include_superseded=True) if s.id == item.id), None)
        value = text.split(":", 1)[1] if ":" in text else text
        mem.edit_profile_slot(item.id, value.strip())  # NotFoundError when it is gone
    else:
        before = mem.fact(item.id)
        mem.edit_fact(item.id, text)
    return Edited(item=item, before=before)


def undo_edit(mem: Any, edited: Edited) -> set[tuple[str, int]]:
    """Put back the text an edit replaced, with the item's dates and origin (in a worker);
    the key of the item, to select it again."""
    mem.restore_edited(edited.before)
    return {edited.item.key}


def source_pages(mem: Any, page_ids: tuple[int, ...]) -> list[Any]:
    """The exchanges an item came from (pages deleted since are skipped)."""
    from engine.errors import NotFoundError

    found = []
    for page_id in page_ids:
        try:
            found.append(mem.page(page_id))
        except NotFoundError:
            continue
    return found
