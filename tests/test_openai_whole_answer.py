"""A server that ignores "stream": true and answers a chat request with one ordinary JSON body
(as some OpenAI-compatible servers do, and as the reference MemoryOS, which never streams, never
noticed): the answer is shown, stored and counted, against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import socket

import pytest

from engine.backends.base import CancelToken
from engine.backends.openai_compat import OpenAIChat
from engine.errors import GenerationCancelled, ServerError, ServerNotAnsweringError
from tests.local_servers import LocalServer, QuietHandler

QUESTION = "What should I cook tonight?"
ANSWER = "Try a lentil soup: it is quick and keeps well."


def _completion(content: str | None, **message: str) -> dict:
    """A chat completion as a server sends it to a request without "stream": true."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 41, "completion_tokens": 13, "total_tokens": 54},
    }


class _WholeAnswerServer(LocalServer):
    """/v1/models, and a /v1/chat/completions that answers every request, "stream": true or
    not, with `body` as one JSON body. `framing`: "length" (Content-Length), "chunked", or
    "close" (HTTP/1.0, no Content-Length and no Content-Type: the body ends as the socket closes).
    `cut`: send the headers and only the first half of the chat body, then close."""

    def __init__(self, body: dict, framing: str = "length", cut: bool = False) -> None:
        self.requests: list[dict] = []
        host = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.0" if framing == "close" else "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                self._send({"object": "list", "data": [{"id": "m", "object": "model"}]}, False)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                host.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                self._send(body, cut)

            def _send(self, data: dict, cut: bool) -> None:
                raw = json.dumps(data).encode()
                self.close_connection = True
                self.send_response(200)
                if framing != "close":
                    self.send_header("Content-Type", "application/json")
                if framing == "length":
                    self.send_header("Content-Length", str(len(raw)))
                if framing == "chunked":
                    self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                if cut:
                    self.wfile.write(raw[: len(raw) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif framing == "chunked":  # in two chunks, as a body of unknown length goes
                    for part in (raw[:10], raw[10:]):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.wfile.write(raw)

        super().__init__(Handler)


def _chat(server: _WholeAnswerServer) -> OpenAIChat:
    return OpenAIChat(server.url, "m", retries=0, timeout=10, context_window=4096)


def test_an_answer_sent_whole_is_shown_stored_and_counted(memory):
    """The model's reasoning_content is no more part of the answer than in a stream."""
    body = _completion(ANSWER, reasoning_content="The person asked about dinner.")
    with _WholeAnswerServer(body) as server:
        chat = _chat(server)
        memory.set_chat(chat)
        stream = memory.get_response(QUESTION)
        shown = "".join(stream)
    assert server.requests[-1]["stream"] is True  # asked for a stream, answered whole
    assert shown == ANSWER
    assert memory.page(stream.page.id).agent_response == ANSWER
    assert memory.page(stream.page.id).user_input == QUESTION
    assert chat.usage.last_prompt_tokens == 41  # the server's own counts
    assert chat.usage.last_completion_tokens == 13
    assert chat.last_finish_reason == "stop"


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_an_answer_sent_whole_is_read_however_its_body_is_framed(framing):
    long_answer = " ".join(["lentils"] * 12_000)  # one line over 64 KiB, a read's size
    with _WholeAnswerServer(_completion(long_answer), framing=framing) as server:
        chunks = list(_chat(server).stream([{"role": "user", "content": QUESTION}]))
    assert "".join(chunks) == long_answer


def test_a_server_without_counts_gets_its_answer_estimated_as_a_whole():
    body = _completion(ANSWER)
    del body["usage"]
    with _WholeAnswerServer(body) as server:
        chat = _chat(server)
        list(chat.stream([{"role": "user", "content": QUESTION}]))
    assert chat.usage.last_completion_tokens == len(ANSWER) // 4  # not one token a chunk


def test_an_error_sent_whole_is_the_servers_error():
    body = {"error": {"message": "model 'm' is still loading", "type": "server_error"}}
    with _WholeAnswerServer(body) as server, pytest.raises(ServerError) as failure:
        list(_chat(server).stream([{"role": "user", "content": QUESTION}]))
    assert not isinstance(failure.value, ServerNotAnsweringError)  # the server is up
    message = str(failure.value)
    assert server.url in message and "still loading" in message
    assert "mid-answer" not in message  # no answer had begun


def test_a_whole_answer_with_no_content_is_an_empty_answer():
    with _WholeAnswerServer(_completion(None)) as server, pytest.raises(ServerError) as failure:
        list(_chat(server).stream([{"role": "user", "content": QUESTION}]))
    assert not isinstance(failure.value, ServerNotAnsweringError)
    assert "without writing anything" in str(failure.value)


@pytest.mark.parametrize("framing", ["length", "close"])
def test_a_whole_answer_cut_short_is_a_broken_connection(framing):
    with _WholeAnswerServer(_completion(ANSWER), framing=framing, cut=True) as server:
        said: list[str] = []
        with pytest.raises(ServerNotAnsweringError, match="broke"):
            for text in _chat(server).stream([{"role": "user", "content": QUESTION}]):
                said.append(text)
    assert said == []  # half a JSON body is no answer


def test_a_stop_while_a_whole_answer_is_read_still_stops():
    token = CancelToken()
    with _WholeAnswerServer(_completion(ANSWER)) as server, pytest.raises(GenerationCancelled):
        for _text in _chat(server).stream([{"role": "user", "content": QUESTION}], cancel=token):
            token.cancel()
