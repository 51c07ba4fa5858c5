"""What memory_status says went wrong in consolidation, read by an agent through `memoryos mcp`:
what its operator does for the model's server (an environment variable, the server's context),
never the desktop app's "model settings", which an MCP client has not."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import ClientSession

from engine.api_keys import API_KEY_ENV
from tests.local_servers import LocalServer, QuietHandler, send_json
from tests.test_mcp_model_key import serve
from tests.test_mcp_server import call, make_vault, open_direct

SERVER_CONTEXT = 512  # the context the server below says it has
NO_KEY = {"message": "Incorrect API key provided", "type": "invalid_request_error"}
TOO_LONG = {"code": 400, "type": "exceed_context_size_error", "n_ctx": SERVER_CONTEXT,
            "message": "the request exceeds the available context size, try increasing it"}  # fmt: skip


class RefusingServer(LocalServer):
    """An OpenAI-compatible server that lists model "m" and answers every chat request with
    HTTP `status` and `error` (as a cloud API refuses a key, as llama.cpp's server refuses a
    prompt over its context). The first is answered at once; later ones wait for `release`:
    consolidation's job then stays on its next call, and does not clear the first's error
    (a job that ends well clears it) before the test has read it."""

    def __init__(self, status: int, error: dict) -> None:
        self.requests = 0
        host = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                send_json(self, {"object": "list", "data": [{"id": "m", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                host.requests += 1
                if host.requests > 1:
                    host.release.wait(30)
                send_json(self, {"error": error}, status=status)

        super().__init__(Handler)


def last_error(home: Path, tmp_path: Path, server: RefusingServer, env: dict | None = None) -> str:
    """memory_status's consolidation.last_error once consolidation has asked the model about
    a vault whose short-term queue overflows by 70 pages (moved in chunks of 32, one model call
    each)."""
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        for number in range(80):
            memory.add_memory(f"I walked {number} km today.", "")
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        with anyio.fail_after(60):
            while not seen.get("error"):
                status = await call(session, "memory_status")
                seen["error"] = status["consolidation"]["last_error"]
                await anyio.sleep(0.05)
        server.release.set()

    args = ["--vault-path", str(vault), "--model", f"url:{server.url}", "--url-model", "m"]
    serve(home, args, tmp_path / "stderr", body, env=env)
    return seen["error"]


@pytest.mark.parametrize("key", [None, "not-the-key"], ids=["no key sent", "a wrong key sent"])
def test_a_key_the_server_needs_says_where_memoryos_mcp_takes_it(home, tmp_path, key):
    """It said "set it in the model settings." ("check the key in ..."): the app's."""
    env = {API_KEY_ENV: key} if key else None
    with RefusingServer(401, NO_KEY) as server:
        said = last_error(home, tmp_path, server, env)
    assert "HTTP 401" in said, said
    assert "model settings" not in said and API_KEY_ENV in said, said
    assert "restart" in said, said


def test_a_prompt_over_the_servers_context_says_what_to_start_it_with(home, tmp_path):
    """It said "set the context size in the model settings to 512": memoryos mcp has none, and
    fits its prompts to 8,192 tokens."""
    with RefusingServer(400, TOO_LONG) as server:
        said = last_error(home, tmp_path, server)
    assert f"{SERVER_CONTEXT:,} tokens" in said, said  # what the server has
    assert "model settings" not in said and "8,192 tokens" in said, said  # what it needs
