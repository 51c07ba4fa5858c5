"""`memoryos chat` on an old laptop that dies: the disk full (what was not saved or not sent
is said, to send again; background failures are one plain line), and a question offered back
after a crash is kept until the person sends a question (a /quit loses nothing)."""

from __future__ import annotations

import os
import subprocess
import sys

from engine import paths
from engine.api import MemoryOS
from engine.backends.base import CancelToken
from engine.backends.fake import FakeChat, HashEmbedder
from tests.helpers import ROOT, run_cli
from tests.local_servers import ChatServer

PASSPHRASE = "correct horse battery"
FIRST = "I bought a new red bicycle today."
LONG = "My sister Anna lives in Vienna. " * 300  # needs new pages in the vault: no room
LAST = "I planted tomatoes on the balcony."


def _chat_on_a_full_disk(home, url: str, stdin: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMORYOS_HOME=str(home), MEMORYOS_PASSPHRASE=PASSPHRASE,
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(ROOT))  # fmt: skip
    return subprocess.run(
        [sys.executable, str(ROOT / "tests" / "disk_full_chat_child.py"), "chat", "--url", url,
         "--url-model", "m", "--embedder", "fake"],
        input=stdin.encode(), capture_output=True, env=env, cwd=ROOT, timeout=120,
    )  # fmt: skip


def test_chat_stopped_by_a_full_disk_says_what_was_not_saved_or_sent(home):
    with ChatServer(models=["m"], reply=["Noted."]) as server:
        made = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake",
                       "--create", home=home, stdin="Hello.\n")  # fmt: skip
        assert made.returncode == 0, made.stderr.decode()
        out = _chat_on_a_full_disk(home, server.url, f"{FIRST}\n{LONG}\n{LAST}\n")
    err = out.stderr.decode()
    assert out.returncode == 1
    assert "disk is full" in err
    saved, sent = err.split("Not saved")[1].split("Not sent")
    assert LONG.strip() in saved  # the message whose exchange failed, to send again
    assert LAST in sent and FIRST not in sent  # the line never read
    # Background memory building met the full disk too: one plain line, no traceback.
    assert "Traceback" not in err
    assert err.count("memory building stopped") <= 1
    memory = MemoryOS.open(paths.vault_path("default"), passphrase=PASSPHRASE,
                           embedder=HashEmbedder(384), background=False)  # fmt: skip
    try:
        assert [p.user_input for p in memory.pages()] == ["Hello.", FIRST]
    finally:
        memory.close()


QUESTION = "Remember that my dentist appointment is on Friday at 9."


def _open() -> MemoryOS:
    return MemoryOS.open(paths.vault_path("default"), passphrase=PASSPHRASE,
                         embedder=HashEmbedder(384), chat=FakeChat(), background=False)  # fmt: skip


def _a_question_left_unanswered() -> None:
    """A question whose answer stopped as its vault closed (the app's Lock now): the next
    program to open the vault offers it back."""
    memory = MemoryOS.open(paths.vault_path("default"), create=True, passphrase=PASSPHRASE,
                           embedder=HashEmbedder(384), chat=FakeChat(), background=False)  # fmt: skip
    memory.mark_quitting()
    cancel = CancelToken()
    stream = memory.get_response(QUESTION, cancel=cancel)
    cancel.cancel()
    assert stream.collect() == "" and stream.page is None
    memory.close()


def _chat(home, server, stdin: str) -> str:
    done = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake",
                   home=home, passphrase=PASSPHRASE, stdin=stdin)  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return done.stderr.decode()


def test_an_offered_question_survives_quit_and_goes_when_a_question_is_sent(home):
    _a_question_left_unanswered()
    with ChatServer(models=["m"], reply=["Noted."]) as server:
        assert QUESTION in _chat(home, server, "/quit\n")  # shown, then /quit
        assert QUESTION in _chat(home, server, "/quit\n")  # offered again: not lost
        memory = _open()
        try:
            assert memory.take_unanswered().text == QUESTION  # the app gets it too
            assert memory.take_unanswered() is None  # once in one program
        finally:
            memory.close()
        told = _chat(home, server, "What is the weather like?\n")  # another question sent
        assert QUESTION in told
        assert QUESTION not in _chat(home, server, "/quit\n")  # dropped with that question
    memory = _open()
    try:
        assert memory.unanswered() is None
        assert [p.user_input for p in memory.pages()] == ["What is the weather like?"]
    finally:
        memory.close()


def test_a_dismissed_question_is_not_offered_again(home):
    _a_question_left_unanswered()
    memory = _open()
    waiting = memory.take_unanswered()
    memory.dismiss_unanswered(waiting.id)
    memory.close()
    memory = _open()
    try:
        assert memory.vault.get_meta("unanswered") == "[]"
    finally:
        memory.close()
