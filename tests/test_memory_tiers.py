"""The three tiers: STM overflow in batches, segments, heat, eviction, persona with provenance."""

from __future__ import annotations

import time

from engine.backends.fake import FakeChat
from engine.memory.heat import heat
from engine.records import ARCHIVED, CANDIDATE, MID_TERM, SUPERSEDED
from engine.settings import MemorySettings

HIKING = "We hiked the granite ridge trail near the alpine lake with hiking boots and trekking poles"
BAKING = "I baked sourdough bread with rye flour, a starter culture and a hot dutch oven"
GUITAR = "Practised guitar chords, fingerpicking patterns and a blues scale on my acoustic guitar"


def fill(memory, text, n, start=0):
    return [memory.add_memory(f"{text} day {start + i}", f"Sounds good {start + i}") for i in range(n)]


def test_stm_overflow_leaves_in_batches(memory):
    memory.update_settings(MemorySettings(stm_capacity=4, stm_evict_batch=3))
    pages = fill(memory, HIKING, 4)
    memory.run_consolidation()
    assert len(memory.short_term()) == 4  # at capacity: nothing leaves yet
    pages += fill(memory, HIKING, 1, start=4)
    memory.run_consolidation()
    queue = memory.short_term()
    assert [p.id for p in queue] == [p.id for p in pages[3:]]  # FIFO: the 3 oldest left together
    moved = [memory.page(p.id) for p in pages[:3]]
    assert all(p.tier == MID_TERM and p.segment_id is not None for p in moved)


def test_similar_pages_share_a_segment_and_topics_split(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=50))
    fill(memory, HIKING, 4)
    fill(memory, BAKING, 4)
    fill(memory, GUITAR, 1)
    memory.run_consolidation()
    segments = memory.segments()
    assert len(segments) == 2
    by_topic = {s.id: {p.user_input.split()[1] for p in memory.segment_pages(s.id)} for s in segments}
    assert sorted(map(sorted, by_topic.values())) == [["baked"], ["hiked"]]
    for segment in segments:
        topic = next(iter(by_topic[segment.id]))  # "hiked" or "baked"
        # without a capable model the summary and keywords come from the segment's own words
        assert topic in segment.keywords and topic in segment.summary
        assert not {"baked", "hiked"} - {topic} & set(segment.keywords)
        assert segment.length == segment.page_count == 4


def test_continuation_is_chained_with_a_running_summary(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1, chain_similarity=0.3))
    first, second, _ = fill(memory, HIKING, 3)
    memory.run_consolidation()
    page = memory.page(second.id)
    assert page.chain_prev_id == first.id
    assert page.chain_summary.startswith("Thread about:") and "hiked" in page.chain_summary


def test_heat_is_computed_when_read():
    settings = MemorySettings()
    now = time.time()
    fresh = heat(visits=2, length=3, last_access=now, now=now, settings=settings)
    assert fresh.heat == 2 + 3 + 1.0
    old = heat(visits=2, length=3, last_access=now - settings.heat_mu_seconds, now=now, settings=settings)
    assert abs(old.recency - 0.3679) < 1e-3 and old.heat < fresh.heat


def test_retrieval_visits_heat_segments(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    fill(memory, HIKING, 3)
    memory.run_consolidation()
    before = memory.segments()[0]
    memory.retrieve("granite ridge trail alpine lake hiking")
    memory.flush_visits()
    after = next(s for s in memory.segments() if s.id == before.id)
    assert after.visit_count == before.visit_count + 1
    memory.retrieve("granite ridge", record_visits=False)
    memory.flush_visits()
    assert next(s for s in memory.segments() if s.id == before.id).visit_count == after.visit_count


def test_lowest_heat_segment_is_archived_not_lost(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1, mtm_capacity=2))
    fill(memory, HIKING, 3)
    fill(memory, BAKING, 2)
    fill(memory, GUITAR, 2)
    memory.run_consolidation()
    active = memory.segments()
    assert len(active) == 2
    archived = [s for s in memory.segments(include_archived=True) if s.archived]
    assert len(archived) == 1
    # when the guitar topic arrived, baking (2 pages) was colder than hiking (3 pages)
    pages = memory.segment_pages(archived[0].id)
    assert {p.user_input.split()[1] for p in pages} == {"baked"}
    assert pages and all(p.tier == ARCHIVED for p in pages)
    found = memory.retrieve(pages[0].user_input).page_ids()
    assert pages[0].id in found  # archived pages stay searchable


def test_first_person_statements_become_candidate_facts_with_provenance(memory):
    page = memory.add_memory("I'm Tom, I work as a data scientist in San Francisco. How are you?", "Hi Tom!")
    memory.run_consolidation()
    facts = memory.facts()
    assert [f.text for f in facts] == ["I'm Tom, I work as a data scientist in San Francisco."]
    assert facts[0].status == CANDIDATE and facts[0].source_page_ids == (page.id,)
    slots = {(s.name, s.value) for s in memory.profile()}
    assert {("name", "Tom"), ("occupation", "data scientist"), ("location", "San Francisco")} <= slots
    assert all(s.evidence_page_ids == (page.id,) for s in memory.profile())


