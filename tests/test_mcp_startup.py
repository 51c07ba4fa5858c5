"""`memoryos mcp` loads its embedding model on a thread of its own as soon as it serves, before any
tool call: initialize and list_tools are answered while it loads, and a tool call sent right
after start is answered once it has (a walkthrough's first call waited 20-29 s for it)."""

from __future__ import annotations

import sys
import time

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.helpers import slow_loading_mcp
from tests.test_mcp_server import ROOT, call, server_env


def test_the_model_loads_from_the_start_and_initialize_does_not_wait_for_it(home, tmp_path):
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            # initialized while the model has not loaded
            async with slow_loading_mcp(home, tmp_path) as (client, signals):
                seen["tools"] = {tool.name for tool in (await client.list_tools()).tools}
                with anyio.move_on_after(30):  # the load begins with no tool call to ask
                    while not (signals / "loading").exists():
                        await anyio.sleep(0.02)
                seen["loading before any call"] = (signals / "loading").exists()

                async def first_call() -> None:
                    seen["found"] = await call(client, "retrieve_memory", query="my dog")

                async with anyio.create_task_group() as group:
                    group.start_soon(first_call)
                    await anyio.sleep(0.3)
                    (signals / "loaded").touch()

    anyio.run(main)
    assert "retrieve_memory" in seen["tools"]
    assert seen["loading before any call"]
    assert "found" in seen  # the call made while the model loaded was answered once it had


@pytest.mark.real_models
def test_a_tool_call_right_after_start_succeeds_with_the_bundled_model(home):
    """The real server and the bundled MiniLM: retrieve_memory sent the moment initialize is
    answered is answered, and finds what add_memory then stores."""
    vault = home / "vaults" / "alice.memoryos"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", "--vault-path", str(vault), "--create"],
        env=server_env(home),
        cwd=ROOT,
    )
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(300):
            started = time.monotonic()
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                seen["initialize"] = time.monotonic() - started
                seen["first"] = await call(client, "retrieve_memory", query="audit deadline")
                seen["first answer"] = time.monotonic() - started
                await call(client, "add_memory", user_input="The Q3 audit deadline is Oct 14.")
                seen["then"] = await call(client, "retrieve_memory", query="audit deadline")

    anyio.run(main)
    assert "Oct 14" not in str(seen["first"]) and "Oct 14" in str(seen["then"])
    print(f"initialize after {seen['initialize']:.1f} s, first answer after "
          f"{seen['first answer']:.1f} s")
