"""`memoryos mcp --transport http` given a --host/--port it cannot listen on: one line naming the
address, why, and what to do, and exit 2 (how it was asked), before the vault is unlocked. An
address of no interface here said only "Cannot assign requested address" and exited 1. (A port
another program holds: tests/test_mcp_http.py, test_http_on_a_busy_port_says_so_in_one_line.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.test_mcp_server import ROOT, make_vault, server_env

TOKEN = "a-token-of-more-than-16-characters"
NOT_HERE = "203.0.113.5"  # TEST-NET-3 (RFC 5737): no computer has it


def start_on(home: Path, host: str, port: int) -> subprocess.CompletedProcess:
    vault = make_vault(home)
    command = [
        sys.executable, "-m", "engine.mcp_server", "--vault-path", str(vault),
        "--embedder", "fake", "--transport", "http", "--host", host, "--port", str(port),
    ]  # fmt: skip
    env = os.environ | server_env(home) | {"MEMORYOS_MCP_TOKEN": TOKEN}
    return subprocess.run(
        command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "serving on" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("memoryos mcp: "), done.stderr
    return done.stderr


def test_an_address_not_on_this_computer_says_to_use_127_0_0_1(home):
    said = one_line(start_on(home, NOT_HERE, 8765))
    assert f"{NOT_HERE}:8765" in said and "not an address of this computer" in said, said
    assert "127.0.0.1" in said and "--host" in said, said

