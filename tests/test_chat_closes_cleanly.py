"""`memoryos chat` ended by /quit or by the end of its input (Ctrl+D) closes the vault as the
app does: only the vault file is left beside it, no -wal or -shm journal, with memory building
still busy at the end (more exchanges than the short-term queue holds) or not."""

from __future__ import annotations

import pytest

from engine import paths
from tests.helpers import run_cli
from tests.local_servers import ChatServer

MESSAGES = [f"Message {n}: my sister Anna{n} lives in Vienna{n}." for n in range(14)]


@pytest.mark.parametrize("ending", ["/quit\n", ""], ids=["quit", "end-of-input"])
@pytest.mark.parametrize("count", [1, len(MESSAGES)], ids=["one", "queue-overflows"])
def test_chat_leaves_only_the_vault_file(home, ending, count):
    with ChatServer(models=["m"], reply=["Noted."] * (count + 1)) as server:
        said = "".join(f"{text}\n" for text in MESSAGES[:count])
        done = run_cli("chat", "--url", server.url, "--url-model", "m", "--embedder", "fake",
                       "--create", home=home, stdin=said + ending)  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert sorted(p.name for p in paths.vaults_dir().iterdir()) == ["default.memoryos"]
    status = run_cli("status", "--embedder", "fake", home=home)
    assert status.returncode == 0 and f"pages      {count} " in status.stdout.decode()
    assert sorted(p.name for p in paths.vaults_dir().iterdir()) == ["default.memoryos"]
