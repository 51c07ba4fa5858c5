"""After "I've switched from coffee to green tea" the profile is the new habit: a prompt for a
question about something else ("Hello again") showed "switched away from coffee" and, in a
small model's prompt cut to its first entries, never the green tea."""

from __future__ import annotations

from engine.prompt import build_messages

SWITCH = "I've switched from coffee to green tea, I sleep much better now."


def learn(memory, user: str):
    page = memory.add_memory(user, "Okay.")
    memory.run_consolidation()
    return page


def system_prompt(memory, compact: bool) -> str:
    retrieval = memory.retrieve("Hello again")
    return build_messages(retrieval, "Hello again", compact=compact)[0]["content"]


def whole_prompt(memory, question: str, compact: bool) -> str:
    messages = build_messages(memory.retrieve(question), question, compact=compact)
    return "\n".join(m["content"] for m in messages)


def test_the_profile_shows_the_new_habit_not_the_old_one(memory):
    learn(memory, "My name is Dana.")
    learn(memory, "I live in Porto.")
    learn(memory, "I really love coffee.")
    switch = learn(memory, SWITCH)

    tastes = [s.text for s in memory.profile() if s.category == "preference"]
    assert len(tastes) == 1 and "green tea" in tastes[0]
    shown = system_prompt(memory, compact=False)  # the full prompt's profile
    assert "green tea" in shown
    assert "away from coffee" not in shown and "likes coffee" not in shown
    # A small model's system message holds only the name (the same for every question, for
    # its prompt cache); the profile entries a question names come with its memories.
    assert "coffee" not in system_prompt(memory, compact=True)
    shown = whole_prompt(memory, "What do I like to drink?", compact=True)
    assert "green tea" in shown
    assert "away from coffee" not in shown and "likes coffee" not in shown

    memory.forget_page(switch.id)  # as if never said: the old taste is current again
    tastes = [s.text for s in memory.profile() if s.category == "preference"]
    assert tastes == ["likes coffee"]
    assert "green tea" not in system_prompt(memory, compact=False)


def test_a_switch_said_without_what_it_moved_to_stays_in_the_profile(memory):
    learn(memory, "I really love coffee.")
    learn(memory, "I've switched from coffee, it kept me awake.")
    assert [s.text for s in memory.profile()] == ["switched away from coffee"]
