"""The chosen server stops answering mid-conversation: the status line says so, the message
can be sent again, and the next answer that arrives clears it."""

from __future__ import annotations

import pytest

from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


def _answered(window) -> bool:
    return not window.session.generating and not window.composer._busy


def test_a_server_that_stops_answering_shows_and_recovers(qtbot, memory):
    from app.main_window import MainWindow
    from engine.backends.openai_compat import OpenAIChat

    with ChatServer(models=["tiny"], reply=["Hello", " there"]) as server:
        port = server.port
        remote = OpenAIChat(server.url, "tiny", retries=0, connect_timeout=2.0)
        memory.set_chat(remote)
        window = MainWindow.for_memory(memory, remote)
        qtbot.addWidget(window)
        window.show()
        assert "Server not answering" not in window.status.model.text()
        window.send("Hi, I'm Ana.")
        qtbot.waitUntil(lambda: _answered(window), timeout=10_000)
        assert "Hello there" in window.view.plain_text()

    # The server is gone: the answer says why, the status line turns to "not answering" with
    # what to do, and a message can still be sent.
    window.send("Are you there?")
    qtbot.waitUntil(lambda: _answered(window), timeout=10_000)
    assert "Cannot reach the server" in window.view.plain_text()
    assert "Server not answering" in window.status.model.text()
    assert "Start the server again" in window.status.model.toolTip()
    assert window.session.can_answer and window.composer.send_button.isEnabled()

    with ChatServer(models=["tiny"], reply=["Back", " again"], port=port):
        window.send("And now?")
        qtbot.waitUntil(lambda: _answered(window), timeout=10_000)
        assert "Back again" in window.view.plain_text()
        assert "Server not answering" not in window.status.model.text()
        assert "tiny" in window.status.model.text()
    window.close()


def test_a_new_model_state_reads_whole_at_once(qtbot):
    """The state's words are whole as soon as they are set, not after the next layout pass:
    shortened against the width a short model name ("tiny") had, "Server not answering" read
    "S…" (seen in a CI run, where the next pass came after the check)."""
    from PySide6.QtWidgets import QMainWindow

    from app.status_bar import READY, UNREACHABLE, StatusLine

    window, line = QMainWindow(), StatusLine()
    window.setStatusBar(line)
    qtbot.addWidget(window)
    window.resize(700, 400)
    window.show()
    qtbot.waitExposed(window)
    line.set_vault("default", "keyring")
    line.set_model(READY, "tiny")
    qtbot.wait(50)

    line.set_model(UNREACHABLE, "http://127.0.0.1:9/v1")  # no event processed after this

    assert line.model.text() == "Server not answering"
