"""Editing the last question: what the replaced exchange alone had replaced stands again, in
the retrieval for the new answer and in the memory once the edit is stored ("I take 40 mg"
had replaced "I take 20 mg"; "I've switched from coffee to tea" had replaced the coffee)."""

from __future__ import annotations

from dataclasses import replace


def ask(memory, question: str):
    stream = memory.get_response(question)
    stream.collect()
    memory.run_consolidation()
    return stream


def current_facts(memory) -> list[str]:
    return [f.text for f in memory.facts()]


def test_a_dose_the_replaced_exchange_changed_is_current_again(memory, chat):
    before = ask(memory, "I take 20 mg of citalopram every morning.")
    changed = ask(memory, "I take 40 mg of citalopram every morning.")
    facts = current_facts(memory)
    assert any("40 mg" in f for f in facts) and not any("20 mg" in f for f in facts)

    edited = memory.replace_response(changed.page.id, "What dose of citalopram do I take?")
    shown = [item.fact.text for item in edited.retrieval.facts]
    assert any("20 mg" in text for text in shown), shown
    assert not any("40 mg" in text for text in shown)
    assert before.page.id not in edited.retrieval.changed  # not marked out of date
    used = [m.text for m in edited.memories]
    assert any("20 mg" in text for text in used) and not any("40 mg" in t for t in used)
    edited.collect()
    memory.run_consolidation()

    facts = current_facts(memory)  # Privacy lists it as current again
    assert any("20 mg" in f for f in facts) and not any("40 mg" in f for f in facts)


def test_a_habit_the_replaced_switch_retired_is_current_again(memory, chat):
    ask(memory, "I love coffee. I need two cups of coffee every morning.")
    switch = ask(memory, "I've switched from coffee to tea.")
    assert not any("two cups of coffee" in f for f in current_facts(memory))

    edited = memory.replace_response(switch.page.id, "How many cups of coffee do I need?")
    shown = [item.fact.text for item in edited.retrieval.facts]
    profile = [s.text for s in edited.retrieval.profile]
    assert any("two cups of coffee" in text for text in shown), shown
    assert not any("switched" in text for text in shown + profile), (shown, profile)
    edited.collect()
    memory.run_consolidation()

    assert any("two cups of coffee" in f for f in current_facts(memory))
    assert not any("switched" in s.text for s in memory.profile())


def test_a_topic_and_thread_summary_stop_saying_what_the_replaced_exchange_said(memory, chat):
    """The exchange replaced had left the short-term queue (later exchanges in another
    conversation): its topic's summary and its thread said its words."""
    memory.update_settings(replace(memory.settings, stm_capacity=2))
    cello = memory.conversation_id
    ask(memory, "I play the cello in a small orchestra on Tuesdays.")
    teacher = ask(memory, "I play the cello with my teacher Ingrid Halvorsen on Tuesdays.")
    memory.new_conversation()
    for question in ("The weather in spring is lovely.", "I baked rye bread today."):
        ask(memory, question)
    said = [s.summary + " ".join(s.keywords) for s in memory.segments()]
    assert any("ingrid" in text.lower() for text in said)  # in a topic now

    memory.continue_conversation(cello)
    edited = memory.replace_response(teacher.page.id, "Who teaches me the cello?")
    retrieval = edited.retrieval
    summaries = [s.summary + " ".join(s.keywords) for s in retrieval.segments]
    summaries += list(retrieval.chain_summaries)
    assert not any("ingrid" in text.lower() for text in summaries), summaries
    assert not any("Ingrid" in m.text for m in edited.memories)
    edited.collect()

    said = [s.summary + " ".join(s.keywords) for s in memory.segments()]
    said += [p.chain_summary for p in memory.pages(limit=50)]
    assert not any("ingrid" in text.lower() for text in said), said
