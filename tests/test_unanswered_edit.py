"""An edited question is kept in the vault as a new question is, with the exchange it replaces,
until its new exchange is stored; a program that quits while answering keeps the question it
was answering. Real encrypted vaults; a real `memoryos chat` and a real child process killed
(SIGKILL) or interrupted (SIGINT, Ctrl+C) while the answer streams."""

from __future__ import annotations

import json
import signal
import threading

import pytest

from engine import errors, paths
from engine.api import MemoryOS
from engine.backends.base import CancelToken
from engine.backends.fake import HashEmbedder
from engine.unanswered import META_KEY
from tests.helpers import killed_while_streaming, raw_bytes, run_cli
from tests.local_servers import ChatServer
from tests.test_unanswered_crash import PASSPHRASE, _chat_child, _open, read_until

QUESTION = "Remember that my dentist appointment is on Thursday at 9."
EDITED = "Remember that my dentist appointment is on Friday at 9."


def kept(memory) -> list[dict]:
    """The questions the vault holds as being answered now (read from the vault itself)."""
    return json.loads(memory.vault.get_meta(META_KEY) or "[]")


def asked(memory, chat, question: str = QUESTION):
    chat.queue("Noted: the dentist on Thursday at 9.")
    stream = memory.get_response(question)
    stream.collect()
    return stream.page


def test_an_edited_question_is_kept_until_its_exchange_replaces_the_old_one(memory, chat):
    old = asked(memory, chat)
    chat.queue("Noted: the dentist on Friday at 9.")
    stream = memory.replace_response(old.id, EDITED)
    records = kept(memory)
    assert [(r["text"], r["replaces"]) for r in records] == [(EDITED, old.id)]
    next(stream)
    assert [r["text"] for r in kept(memory)] == [EDITED]  # while it streams
    stream.collect()
    assert [p.user_input for p in memory.pages()] == [EDITED]  # one exchange, the new one
    assert kept(memory) == [] and memory.unanswered() is None


def test_the_same_question_answered_again_keeps_no_record(memory, chat):
    """Regenerate: the exchange that stays until the new one is stored holds the question;
    offered back after a crash, it would be sent as a second copy."""
    old = asked(memory, chat)
    chat.queue("Noted again.")
    stream = memory.replace_response(old.id)
    next(stream)
    assert kept(memory) == []
    stream.collect()
    assert [p.user_input for p in memory.pages()] == [QUESTION]


def test_an_edit_stopped_by_the_person_lets_the_question_go(memory, chat):
    """The window puts a stopped edit back in the message box: the person has it."""
    old = asked(memory, chat)
    chat.queue("Noted: the dentist on Friday at 9, and I will remind you on Thursday.")
    cancel = CancelToken()
    stream = memory.replace_response(old.id, EDITED, cancel=cancel)
    for _chunk in stream:
        cancel.cancel()
    assert stream.cancelled and stream.page is None
    assert [p.user_input for p in memory.pages()] == [QUESTION]  # the earlier exchange stays
    assert kept(memory) == []


def test_a_failed_edit_lets_the_question_go(memory):
    from engine.backends.openai_compat import OpenAIChat

    old = asked(memory, memory.chat)
    with ChatServer(models=["m"], reply=[], finish_reason="stop") as server:
        memory.set_chat(OpenAIChat(server.url, "m", retries=0, context_window=4096))
        stream = memory.replace_response(old.id, EDITED)
        with pytest.raises(errors.BackendError):
            stream.collect()
    assert [p.user_input for p in memory.pages()] == [QUESTION]
    assert kept(memory) == []


@pytest.mark.parametrize("edit", [False, True])
def test_quitting_before_the_first_word_keeps_the_question(memory, chat, edit):
    """Ctrl+Q or closing the window while the answer has not begun: the stop that quitting
    makes is no choice to drop the question (a person's Stop is: the question stays on screen,
    marked Stopped)."""
    old = asked(memory, chat) if edit else None
    cancel = CancelToken()
    if edit:
        stream = memory.replace_response(old.id, EDITED, cancel=cancel)
    else:
        stream = memory.get_response(EDITED, cancel=cancel)
    memory.mark_quitting()
    cancel.cancel()
    stream.collect()
    assert stream.cancelled and stream.page is None
    records = kept(memory)
    assert [r["text"] for r in records] == [EDITED]
    assert records[0].get("replaces") == (old.id if edit else None)


