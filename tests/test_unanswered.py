"""A question is kept in the vault from the moment it is asked until its exchange is stored:
a program killed while answering no longer loses it (tests/test_unanswered_crash.py kills one).
Here: when the record is there and when it is gone, in a real encrypted vault."""

from __future__ import annotations

import json

import pytest

from engine import errors
from engine.backends.base import CancelToken
from engine.unanswered import META_KEY
from tests.helpers import raw_bytes

QUESTION = "Remember that my dentist appointment is on Friday at 9."


def kept(memory) -> list[str]:
    """The questions the vault holds as being answered now (read from the vault itself)."""
    return [r["text"] for r in json.loads(memory.vault.get_meta(META_KEY) or "[]")]


def test_the_question_is_in_the_vault_while_it_is_answered_and_gone_once_stored(memory, chat):
    chat.queue("Noted: the dentist on Friday at 9.")
    stream = memory.get_response(QUESTION)
    assert kept(memory) == [QUESTION]  # before the answer's first word
    next(stream)
    assert kept(memory) == [QUESTION]  # while it streams
    stream.collect()
    assert stream.page is not None and stream.page.user_input == QUESTION
    assert kept(memory) == []  # stored: one copy, in the conversation
    assert memory.unanswered() is None


def test_the_question_is_kept_encrypted_never_in_plain_text(memory, chat, tmp_path):
    chat.queue("Noted.")
    stream = memory.get_response(QUESTION)
    next(stream)
    assert kept(memory) == [QUESTION]
    memory.vault.checkpoint()
    on_disk = raw_bytes(memory.path)
    assert b"dentist" not in on_disk
    others = [p for p in tmp_path.rglob("*") if p.is_file() and b"dentist" in p.read_bytes()]
    assert others == []
    stream.collect()


def test_a_temporary_chat_writes_no_record(memory, chat):
    chat.queue("Noted, not saved.")
    stream = memory.get_response(QUESTION, temporary=True)
    next(stream)
    assert memory.vault.get_meta(META_KEY) is None
    stream.collect()
    assert stream.page is None and memory.vault.get_meta(META_KEY) is None


def test_an_answer_stopped_before_its_first_word_lets_the_question_go(memory):
    cancel = CancelToken()
    cancel.cancel()
    stream = memory.get_response(QUESTION, cancel=cancel)
    stream.collect()
    assert stream.cancelled and stream.page is None
    assert kept(memory) == []


def test_an_answer_stopped_half_way_is_stored_with_the_question_and_no_record(memory, chat):
    chat.queue("Noted: the dentist on Friday at 9, I will remind you on Thursday evening.")
    cancel = CancelToken()
    stream = memory.get_response(QUESTION, cancel=cancel)
    for _chunk in stream:
        cancel.cancel()  # Stop, once the answer has begun
    assert stream.cancelled and stream.page is not None and stream.page.meta.get("stopped")
    assert stream.page.user_input == QUESTION
    assert kept(memory) == []


def test_a_failed_answer_lets_the_question_go(memory):
    """A server that closes the stream with nothing said: the error is shown with the
    question on screen; the question is not offered again after a restart."""
    from engine.backends.openai_compat import OpenAIChat
    from tests.local_servers import ChatServer

    with ChatServer(models=["m"], reply=[], finish_reason="stop") as server:
        memory.set_chat(OpenAIChat(server.url, "m", retries=0, context_window=4096))
        stream = memory.get_response(QUESTION)
        with pytest.raises(errors.BackendError):
            stream.collect()
    assert stream.page is None
    assert kept(memory) == []


def test_the_answers_of_two_questions_each_take_their_own_question_away(memory, chat):
    """Two answers under way at once (the app and the MCP server, say): storing one leaves
    the other's question kept."""
    chat.queue("First.", "Second.")
    first = memory.get_response("What is on Friday?")
    second = memory.get_response(QUESTION)
    assert sorted(kept(memory)) == sorted(["What is on Friday?", QUESTION])
    first.collect()
    assert kept(memory) == [QUESTION]
    second.collect()
    assert kept(memory) == []


def test_forgetting_everything_forgets_a_question_being_answered(memory, chat):
    chat.queue("Noted.")
    stream = memory.get_response(QUESTION)
    next(stream)
    memory.forget_everything()
    assert kept(memory) == []
    stream.collect()
    assert kept(memory) == []
