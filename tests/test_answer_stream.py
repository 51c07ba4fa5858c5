"""An answer as it streams and as it is stored: a copy of the prompt's own headers at its start
is taken out before anyone sees it, and an answer cut off by the length limit says so."""

from __future__ import annotations

import pytest

from engine.prompt import ANSWER_MARK, MEMORY_HEADER
from engine.thinking import ANSWER, split_stream

QUESTION = "What am I allergic to?"
ANSWER_TEXT = "You are allergic to peanuts, so skip the satay tonight."


def _memory_block(messages) -> str:
    """The memories the prompt showed, as the model saw them (header and section titles too)."""
    block = messages[-1]["content"].rpartition(ANSWER_MARK)[0].strip()
    assert block.startswith(MEMORY_HEADER) and "I am allergic to peanuts" in block
    return block


def _answer(memory, chat, reply) -> tuple[list[str], object]:
    """Ask QUESTION with the fake model scripted to write `reply(prompt messages)`."""
    memory.add_fact("I am allergic to peanuts")
    stream = memory.get_response(QUESTION)
    chat.queue(reply(stream.messages))
    return list(stream), stream


ECHOES = {
    "the memory block, then the answer": lambda m: f"{_memory_block(m)}\n\n{ANSWER_TEXT}",
    "the header, its memory line, then the answer": lambda m: (
        f"{MEMORY_HEADER}\n- I am allergic to peanuts\n{ANSWER_TEXT}"
    ),
    "the header and the answer on one line": lambda m: f"{MEMORY_HEADER} {ANSWER_TEXT}",
    "the question mark and the question": lambda m: f"{ANSWER_MARK}{QUESTION}\n{ANSWER_TEXT}",
    "a section title in other case": lambda m: f"user facts:\n{ANSWER_TEXT}",
    "echoed memory lines without a header": lambda m: (
        f"- I am allergic to peanuts\n{ANSWER_TEXT}"
    ),
}


@pytest.mark.parametrize("reply", ECHOES.values(), ids=ECHOES.keys())
def test_a_copied_prompt_header_is_never_shown_nor_stored(memory, chat, reply):
    chunks, stream = _answer(memory, chat, reply)
    assert "".join(chunks) == ANSWER_TEXT  # what the screen showed, chunk by chunk
    assert len(chunks) > 1  # held back only until the echo was over: the answer streamed
    assert stream.text == ANSWER_TEXT
    assert memory.page(stream.page.id).agent_response == ANSWER_TEXT


NOT_ECHOES = [
    "Memories that may help you: peanuts. You are allergic to them.",
    "From the memories that may help, you are allergic to peanuts.",
    "User facts say you are allergic to peanuts.",
    "My message to you: avoid peanuts.",
    "- I am allergic to peanuts",  # only what the prompt holds: a list of what it knows
    "  You are allergic to peanuts.\n- I am allergic to peanuts",
]


@pytest.mark.parametrize("text", NOT_ECHOES)
def test_an_answer_that_mentions_its_memories_is_left_as_written(memory, chat, text):
    chunks, stream = _answer(memory, chat, lambda m: text)
    assert "".join(chunks) == text
    assert memory.page(stream.page.id).agent_response == text.strip()


def test_a_normal_answer_is_not_held_back(memory, chat):
    """Only the first characters wait, and only while they could still be an echo."""
    memory.add_fact("I am allergic to peanuts")
    chat.queue(ANSWER_TEXT)
    stream = memory.get_response(QUESTION)
    first = next(stream)  # "You are a" could still be the start of the instructions' line
    assert ANSWER_TEXT.startswith(first) and len(first) <= 40  # the first words, as written
    rest = list(stream)
    assert len(rest) > 1 and first + "".join(rest) == ANSWER_TEXT


def test_a_reasoning_models_thinking_stays_and_its_echo_goes(memory, chat):
    thinking = "They ask about allergies."
    chunks, stream = _answer(
        memory, chat, lambda m: f"<think>{thinking}</think>{_memory_block(m)}\n{ANSWER_TEXT}"
    )
    shown = "".join(text for kind, text in split_stream(chunks) if kind == ANSWER)
    assert shown == ANSWER_TEXT and stream.text == ANSWER_TEXT
    assert stream.thinking == thinking
    assert memory.page(stream.page.id).agent_response == ANSWER_TEXT


def test_an_answer_that_is_only_the_echo_is_not_stored(memory, chat):
    from engine import errors

    memory.add_fact("I am allergic to peanuts")
    stream = memory.get_response(QUESTION)
    chat.queue(_memory_block(stream.messages))
    with pytest.raises(errors.BackendError, match="wrote nothing"):
        list(stream)
    assert memory.pages() == []


# ---- an answer cut off by the length limit ------------------------------------------------


def test_a_server_answer_cut_at_the_length_limit_says_so(memory):
    from engine.backends.openai_compat import OpenAIChat
    from tests.local_servers import ChatServer

    for reason, cut in (("length", True), ("stop", False)):
        with ChatServer(models=["m"], reply=["It was ", "about"], finish_reason=reason) as server:
            memory.set_chat(OpenAIChat(server.url, "m", retries=0))
            stream = memory.get_response("Tell me a long story", max_tokens=2)
            assert stream.collect() == "It was about"
            assert stream.cut_short is cut
            assert memory.chat.last_finish_reason == reason


def test_memoryos_chat_says_an_answer_stopped_at_the_length_limit(home):
    from tests.helpers import run_cli
    from tests.local_servers import ChatServer

    for reason in ("length", "stop"):
        with ChatServer(models=["m"], reply=["It was ", "about"], finish_reason=reason) as server:
            done = run_cli(
                "chat", "--model", f"url:{server.url}", "--url-model", "m", "--embedder", "fake",
                "--max-tokens", "2", home=home, stdin="Tell me a long story\n/quit\n",
            )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "assistant> It was about" in done.stdout.decode()
        note = "(stopped at the length limit of 2 tokens — raise it with --max-tokens)"
        assert (note in done.stderr.decode()) is (reason == "length")


@pytest.mark.real_models
def test_the_bundled_model_reports_an_answer_cut_short(memory):
    """llama.cpp says why it stopped: a cut answer reports it, a short complete one does not."""
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    try:
        memory.set_chat(chat)
        cut = memory.get_response("Count from one to fifty, one number a line.", max_tokens=4)
        assert cut.collect().strip()
        assert cut.cut_short is True and chat.last_finish_reason == "length"
        # A whole answer at the backend, greedy so that it is the same reply ("The answer is
        # 4.") each time (sampled, a tiny model may ramble to the limit); the engine's side of
        # a whole answer is tested against a server above.
        ask = [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is 2 + 2?"},
        ]
        assert "".join(chat.stream(ask, max_tokens=64, temperature=0.0)).strip()
        assert chat.last_finish_reason == "stop"
        assert "".join(chat.stream(ask, max_tokens=1, temperature=0.0)).strip()
        assert chat.last_finish_reason == "length"
    finally:
        chat.close()
