"""What leaves the machine: the loopback check, plain http refused, background work kept home."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from engine.backends.openai_compat import OpenAIChat
from engine.errors import ServerError
from engine.network import TREAT_AS_REMOTE_ENV, check_url, is_loopback
from engine.settings import MemorySettings

EMPTY = {"pages": [], "segments": [], "profile": [], "user_facts": [], "assistant_knowledge": []}


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.8.9.10/v1", True),
        ("http://[::1]:8080/v1", True),
        ("localhost:1234", True),
        ("https://api.openai.com/v1", False),
        ("http://192.168.1.20:11434/v1", False),
        ("http://10.0.0.5/v1", False),
        ("http://localhost.example.com/v1", False),
        ("http://0.0.0.0:8080/v1", False),
    ],
)
def test_loopback_is_this_computer_only(url, local):
    assert is_loopback(url) is local


def test_a_host_can_be_declared_remote(monkeypatch):
    monkeypatch.setenv(TREAT_AS_REMOTE_ENV, "127.0.0.1:9999, localhost")
    assert not is_loopback("http://127.0.0.1:9999/v1")
    assert is_loopback("http://127.0.0.1:9998/v1")  # another port stays local
    assert not is_loopback("http://localhost:1/v1")


def test_plain_http_to_a_remote_host_is_refused_unless_allowed():
    with pytest.raises(ServerError, match="refusing plain http:// to example.com"):
        OpenAIChat("http://example.com/v1", "m")
    assert OpenAIChat("https://example.com/v1", "m").remote
    assert OpenAIChat("http://example.com/v1", "m", allow_plain_http=True).remote
    assert not OpenAIChat("http://127.0.0.1:8080/v1", "m").remote
    check_url("http://localhost:8080/v1")  # loopback needs no TLS


class Recorder(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server on 127.0.0.1 that records every request it receives."""

    requests: list[tuple[str, str, dict]] = []

    def _reply(self, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        self.requests.append(("GET", self.path, {}))
        self._reply({"data": [{"id": "m"}]})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(("POST", self.path, body))
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for text in ("Hello", " there"):
                chunk = {"choices": [{"delta": {"content": text}, "index": 0}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        message = {"role": "assistant", "content": json.dumps(EMPTY)}
        self._reply({"choices": [{"message": message, "index": 0, "finish_reason": "stop"}]})

    def log_message(self, *args):
        pass


@pytest.fixture
def remote_server(monkeypatch):
    """The recording server, declared remote through the check the app uses."""
    Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(TREAT_AS_REMOTE_ENV, f"127.0.0.1:{server.server_port}")
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def _fill(memory) -> None:
    for i, text in enumerate(
        [
            "I am training for the Berlin marathon in September.",
            "My knee hurts after long runs, so I see a physiotherapist.",
            "I run with my friend Ana on Saturday mornings.",
        ]
    ):
        memory.add_memory(text, f"Noted {i}.")


def test_consolidation_sends_nothing_to_a_remote_model_while_the_switch_is_off(
    memory, remote_server
):
    chat = OpenAIChat(remote_server, "m", allow_plain_http=True, retries=0)
    assert chat.remote and memory.settings.remote_consolidation is False  # off by default
    memory.set_chat(chat)
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5))
    _fill(memory)
    assert memory.run_consolidation() > 0
    assert Recorder.requests == []  # not a single request, not even GET /models
    status = memory.consolidation_status()
    assert status.mid_term_pages == 2 and status.segments >= 1 and status.facts >= 3  # rules did it
    assert memory.sent_log() == []

    # The person allows it: now background work does reach the server (so the test can fail).
    memory.update_settings(
        MemorySettings(
            stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, remote_consolidation=True
        )
    )
    memory.add_memory("We plan to run a half marathon in Lisbon next spring.", "Great.")
    memory.run_consolidation()
    posts = [r for r in Recorder.requests if r[0] == "POST"]
    assert posts and all(not body.get("stream") for _, _, body in posts)
    sent = memory.sent_log()
    assert sent and {t.purpose for t in sent} == {"consolidation"}
    assert all(t.remote and t.destination == remote_server.split("/")[2] for t in sent)


def test_each_answer_records_what_was_sent_where(memory, remote_server):
    memory.set_chat(OpenAIChat(remote_server, "m", allow_plain_http=True, retries=0))
    memory.add_memory("My cat is called Miso.", "Cute.")
    stream = memory.get_response("What is my cat called?", max_tokens=16)
    assert stream.collect() == "Hello there"
    sent = sum(len(m["content"]) for m in stream.messages)
    assert stream.transfer is not None
    assert stream.transfer.characters_sent == sent and stream.transfer.characters_received == 11
    assert stream.transfer.remote and stream.transfer.purpose == "answer"
    posted = [body for method, _, body in Recorder.requests if method == "POST"]
    assert sum(len(m["content"]) for m in posted[-1]["messages"]) == sent  # it is what went out
    assert memory.sent_log()[-1] == stream.transfer


def test_a_local_model_is_recorded_as_this_computer(memory):
    stream = memory.get_response("hello", max_tokens=8)
    stream.collect()
    assert stream.transfer.destination == "this computer" and not stream.transfer.remote
