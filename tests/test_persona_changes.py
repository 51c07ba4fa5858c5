"""The persona follows changes: what replaced an entry can be forgotten (the old one is current
again), a taste that moved away from a named thing replaces it, a move replaces the facts that
said where the person lived, and a small model's stock offers are not kept as knowledge."""

from __future__ import annotations

from engine.records import ASSISTANT_KNOWLEDGE, SUPERSEDED, USER_FACT


def learn(memory, user: str, agent: str = "Okay."):
    page = memory.add_memory(user, agent)
    memory.run_consolidation()
    return page


def locations(memory) -> list[str]:
    return [s.value for s in memory.profile() if s.name == "location"]


def current_facts(memory) -> list[str]:
    return [f.text for f in memory.facts(USER_FACT)]


def tastes(memory) -> list[str]:
    return [s.value for s in memory.profile() if s.category == "preference"]


def test_forgetting_the_move_brings_the_old_place_back(memory):
    learn(memory, "I live in Lyon.")
    paris = learn(memory, "I moved to Paris.")
    assert locations(memory) == ["Paris"]
    assert "I live in Lyon." not in current_facts(memory)

    memory.forget_page(paris.id)

    assert locations(memory) == ["Lyon"]  # not an empty profile
    assert "I live in Lyon." in current_facts(memory)
    shown = " ".join(s.text for s in memory.retrieve("Where do I live?").profile)
    assert "Lyon" in shown


def test_deleting_the_new_place_in_the_privacy_panel_brings_the_old_one_back(memory):
    learn(memory, "I live in Lyon.")
    learn(memory, "I moved to Paris.")
    learn(memory, "I moved to Berlin.")
    [berlin] = [s for s in memory.profile() if s.name == "location"]
    [paris] = [s for s in memory.profile(include_superseded=True) if s.value == "Paris"]

    memory.delete_profile_slot(paris.id)  # an old entry: Berlin stays, Lyon stays replaced
    assert locations(memory) == ["Berlin"]
    [lyon] = [s for s in memory.profile(include_superseded=True) if s.value == "Lyon"]
    assert lyon.status == SUPERSEDED and lyon.superseded_by == berlin.id

    memory.delete_profile_slot(berlin.id)
    assert locations(memory) == ["Lyon"]


def test_deleting_the_changed_taste_brings_the_old_one_back(memory):
    learn(memory, "I really love strong coffee in the morning.")
    learn(memory, "I no longer like coffee, it keeps me awake.")
    assert "I really love strong coffee in the morning." not in current_facts(memory)

    [said] = [f for f in memory.facts(USER_FACT) if "no longer" in f.text]
    memory.delete_fact(said.id)

    assert "I really love strong coffee in the morning." in current_facts(memory)


def test_forgetting_the_changed_taste_brings_the_old_one_back(memory):
    learn(memory, "I really love strong coffee in the morning.")
    changed = learn(memory, "I no longer like coffee, it keeps me awake.")
    assert "likes strong coffee in the morning" not in tastes(memory)

    memory.forget_page(changed.id)

    assert "I really love strong coffee in the morning." in current_facts(memory)
    assert tastes(memory) == ["likes strong coffee in the morning"]


def test_a_switch_away_from_a_named_thing_replaces_that_taste_only(memory):
    for said in (
        "I've switched from coffee to tea.",
        "These days I drink tea instead of coffee.",
    ):
        learn(memory, "I really love coffee.")
        learn(memory, "I love hiking in the mountains.")
        assert "I really love coffee." in current_facts(memory)

        learn(memory, said)

        facts = current_facts(memory)
        assert "I really love coffee." not in facts, said
        assert "likes coffee" not in tastes(memory), said
        assert "I love hiking in the mountains." in facts  # an unrelated like stays
        assert "likes hiking in the mountains" in tastes(memory)
        memory.forget_everything()


def test_a_one_day_choice_is_not_a_change_of_taste(memory):
    learn(memory, "I love the bus ride to work.")
    learn(memory, "I took the train instead of the bus today.")
    assert "I love the bus ride to work." in current_facts(memory)


