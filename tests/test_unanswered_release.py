"""A question whose answer was stopped while its vault closes (a window's Lock now or Switch
memory: MemoryOS.mark_quitting) is offered at the next open of that vault in the same program,
as a stopped program's is; a Stop lets it go; a question still being answered is never offered."""

from __future__ import annotations

from engine.api import MemoryOS
from engine.backends.base import CancelToken
from engine.backends.fake import FakeChat

QUESTION = "Remember that my dentist appointment is on Friday at 9."


def _reopened(memory, embedder) -> MemoryOS:
    return MemoryOS.open(memory.path, embedder=embedder, chat=FakeChat(), background=False)


def _stopped_before_its_first_word(memory) -> None:
    cancel = CancelToken()
    stream = memory.get_response(QUESTION, cancel=cancel)
    cancel.cancel()
    assert stream.collect() == "" and stream.page is None


def test_stopped_as_the_vault_closes_it_is_offered_at_the_next_open_in_this_program(
    tmp_path, memory_keyring, embedder, chat
):
    memory = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat,
                           background=False)  # fmt: skip
    memory.mark_quitting()  # Lock now
    _stopped_before_its_first_word(memory)
    assert memory.unanswered() is None  # the program goes on: not while this object is open
    memory.close()

    again = _reopened(memory, embedder)
    waiting = again.take_unanswered()
    assert waiting is not None and waiting.text == QUESTION
    assert waiting.conversation_id == memory.conversation_id
    assert again.unanswered() is None  # handed over once
    again.close()
    last = _reopened(memory, embedder)
    assert last.unanswered() is None
    last.close()


def test_a_stop_lets_it_go_and_an_answer_under_way_is_not_offered(
    tmp_path, memory_keyring, embedder, chat
):
    memory = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat,
                           background=False)  # fmt: skip
    _stopped_before_its_first_word(memory)  # the person's Stop
    under_way = memory.get_response("What is the capital of Peru?")
    other = _reopened(memory, embedder)  # another window on the vault, while it answers
    assert other.unanswered() is None
    other.close()
    under_way.collect()
    memory.close()
    again = _reopened(memory, embedder)
    assert again.unanswered() is None
    assert [p.user_input for p in again.pages()] == ["What is the capital of Peru?"]
    again.close()
