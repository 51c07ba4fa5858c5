"""Erase everything while an MCP server has the memory open: refused with a message that names
the server and says what to do; nothing is closed or deleted. Once it has stopped, the erase
goes through (a walkthrough saw the app say "erased" while the server went on answering)."""

from __future__ import annotations

import sys

import pytest

from tests.gui_steps import shown_window
from tests.helpers import mcp_server_waiting
from tests.test_mcp_server import open_direct

pytestmark = pytest.mark.gui

FACT = "The Q3 audit deadline is October 14."


def _warnings(window) -> list:
    from PySide6.QtWidgets import QMessageBox

    return [box for box in window.findChildren(QMessageBox)
            if box.isVisible() and box.icon() == QMessageBox.Icon.Warning]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="names it from /proc/locks")
def test_erase_is_refused_while_an_mcp_server_has_the_memory_open(qtbot, home, chat):
    from engine.api import vault_open_elsewhere

    path = home / "vaults" / "work.memoryos"
    memory = open_direct(path, create=True, background=False)
    memory.add_memory(FACT, "Noted.")
    window = shown_window(qtbot, memory, chat)
    server = mcp_server_waiting(home, path)  # `memoryos mcp` on the same vault
    try:
        qtbot.waitUntil(lambda: vault_open_elsewhere(path) != [], timeout=60_000)
        window.erase_everything(confirmed=True)
        qtbot.waitUntil(lambda: _warnings(window) != [])
        said = _warnings(window)[-1].text()
        assert f"process {server.pid}" in said and "mcp" in said  # which program
        assert window.session is not None  # still open, as it was
        assert path.exists() and FACT in [page.user_input for page in memory.pages()]
        _warnings(window)[-1].accept()
    finally:
        server.communicate(timeout=60)  # its client went away: the server stops
    with qtbot.waitSignal(window.vault_erased, timeout=30_000):
        window.erase_everything(confirmed=True)
    assert not path.exists()
    assert _warnings(window) == []
    window.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="waits on /proc/locks")
def test_where_the_system_cannot_name_it_the_erase_still_deletes_nothing(qtbot, home, chat,
                                                                         monkeypatch):
    """No /proc/locks (macOS): the window closes the memory, the erase finds the server's lock
    and deletes nothing; the window says so and asks for the key again."""
    from engine.api import vault_open_elsewhere
    from engine.vault import holders

    path = home / "vaults" / "work.memoryos"
    memory = open_direct(path, create=True, background=False)
    memory.add_memory(FACT, "Noted.")
    window = shown_window(qtbot, memory, chat)
    server = mcp_server_waiting(home, path)
    try:
        qtbot.waitUntil(lambda: vault_open_elsewhere(path) != [], timeout=60_000)
        monkeypatch.setattr(holders, "PROC_LOCKS", home / "no-such-list")  # as on macOS
        with qtbot.waitSignal(window.locked, timeout=30_000):  # the key is asked for again
            window.erase_everything(confirmed=True)
        qtbot.waitUntil(lambda: _warnings(window) != [])
        assert "nothing was erased" in _warnings(window)[-1].text().lower()
        assert path.exists()
    finally:
        server.communicate(timeout=60)
    with open_direct(path, background=False) as again:
        assert FACT in [page.user_input for page in again.pages()]
    window.close()
