"""A server that stopped in the middle of an answer and answers again: the status line says
the model answers as soon as the next answer's first words show, not once it is done."""

from __future__ import annotations

import json
import socket

import pytest

from tests.local_servers import LocalServer, QuietHandler, send_json

pytestmark = pytest.mark.gui


class _OnceStoppedServer(LocalServer):
    """An OpenAI-like server on 127.0.0.1: its first answer stops right after the headers (as
    a server killed then), the next one sends "Back", waits for `release`, then " again"."""

    def __init__(self) -> None:
        self.answers = 0
        host = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                send_json(self, {"object": "list", "data": [{"id": "tiny"}]})

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                host.answers += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.flush()
                if host.answers == 1:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._piece("Back")
                host.release.wait(30)
                self._piece(" again")
                end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())

            def _piece(self, text: str) -> None:
                event = {"choices": [{"index": 0, "delta": {"content": text}}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()

        super().__init__(Handler)


def _answered(window) -> bool:
    return not window.session.generating and not window.composer._busy


def test_the_status_says_the_model_answers_once_the_first_words_show(qtbot, memory):
    from app.main_window import MainWindow
    from engine.backends.openai_compat import OpenAIChat

    with _OnceStoppedServer() as server:
        remote = OpenAIChat(server.url, "tiny", retries=0, connect_timeout=2.0)
        memory.set_chat(remote)
        window = MainWindow.for_memory(memory, remote)
        qtbot.addWidget(window)
        window.show()

        window.send("Are you there?")
        qtbot.waitUntil(lambda: _answered(window), timeout=10_000)
        assert "Server not answering" in window.status.model.text()

        window.send("And now?")
        qtbot.waitUntil(lambda: "Back" in window.view.plain_text(), timeout=10_000)
        assert window.session.generating  # the answer is still coming in
        assert "Server not answering" not in window.status.model.text()
        assert "tiny" in window.status.model.text()

        server.release.set()
        qtbot.waitUntil(lambda: _answered(window), timeout=10_000)
        assert "Back again" in window.view.plain_text()
        assert "Server not answering" not in window.status.model.text()
        window.close()
