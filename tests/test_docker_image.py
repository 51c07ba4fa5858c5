"""The headless server image's build context is complete, and its entry point runs without Qt.

Docker is not available on the development machines, so the image itself is not built here:
these tests check what a build would need and run the image's command line as the container
would (same ENTRYPOINT, CMD and ENV, secrets from files, the vault in a data folder).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.helpers import ROOT, raw_bytes

DOCKER = ROOT / "packaging" / "docker"
TOKEN = "image-test-token-0123456789"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (DOCKER / "Dockerfile").read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def exec_form(name: str) -> list[str]:
    (value,) = [rest for word, rest in instructions() if word == name][-1:]
    return json.loads(value)


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in instructions():
        if word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def test_every_copy_source_is_in_the_build_context():
    copies = [rest for word, rest in instructions() if word == "COPY" and "--from" not in rest]
    assert copies
    for rest in copies:
        *sources, _target = rest.split()
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: missing from the build context"
    ignore = (DOCKER / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    for rest in copies:
        for source in rest.split()[:-1]:
            assert f"!{source.rstrip('/')}" in ignore.replace("/\n", "\n"), source


def test_the_image_installs_the_engine_dependencies_without_qt():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.S | re.M).group(1)
    deps = re.findall(r'^\s*"([^"]+)"', block, re.M)  # tomllib is Python 3.11+
    wanted = [d for d in deps if not d.lower().startswith("pyside")]
    lines = (DOCKER / "requirements.txt").read_text(encoding="utf-8").splitlines()
    listed = [line for line in lines if line and not line.startswith("#")]
    assert listed == wanted
    assert "GGML_NATIVE=OFF" in (DOCKER / "Dockerfile").read_text(encoding="utf-8")


def test_compose_publishes_on_loopback_with_secrets_and_a_volume():
    compose = (DOCKER / "compose.yaml").read_text(encoding="utf-8")
    assert '"127.0.0.1:8765:8765"' in compose
    assert "memoryos-data:/data" in compose
    env = image_env()
    for secret in ("memoryos_passphrase", "memoryos_mcp_token"):
        assert f"- {secret}" in compose
        assert f"/run/secrets/{secret}" in env.values()
    assert env["MEMORYOS_HOME"] == "/data"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_the_entry_point_serves_headless_from_secrets(tmp_path):
    """ENTRYPOINT + CMD with the image's ENV: Qt cannot be imported, the passphrase and token
    come from secret files, the vault is created in the data folder, a real MCP client talks to it."""
    entry, command = exec_form("ENTRYPOINT"), exec_form("CMD")
    assert entry[:3] == ["python", "-m", "engine.mcp_server"]
    port = free_port()
    # In the container it binds 0.0.0.0 (published on the host's loopback); tests bind 127.0.0.1.
    args = [a if a != "0.0.0.0" else "127.0.0.1" for a in entry[3:] + command]
    args[args.index("--port") + 1] = str(port)
    args = [
        a for i, a in enumerate(args) if a != "--model" and (i == 0 or args[i - 1] != "--model")
    ]
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "passphrase").write_text("container passphrase 1\n", encoding="utf-8")
    (secrets / "token").write_text(TOKEN + "\n", encoding="utf-8")
    no_qt = tmp_path / "no_qt"
    (no_qt / "PySide6").mkdir(parents=True)
    (no_qt / "PySide6" / "__init__.py").write_text(
        "raise ImportError('no Qt in the headless image')"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYOS")}
    env |= image_env() | {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": f"{no_qt}{os.pathsep}{ROOT}",
        "MEMORYOS_HOME": str(tmp_path / "data"),
        "MEMORYOS_PASSPHRASE_FILE": str(secrets / "passphrase"),
        "MEMORYOS_MCP_TOKEN_FILE": str(secrets / "token"),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "engine.mcp_server", *args, "--embedder", "fake"],
        env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/mcp"

        async def body() -> dict:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            with anyio.fail_after(90):
                while True:  # the server is up once it answers (401 without the token)
                    try:
                        async with httpx2.AsyncClient() as plain:
                            await plain.post(url, json={})
                        break
                    except httpx2.ConnectError:
                        await anyio.sleep(0.2)
                async with (
                    create_mcp_http_client(headers=headers) as http,
                    streamable_http_client(url, http_client=http) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    await session.call_tool(
                        "add_memory", {"user_input": "The container keeps my diary"}
                    )
                    result = await session.call_tool("memory_status", {})
                    return result.structured_content

        status = anyio.run(body)
        assert status["vault"]["pages"] == 1 and status["vault"]["key_location"] == "passphrase"
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=30)
    vault = tmp_path / "data" / "data" / "vaults" / "default.memoryos"  # /data/data/vaults/...
    assert vault.exists() and b"container keeps my diary" not in raw_bytes(vault)
    assert "Traceback" not in stderr
