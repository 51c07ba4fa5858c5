"""memory_status says how far the embedding model's load has got: `memoryos mcp` starts it
itself, before any tool call asks for it (an agent's first retrieve_memory waited 9-15 s for a
load that began only then), and says why when it fails."""

from __future__ import annotations

import json
import time

import anyio

from tests.helpers import slow_loading_mcp
from tests.test_mcp_server import call


def test_memory_status_says_the_model_is_loading_then_loaded_with_no_call_that_embeds(
    home, tmp_path
):
    """`memoryos mcp` itself, with an embedder whose load ends when the test says: loading
    from the start (list_facts answers meanwhile), loaded once it is, no embedding call made."""
    seen: dict = {}

    async def main() -> None:
        with anyio.fail_after(120):
            async with slow_loading_mcp(home, tmp_path) as (client, signals):
                seen["while"] = (await call(client, "memory_status"))["embedding_model"]
                seen["facts"] = await call(client, "list_facts")  # does not wait for the model
                (signals / "loaded").touch()
                while (state := (await call(client, "memory_status"))["embedding_model"])[
                    "state"
                ] != "loaded":
                    assert state == {"state": "loading", "problem": None}, state
                    await anyio.sleep(0.05)
                seen["after"] = state

    anyio.run(main)
    assert seen["while"] == {"state": "loading", "problem": None}
    assert seen["facts"]["facts"] == []
    assert seen["after"] == {"state": "loaded", "problem": None}


def test_a_model_that_cannot_load_is_said_with_its_reason(tmp_path):
    """A model folder whose config is there and weights are not: failed, with the reason the
    first call that embeds would give; started by nothing, it is "not loaded"."""
    from engine.backends.embedder import SentenceTransformerEmbedder
    from engine.mcp.warm import EmbedderLoad

    folder = tmp_path / "broken-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"hidden_size": 384}))
    load = EmbedderLoad(SentenceTransformerEmbedder(folder))
    assert load.state() == {"state": "not loaded", "problem": None}
    load.start()
    # The failed load can end before the test looks for its thread, so wait on the state
    deadline = time.monotonic() + 120
    while load.state()["state"] == "loading" and time.monotonic() < deadline:
        time.sleep(0.05)
    state = load.state()
    assert state["state"] == "failed" and "broken-model" in state["problem"], state
