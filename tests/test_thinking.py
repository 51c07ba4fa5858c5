"""Reasoning models: <think> text is split from the answer, never stored, never scored."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.prompt import SYSTEM_SMALL, is_small_model
from engine.thinking import ANSWER, THINKING, ThinkingSplitter, split_stream, strip_thinking

TEXT = "<think>The user asks about work. Recall: nurse.</think>You work as a nurse. 2 < 3 <"


def joined(parts):
    out = {THINKING: "", ANSWER: ""}
    for kind, text in parts:
        out[kind] += text
    return out


@pytest.mark.parametrize("cut", range(len(TEXT) + 1))
def test_tags_cut_anywhere_across_chunks(cut):
    parts = list(split_stream([TEXT[:cut], TEXT[cut:]]))
    assert joined(parts) == {
        THINKING: "The user asks about work. Recall: nurse.",
        ANSWER: "You work as a nurse. 2 < 3 <",
    }


def test_one_character_at_a_time():
    parts = list(split_stream(list(TEXT)))
    assert joined(parts)[ANSWER] == "You work as a nurse. 2 < 3 <"
    assert [kind for kind, _ in parts][0] == THINKING


def test_a_template_that_opens_the_thinking_in_the_prompt():
    splitter = ThinkingSplitter(open_at_start=True)
    parts = splitter.feed("weighing it up</think>Yes.") + splitter.finish()
    assert parts == [(THINKING, "weighing it up"), (ANSWER, "Yes.")]


def test_plain_answers_pass_through():
    assert strip_thinking("Hello <b>there</b>") == "Hello <b>there</b>"
    assert strip_thinking(TEXT) == "You work as a nurse. 2 < 3 <"


def test_thinking_is_shown_but_never_stored(memory, chat):
    chat.queue("<think>They said nurse last week.</think>You are a nurse.")
    stream = memory.get_response("What is my job?")
    chunks = list(stream)
    assert "".join(chunks) == "<think>They said nurse last week.</think>You are a nurse."
    assert stream.text == "You are a nurse."
    assert stream.thinking == "They said nurse last week."
    assert stream.page.agent_response == "You are a nurse."
    assert [p.agent_response for p in memory.short_term()] == ["You are a nurse."]


def test_an_answer_that_never_left_its_thinking_is_not_stored(memory, chat):
    chat.queue("<think>Hmm, let me think about this for a long")
    stream = memory.get_response("What is my job?")
    list(stream)
    assert stream.text == "" and stream.page is None
    assert memory.short_term() == []


def test_the_eval_scores_the_answer_without_thinking(chat):
    from engine.eval.baselines import answer

    chat.queue("<think>Dates: 7 May.</think>7 May 2023")
    assert answer(chat, [{"role": "user", "content": "When?"}]) == "7 May 2023"


def test_a_small_model_gets_a_small_prompt(memory, chat):
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    assert is_small_model(LlamaChat(bundled_gguf_path()))  # header only: 135M parameters
    assert not is_small_model(chat)
    memory.add_memory("I work as a nurse in Lisbon.", "Noted.")
    list(memory.get_response("Where do I work?"))
    full = chat.seen_messages[-1]
    chat.info = SimpleNamespace(parameters=135_000_000)
    list(memory.get_response("Where do I work?"))
    small = chat.seen_messages[-1]
    assert small[0]["content"].startswith(SYSTEM_SMALL)
    # the memory is still there: this conversation's exchanges are turns of the prompt
    assert {"role": "user", "content": "I work as a nurse in Lisbon."} in small
    assert sum(map(len, (m["content"] for m in small))) < sum(
        map(len, (m["content"] for m in full))
    )
    assert small[-1] == {"role": "user", "content": "Where do I work?"}


def test_terminal_chat_prints_the_answer_and_keeps_thinking_apart(tmp_path):
    from tests.helpers import run_cli
    from tests.local_servers import ChatServer

    reply = ["<thi", "nk>They asked my name.</th", "ink>I am", " MemoryOS."]
    with ChatServer(models=["reasoner"], reply=reply) as server:
        done = run_cli(
            "chat", "--model", f"url:{server.url}", "--url-model", "reasoner", "--embedder",
            "fake", home=tmp_path / "cli", stdin="Who are you?\n/quit\n",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out, err = done.stdout.decode(), done.stderr.decode()
    assert "assistant> I am MemoryOS." in out
    assert "They asked my name." not in out
    assert "They asked my name." in err


def test_the_small_prompt_keeps_room_for_the_facts_that_answer():
    """Five profile entries used to fill all five memory places of the demo model's prompt, so
    the fact ranked first for the question never reached it; a fact that only restates a
    profile entry takes no place."""
    from engine.prompt_memories import SMALL_FACTS, compact_retrieval
    from engine.records import ACTIVE, USER_FACT, Fact, ProfileSlot, Retrieval, ScoredFact

    def slot(i, name, value):
        return ProfileSlot(i, "identity", name, value, ACTIVE, 0.0, 0.0, (1,), "pattern")

    def fact(i, text, score):
        return ScoredFact(Fact(i, USER_FACT, text, ACTIVE, 0.0, 0.0, (1,), "verbatim"), score)

    profile = (
        slot(1, "name", "Priya Raman"),
        slot(2, "occupation", "veterinary nurse"),
        slot(3, "location", "Leeds"),
        slot(4, "likes", "hiking"),
        slot(5, "likes", "jazz"),
    )
    facts = (
        fact(1, "My name is Priya Raman.", 0.9),  # says nothing the profile does not
        fact(2, "My dog is called Biscuit.", 0.8),
        fact(3, "I walk Biscuit by the canal every morning.", 0.5),
    )
    small = compact_retrieval(Retrieval("What is my dog's name?", (), (), (), profile, facts, ()))
    texts = [f.fact.text for f in small.facts]
    assert "My dog is called Biscuit." in texts and "My name is Priya Raman." not in texts
    assert small.profile[0].value == "Priya Raman"  # who the person is still comes first
    assert len(small.profile) + len(small.facts) <= SMALL_FACTS