def test_quitting_after_the_first_words_stores_them_with_the_question(memory, chat):
    chat.queue("Noted: the dentist on Friday at 9, and I will remind you on Thursday.")
    cancel = CancelToken()
    stream = memory.get_response(EDITED, cancel=cancel)
    for _chunk in stream:
        memory.mark_quitting()
        cancel.cancel()
    assert stream.page is not None and stream.page.meta.get("stopped")
    assert stream.page.user_input == EDITED and stream.page.agent_response
    assert kept(memory) == []


def test_an_edit_being_answered_when_the_program_is_killed_is_offered_back(tmp_path):
    path = tmp_path / "killed.memoryos"
    # killed once the first piece of the new answer came
    line = killed_while_streaming("unanswered_edit_child.py", str(path), PASSPHRASE, QUESTION,
                                  EDITED)
    _, conversation, page_id = line.split()

    assert b"Friday" not in raw_bytes(path)  # kept inside the encrypted vault
    # HashEmbedder(384): what the terminal's --embedder fake opens it with, below
    memory = MemoryOS.open(path, passphrase=PASSPHRASE, embedder=HashEmbedder(384),
                           background=False)  # fmt: skip
    try:
        # The earlier exchange stays (the new one was never stored), the new wording is kept.
        questions = [p.user_input for p in memory.pages(conversation_id=conversation)]
        assert sorted(questions) == sorted(["I am going hiking on Saturday.", QUESTION])
        waiting = memory.unanswered()
        assert waiting is not None and waiting.text == EDITED
        assert waiting.conversation_id == conversation and waiting.replaces == int(page_id)
    finally:
        memory.close()

    # The terminal offers it too, and says the earlier exchange stands; it sends nothing.
    with ChatServer(models=["m"], reply=["Noted."]) as server:
        quiet = run_cli("chat", "--vault-path", str(path), "--url", server.url, "--url-model",
                        "m", "--embedder", "fake", home=tmp_path / "home", passphrase=PASSPHRASE,
                        stdin="")  # fmt: skip
        assert [r for r in server.requests if r.get("stream")] == []
    told = quiet.stderr.decode()
    assert quiet.returncode == 0, told
    assert "not answered" in told and EDITED in told and "edit of an earlier question" in told


class SlowReply(list):
    """A streamed reply that goes on a piece every 50 ms (for about 30 s) until `done`."""

    def __init__(self, first: str) -> None:
        super().__init__([first])
        self.done = threading.Event()

    def __iter__(self):
        yield from list.__iter__(self)
        for _ in range(600):
            if self.done.wait(0.05):
                return
            yield "and more "


@pytest.mark.skipif(not hasattr(signal, "SIGINT"), reason="needs SIGINT")
def test_ctrl_c_in_the_terminal_stops_the_answer_and_keeps_what_was_written(home):
    """`memoryos chat`: Ctrl+C while the answer streams is a Stop, as in the app: the words
    written so far are stored with the question, and the chat goes on. It used to end the
    stream with the interrupt as an error: neither the question nor the answer was kept."""
    reply = SlowReply("Got it, your dentist ")
    with ChatServer(models=["m"], reply=reply, finish_reason=None) as server:
        child = _chat_child(home, server)
        try:
            child.stdin.write(f"{EDITED}\n".encode())
            child.stdin.flush()
            said = read_until(child, b"Got it")  # it streams
            assert b"Got it" in said, said
            child.send_signal(signal.SIGINT)
            # then the end of its input (communicate closes it): the chat ends as it always does
            rest, _ = child.communicate(timeout=60)
        finally:
            reply.done.set()
            if child.poll() is None:
                child.kill()
                child.wait(30)
    assert child.returncode == 0
    assert b"[stopped]" in said + rest
    with _open() as memory:
        pages = memory.pages()
        assert [p.user_input for p in pages] == [EDITED]
        assert pages[0].agent_response.startswith("Got it") and pages[0].meta.get("stopped")
        assert memory.unanswered() is None
    assert paths.vault_path("default").exists()
