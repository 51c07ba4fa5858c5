"""Each retrieval stage finds a turn that only it can find; `now` changes what "last week" is."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from engine.backends.fake import HashEmbedder
from engine.memory import when
from engine.prompt import build_messages
from engine.records import ACTIVE, USER_FACT
from engine.retrieval import Stages, retrieve
from engine.settings import MemorySettings

TOPICS = ["weather", "football", "traffic", "podcasts", "pasta", "phones", "news", "homework"]


def ts(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


def fillers(memory, count: int, start: float, template: str = "Chat {i} covered {topic}.") -> None:
    """Small talk that shares no word with the questions (unless the template says so)."""
    for i in range(count):
        memory.add_memory(
            template.format(i=i, topic=TOPICS[i % len(TOPICS)]), "Okay.", timestamp=start + i * 60
        )


def top_turns(memory, question: str, stages: Stages, now: float) -> list[tuple[int, int]]:
    """The best 4 turns (a budget of 2 exchanges)."""
    result, _ = retrieve(memory, question, max_pages=2, now=now, stages=stages)
    return [(t.page_id, t.side) for t in result.turns]


@pytest.fixture
def memory(tmp_path, memory_keyring, chat):
    """A wide hash embedder: words that differ almost never collide, so unrelated is 0."""
    from engine.api import MemoryOS

    mem = MemoryOS.open(
        tmp_path / "stages.memoryos",
        create=True,
        embedder=HashEmbedder(4096),
        chat=chat,
        background=False,
    )
    mem.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    yield mem
    mem.close()


def rexford_and_owner(memory):
    """A dog's owner named in one exchange, where she lives in another that shares no word
    with the question about the dog; returns both pages, the question and its `now`."""
    owner = memory.add_memory(
        "My neighbour Ingrid adopted greyhound Rexford.",
        "Lovely!",
        timestamp=ts("2024-01-01T09:00:00"),
    )
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    home = memory.add_memory(
        "Ingrid moved to Trondheim in spring.", "Nice city.", timestamp=ts("2024-02-01T09:00:00")
    )
    fillers(memory, 5, ts("2024-02-02T09:00:00"))
    memory.run_consolidation()
    question, now = "Where does the owner of Rexford live now?", ts("2024-03-01T00:00:00")
    return owner, home, question, now


def test_second_hop_finds_what_the_first_hop_names(memory):
    owner, home, question, now = rexford_and_owner(memory)

    without = replace(Stages(), term_hop=False)  # the keyword hop finds it too (next test)
    found = top_turns(memory, question, replace(without, second_hop=True), now)
    assert found[0] == (owner.id, 0)  # first hop: the turn naming Rexford
    assert (home.id, 0) in found  # second hop: Ingrid, named by that turn, lives in Trondheim
    assert (home.id, 0) not in top_turns(memory, question, without, now)


def test_term_hop_searches_the_rare_words_of_the_best_turn(memory):
    """The question names the dog; only the best turn names its owner, and only the owner's
    name leads to where she lives: no word of that turn is in the question."""
    owner, home, question, now = rexford_and_owner(memory)

    found = top_turns(memory, question, Stages(), now)
    assert found[0] == (owner.id, 0)
    assert (home.id, 0) in found  # "ingrid", the best turn's rare word, searched again
    assert (home.id, 0) not in top_turns(memory, question, replace(Stages(), term_hop=False), now)


def test_relative_date_is_resolved_when_stored(memory):
    template = (
        "I did chores on chat {i} about {topic}."  # shares "I", "did", "on" with the question
    )
    fillers(memory, 30, ts("2023-03-01T09:00:00"), template)
    pottery = memory.add_memory(
        "I went to a pottery class yesterday.", "Fun!", timestamp=ts("2023-05-08T10:00:00")
    )
    fillers(memory, 5, ts("2023-06-01T09:00:00"), template)
    memory.run_consolidation()
    question, now = "What did I do on 2023-05-07?", ts("2023-07-01T00:00:00")

    assert when.resolve_relative("I went there yesterday.", ts("2023-05-08T10:00:00")) == (
        "I went there yesterday [7 May 2023]."
    )
    found = top_turns(memory, question, Stages(), now)
    assert found[0] == (pottery.id, 0)  # said on the 8th about the 7th
    assert (pottery.id, 0) not in top_turns(memory, question, replace(Stages(), time=False), now)
    shown = build_messages(memory.retrieve(question, max_pages=2, now=now), question, now)
    assert "I went to a pottery class yesterday [7 May 2023]." in shown[-1]["content"]


def test_a_fact_leads_back_to_the_turn_it_came_from(memory):
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    hives = memory.add_memory(
        "I look after three hives on my roof.", "Sounds busy.", timestamp=ts("2024-02-01T09:00:00")
    )
    fillers(memory, 5, ts("2024-02-02T09:00:00"))
    memory.run_consolidation()
    # What a capable model writes after reading that page: the fact in other words, with its source.
    memory.persona.remember_fact(
        USER_FACT, "The user is a beekeeper.", status=ACTIVE, origin="llm:test", sources=[hives.id]
    )
    question, now = "Who is a beekeeper?", ts("2024-03-01T00:00:00")

    assert top_turns(memory, question, Stages(), now)[0] == (hives.id, 0)
    assert (hives.id, 0) not in top_turns(memory, question, replace(Stages(), facts=False), now)


def test_now_decides_what_last_week_means(memory):
    fillers(memory, 20, ts("2023-06-01T09:00:00"))
    kitchen = memory.add_memory(
        "I repainted the kitchen.", "Looks fresh.", timestamp=ts("2024-01-10T18:00:00")
    )
    fillers(memory, 10, ts("2024-01-20T09:00:00"))
    shed = memory.add_memory(
        "I repainted the shed.", "Nice colour.", timestamp=ts("2024-03-10T18:00:00")
    )
    fillers(memory, 5, ts("2024-04-01T09:00:00"))
    memory.run_consolidation()
    question = "What did I repaint last week?"

    january = memory.get_response(question, temporary=True, now=ts("2024-01-15T12:00:00"))
    january.collect()
    march = memory.get_response(question, temporary=True, now=ts("2024-03-15T12:00:00"))
    march.collect()
    first = january.retrieval.turns[0]
    assert (first.page_id, first.side) == (kitchen.id, 0)
    first = march.retrieval.turns[0]
    assert (first.page_id, first.side) == (shed.id, 0)
    assert january.messages[0]["content"].rstrip().endswith("Today is 15 January 2024.")
    assert march.messages[0]["content"].rstrip().endswith("Today is 15 March 2024.")


def test_a_named_speaker_own_turn_comes_first(memory):
    """Ana keeps telling Bo to bake; only Bo says what Bo bakes."""
    who = {"user_speaker": "Ana", "agent_speaker": "Bo"}
    for i in range(30):
        memory.add_memory(
            f"Chat {i} covered {TOPICS[i % len(TOPICS)]}.",
            "Okay.",
            timestamp=ts("2024-01-02T09:00:00") + i * 60,
            meta=who,
        )
    for day in ("2024-02-01", "2024-02-02"):
        memory.add_memory(
            "Bo, bake something for the fair.", "Maybe.", timestamp=ts(day + "T09:00:00"), meta=who
        )
    rye = memory.add_memory(
        "Lovely weather.", "I bake rye loaves.", timestamp=ts("2024-02-03T09:00:00"), meta=who
    )
    fillers(memory, 5, ts("2024-02-04T09:00:00"))
    memory.run_consolidation()
    question, now = "What does Bo bake for the fair?", ts("2024-03-01T00:00:00")

    assert top_turns(memory, question, Stages(), now)[0] == (rye.id, 1)
    possessive = "What is Bo\u2019s bake for the fair?"  # "Bo's" names Bo too, curly or not
    assert top_turns(memory, possessive, Stages(), now)[0] == (rye.id, 1)
    assert top_turns(memory, question, replace(Stages(), speakers=False), now)[0] != (rye.id, 1)


def test_the_answer_to_a_question_comes_with_the_question(memory):
    """The assistant asks which instrument; the person's next turn answers with a word the
    question does not hold. Only the neighbours stage (the reply to a turn that asks) finds it."""
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    memory.add_memory(
        "I finally chose an instrument for the winter course.",
        "Which instrument did you choose?",
        timestamp=ts("2024-02-01T09:00:00"),
    )
    answer = memory.add_memory(
        "Oboe, lessons start Monday.", "Good luck!", timestamp=ts("2024-02-01T09:01:00")
    )
    fillers(memory, 5, ts("2024-02-02T09:00:00"))
    memory.run_consolidation()
    question, now = "Which instrument did I choose for my course?", ts("2024-03-01T00:00:00")

    result, _ = retrieve(memory, question, max_pages=2, now=now)
    sources = {(t.page_id, t.side): t.sources for t in result.turns}
    assert sources[(answer.id, 0)] == ("neighbour",)  # no word or vector of its own matched
    assert (answer.id, 0) not in top_turns(
        memory, question, replace(Stages(), neighbours=False), now
    )


@pytest.mark.real_models
def test_expansion_finds_the_word_the_person_used(minilm_memory):
    """The question asks for instruments; the turn names a cello and shares no word with it.
    Turns about playing and instruments in general sit nearer the question as sentences; the
    word "cello" itself is near "instruments", so only the expansion finds that turn."""
    memory = minilm_memory
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    start = ts("2024-01-01T09:00:00")
    distractors = [
        ("Which instruments are easiest for beginners?", "Recorders, usually."),
        ("My kids play outside all afternoon.", "Fresh air is good."),
        ("The dentist's instruments scare me a little.", "Understandable."),
        ("Do you play anything on weekends?", "Not much."),
    ]
    for i, (user, agent) in enumerate(distractors):
        memory.add_memory(user, agent, timestamp=start + i * 60)
    cello = memory.add_memory(
        "I practised the cello for an hour before dinner.",
        "Sounds calming.",
        timestamp=start + 3600,
    )
    fillers(memory, 20, ts("2024-01-02T09:00:00"))
    memory.run_consolidation()
    question, now = "What instruments do I play?", ts("2024-03-01T00:00:00")

    def best_eight(stages):  # turns, within a budget of 4 exchanges
        result, _ = retrieve(memory, question, max_pages=4, now=now, stages=stages)
        return {(t.page_id, t.side): t.sources for t in result.turns}

    found = best_eight(Stages())
    assert "expansion" in found[(cello.id, 0)]
    # Two distractors only ask, which the asking stage discounts; it is left off here so
    # that the expansion is the only stage told apart.
    only_expansion = replace(Stages(), asking=False)
    assert (cello.id, 0) in best_eight(only_expansion)
    assert (cello.id, 0) not in best_eight(replace(only_expansion, expansion=False))


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Wow, that's awesome! What's your best camping memory?", True),
        ("Did you see that band?", True),
        ("I adopted a dog last week. Any tips for house training?", False),  # something told
        ("We went camping. Have you ever been?", False),
        ("Love the colours in that one.", False),
        ("", False),
    ],
)
def test_a_turn_that_only_asks_is_told_apart_from_one_that_tells(text, asks):
    from engine.retrieval_scores import only_asks

    assert only_asks(text) is asks


def test_a_turn_that_only_asks_counts_less_than_the_answer(memory):
    """The assistant asked about the camping memory in the very words of the later question;
    the person's answer came in a later exchange. Without the asking stage the question ranks
    first; with it, the answer does."""
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    memory.add_memory(
        "Back from the lake.",
        "Great! What is your favourite camping memory from the lake trip?",
        timestamp=ts("2024-02-01T09:00:00"),
    )
    told = memory.add_memory(
        "Easily the meteor shower we watched from the tent by the lake.",
        "Beautiful!",
        timestamp=ts("2024-02-03T09:00:00"),
    )
    fillers(memory, 5, ts("2024-02-04T09:00:00"))
    memory.run_consolidation()
    question = "What is my favourite camping memory from the lake?"
    now = ts("2024-03-01T00:00:00")

    assert top_turns(memory, question, Stages(), now)[0] == (told.id, 0)
    assert top_turns(memory, question, replace(Stages(), asking=False), now)[0] != (told.id, 0)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What is my dog called, and where did I go in March?",
         ["What is my dog called", "where did I go in March?"]),
        ("What is my dog called? Where did I go in March?",
         ["What is my dog called?", "Where did I go in March?"]),
        ("Where did I go in March? And who came with me?",
         ["Where did I go in March?", "who came with me?"]),
        # one question: the second half leans on the first, or "and" joins names
        ("What is sourdough and how do I make it?", ["What is sourdough and how do I make it?"]),
        ("What do Melanie and Caroline both like?", ["What do Melanie and Caroline both like?"]),
        ("When did Caroline go to the support group and what did she do there?",
         ["When did Caroline go to the support group and what did she do there?"]),
        ("I got a new job. What do you think?", ["I got a new job. What do you think?"]),
    ],
)  # fmt: skip
def test_a_question_that_asks_two_things_is_read_as_its_parts(question, parts):
    from engine.question_parts import question_parts

    assert question_parts(question) == parts


def test_each_part_of_a_two_part_question_is_retrieved_for(memory):
    """Searched as a whole, "What is my dog called, and which city did my sister move to?"
    found the exchanges about the dog and not the one about the sister: the model could answer
    its first half only. Each part retrieved on its own, both reach the budget."""
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    dogs = [
        memory.add_memory(f"My dog is called Biscuit; {tail}.", "Cute!",
                          timestamp=ts("2024-02-01T09:00:00") + i * 3600)  # fmt: skip
        for i, tail in enumerate(["she is a beagle", "what a dog", "the dog snores", "good dog"])
    ]
    sister = memory.add_memory(
        "My sister lives in Lisbon now.", "How exciting!", timestamp=ts("2024-02-03T09:00:00")
    )
    fillers(memory, 5, ts("2024-02-04T09:00:00"))
    memory.run_consolidation()
    question = "What is my dog called, and which city did my sister move to?"
    now = ts("2024-03-01T00:00:00")

    found = top_turns(memory, question, Stages(), now)
    assert (sister.id, 0) in found and any((dog.id, 0) in found for dog in dogs)
    assert (sister.id, 0) not in top_turns(memory, question, replace(Stages(), parts=False), now)


def test_a_question_for_a_name_finds_the_answer_that_says_called(memory):
    """"What is my dog's name?": the answer says "My dog is called Biscuit", and a cat "named
    Pickle" elsewhere holds the rarer word "name". Searched for "name" alone, the cat's exchange
    came first; "called" is searched too."""
    fillers(memory, 30, ts("2024-01-02T09:00:00"))
    dog = memory.add_memory("My dog is called Biscuit, she is a beagle.", "Cute!",
                            timestamp=ts("2024-02-01T09:00:00"))  # fmt: skip
    for i, tail in enumerate(["chewed my shoes", "snores at night", "loves the beach"]):
        memory.add_memory(f"The dog {tail}.", "Ha!", timestamp=ts("2024-02-02T09:00:00") + i * 60)
    cat = memory.add_memory("My mum adopted a cat named Pickle.", "Lovely.",
                            timestamp=ts("2024-02-03T09:00:00"))  # fmt: skip
    memory.run_consolidation()
    now = ts("2024-03-01T00:00:00")

    for question in ("What is my dog's name?", "What is the name of my dog?"):
        found = top_turns(memory, question, Stages(), now)
        assert (dog.id, 0) in found
        assert (cat.id, 0) not in found or found.index((dog.id, 0)) < found.index((cat.id, 0))
