"""Undoing an edit: the fact or profile entry gets back its text, status, origin and dates."""

from __future__ import annotations

import pytest

from engine import errors

SAID = "I'm Tom and I live in Boston."


@pytest.fixture
def learned(memory):
    memory.add_memory(SAID, "Hi Tom")
    memory.run_consolidation()
    return memory


def test_restoring_an_edited_fact_puts_it_back_as_it_was(learned):
    memory = learned
    before = memory.facts(include_superseded=True)
    fact = before[0]
    assert fact.source_page_ids and fact.origin != "user"
    memory.edit_fact(fact.id, "Tom lives in Cambridge, not Boston.")
    assert memory.fact(fact.id).origin == "user"

    back = memory.restore_edited(fact)

    assert back == fact  # same id, text, status, sources, dates and origin
    assert memory.facts(include_superseded=True) == before
    # the search indexes read the old text again: it is recalled, the mistyped one is not
    assert [f.fact.id for f in memory.retrieve("Boston").facts][:1] == [fact.id]
    assert not any("Cambridge" in f.fact.text for f in memory.retrieve("Cambridge").facts)


def test_restoring_an_edit_gives_a_replaced_fact_back_its_status(learned):
    """An edit makes a replaced fact current; its undo makes it replaced again."""
    memory = learned
    fact = memory.facts()[0]
    memory.edit_fact(fact.id, "Tom lives in Boston, Massachusetts.")  # origin "user" now
    newer = memory.add_fact("Tom moved to Denver.")
    memory.vault.supersede_fact(fact.id, newer.id, fact.updated)
    replaced = memory.fact(fact.id)
    assert replaced.status == "superseded" and replaced.superseded_by == newer.id
    memory.edit_fact(fact.id, "Tom lived in Boston.")
    assert memory.fact(fact.id).status != "superseded"

    memory.restore_edited(replaced)

    assert memory.fact(fact.id) == replaced
    assert fact.id not in [f.id for f in memory.facts()]  # not recalled as current


def test_restoring_an_edited_profile_entry_puts_its_value_back(learned):
    memory = learned
    before = memory.profile(include_superseded=True)
    slot = next(s for s in before if s.name == "location")
    memory.edit_profile_slot(slot.id, "Cambridge")

    assert memory.restore_edited(slot) == slot
    assert memory.profile(include_superseded=True) == before


def test_restoring_an_edit_of_an_item_gone_since_says_it_is_not_found(learned):
    memory = learned
    fact = memory.facts()[0]
    memory.delete_fact(fact.id)
    with pytest.raises(errors.NotFoundError):
        memory.restore_edited(fact)
    assert all(f.id != fact.id for f in memory.facts(include_superseded=True))
