"""A refusal by the administrator's policy exits with code 2 from every command, as a broken
policy does: `memoryos mcp --model url:` to another computer with remote models off exited 1,
which reads as "the vault would not open"."""

from __future__ import annotations

import json

import pytest

from engine.policy import POLICY_ENV
from tests.helpers import run_cli
from tests.test_policy_admin import FAKE, INITIALIZE

REMOTE = ("--model", "url:https://models.example.com/v1", "--url-model", "some-model")


@pytest.fixture
def remote_off(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"remote_models": False}), encoding="utf-8")
    return {POLICY_ENV: str(path)}


@pytest.mark.parametrize("compat", [(), ("--compat", "reference")])
def test_mcp_with_a_remote_model_the_policy_turns_off_exits_2(home, remote_off, compat):
    done = run_cli("mcp", "--create", *compat, *REMOTE, *FAKE, home=home, stdin=INITIALIZE,
                   timeout=60, env=remote_off)  # fmt: skip
    error = done.stderr.decode()
    assert done.returncode == 2, error
    assert error.startswith("memoryos mcp: ") and "turned off by your administrator" in error
    assert remote_off[POLICY_ENV] in error and "models.example.com" in error
    assert done.stdout == b""  # nothing was served
    assert "Traceback" not in error and not (home / "vaults").exists()


def test_chat_and_mcp_refuse_the_same_remote_model_with_the_same_code(home, remote_off):
    chat = run_cli("chat", "--create", *REMOTE, *FAKE, home=home, stdin="", env=remote_off)
    mcp = run_cli("mcp", "--create", *REMOTE, *FAKE, home=home, stdin=INITIALIZE, timeout=60,
                  env=remote_off)  # fmt: skip
    assert chat.returncode == mcp.returncode == 2, (chat.stderr, mcp.stderr)
    assert "turned off by your administrator" in chat.stderr.decode()


def test_a_server_on_this_computer_is_not_refused_by_the_policy(home, remote_off):
    """Remote models off still allows a server on this computer: the refusal is for remote
    ones only (nothing answers on this port, so the server starts and stops at end of input)."""
    local = ("--model", "url:http://127.0.0.1:9/v1", "--url-model", "some-model")
    done = run_cli("mcp", "--create", *local, *FAKE, home=home, stdin=INITIALIZE, timeout=60,
                   env=remote_off)  # fmt: skip
    error = done.stderr.decode()
    assert "administrator" not in error and done.returncode == 0, error
    assert b'"id":1' in done.stdout.replace(b" ", b"")  # it answered initialize
