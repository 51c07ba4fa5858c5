"""A tool that embeds nothing is answered while the embedding model still loads, even when a
retrieve_memory sent first is waiting for it: that call held the one engine lock while it
waited, so every other tool waited as long (12-14 s measured with the bundled model)."""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.test_mcp_server import ROOT, call, make_vault, open_direct, server_env

# (options, the tool that waits for the model, its arguments, one that embeds nothing)
SERVERS = [
    ([], "retrieve_memory", {"query": "my dog"}, "list_facts"),
    ([], "add_memory", {"user_input": "My dog is Rex."}, "memory_status"),
    (["--compat", "reference"], "retrieve_memory", {"query": "my dog"}, "get_user_profile"),
]


@pytest.mark.parametrize(("options", "waiting", "arguments", "other"), SERVERS)
def test_a_tool_that_embeds_nothing_is_answered_while_the_model_loads(
    home, tmp_path, options, waiting, arguments, other
):
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:  # retrieval embeds only with pages
        memory.add_memory("I walk my dog every morning.", "Good for you both.")
    signals = tmp_path / "model"  # the model has loaded once the test makes `loaded` here
    signals.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "tests" / "slow_loading_mcp_server.py"), str(vault), str(signals),
              *options],
        env=server_env(home),
        cwd=ROOT,
    )  # fmt: skip
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                while not (signals / "loading").exists():
                    await anyio.sleep(0.02)

                async def first() -> None:
                    seen["waited"] = await call(client, waiting, **arguments)

                async with anyio.create_task_group() as group:
                    group.start_soon(first)
                    await anyio.sleep(0.5)  # the first call is in the server, waiting
                    with anyio.move_on_after(30):
                        seen["other"] = await call(client, other)
                        seen["model loaded by then"] = (signals / "loaded").exists()
                    (signals / "loaded").touch()

    anyio.run(main)
    assert "other" in seen, f"{other} was not answered while {waiting} waited for the model"
    assert not seen["model loaded by then"]
    assert "waited" in seen  # and the call that waited was answered once the model loaded
