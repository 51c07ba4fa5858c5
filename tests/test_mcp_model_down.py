"""`memoryos mcp --model url:...` whose server does not answer (nothing listens on its port):
said on stderr and by memory_status's model_problem, as a refused key is, and cleared once the
server answers. Nothing said it: consolidation ran without the model, silently."""

from __future__ import annotations

import socket

import anyio
from mcp import ClientSession

from tests.local_servers import ChatServer
from tests.test_mcp_model_key import model_problem, serve
from tests.test_mcp_server import call, make_vault


def closed_port() -> int:
    """A port nothing listens on (taken from the system, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_server_not_answering_is_said_until_it_answers(home, tmp_path):
    vault = make_vault(home)
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["down"] = await model_problem(session)
        with ChatServer(["m"], ["{}"], port=port), anyio.fail_after(60):
            while (await call(session, "memory_status"))["consolidation"]["model_problem"]:
                await anyio.sleep(0.2)
        seen["up"] = (await call(session, "memory_status"))["consolidation"]["model_problem"]

    errors = tmp_path / "stderr"
    args = ["--vault-path", str(vault), "--model", f"url:{url}", "--url-model", "m"]
    serve(home, args, errors, body)
    said = errors.read_text()
    assert url in seen["down"] and "without the model" in seen["down"], seen
    assert seen["up"] is None, seen
    assert url in said and "without the model" in said, said
    assert "answers now" in said and "Traceback" not in said, said
