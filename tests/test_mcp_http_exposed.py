"""`memoryos mcp --transport http --host H`: a host other computers can reach (0.0.0.0, a LAN
address) is plain HTTP on the network, and says so on stderr with what to do; it printed
only "serving on". An IPv6 host is written in brackets in the address it prints
(http://[::1]:PORT/mcp, not the invalid http://::1:PORT/mcp)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.test_mcp_server import ROOT, make_vault, server_env

TOKEN = "a-token-of-more-than-16-characters"


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def served(home: Path, host: str, port: int, reach: str) -> str:
    """The stderr of `memoryos mcp --transport http --host host --port port` once it answers
    HTTP at `reach` (stopped then with SIGTERM, as a service manager stops it)."""
    command = [
        sys.executable, "-m", "engine.mcp_server", "--vault-path", str(make_vault(home)),
        "--embedder", "fake", "--transport", "http", "--host", host, "--port", str(port),
    ]  # fmt: skip
    env = os.environ | server_env(home) | {"MEMORYOS_MCP_TOKEN": TOKEN}
    server = subprocess.Popen(
        command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        said = ""
        while "serving on" not in said:
            line = server.stderr.readline()
            assert line, f"it stopped before serving: {said}"
            said += line
        try:  # uvicorn answers: everything before it was printed
            urllib.request.urlopen(f"http://{reach}/mcp", timeout=30)
        except urllib.error.HTTPError as exc:
            assert exc.code == 401, exc
    finally:
        server.terminate()
        server.wait(timeout=30)
        rest = server.stderr.read()  # what readline had buffered, too (communicate skips it)
        server.stderr.close()
        server.stdout.close()
    assert server.returncode == 0, said + rest
    return said + rest


def test_all_interfaces_warn_that_the_memory_crosses_the_network_unencrypted(home):
    port = free_port()
    said = served(home, "0.0.0.0", port, f"127.0.0.1:{port}")
    warning = [line for line in said.splitlines() if "warning" in line]
    assert len(warning) == 1, said
    for words in ("0.0.0.0", "plain HTTP", "127.0.0.1", "SSH", "TLS"):
        assert words in warning[0], warning[0]
    assert "Traceback" not in said, said


def test_loopback_serves_without_a_warning(home):
    port = free_port()
    said = served(home, "127.0.0.1", port, f"127.0.0.1:{port}")
    assert f"serving on http://127.0.0.1:{port}/mcp" in said, said
    assert "warning" not in said, said


def _has_ipv6_loopback() -> bool:
    try:
        free_port("::1")
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback on this computer")
def test_ipv6_loopback_prints_a_valid_url_and_no_warning(home):
    port = free_port("::1")
    said = served(home, "::1", port, f"[::1]:{port}")
    assert f"serving on http://[::1]:{port}/mcp" in said, said
    assert "warning" not in said, said
