"""Writes from another process (the MCP server, `memoryos import`) show in the status line and
the sidebar without the app writing anything; a locked window shows no memory counts."""

from __future__ import annotations

import re

import pytest

from tests.helpers import run_cli

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("quick_outside_checks")]

PASSPHRASE = "correct horse battery"  # run_cli's passphrase


def _titles(window) -> list[str]:
    return [row.text(0) for row in window.sidebar.rows()]


def _recent(window) -> int | None:
    """The "N recent" count in the status line, None if it shows no counts."""
    found = re.search(r"(\d+) recent", window.status.memory.text())
    return int(found.group(1)) if found else None


def _settled(qtbot, window, recent: int) -> None:
    """The first status and list are drawn and the session knows the vault's version."""
    qtbot.waitUntil(lambda: _recent(window) == recent)
    qtbot.waitUntil(lambda: window.session._outside_version is not None)
    qtbot.wait(300)  # the window's first reads are all back


def test_a_write_from_a_second_connection_shows_without_an_app_write(
    qtbot, window, memory, elsewhere
):
    before = memory.data_version()
    memory.add_memory("I keep a sourdough starter", "Feed it daily.")  # the app's own writes
    memory.add_memory("My bike is a green Brompton", "Noted.")
    assert memory.data_version() == before  # ...are not mistaken for outside ones
    qtbot.waitUntil(lambda: _titles(window) == ["I keep a sourdough starter"])
    _settled(qtbot, window, 2)
    # Nothing changed: the checks draw nothing again.
    with qtbot.assertNotEmitted(window.sidebar.refreshed, wait=500):
        with qtbot.assertNotEmitted(window.session.status_changed, wait=500):
            pass

    # What the MCP server's add_memory does: its own connection, a new conversation.
    with elsewhere() as server:
        page = server.add_memory("Agent note: the user's locker is number 42", "Saved.")
    assert memory.data_version() != before

    qtbot.waitUntil(lambda: _recent(window) == 3, timeout=5000)
    qtbot.waitUntil(lambda: window.sidebar.row_of(page.conversation_id) is not None, timeout=5000)
    assert _titles(window)[0] == "Agent note: the user's locker is number 42"


def test_search_results_on_screen_follow_a_write_from_outside(qtbot, window, memory, elsewhere):
    memory.add_memory("My locker at the gym is number 7", "Noted.")
    _settled(qtbot, window, 1)
    sidebar = window.sidebar
    with qtbot.waitSignal(sidebar.searched):
        sidebar.search.setText("locker")
    assert "number 7" in sidebar.results.toPlainText()
    assert "number 42" not in sidebar.results.toPlainText()

    with elsewhere() as server:
        server.add_memory("Agent note: the user's locker is number 42", "Saved.")

    qtbot.waitUntil(lambda: "number 42" in sidebar.results.toPlainText(), timeout=5000)
    assert "number 7" in sidebar.results.toPlainText()
    assert sidebar.stack.currentWidget() is sidebar.results


def test_an_import_by_the_cli_process_shows_in_status_and_sidebar(qtbot, home, chat):
    """A real second process (`memoryos import`) on the vault the window has open."""
    import json

    from app.main_window import MainWindow
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    path = home / "shared.memoryos"
    mem = MemoryOS.open(
        path,
        create=True,
        passphrase=PASSPHRASE,
        embedder=HashEmbedder(384),
        chat=chat,
        background=False,
    )
    window = MainWindow.for_memory(mem, chat)
    qtbot.addWidget(window)
    window.show()
    try:
        _settled(qtbot, window, 0)
        assert _titles(window) == []
        transcript = home / "chat.json"
        transcript.write_text(
            json.dumps(
                [
                    {"role": "user", "content": "I adopted a greyhound called Biscuit."},
                    {"role": "assistant", "content": "Biscuit is a great name."},
                ]
            ),
            encoding="utf-8",
        )

        out = run_cli(
            "import", str(transcript), "--vault-path", str(path), "--embedder", "fake", home=home
        )

        assert out.returncode == 0, out.stderr.decode()
        qtbot.waitUntil(lambda: _recent(window) == 1, timeout=10_000)
        qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 1, timeout=10_000)
        assert "greyhound called Biscuit" in _titles(window)[0]
    finally:
        window.close()


def test_locking_clears_the_counts_and_stops_the_checks(qtbot, window, memory, elsewhere):
    memory.add_memory("I keep a sourdough starter", "Feed it daily.")
    window.session.refresh_status()
    _settled(qtbot, window, 1)
    session = window.session
    session.refresh_status()  # a read still under way when the vault locks...
    window.lock()

    assert window.session is None and window.status.vault.text() == "Vault locked"
    assert window.status.memory.text() == ""
    assert not session._outside_timer.isActive()
    # ...and a write from outside while locked brings no counts or titles back.
    with elsewhere() as server:
        server.add_memory("Agent note: the user's locker is number 42", "Saved.")
    qtbot.wait(400)
    assert window.status.memory.text() == "" and window.sidebar.rows() == []
