"""A message being answered when the program is killed (SIGKILL) is not lost: `memoryos chat`
is killed while a real local server streams its answer; the vault, opened again, offers the
question back (never sending it by itself) until the next message is sent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from engine import paths
from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from tests.helpers import ROOT, raw_bytes, run_cli
from tests.local_servers import ChatServer

QUESTION = "Remember that my dentist appointment is on Friday at 9."
PASSPHRASE = "correct horse battery"

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


class HeldReply(list):
    """A streamed reply whose first piece is sent, then held: the answer is under way until
    `release` (and then ends there: the program answering was killed meanwhile)."""

    def __init__(self, first: str) -> None:
        super().__init__([first])
        self.sent = threading.Event()
        self.release = threading.Event()

    def __iter__(self):
        yield from list.__iter__(self)
        self.sent.set()
        self.release.wait(60)


def _interruptible() -> None:
    """In the child: Ctrl+C as a terminal delivers it. A test run started in the background
    of a shell without job control (a CI script's `... &`) ignores SIGINT, and a child
    inherits that: its Python would then never raise KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _chat_child(home, server: ChatServer) -> subprocess.Popen:
    env = dict(os.environ, MEMORYOS_HOME=str(home), MEMORYOS_PASSPHRASE=PASSPHRASE,
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "chat", "--url", server.url, "--url-model", "m",
         "--create", "--embedder", "fake"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        cwd=ROOT, preexec_fn=_interruptible if os.name == "posix" else None,
    )  # fmt: skip


def read_until(child: subprocess.Popen, marker: bytes, seconds: float = 60) -> bytes:
    """What `child` wrote to its stdout until `marker` (or it ended, or `seconds` passed)."""
    said = b""
    deadline = time.monotonic() + seconds
    while marker not in said and time.monotonic() < deadline:
        said += os.read(child.stdout.fileno(), 4096) or b""
        if child.poll() is not None:
            break
    return said


def _open() -> MemoryOS:
    path = paths.vault_path("default")  # under the test's MEMORYOS_HOME, as the child's
    return MemoryOS.open(path, passphrase=PASSPHRASE, embedder=HashEmbedder(384),
                         background=False)  # fmt: skip


def test_a_question_answered_when_the_program_is_killed_is_offered_back(home):
    reply = HeldReply("Got it, your dentist ")
    with ChatServer(models=["m"], reply=reply, finish_reason=None) as server:
        child = _chat_child(home, server)
        try:
            child.stdin.write(f"{QUESTION}\n".encode())
            child.stdin.flush()
            said = read_until(child, b"Got it")  # it streams
            assert b"Got it" in said and reply.sent.is_set(), said
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        finally:
            reply.release.set()
            if child.poll() is None:
                child.kill()
                child.wait(30)
            child.stdin.close()
            child.stdout.close()

    # Kept inside the encrypted vault, in no plain file.
    assert b"dentist" not in raw_bytes(paths.vault_path("default"))
    plain = [p for p in home.rglob("*") if p.is_file() and b"dentist" in p.read_bytes()]
    assert plain == []
    with _open() as memory:
        assert memory.vault.integrity_check() == "ok"
        assert memory.pages() == []  # the exchange was never stored: the answer did not end
        waiting = memory.unanswered()
        assert waiting is not None and waiting.text == QUESTION
        assert waiting.conversation_id
        assert abs(waiting.asked_at - time.time()) < 300

    # The terminal says so when it starts, and sends nothing by itself.
    with ChatServer(models=["m"], reply=["Noted."]) as server:
        quiet = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake",
                        home=home, passphrase=PASSPHRASE, stdin="")  # fmt: skip
        assert quiet.returncode == 0, quiet.stderr.decode()
        told = quiet.stderr.decode()
        assert "not answered" in told and QUESTION in told
        assert [r for r in server.requests if r.get("stream")] == []
        with _open() as memory:
            waiting = memory.unanswered()  # kept until a question is sent: a quit loses nothing
            assert waiting is not None and waiting.text == QUESTION

        # Sent again, it is answered and stored once; nothing is offered any more.
        again = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake",
                        home=home, passphrase=PASSPHRASE, stdin=f"{QUESTION}\n")  # fmt: skip
        assert again.returncode == 0, again.stderr.decode()
    with _open() as memory:
        assert [p.user_input for p in memory.pages()] == [QUESTION]
        assert memory.unanswered() is None
