"""The MCP server as a subprocess, driven by the official SDK client over stdio."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parent.parent
PASSPHRASE = "correct horse battery staple"
TOOLS = {
    "add_memory",
    "retrieve_memory",
    "get_user_profile",
    "list_facts",
    "add_fact",
    "delete_fact",
    "get_page",
    "forget_page",
    "memory_status",
}


def server_env(home: Path, passphrase: str | None = PASSPHRASE) -> dict[str, str]:
    env = {
        "MEMORYOS_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never a real keyring
        "HF_HUB_OFFLINE": "1",
    }
    if passphrase is not None:
        env["MEMORYOS_PASSPHRASE"] = passphrase
    return env


def open_direct(path: Path, **kwargs: Any):
    """The vault opened in this process, as the desktop app would (same fake embedder)."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    return MemoryOS.open(path, passphrase=PASSPHRASE, embedder=HashEmbedder(384), **kwargs)


def make_vault(home: Path) -> Path:
    """A fresh passphrase vault, created the way the desktop app would."""
    path = home / "vaults" / "alice.memoryos"
    with open_direct(path, create=True, background=False):
        pass
    return path


@pytest.fixture
def vault(home: Path) -> Path:
    return make_vault(home)


@asynccontextmanager
async def serve(vault: Path, home: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", "--vault-path", str(vault), "--embedder", "fake"],
        env=server_env(home),
        cwd=ROOT,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def run(vault: Path, home: Path, body: Callable[[ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        with anyio.fail_after(120):
            async with serve(vault, home) as session:
                await body(session)

    anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def error(session: ClientSession, tool: str, arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({arguments!r:.80}) should fail: {result.structured_content}"
    return result.content[0].text


async def until_consolidated(session: ClientSession, timeout: float = 60) -> dict[str, Any]:
    with anyio.fail_after(timeout):
        while True:
            status = await call(session, "memory_status")
            if (
                status["consolidation"]["pending_jobs"] == 0
                and not status["consolidation"]["running"]
            ):
                return status
            await anyio.sleep(0.1)


def test_tools_are_listed_with_descriptions_and_schemas(vault, home):
    async def body(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert len(tool.description) > 30
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema["type"] == "object"  # results are structured JSON objects
        assert tools["add_memory"].input_schema["required"] == ["user_input"]
        assert tools["delete_fact"].annotations.destructive_hint

    run(vault, home, body)


def test_add_retrieve_profile_list_and_delete_facts(vault, home):
    async def body(session: ClientSession) -> None:
        added = await call(
            session,
            "add_memory",
            user_input="I work as a data scientist at a bank",
            agent_response="Noted: data scientist.",
            timestamp="2024-03-01T10:00:00Z",
            metadata={"external_id": "D1:3"},
        )
        page = added["page"]
        assert page["id"] >= 1 and page["date"] == "2024-03-01T10:00:00Z"
        assert page["external_ids"] == ["D1:3"] and page["tier"] == "short"
        for i in range(12):  # enough to push the first pages out of short-term memory
            await call(
                session,
                "add_memory",
                user_input=f"Small talk number {i} about the weather",
                agent_response="Indeed.",
            )
        await until_consolidated(session)

        found = await call(session, "retrieve_memory", query="What is my job? data scientist")
        pages = found["pages"] + found["recent"]
        for most in (1, 3):  # "Most older pages to return": a budget of k turns spans 2k pages
            few = await call(session, "retrieve_memory", query="weather talk", max_results=most)
            assert 1 <= len(few["pages"]) <= most
        hit = next(p for p in pages if p["id"] == page["id"])
        assert hit["external_ids"] == ["D1:3"] and hit["date"] == "2024-03-01T10:00:00Z"
        assert {"profile", "facts", "knowledge", "chain_summaries"} <= set(found)
        used = {(m["kind"], m["id"]) for m in found["memories_used"]}  # what a prompt would hold
        assert used == {("exchange", p["id"]) for p in pages} | {
            ("fact", f["id"]) for f in found["facts"]
        } | {("knowledge", f["id"]) for f in found["knowledge"]} | {
            ("profile", s["id"]) for s in found["profile"]
        }

        facts = (await call(session, "list_facts", kind="user_fact"))["facts"]
        fact = next(f for f in facts if "data scientist" in f["text"])
        assert page["id"] in fact["source_page_ids"]
        assert fact["status"] in ("candidate", "active") and fact["created"].endswith("Z")
        profile = await call(session, "get_user_profile", include_assistant_knowledge=True)
        assert fact["id"] in [f["id"] for f in profile["facts"]]
        assert "knowledge" in profile and isinstance(profile["profile"], list)
        # include_knowledge means the user's facts (default on), as its name and the reference say
        bare = await call(session, "get_user_profile", include_knowledge=False)
        assert set(bare) == {"profile"}
        assert "knowledge" not in await call(session, "get_user_profile")

        assert (await call(session, "delete_fact", id=fact["id"]))["deleted_fact_id"] == fact["id"]
        left = (await call(session, "list_facts", search="data scientist"))["facts"]
        assert fact["id"] not in [f["id"] for f in left]
        assert "not found" in await error(session, "delete_fact", {"id": fact["id"]})

        mine = await call(session, "add_fact", text="Is allergic to peanuts")
        assert mine["fact"]["kind"] == "user_fact"
        assert (await call(session, "get_page", id=page["id"]))["page"]["user_input"].startswith(
            "I work"
        )
        await call(session, "forget_page", id=page["id"])
        assert "not found" in await error(session, "get_page", {"id": page["id"]})

    run(vault, home, body)


BAD_CALLS = [
    ("add_memory", {}),  # missing
    ("add_memory", {"user_input": 42}),  # wrong type
    ("add_memory", {"user_input": ["a list"]}),
    ("add_memory", {"user_input": "x" * 1_000_001}),  # huge
    ("add_memory", {"user_input": "hi", "metadata": {"blob": "y" * 70_000}}),
    ("add_memory", {"user_input": "hi", "metadata": "not an object"}),
    ("add_memory", {"user_input": "  ", "agent_response": ""}),  # empty
    ("add_memory", {"user_input": "hi", "timestamp": "the day after tomorrow"}),
    ("retrieve_memory", {}),
    ("retrieve_memory", {"query": ""}),
    ("retrieve_memory", {"query": "q" * 10_001}),
    ("retrieve_memory", {"query": "x", "max_results": 0}),
    ("retrieve_memory", {"query": "x", "max_results": "many"}),
    ("list_facts", {"kind": "gossip"}),
    ("delete_fact", {}),
    ("delete_fact", {"id": "abc"}),
    ("delete_fact", {"id": -3}),
    ("delete_fact", {"id": 987654}),  # unknown ids
    ("get_page", {"id": 987654}),
    ("forget_page", {"id": 987654}),
    ("no_such_tool", {}),
    ("retrieve_memory", {"query": "x", "colour": "blue"}),  # unknown arguments
    ("add_memory", {"user_input": "hi", "meta_data": {"a": 1}}),
]


def test_unknown_arguments_are_named_in_the_error(vault, home):
    async def body(session: ClientSession) -> None:
        message = await error(session, "get_user_profile", {"include_knowlege": True})
        assert "unknown argument 'include_knowlege'" in message
        assert "include_knowledge, include_assistant_knowledge, max_facts" in message
        assert (await call(session, "memory_status"))["vault"]["pages"] == 0

    run(vault, home, body)


def test_bad_arguments_give_error_results_and_the_server_keeps_serving(vault, home):
    async def body(session: ClientSession) -> None:
        for tool, arguments in BAD_CALLS:
            message = await error(session, tool, arguments)
            assert message and "Traceback" not in message
        added = await call(session, "add_memory", user_input="Still here after all that")
        found = await call(session, "retrieve_memory", query="still here")
        assert added["page"]["id"] in [p["id"] for p in found["pages"] + found["recent"]]
        assert (await call(session, "memory_status"))["vault"]["pages"] == 1

    run(vault, home, body)


def test_messages_name_the_problem(vault, home):
    async def body(session: ClientSession) -> None:
        assert "user_input" in await error(session, "add_memory", {})
        assert "1000000" in await error(session, "add_memory", {"user_input": "x" * 1_000_001})
        assert "not found" in await error(session, "delete_fact", {"id": 987654})
        assert "empty" in await error(session, "add_memory", {"user_input": " "})

    run(vault, home, body)


def test_another_process_writing_the_same_vault_loses_nothing(vault, home):
    """The desktop app (this process, background consolidation on) and the server write at once;
    each side then finds the other's writes without reopening the vault."""
    count = 25
    direct_ids: list[int] = []
    mcp_ids: list[int] = []
    mcp_done = threading.Event()
    desktop_saw: dict[str, Any] = {}
    failures: list[BaseException] = []

    def desktop_app() -> None:
        try:
            with open_direct(vault, background=True) as memory:
                for i in range(count):
                    page = memory.add_memory(f"Desktop note {i}: zebra{i} sighting", "Logged.")
                    direct_ids.append(page.id)
                    time.sleep(0.01)
                assert mcp_done.wait(120)
                found = memory.retrieve("Agent note okapi7 seen")
                desktop_saw["retrieved"] = [p.id for p in found.ranked_pages()]
                desktop_saw["texts"] = {memory.page(i).user_input for i in mcp_ids}
                desktop_saw["pages"] = memory.info().pages
                memory.wait_idle(timeout=60)
        except BaseException as exc:  # reported by the test thread
            failures.append(exc)

    async def body(session: ClientSession) -> None:
        writer = threading.Thread(target=desktop_app)
        writer.start()
        for i in range(count):
            added = await call(
                session,
                "add_memory",
                user_input=f"Agent note {i}: okapi{i} seen",
                agent_response="Saved.",
            )
            mcp_ids.append(added["page"]["id"])
        mcp_done.set()
        await anyio.to_thread.run_sync(writer.join)
        assert not failures, failures
        await until_consolidated(session)
        # The server sees every write from the other process, and the ids never collide.
        assert len(set(mcp_ids) | set(direct_ids)) == 2 * count
        assert (await call(session, "memory_status"))["vault"]["pages"] == 2 * count
        for page_id in direct_ids:
            assert "zebra" in (await call(session, "get_page", id=page_id))["page"]["user_input"]
        found = await call(session, "retrieve_memory", query="Desktop note zebra7 sighting")
        assert direct_ids[7] in [p["id"] for p in found["pages"] + found["recent"]]

    run(vault, home, body)
    # And the running desktop app saw every write from the server.
    assert desktop_saw["texts"] == {f"Agent note {i}: okapi{i} seen" for i in range(count)}
    assert mcp_ids[7] in desktop_saw["retrieved"]
    assert desktop_saw["pages"] == 2 * count
    with open_direct(vault, background=False) as memory:
        status = memory.consolidation_status()
        assert memory.info().pages == 2 * count and status.failed_jobs == 0
        # Both processes consolidated: still no page counted twice, and no corruption.
        segments = memory.segments(include_archived=True)
        assert sum(s.page_count for s in segments) == status.mid_term_pages
        assert status.mid_term_pages + status.short_term_pages == 2 * count
        assert memory.vault.integrity_check() == "ok"


def start_plain(vault: Path, home: Path, passphrase: str | None, *extra: str):
    """The server with no terminal (new session) and no MCP client: for unlock failures."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.mcp_server",
            "--vault-path",
            str(vault),
            "--embedder",
            "fake",
            *extra,
        ],
        env={k: v for k, v in os.environ.items() if k != "MEMORYOS_PASSPHRASE"}
        | server_env(home, passphrase),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )


def test_no_keyring_no_passphrase_no_terminal_is_a_clear_error(vault, home):
    done = start_plain(vault, home, None)
    assert done.returncode == 1
    assert "MEMORYOS_PASSPHRASE" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # stdout is the protocol channel: nothing but MCP messages


def test_wrong_passphrase_and_missing_vault_are_clear_errors(vault, home):
    done = start_plain(vault, home, "not the passphrase")
    assert done.returncode == 1 and "wrong" in done.stderr.lower()
    done = start_plain(home / "nobody.memoryos", home, PASSPHRASE)
    assert done.returncode == 2 and "No vault at" in done.stderr and "--create" in done.stderr
    assert not (home / "nobody.memoryos").exists()


def test_a_vault_name_that_does_not_exist_is_refused_as_every_command_refuses_it(home):
    """`memoryos mcp --vault wrok` exited with 1 ("no vault at /…/wrok.memoryos"); every
    other command exits with 2, naming the vaults there are and how to make a new one."""
    from engine.paths import vaults_dir
    from tests.helpers import run_cli

    for name in ("work", "default"):
        with open_direct(vaults_dir() / f"{name}.memoryos", create=True, background=False):
            pass
    before = sorted(p.name for p in home.rglob("*"))
    served = run_cli("mcp", "--vault", "wrok", "--embedder", "fake", home=home,
                     passphrase=PASSPHRASE, stdin=b"")
    status = run_cli("status", "--vault", "wrok", "--embedder", "fake", home=home,
                     passphrase=PASSPHRASE)
    assert status.returncode == 2  # what every other command does
    assert served.returncode == 2, served.stderr.decode()
    said = served.stderr.decode()
    assert "No memory named 'wrok'. Vaults here: default, work. To make a new one:" in said
    assert "memoryos mcp --vault wrok --create" in said
    assert said.count("\n") == 1 and "Traceback" not in said
    assert served.stdout == b""  # stdout is the protocol channel
    assert sorted(p.name for p in home.rglob("*")) == before  # nothing was made


@pytest.mark.real_models
def test_the_bundled_embedder_serves_a_new_vault(home):
    """The default configuration: bundled MiniLM, a vault created by the server itself."""
    path = home / "vaults" / "bob.memoryos"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", "--vault-path", str(path), "--create"],
        env=server_env(home),
        cwd=ROOT,
    )

    async def main() -> None:
        with anyio.fail_after(300):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await call(session, "add_memory", user_input="I adopted a beagle called Pepper")
                found = await call(session, "retrieve_memory", query="what is my dog's name?")
                assert "Pepper" in found["recent"][0]["user_input"]
                status = await call(session, "memory_status")
                assert status["vault"]["embedder"] == "sentence-transformers/all-MiniLM-L6-v2"

    anyio.run(main)
