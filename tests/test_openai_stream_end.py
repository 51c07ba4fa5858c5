"""How an answer's stream ends, against real HTTP servers on 127.0.0.1: a connection that
broke (a server stopped after its reply's headers) is told apart from a server that ended the
stream on purpose with nothing in it, and the context-size advice comes only when the prompt
could be too long for the server, or when the server said so."""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import pytest

from engine.backends.openai_compat import OpenAIChat
from engine.errors import ServerError, ServerNotAnsweringError
from tests.local_servers import LocalServer, QuietHandler

# llama.cpp's server's body for a prompt over its context (format_error_response), with the
# context of its slot
LLAMA_CPP_TOO_LONG = {
    "code": 400,
    "message": "the request exceeds the available context size, try increasing it",
    "type": "exceed_context_size_error",
    "n_prompt_tokens": 5210,
    "n_ctx": 4096,
}


class _Server(LocalServer):
    """A server whose /v1/chat/completions does what `answer(handler)` does."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None], http11: bool) -> None:
        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1" if http11 else "HTTP/1.0"

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.close_connection = True
                answer(self)

        super().__init__(Handler)


def _stream_headers(handler: BaseHTTPRequestHandler, chunked: bool) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    if chunked:
        handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    handler.wfile.flush()


def _chunk(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))


def _stopped_chunked(handler: BaseHTTPRequestHandler) -> None:
    """llama.cpp's server killed while it read the prompt: chunked headers, then the socket
    closes (as the system closes a killed program's) without the last chunk."""
    _stream_headers(handler, chunked=True)
    handler.connection.shutdown(socket.SHUT_RDWR)


def _stopped_plain(handler: BaseHTTPRequestHandler) -> None:
    """A small HTTP/1.0 server killed right after its headers: the body had no length, so the
    socket closing is all there is to see."""
    _stream_headers(handler, chunked=False)
    handler.connection.shutdown(socket.SHUT_RDWR)


def _reset(handler: BaseHTTPRequestHandler) -> None:
    """Headers, then a reset (RST) instead of an orderly close."""
    _stream_headers(handler, chunked=False)
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()


def _ended_empty(handler: BaseHTTPRequestHandler) -> None:
    """A chunked stream ended properly (its last chunk) with no event in it."""
    _stream_headers(handler, chunked=True)
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()


def _asks(url: str, words: int = 3, context_window: int = 8192) -> Exception:
    chat = OpenAIChat(url, "m", retries=0, timeout=10, context_window=context_window)
    question = " ".join(["word"] * words)
    with pytest.raises(ServerError) as failure:
        list(chat.stream([{"role": "user", "content": question}], max_tokens=16))
    return failure.value


@pytest.mark.parametrize("answer", [_stopped_chunked, _stopped_plain, _reset])
def test_a_server_stopped_after_its_headers_is_a_broken_connection(answer):
    """Seen twice in a walkthrough (llama.cpp's server killed a second into an answer, a small
    server killed after its headers): the message said the server ended the answer and sent
    the person to the context size for a prompt of 226 tokens of 8,192, while the status line
    said "Server not answering"."""
    with _Server(answer, http11=answer is _stopped_chunked) as server:
        error = _asks(server.url)
    assert isinstance(error, ServerNotAnsweringError)  # the status line's "not answering"
    message = str(error)
    assert server.url in message and "broke" in message
    assert "middle" not in message  # not a word was written
    assert "context" not in message.lower()


def test_a_stream_ended_with_nothing_in_it_is_the_servers_answer_without_context_advice():
    with _Server(_ended_empty, http11=True) as server:
        error = _asks(server.url)  # a few tokens of 8,192: not over any server's context
    assert not isinstance(error, ServerNotAnsweringError)  # the server answered: it is up
    assert "without writing anything" in str(error)
    assert "context" not in str(error).lower()


def test_a_stream_ended_with_nothing_after_a_long_prompt_points_at_the_context():
    with _Server(_ended_empty, http11=True) as server:
        error = _asks(server.url, words=700, context_window=2048)  # most of the context
    assert not isinstance(error, ServerNotAnsweringError)
    message = str(error)
    assert "context size" in message and "2,048" in message
    assert "model settings" in message


def _refused_too_long(handler: BaseHTTPRequestHandler) -> None:
    body = json.dumps({"error": LLAMA_CPP_TOO_LONG}).encode()
    handler.send_response(400)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _streamed_too_long(handler: BaseHTTPRequestHandler) -> None:
    """llama.cpp's server sends a failure inside the stream as an `error:` field, then
    `data: [DONE]`, then ends the stream properly (server_sent_event(sink, "error", ...))."""
    _stream_headers(handler, chunked=True)
    _chunk(handler, f"error: {json.dumps(LLAMA_CPP_TOO_LONG)}\n\n".encode())
    _chunk(handler, b"data: [DONE]\n\n")
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()


def _openai_too_long(handler: BaseHTTPRequestHandler) -> None:
    message = (
        "This model's maximum context length is 4096 tokens. However, your messages resulted "
        "in 5210 tokens. Please reduce the length of the messages."
    )
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                 "code": "context_length_exceeded"}}).encode()  # fmt: skip
    handler.send_response(400)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.mark.parametrize("answer", [_refused_too_long, _streamed_too_long, _openai_too_long])
def test_a_server_that_says_the_prompt_is_too_long_gets_its_context_size_named(answer):
    """The server's own context size (4,096) is the one to set; the prompt's size is said
    even when it looked small here (the server's context may be much smaller than ours)."""
    with _Server(answer, http11=answer is _streamed_too_long) as server:
        error = _asks(server.url)
    assert not isinstance(error, ServerNotAnsweringError)
    message = str(error)
    assert "4,096" in message and "context size" in message and "model settings" in message


def test_a_cut_chunked_stream_after_words_broke_in_the_middle():
    def answer(handler: BaseHTTPRequestHandler) -> None:
        _stream_headers(handler, chunked=True)
        event = {"choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]}
        _chunk(handler, f"data: {json.dumps(event)}\n\n".encode())
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)

    with _Server(answer, http11=True) as server:
        chat = OpenAIChat(server.url, "m", retries=0, timeout=10)
        said: list[str] = []
        with pytest.raises(ServerNotAnsweringError, match="middle"):
            for text in chat.stream([{"role": "user", "content": "hi"}], max_tokens=16):
                said.append(text)
    assert said == ["Hello"]
