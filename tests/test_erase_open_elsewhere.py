"""Erase everything is refused while another program has the vault open (a walkthrough erased
"work" under a running `memoryos mcp`: the server went on answering from the erased memories
and wrote new ones into the deleted file, where they were lost)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from engine import errors
from tests.helpers import mcp_server_waiting
from tests.test_mcp_server import ROOT, call, make_vault, open_direct, serve, server_env

FACT = "The Q3 audit deadline is October 14."


def _vault_with_a_memory(home: Path) -> Path:
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        memory.add_memory(FACT, "Noted.")
    return vault


def test_erase_is_refused_while_an_mcp_server_has_the_vault_open(home):
    """A real `memoryos mcp` over stdio: erase refused naming it, nothing deleted, the server
    still reads and writes a vault that exists; once it has stopped, the erase goes through."""
    from engine.api import erase_vault

    vault = _vault_with_a_memory(home)
    refused: list[str] = []
    found: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            async with serve(vault, home) as session:
                await call(session, "memory_status")  # the server is up, the vault open
                with pytest.raises(errors.VaultLockedError) as refusal:
                    erase_vault(vault)
                refused.append(str(refusal.value))
                found["after"] = await call(session, "retrieve_memory", query="audit deadline")
                found["added"] = await call(
                    session, "add_memory", user_input="My passport number is X1234567."
                )

    anyio.run(main)
    assert "mcp" in refused[0] and "nothing was erased" in refused[0]
    assert vault.exists()
    assert FACT in str(found["after"])
    with open_direct(vault, background=False) as memory:  # what the server wrote is kept
        texts = [page.user_input for page in memory.pages()]
    assert FACT in texts and "My passport number is X1234567." in texts
    erase_vault(vault)  # the server has exited: nothing holds the vault now
    assert not vault.exists() and not Path(f"{vault}-wal").exists()


def _child_holding(vault: Path, home: Path) -> subprocess.Popen:
    """Another process with the vault open (as the app would be) until its stdin closes."""
    code = (
        "import sys; from tests.test_mcp_server import open_direct; "
        "m = open_direct(__import__('pathlib').Path(sys.argv[1]), background=False); "
        "m.short_term(); print('open', flush=True); sys.stdin.read(); m.close()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(vault)], env=server_env(home), cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout.readline().strip() == "open"
    return child


def test_a_system_without_a_lock_list_finds_the_other_program_by_its_lock(home, monkeypatch):
    """Where the kernel keeps no list of locks (macOS), the erase tries SQLite's lock: refused
    while a child process has the vault open, done once it has closed it."""
    from engine.api import erase_vault
    from engine.vault import holders

    vault = _vault_with_a_memory(home)
    monkeypatch.setattr(holders, "PROC_LOCKS", home / "no-such-list")
    child = _child_holding(vault, home)
    try:
        with pytest.raises(errors.VaultLockedError, match="nothing was erased"):
            erase_vault(vault)
        assert vault.exists()
    finally:
        child.communicate(timeout=60)  # closes its stdin: it closes the vault and exits
    with open_direct(vault, background=False) as memory:  # the tried lock harmed nothing
        assert FACT in [page.user_input for page in memory.pages()]
    erase_vault(vault)
    assert not vault.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/locks is Linux's")
def test_the_programs_holding_a_vault_are_named_and_this_one_is_left_out(home):
    from engine.api import vault_open_elsewhere

    vault = _vault_with_a_memory(home)
    with open_direct(vault, background=False):
        assert vault_open_elsewhere(vault) == []  # this process's own connection is no other
        child = _child_holding(vault, home)
        try:
            started = time.monotonic()
            named = vault_open_elsewhere(vault)
            assert len(named) == 1 and f"process {child.pid}" in named[0].text, named
            assert time.monotonic() - started < 1
        finally:
            child.communicate(timeout=60)
        assert vault_open_elsewhere(vault) == []


def test_a_holder_is_named_as_a_person_finds_it():
    """The program named in the refusal: its command in backquotes and its process, the
    process alone when its command cannot be read, "another program" when only its lock is."""
    from engine.vault.holders import Holder

    assert Holder(1234, ("memoryos", "mcp", "--vault", "work")).text == (
        "`memoryos mcp --vault work` (process 1234)"
    )
    assert str(Holder(77)) == "process 77"
    assert Holder(None).text == "another program"
    long = Holder(5, ("memoryos", "chat", "--vault-path", "/home/a/" + "x" * 100))
    assert long.text == f"`{' '.join(long.command)[:79]}…` (process 5)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/locks is Linux's")
def test_the_holder_of_a_vault_carries_its_command(home):
    """A program started as python -m engine.mcp_server is `memoryos mcp`, as a person runs it."""
    from engine.api import vault_open_elsewhere

    vault = _vault_with_a_memory(home)
    server = mcp_server_waiting(home, vault)
    try:
        deadline = time.monotonic() + 60
        while not (named := vault_open_elsewhere(vault)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [(holder.pid, holder.command[:2]) for holder in named] == [
            (server.pid, ("memoryos", "mcp"))
        ], named
    finally:
        server.communicate(timeout=60)
