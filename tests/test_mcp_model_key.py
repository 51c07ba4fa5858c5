"""A consolidation model behind a server that needs an API key, used by `memoryos mcp`: the
refusal is said on stderr and by memory_status with what to do there ($MEMORYOS_API_KEY in the
MCP client's configuration, or the --config file's openai_api_key), not "the model settings"
of the desktop app, which memoryos mcp has not."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from engine.api_keys import API_KEY_ENV
from tests.local_servers import ChatServer
from tests.test_mcp_reference import REFERENCE_CONFIG
from tests.test_mcp_server import ROOT, call, make_vault, server_env

KEY = "secret-key"


@pytest.fixture
def keyed_server():
    with ChatServer(["m"], ["{}"], api_key=KEY) as chat_server:
        yield chat_server


def serve(home: Path, args: list[str], errors: Path, body, env: dict | None = None) -> None:
    """`memoryos mcp ARGS` over stdio, its stderr in the file `errors`, driven by body."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", *args, "--embedder", "fake"],
        env=server_env(home) | (env or {}),
        cwd=ROOT,
    )

    async def main() -> None:
        with errors.open("w") as log, anyio.fail_after(90):
            async with stdio_client(params, errlog=log) as (read, write), ClientSession(
                read, write
            ) as session:
                await session.initialize()
                await body(session)

    anyio.run(main)


async def model_problem(session: ClientSession) -> str:
    while True:
        problem = (await call(session, "memory_status"))["consolidation"]["model_problem"]
        if problem:
            return problem
        await anyio.sleep(0.1)


def _url_model(server: ChatServer) -> list[str]:
    return ["--model", f"url:{server.url}", "--url-model", "m"]


def test_a_server_needing_a_key_names_what_to_do_for_memoryos_mcp(home, tmp_path, keyed_server):
    """It said "set it in the model settings" (the app's), and only while a job ran."""
    vault = make_vault(home)
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["problem"] = await model_problem(session)

    errors = tmp_path / "stderr"
    serve(home, ["--vault-path", str(vault), *_url_model(keyed_server)], errors, body)
    said = errors.read_text()
    assert keyed_server.refused >= 1
    assert "needs an API key (HTTP 401)" in seen["problem"]
    for text in (seen["problem"], said):
        assert API_KEY_ENV in text and "model settings" not in text, text
    assert keyed_server.url in said and "Traceback" not in said, said


def test_with_the_key_the_advice_names_nothing_is_said(home, tmp_path, keyed_server):
    """Following the advice ($MEMORYOS_API_KEY) works: the model is used, and nothing is said."""
    vault = make_vault(home)
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        for number in range(12):  # the short-term queue holds 10: the rest is consolidated
            await call(session, "add_memory", user_input=f"I walked {number} km today.")
        with anyio.fail_after(60):
            while not keyed_server.requests:  # a consolidation call, sent with the key
                await anyio.sleep(0.1)
        seen["status"] = await call(session, "memory_status")

    errors = tmp_path / "stderr"
    serve(home, ["--vault-path", str(vault), *_url_model(keyed_server)], errors, body,
          env={API_KEY_ENV: KEY})  # fmt: skip
    assert keyed_server.refused == 0
    assert seen["status"]["consolidation"]["model_problem"] is None
    assert "API key" not in errors.read_text()


def test_a_reference_config_without_its_key_names_openai_api_key(home, tmp_path, keyed_server):
    """--config: the key is the file's openai_api_key (nothing else is looked at)."""
    config = tmp_path / "config.json"
    given = {**REFERENCE_CONFIG, "openai_base_url": keyed_server.url, "llm_model": "m"}
    config.write_text(json.dumps(given), encoding="utf-8")
    errors = tmp_path / "stderr"

    async def body(session: ClientSession) -> None:
        with anyio.fail_after(30):
            while "HTTP 401" not in errors.read_text():
                await anyio.sleep(0.1)

    serve(home, ["--compat", "reference", "--config", str(config)], errors, body)
    said = errors.read_text()
    assert "openai_api_key" in said and str(config) in said, said
    assert "model settings" not in said and "Traceback" not in said, said
