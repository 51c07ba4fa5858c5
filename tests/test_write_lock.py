"""No program holds the vault's write lock while a model works: an agent's add_memory never
waits on another MCP server whose embedding model is still loading (a walkthrough saw one
add_memory fail with "busy" after 10 s while the desktop app was answering)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.test_mcp_server import ROOT, call, make_vault, open_direct, serve, server_env

PROMPT_WAIT = 5.0  # seconds: far under the vault's 10 s busy timeout, far over one small write


async def _until(path: Path, timeout: float = 60) -> None:
    with anyio.fail_after(timeout):
        while not path.exists():
            await anyio.sleep(0.02)


def test_an_agent_writes_while_another_servers_model_is_still_loading(home, tmp_path):
    """Two MCP servers on one encrypted vault. The first is storing an exchange (by external
    id) while its embedding model loads; meanwhile the second stores five, one of them under
    the same id. Every one of the second's calls succeeds at once, and the first, once loaded,
    finds the id taken and returns that page: each id is stored once."""
    vault = make_vault(home)
    signals = tmp_path / "model"
    signals.mkdir()
    slow_server = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "tests" / "loading_embedder_server.py"), str(vault), str(signals)],
        env=server_env(home),
        cwd=ROOT,
    )
    waits: list[float] = []
    results: dict[str, dict] = {}

    async def main() -> None:
        with anyio.fail_after(120):
            await both_servers()

    async def both_servers() -> None:
        async with (
            stdio_client(slow_server) as (read, write),
            ClientSession(read, write) as loading,
            serve(vault, home) as agent,
        ):
            await loading.initialize()

            async def add_while_loading() -> None:
                results["loading"] = await call(
                    loading, "add_memory", user_input="I bought a lamp for the balcony",
                    agent_response="Nice", metadata={"external_id": "shared-1"},
                )  # fmt: skip

            async with anyio.create_task_group() as group:
                group.start_soon(add_while_loading)
                await _until(signals / "loading")  # its write is under way, the model loading
                try:
                    for i, key in enumerate(["note-0", "shared-1", "note-2", "note-3", "note-4"]):
                        started = time.monotonic()
                        added = await call(
                            agent, "add_memory", user_input=f"Note {i}: cup number{i}",
                            agent_response="Saved.", metadata={"external_id": key},
                        )  # fmt: skip
                        waits.append(time.monotonic() - started)
                        results[key] = added
                finally:
                    (signals / "loaded").touch()
            results["status"] = await call(agent, "memory_status")

    anyio.run(main)
    assert len(waits) == 5 and max(waits) < PROMPT_WAIT, waits
    # the slow server's exchange was not stored twice: the id's page is the agent's
    assert results["loading"]["already_stored"] is True
    assert results["loading"]["page"]["id"] == results["shared-1"]["page"]["id"]
    assert results["status"]["vault"]["pages"] == 5
    with open_direct(vault, background=False) as memory:
        held = sorted(key for page in memory.pages(limit=100) for key in page.external_ids)
    assert held == ["note-0", "note-2", "note-3", "note-4", "shared-1"]