def test_a_move_replaces_the_facts_that_said_where_the_person_lived(memory):
    learn(memory, "I work at a bakery in Lyon.")
    learn(memory, "I'm based in Lyon with my partner.")
    learn(memory, "I visited Lyon's old town with my sister.")
    assert locations(memory) == ["Lyon"]

    move = learn(memory, "I moved to Paris.")

    facts = current_facts(memory)
    assert locations(memory) == ["Paris"]
    assert "I work at a bakery in Lyon." not in facts
    assert "I'm based in Lyon with my partner." not in facts
    assert "I visited Lyon's old town with my sister." in facts  # only a mention
    # and forgetting the move makes them current again
    memory.forget_page(move.id)
    facts = current_facts(memory)
    assert "I work at a bakery in Lyon." in facts and "I'm based in Lyon with my partner." in facts


def test_a_small_models_stock_offers_are_not_kept_as_knowledge(memory):
    for user, agent in [
        ("Hi there", "Hello! I can help you with that!"),
        ("Tell me a joke", "Why did the cat sit on the computer? I'll do my best to help you."),
        ("What's the weather", "I can't check that. Let me know if you need anything else!"),
        ("Thanks", "You're welcome! I'm going to help you with anything you need."),
        ("Hi", "I will always be here for you, my friend."),
    ]:
        memory.add_memory(user, agent)
    memory.run_consolidation()
    assert memory.facts(ASSISTANT_KNOWLEDGE) == []


def test_a_commitment_to_what_the_person_asked_is_kept(memory):
    memory.add_memory(
        "Remind me to call my mum on Sunday.", "Sure! I'll remind you to call your mum on Sunday."
    )
    memory.add_memory("We're out of milk.", "I've added milk to your shopping list.")
    memory.add_memory("Hello", "I'll remind you about your dentist next week.")  # not asked
    memory.run_consolidation()
    kept = [f.text for f in memory.facts(ASSISTANT_KNOWLEDGE)]
    assert sorted(kept) == [
        "I'll remind you to call your mum on Sunday.",
        "I've added milk to your shopping list.",
    ]


def test_a_move_said_in_a_long_sentence_replaces_the_old_home(memory):
    """The place was read from the whole rest of the sentence, and eleven words were too many
    for a place: the profile kept the old city."""
    learn(memory, "I live in Bristol, near the harbour.")
    move = learn(memory, "I moved to Glasgow last weekend and the flat is still full of boxes.")

    assert locations(memory) == ["Glasgow"]
    assert "I live in Bristol, near the harbour." not in current_facts(memory)

    memory.forget_page(move.id)
    assert locations(memory) == ["Bristol"]
    assert "I live in Bristol, near the harbour." in current_facts(memory)


def test_a_switch_says_what_was_taken_up_and_retires_the_old_habit(memory):
    """After "I've switched from coffee to green tea", "I need two cups of coffee every
    morning" was still current (only "likes coffee" went) and nothing said green tea."""
    learn(memory, "I need two cups of coffee every morning before I can think.")
    learn(memory, "I drink coffee every day at work.")
    learn(memory, "I had coffee with Ana at the station.")
    switch = learn(memory, "I've switched from coffee to green tea, I sleep much better now.")

    facts = current_facts(memory)
    assert "I need two cups of coffee every morning before I can think." not in facts
    assert "I drink coffee every day at work." not in facts
    assert "I had coffee with Ana at the station." in facts  # one day, not a habit
    assert any("green tea" in taste for taste in tastes(memory))
    shown = memory.retrieve("What do I drink in the morning?")
    assert any("green tea" in s.text for s in shown.profile)
    assert not any("two cups of coffee" in f.fact.text for f in shown.facts)

    memory.forget_page(switch.id)  # the habit is current again, the new taste gone
    facts = current_facts(memory)
    assert "I need two cups of coffee every morning before I can think." in facts
    assert "I drink coffee every day at work." in facts
    assert not any("green tea" in taste for taste in tastes(memory))
