"""A fact that names a relative date ("on Sunday", "yesterday") said again on another day is
another event: it is learned as a fact of its own, dated from its own exchange, not merged into
the first one (which then showed one exchange's date and another's "said")."""

from __future__ import annotations

from datetime import datetime, timezone

from engine.retrieval_facts import dated_facts
from engine.settings import MemorySettings

SAID = "I went hiking on Sunday with my sister."


def ts(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


def _hiking(memory) -> list:
    facts = [f for f in memory.facts() if "hiking" in f.text]
    return sorted(dated_facts(memory.vault, facts), key=lambda f: f.id)


def test_the_same_words_said_in_another_week_are_another_fact(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    recent = memory.add_memory(SAID, "Lovely.", timestamp=ts("2025-11-24T10:00:00"))
    memory.add_memory("The weather turned cold.", "Wrap up.", timestamp=ts("2025-11-25T10:00:00"))
    memory.run_consolidation()
    # history from two years before, imported later: the same words, another Sunday
    old = memory.add_memory(SAID, "Nice.", timestamp=ts("2023-11-06T10:00:00"))
    memory.add_memory("Work was busy.", "Hang in there.", timestamp=ts("2023-11-07T10:00:00"))
    memory.run_consolidation()

    facts = _hiking(memory)

    assert len(facts) == 2, [f.text for f in facts]
    by_source = {f.source_page_ids: f.text for f in facts}
    assert by_source[(recent.id,)].endswith("[23 November 2025] with my sister.")
    assert by_source[(old.id,)].endswith("[5 November 2023] with my sister.")


def test_the_same_words_said_again_that_day_stay_one_fact(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    first = memory.add_memory(SAID, "Lovely.", timestamp=ts("2025-11-24T10:00:00"))
    again = memory.add_memory(SAID, "You said!", timestamp=ts("2025-11-24T18:00:00"))
    memory.add_memory("The weather turned cold.", "Wrap up.", timestamp=ts("2025-11-25T10:00:00"))
    memory.run_consolidation()

    (fact,) = _hiking(memory)

    assert set(fact.source_page_ids) == {first.id, again.id}
