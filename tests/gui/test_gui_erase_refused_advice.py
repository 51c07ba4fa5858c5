"""Erase everything refused because another program has the memory open: the advice fits the
program named (it always told how to stop an MCP server, also for `memoryos chat`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_mcp_server import ROOT, make_vault, server_env

pytestmark = pytest.mark.gui

MEMORYOS = Path(sys.executable).parent / "memoryos"  # the installed command, as a person runs it


def _named_while_open(qtbot, command: list[str], home: Path, vault: Path) -> list[str]:
    """The programs vault_open_elsewhere names while `command` (a terminal chat) is running."""
    from engine.api import vault_open_elsewhere

    child = subprocess.Popen(command, env=server_env(home), cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    try:
        qtbot.waitUntil(lambda: vault_open_elsewhere(vault) != [], timeout=60_000)
        return vault_open_elsewhere(vault)
    finally:
        child.communicate("/quit\n", timeout=60)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="names it from /proc/locks")
@pytest.mark.skipif(not MEMORYOS.exists(), reason="the memoryos command is not installed")
def test_a_terminal_chat_is_told_to_end_with_quit_not_as_an_mcp_server(qtbot, home):
    from app.vault_dialogs import erase_refused_text

    vault = make_vault(home)
    named = _named_while_open(
        qtbot, [str(MEMORYOS), "chat", "--vault-path", str(vault), "--embedder", "fake",
         "--url", "http://127.0.0.1:9/v1", "--url-model", "m"], home, vault)  # fmt: skip
    assert len(named) == 1 and "memoryos chat" in named[0].text, named
    said = erase_refused_text("alice", named)
    assert "/quit" in said and "Ctrl+D" in said and "MCP" not in said, said
    assert named[0].text in said and "Nothing was erased" in said


def test_an_mcp_server_is_told_how_it_stops():
    from app.vault_dialogs import erase_refused_text
    from engine.vault.holders import Holder

    said = erase_refused_text("work", [Holder(1234, ("memoryos", "mcp", "--vault", "work"))])
    assert "agent that started it is closed" in said and "/quit" not in said, said


@pytest.mark.parametrize("pid, command", [(77, ("python3", "-c", "import sqlite3")), (77, ()),
                                          (None, ())])  # fmt: skip
def test_any_other_program_is_told_to_close(pid, command):
    from app.vault_dialogs import erase_refused_text
    from engine.vault.holders import Holder

    said = erase_refused_text("work", [Holder(pid, command)])
    assert "Close that program" in said and "MCP" not in said and "/quit" not in said, said


def test_several_programs_get_the_advice_for_each():
    from app.vault_dialogs import erase_refused_text
    from engine.vault.holders import Holder

    said = erase_refused_text("work", [Holder(1, ("memoryos", "chat", "--vault", "work")),
                                       Holder(2, ("memoryos", "mcp", "--vault", "work")),
                                       Holder(3)])  # fmt: skip
    assert "/quit" in said and "agent that started it" in said and "close it" in said, said
