"""`memoryos forget` while another program (a real `memoryos mcp`, the app) has the vault open.
Forget everything is refused, naming that program, as erase is: it would go on answering from
what it holds and store again what was under way. A page or conversation forgotten from the
terminal is gone for the running server at once, and what it writes afterwards is kept."""

from __future__ import annotations

import anyio
import pytest

from engine import errors
from tests.helpers import run_cli
from tests.test_erase_open_elsewhere import _child_holding
from tests.test_mcp_server import PASSPHRASE, call, make_vault, open_direct, serve

FAKE = ("--embedder", "fake")
SISTER = "My sister Zorblat lives in Oslo."
KEY = "I keep my spare key under the blue pot."


def _vault_with_two_conversations(home):
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        memory.add_memory(SISTER, "Noted.")
        sister = memory.conversation_id
        memory.new_conversation()
        memory.add_memory(KEY, "Got it.")
        memory.run_consolidation()
    return vault, sister


def _forget(home, vault, *what: str):
    return run_cli("forget", *what, "--yes", "--vault-path", str(vault), *FAKE, home=home,
                   passphrase=PASSPHRASE)  # fmt: skip


def _said(found: dict) -> list[str]:
    return [page["user_input"] for page in found["pages"] + found["recent"]]


def test_forget_everything_is_refused_while_an_mcp_server_has_the_vault_open(home):
    vault, _ = _vault_with_two_conversations(home)
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            async with serve(vault, home) as session:
                await call(session, "memory_status")  # the server is up, the vault open
                seen["refused"] = await anyio.to_thread.run_sync(
                    lambda: _forget(home, vault, "everything")
                )
                seen["found"] = await call(session, "retrieve_memory", query="sister Oslo key")
                seen["facts"] = await call(session, "list_facts")

    anyio.run(main)
    refused = seen["refused"]
    message = refused.stderr.decode()
    assert refused.returncode == 1, message
    assert "nothing was forgotten" in message and "`memoryos mcp " in message
    assert "forget conversation" in message  # what works meanwhile
    assert "Traceback" not in message
    assert sorted(_said(seen["found"])) == sorted([SISTER, KEY])  # the server lost nothing
    assert len(seen["facts"]["facts"]) == 2
    with open_direct(vault, background=False) as memory:
        assert len(memory.pages()) == 2
    done = _forget(home, vault, "everything")  # the server has exited: nothing holds it now
    assert done.returncode == 0, done.stderr.decode()
    with open_direct(vault, background=False) as memory:
        assert memory.pages() == [] and memory.facts() == []


@pytest.mark.parametrize("what", ["page", "conversation"])
def test_a_page_or_conversation_forgotten_from_the_terminal_is_gone_for_the_server(home, what):
    """The running server answers without it at once (its pages, facts, get_page), keeps the
    rest, and what it adds afterwards is stored."""
    vault, sister = _vault_with_two_conversations(home)
    with open_direct(vault, background=False) as memory:
        page_id = next(p.id for p in memory.pages() if p.user_input == SISTER)
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            async with serve(vault, home) as session:
                before = await call(session, "retrieve_memory", query="sister Oslo key")
                assert SISTER in _said(before)
                target = str(page_id) if what == "page" else sister
                seen["done"] = await anyio.to_thread.run_sync(
                    lambda: _forget(home, vault, what, target)
                )
                seen["found"] = await call(session, "retrieve_memory", query="sister Oslo key")
                seen["facts"] = await call(session, "list_facts")
                page = await session.call_tool("get_page", {"id": page_id})
                seen["get_page"] = page.is_error
                await call(session, "add_memory", user_input="My bike is green.")

    anyio.run(main)
    assert seen["done"].returncode == 0, seen["done"].stderr.decode()
    assert _said(seen["found"]) == [KEY]
    assert [fact["text"] for fact in seen["facts"]["facts"]] == [KEY]
    assert seen["get_page"]  # not found
    with open_direct(vault, background=False) as memory:
        assert sorted(p.user_input for p in memory.pages()) == sorted([KEY, "My bike is green."])


def test_the_engine_refuses_forget_everything_while_another_process_has_the_vault(home):
    """MemoryOS.forget_everything, whoever calls it, checks again once the vault is open (a
    program may open it after the terminal's first look): refused, nothing deleted."""
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("an open vault's other holders are listed only from Linux's /proc/locks")
    vault, _ = _vault_with_two_conversations(home)
    with open_direct(vault, background=False) as memory:
        child = _child_holding(vault, home)
        try:
            with pytest.raises(errors.VaultLockedError, match="nothing was forgotten"):
                memory.forget_everything()
            assert len(memory.pages()) == 2 and len(memory.facts()) == 2
        finally:
            child.communicate(timeout=60)
        memory.forget_everything()  # the other process has closed it
        assert memory.pages() == [] and memory.facts() == []
