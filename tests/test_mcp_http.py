"""The MCP server over streamable HTTP on 127.0.0.1, and unlocking with a passphrase typed in."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from test_mcp_server import PASSPHRASE, ROOT, call, make_vault, server_env

TOKEN = "s3cret-token-for-tests-only"


@pytest.fixture
def vault(home: Path) -> Path:
    return make_vault(home)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_http(
    vault: Path, home: Path, port: int, *, passphrase: str | None, **popen
) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "MEMORYOS_PASSPHRASE"}
    command = [
        sys.executable,
        "-m",
        "engine.mcp_server",
        "--vault-path",
        str(vault),
        "--embedder",
        "fake",
        "--transport",
        "http",
        "--port",
        str(port),
    ]
    return subprocess.Popen(
        command,
        env=env | server_env(home, passphrase) | {"MEMORYOS_MCP_TOKEN": TOKEN},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


async def wait_listening(url: str) -> httpx2.Response:
    with anyio.fail_after(60):
        while True:
            try:
                async with httpx2.AsyncClient() as plain:
                    return await plain.post(url, json={})
            except httpx2.ConnectError:
                await anyio.sleep(0.2)


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def stop(server: subprocess.Popen) -> tuple[str, str]:
    server.terminate()
    out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    return out, err


def test_http_on_localhost_serves_only_with_the_token(vault, home):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_http(vault, home, port, passphrase=PASSPHRASE, stdin=subprocess.DEVNULL)

    async def main() -> None:
        assert (await wait_listening(url)).status_code == 401  # no token, no memory
        with anyio.fail_after(60):
            async with http_session(url) as session:
                added = await call(session, "add_memory", user_input="Over HTTP on localhost")
                page = (await call(session, "get_page", id=added["page"]["id"]))["page"]
                assert page["user_input"] == "Over HTTP on localhost"
        # DNS rebinding: the right token from a page that resolved another name to 127.0.0.1
        async with httpx2.AsyncClient() as plain:
            auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
            rebound = await plain.post(url, json={}, headers={**auth, "Host": "evil.example"})
            assert rebound.status_code == 421
            origin = {**auth, "Origin": "http://evil.example"}
            assert (await plain.post(url, json={}, headers=origin)).status_code == 403

    try:
        anyio.run(main)
    finally:
        stop(server)


def test_passphrase_typed_on_the_terminal_unlocks_the_vault(vault, home):
    """No keyring, no $MEMORYOS_PASSPHRASE: a person starting the server types it in."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    terminal, their_end = pty.openpty()
    server = start_http(vault, home, port, passphrase=None, stdin=their_end, start_new_session=True)
    os.close(their_end)
    prompt = wait_for_prompt(server)
    os.write(terminal, f"{PASSPHRASE}\n".encode())  # typed after the prompt, as a person would

    async def main() -> None:
        await wait_listening(url)
        with anyio.fail_after(60):
            async with http_session(url) as session:
                status = await call(session, "memory_status")
                assert status["vault"]["key_location"] == "passphrase"

    try:
        anyio.run(main)
    finally:
        out, err = stop(server)
        os.close(terminal)
    assert prompt.startswith("Passphrase for alice.memoryos")
    assert PASSPHRASE not in out + err and "Passphrase" not in out


def wait_for_prompt(server: subprocess.Popen, timeout: float = 60) -> str:
    """The server's stderr up to its passphrase prompt (getpass flushes input typed earlier)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while b"Passphrase" not in seen or not seen.rstrip().endswith(b":"):
        ready, _, _ = select.select([server.stderr], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no passphrase prompt: {seen!r}"
        chunk = os.read(server.stderr.fileno(), 1024)
        assert chunk, f"the server exited: {seen!r}"
        seen += chunk
    return seen.decode()


def test_http_refuses_to_start_without_a_token(vault, home):
    env = {k: v for k, v in os.environ.items() if k != "MEMORYOS_MCP_TOKEN"} | server_env(home)
    command = [
        sys.executable,
        "-m",
        "engine.mcp_server",
        "--vault-path",
        str(vault),
        "--transport",
        "http",
    ]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "MEMORYOS_MCP_TOKEN" in done.stderr


def test_http_on_a_busy_port_says_so_in_one_line(vault, home):
    """Another program (another memoryos mcp) listens on the port: no "serving on", no
    uvicorn traceback, one line naming the address and what to do, and exit 2 (how it was
    asked, as a bad option: tests/test_mcp_http_bind.py has the address that is not ours)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = start_http(vault, home, port, passphrase=PASSPHRASE, stdin=subprocess.DEVNULL)
        out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("memoryos mcp: "), err
    assert f"127.0.0.1:{port}" in err and "in use" in err and "--port" in err, err


# README's "Over HTTP from Python" example, word for word: the test runs it against a real
# server (on a free port instead of 8765), so what README shows is known to work.
README_HTTP_CLIENT = '''\
import os

import anyio
import httpx2  # the HTTP library of the mcp SDK 2.x (installed with it)
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL = "http://127.0.0.1:8765/mcp"
TOKEN = os.environ["MEMORYOS_MCP_TOKEN"]  # the token the server was started with

async def main() -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    timeout = httpx2.Timeout(30, read=300)  # the server may hold a stream open a while
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(URL, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.call_tool("add_memory", {"user_input": "I moved to Lisbon in May",
                                               "agent_response": "Noted!"})
        found = await session.call_tool("retrieve_memory", {"query": "where do I live?"})
        print(found.structured_content["recent"][:1], found.structured_content["facts"])

anyio.run(main)
'''


def test_the_readme_http_client_adds_and_retrieves(vault, home, tmp_path):
    port = free_port()
    server = start_http(vault, home, port, passphrase=PASSPHRASE, stdin=subprocess.DEVNULL)
    script = tmp_path / "client.py"
    script.write_text(README_HTTP_CLIENT.replace(":8765/", f":{port}/"), encoding="utf-8")
    try:
        anyio.run(wait_listening, f"http://127.0.0.1:{port}/mcp")
        env = dict(os.environ, MEMORYOS_MCP_TOKEN=TOKEN)
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        stop(server)
    assert done.returncode == 0, done.stderr
    assert "I moved to Lisbon in May" in done.stdout and "'agent_response': 'Noted!'" in done.stdout


def test_readme_shows_the_tested_http_client():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```python\n{README_HTTP_CLIENT}```" in readme
