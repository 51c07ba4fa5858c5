"""What consolidation learns from an exchange, and what it learned from given exchanges: facts,
knowledge and profile entries.

The app asks after each "facts" event, for the pages of the conversation on screen, so it can
say "Learned: ..." after the exchange an item came from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine import remembered
from engine.records import USER_FACT, Page

# The rule: a message longer than this teaches no facts and no profile entries (the exchange is
# still stored, found and shown whole, and the answer's side is learned from as ever). Why: a
# walkthrough pasted 356 KB (60,000 words); the model read only its start and end (the bundled
# model reads at most ~13,000 characters of one message with its 4,096-token context, ~6,000
# with 2,048), yet "facts" and a profile name were learned from sentences deep in its unread
# middle. A message this long is a pasted document, log or transcript: its first-person
# sentences are its author's, not the person's, and what the model never read must not become
# something the person said. 4,000 characters (~700 words) is less than the models read whole
# at their usual contexts and more than people write about themselves in one message.
LEARN_MAX_CHARS = 4000

USER_ORIGIN = "user"  # an item the person added or edited (engine.memory.long_term)


def learnable(page: Page) -> Page:
    """The exchange as facts and profile entries are learned from it: the person's message
    left out when it is longer than LEARN_MAX_CHARS (see there why)."""
    if len(page.user_input) <= LEARN_MAX_CHARS:
        return page
    return replace(page, user_input="")


@dataclass(frozen=True)
class LearnedItem:
    kind: str  # remembered.FACT | KNOWLEDGE | PROFILE
    id: int
    text: str
    updated: float
    page_id: int  # the latest of the given exchanges it came from

    @property
    def key(self) -> tuple[str, int, float]:
        """Changes when the item changes: a changed item is learned again."""
        return (self.kind, self.id, self.updated)


def learned_from(memory, page_ids: list[int], since: float = 0.0) -> list[LearnedItem]:
    """Items (not superseded) with evidence among `page_ids`, added or changed at `since` or
    later, oldest first. Never one the person edited (origin "user": in Privacy, or the undo of
    an edit there): their own words are not something MemoryOS learned."""
    wanted = {int(i) for i in page_ids}
    out: list[LearnedItem] = []
    if not wanted:
        return out
    for fact in memory.facts():
        sources = wanted.intersection(fact.source_page_ids)
        if sources and fact.updated >= since and fact.origin != USER_ORIGIN:
            kind = remembered.FACT if fact.kind == USER_FACT else remembered.KNOWLEDGE
            out.append(LearnedItem(kind, fact.id, fact.text, fact.updated, max(sources)))
    for slot in memory.profile():
        sources = wanted.intersection(slot.evidence_page_ids)
        if sources and slot.updated >= since and slot.origin != USER_ORIGIN:
            text = slot.text
            out.append(LearnedItem(remembered.PROFILE, slot.id, text, slot.updated, max(sources)))
    return sorted(out, key=lambda item: (item.updated, item.kind, item.id))


def undo(memory, kind: str, item_id: int) -> None:
    """Delete exactly that item (Undo on a notice; also Forget on a remembered item)."""
    if kind == remembered.PROFILE:
        memory.delete_profile_slot(item_id)
    elif kind in (remembered.FACT, remembered.KNOWLEDGE):
        memory.delete_fact(item_id)
    else:
        memory.forget_page(item_id)
