"""OpenAIChat against a real llama-cpp-python server on 127.0.0.1 serving the bundled model.

Findings about that server, checked here: it serves its one model whatever model name the
request gives (so "unknown model" is tested as a wrong base URL, which answers 404), and it
rejects response_format "json_schema" (HTTP 500, a validation error), so OpenAIChat falls back
to {"type": "json_object", "schema": ...}, which it enforces with a grammar.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import jsonschema
import pytest

from engine.backends.openai_compat import OpenAIChat, _estimate
from engine.backends.structured import structured_call
from engine.errors import ServerError
from models.catalogue import bundled_gguf_path

pytestmark = pytest.mark.real_models

KEY = "sk-test-4f1c9e-secret"
SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string", "maxLength": 200}, "keywords": {"type": "array", "items": {"type": "string", "maxLength": 30}, "maxItems": 5}},
    "required": ["summary", "keywords"],
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(api_key: str | None = None) -> tuple[subprocess.Popen, str]:
    """`python -m llama_cpp.server` on a free port; returns once /v1/models answers."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf_path()),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"]  # fmt: skip
    if api_key:
        command += ["--api_key", api_key]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}")
        request = urllib.request.Request(url + "/models")
        if api_key:
            request.add_header("Authorization", f"Bearer {api_key}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return process, url
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    stop_server(process)
    raise RuntimeError("llama_cpp.server did not become ready in 120 s")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="session")
def server():
    process, url = start_server(api_key=KEY)
    try:
        yield url
    finally:
        stop_server(process)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def test_streams_an_answer_and_counts_usage(server):
    chat = OpenAIChat(server, "smollm2", api_key=KEY)
    chunks = list(chat.stream(ask("Name three fruits."), max_tokens=24))
    assert len(chunks) > 1 and "".join(chunks).strip()
    assert chat.usage.generate_calls == 1
    assert 1 < chat.usage.last_completion_tokens <= 24
    # llama_cpp.server sends no usage with a stream (it ignores stream_options), so the counts
    # are the backend's documented estimates: one chunk a token, the prompt's text by length.
    assert chat.usage.last_completion_tokens == len(chunks)
    assert chat.usage.last_prompt_tokens == _estimate(ask("Name three fruits."))
    # load() listed the server's models: llama_cpp.server names its one model by its path
    assert chat.available_models == [str(bundled_gguf_path())]


def test_structured_output_is_schema_valid(server):
    chat = OpenAIChat(server, "smollm2", api_key=KEY)
    text = chat.complete_json(
        ask("Summarise: I'm Tom, a data scientist in San Francisco."), SCHEMA, max_tokens=160
    )
    jsonschema.validate(json.loads(text), SCHEMA)
    assert chat.format_mode == "json_object_schema"  # this server refuses "json_schema"
    value = structured_call(chat, ask("Summarise: we talked about bread."), SCHEMA, max_tokens=160)
    assert value is not None and isinstance(value["keywords"], list)


def test_wrong_or_missing_key_is_a_clear_error_without_the_key(server):
    wrong = "sk-wrong-key-77aa"
    with pytest.raises(ServerError, match="refused the API key") as caught:
        list(OpenAIChat(server, "smollm2", api_key=wrong).stream(ask("hi"), max_tokens=4))
    assert wrong not in str(caught.value)
    with pytest.raises(ServerError, match="needs an API key"):
        list(OpenAIChat(server, "smollm2").stream(ask("hi"), max_tokens=4))
    assert KEY not in repr(OpenAIChat(server, "smollm2", api_key=KEY))


def test_wrong_base_url_is_a_clear_404_and_any_model_name_is_served(server):
    wrong = server.replace("/v1", "/api/nothing")
    with pytest.raises(ServerError, match="Nothing found .*check the server URL"):
        list(OpenAIChat(wrong, "smollm2", api_key=KEY).stream(ask("hi"), max_tokens=4))
    # llama_cpp.server answers with its one model whatever the name: no "unknown model" here.
    assert list(OpenAIChat(server, "no-such-model", api_key=KEY).stream(ask("hi"), max_tokens=4))


def test_unreachable_port_fails_fast():
    chat = OpenAIChat(f"http://127.0.0.1:{free_port()}/v1", "m", retries=1, backoff=0.1)
    started = time.monotonic()
    with pytest.raises(ServerError, match="Cannot reach the server .*connection refused"):
        list(chat.stream(ask("hi"), max_tokens=4))
    assert time.monotonic() - started < 5


def test_server_killed_mid_stream_is_a_clear_error_and_nothing_is_stored(memory):
    process, url = start_server()
    try:
        memory.set_chat(OpenAIChat(url, "smollm2", timeout=30))
        response = memory.get_response(
            "Write a long story about a dragon and a knight.", max_tokens=400
        )
        killed_at = None
        with pytest.raises(ServerError, match="broke in the middle"):
            for count, _chunk in enumerate(response, 1):
                if count == 2:
                    os.kill(process.pid, signal.SIGKILL)
                    killed_at = time.monotonic()
        assert killed_at is not None and time.monotonic() - killed_at < 10
        assert memory.pages() == []  # the half answer was not stored
    finally:
        stop_server(process)


def test_a_silent_server_times_out_instead_of_hanging():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts connections, never answers
    try:
        port = listener.getsockname()[1]
        chat = OpenAIChat(f"http://127.0.0.1:{port}/v1", "m", timeout=1.0, retries=0)
        started = time.monotonic()
        with pytest.raises(ServerError, match="sent nothing for 1 s"):
            list(chat.stream(ask("hi"), max_tokens=4))
        assert time.monotonic() - started < 5
    finally:
        listener.close()


def test_rate_limit_is_retried_with_backoff_then_reported():
    """A real HTTP server on 127.0.0.1 that always answers 429 (with Retry-After: 0)."""
    hits = []

    class TooMany(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's naming
            self.do_POST()

        def do_POST(self):  # noqa: N802
            hits.append(self.path)
            body = b'{"error": {"message": "slow down"}}'
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TooMany)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        chat = OpenAIChat(f"http://127.0.0.1:{server.server_port}/v1", "m", retries=2)
        with pytest.raises(ServerError, match="HTTP 429"):
            list(chat.stream(ask("hi"), max_tokens=4))
        assert hits.count("/v1/chat/completions") == 3  # the first try and two retries
    finally:
        server.shutdown()
        server.server_close()


def test_a_stream_closed_before_any_word_without_its_end_is_a_broken_connection():
    """An HTTP/1.0 stream with no length that closes before any word and without [DONE] is
    what a server stopped right after its headers sends: the connection broke. The advice to
    set the context size (for a prompt of a few tokens) sent people the wrong way. llama.cpp's
    server says a prompt is over its context in the stream (tests/test_openai_stream_end.py)."""
    from engine.errors import ServerNotAnsweringError
    from tests.local_servers import ChatServer

    with ChatServer(["m"], [], finish_reason=None) as server:
        chat = OpenAIChat(server.url, "m", retries=1, backoff=0.1)
        with pytest.raises(ServerNotAnsweringError, match="broke before the answer") as failure:
            list(chat.stream(ask("hi"), max_tokens=4))
    assert "context" not in str(failure.value).lower()