def test_duplicate_statements_merge_and_contradictions_supersede(memory):
    a = memory.add_memory("I live in Boston with my two cats.", "Nice")
    b = memory.add_memory("I live in Boston with my two cats.", "You said")
    c = memory.add_memory("I moved to Denver last spring.", "Big change")
    memory.run_consolidation()
    cats = [f for f in memory.facts(include_superseded=True) if "cats" in f.text]
    assert len(cats) == 1 and cats[0].source_page_ids == (a.id, b.id)
    assert cats[0].status == SUPERSEDED  # it said where they lived: the move replaced it
    location = [s for s in memory.profile(include_superseded=True) if s.name == "location"]
    current = [s for s in location if s.status == "active"]
    old = [s for s in location if s.status == SUPERSEDED]
    assert [s.value for s in current] == ["Denver"] and current[0].evidence_page_ids == (c.id,)
    assert [s.value for s in old] == ["Boston"] and old[0].superseded_by == current[0].id


def test_add_memory_makes_no_llm_call_and_an_answer_exactly_one(memory, chat):
    for i in range(12):
        memory.add_memory(f"I like tea number {i}", "ok")
    assert chat.usage.calls == 0
    chat.queue("You like tea.")
    stream = memory.get_response("What do I like?")
    assert stream.collect() == "You like tea."
    assert chat.usage.generate_calls == 1 and chat.usage.structured_calls == 0
    assert stream.page is not None and memory.page(stream.page.id).agent_response == "You like tea."


def test_small_model_is_not_asked_for_structured_output(tmp_path, memory_keyring, embedder):
    from engine.api import MemoryOS

    small = FakeChat(extraction_capable=False)
    with MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=small,
                       background=False) as mem:
        mem.update_settings(MemorySettings(stm_capacity=2, stm_evict_batch=2, heat_threshold=1))
        fill(mem, HIKING, 8)
        mem.run_consolidation()
        assert len(mem.segments()) == 1  # eight pages on one topic: one segment
        assert small.usage.structured_calls == 0


def test_capable_model_one_call_per_batch_and_per_hot_segment(memory, chat):
    memory.update_settings(MemorySettings(stm_capacity=3, stm_evict_batch=3, heat_threshold=3.5))
    pages = fill(memory, HIKING, 6)
    ids = [p.id for p in pages]
    chat.queue_json(
        {"pages": [{"id": ids[0], "keywords": ["hiking"]}],
         "segments": [{"id": 1, "summary": "Weekend hikes on the granite ridge.", "keywords": ["hiking", "ridge"]}]},
        {"profile": [{"category": "preference", "name": "outdoors", "value": "loves hiking", "evidence": [ids[0]]}],
         "user_facts": [{"text": "The user hikes the granite ridge trail most weekends.", "evidence": [ids[0], ids[1]]}],
         "assistant_knowledge": []},
    )
    memory.run_consolidation()
    assert chat.usage.structured_calls == 2  # one for the evicted batch, one for the hot segment
    segment = memory.segments()[0]
    assert segment.summary == "Weekend hikes on the granite ridge."
    assert segment.length == 0 and segment.visit_count == 0  # counters restart after analysis
    learned = [f for f in memory.facts() if f.origin.startswith("llm:")]
    assert [f.text for f in learned] == ["The user hikes the granite ridge trail most weekends."]
    assert learned[0].source_page_ids == (ids[0], ids[1])
    assert any(s.value == "loves hiking" for s in memory.profile())


def test_background_work_waits_for_a_running_answer_and_wakes_when_it_ends(memory, chat):
    import threading

    chat.queue("one two three four")
    stream = memory.get_response("How are you?")
    next(stream)  # the answer is being generated now
    assert memory.wait_for_foreground(timeout=0.05) is False  # still running: gave up waiting
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(memory.wait_for_foreground(timeout=30)))
    waiter.start()
    rest = list(stream)  # the answer ends
    waiter.join(timeout=30)
    assert woke == [True] and rest  # woken by the end of the answer, not by the timeout
    assert memory.wait_for_foreground(timeout=0) is True  # nothing running any more


def test_a_changed_taste_replaces_the_old_one(memory):
    """ "I no longer like spicy food" left "likes spicy Thai food" in the profile, and the
    words it was learned from among the facts: the model was shown both tastes."""
    memory.add_memory("I really love spicy Thai food, especially green curry.", "Yum.")
    memory.add_memory("I enjoy long walks by the river.", "Lovely.")
    memory.run_consolidation()
    assert "likes spicy Thai food" in [s.value for s in memory.profile()]

    memory.add_memory("I no longer like spicy food. My stomach can't take it.", "Noted.")
    memory.run_consolidation()

    tastes = [s.value for s in memory.profile() if s.category == "preference"]
    assert "no longer likes spicy food" in tastes and "likes spicy Thai food" not in tastes
    assert "likes long walks by the river" in tastes  # another taste is untouched
    facts = [f.text for f in memory.facts()]
    assert "I no longer like spicy food." in facts
    assert not any("love spicy Thai food" in text for text in facts)
    shown = [s.text for s in memory.retrieve("What food do I like?").profile]
    assert "likes spicy Thai food" not in " ".join(shown)
    # and back again: a new like replaces the "no longer"
    memory.add_memory("I love spicy food again, my stomach is fine now.", "Great!")
    memory.run_consolidation()
    tastes = [s.value for s in memory.profile() if s.category == "preference"]
    assert "no longer likes spicy food" not in tastes
