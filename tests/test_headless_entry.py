"""`memoryos` on a machine where PySide6 cannot be imported: the CLI and the MCP server still run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.helpers import ROOT

PASSPHRASE = "correct horse battery staple"

# The `memoryos` console script (engine.cli:main) behind an import hook that makes PySide6 and
# shiboken6 (and whatever $UNIMPORTABLE names) unimportable, as on a server without them.
NO_QT = """\
import os, sys

BLOCKED = {"PySide6", "shiboken6", *filter(None, os.environ.get("UNIMPORTABLE", "").split(","))}

class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (made unimportable)", name=name)
        return None

sys.meta_path.insert(0, NoQt())
from engine.cli import main

code = main(sys.argv[1:])
# only opening the window (no arguments) may reach app/; nothing may load Qt
forbidden = {"PySide6", "shiboken6"} | ({"app"} if sys.argv[1:] else set())
loaded = sorted({m.split(".")[0] for m in sys.modules} & forbidden)
assert not loaded, loaded
sys.exit(code)
"""


def env_for(home: Path) -> dict[str, str]:
    return dict(
        os.environ,
        MEMORYOS_HOME=str(home),
        MEMORYOS_PASSPHRASE=PASSPHRASE,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
    )


def memoryos(home: Path, *args: str, unimportable: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", NO_QT, *args],
        capture_output=True,
        text=True,
        env=dict(env_for(home), UNIMPORTABLE=unimportable),
        cwd=ROOT,
        timeout=120,
    )


def test_help_works_without_pyside6(home):
    out = memoryos(home, "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: memoryos")
    assert "memoryos chat" in out.stdout


def test_cli_commands_work_without_pyside6(home, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps([{"user": "I keep three hives of bees in Lyon.", "assistant": "Lovely."}]),
        encoding="utf-8",
    )
    imported = memoryos(
        home, "import", str(chat), "--create", "--embedder", "fake", "--no-consolidate"
    )
    assert imported.returncode == 0, imported.stderr
    exported = memoryos(home, "export", "-", "--embedder", "fake")
    assert exported.returncode == 0, exported.stderr
    pages = json.loads(exported.stdout)["pages"]
    assert [page["user_input"] for page in pages] == ["I keep three hives of bees in Lyon."]


def test_opening_the_window_without_pyside6_says_what_still_works(home):
    out = memoryos(home)
    assert out.returncode == 2
    assert "the desktop app cannot start here" in out.stderr
    assert "`memoryos mcp` work without it" in out.stderr


def test_eval_without_the_eval_extra_says_how_to_install_it(home):
    out = memoryos(home, "eval", "locomo", "--data", "x.json", unimportable="nltk,matplotlib")
    assert out.returncode == 2
    assert "need nltk and matplotlib, not installed here" in out.stderr
    assert "pip install 'memoryos-desktop[eval]'" in out.stderr
    # Its help needs no extra: the options are shown, with what to install to run it.
    helped = memoryos(home, "eval", "locomo", "--help", unimportable="nltk,matplotlib")
    assert helped.returncode == 0, helped.stderr
    assert "install the evaluation extra" in helped.stdout and "--data" in helped.stdout
    with_extra = memoryos(home, "eval", "locomo", "--help")
    assert with_extra.returncode == 0, with_extra.stderr
    assert "--data" in with_extra.stdout


def test_mcp_server_serves_a_client_without_pyside6(home):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", NO_QT, "mcp", "--create", "--vault", "alice", "--embedder", "fake"],
        env=env_for(home),
        cwd=ROOT,
    )

    async def session() -> tuple[set[str], str, str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = {tool.name for tool in (await client.list_tools()).tools}
            added = await client.call_tool(
                "add_memory",
                {"user_input": "My sister Ana lives in Porto.", "agent_response": "Noted."},
            )
            found = await client.call_tool("retrieve_memory", {"query": "Where does Ana live?"})
            return tools, added.content[0].text, found.content[0].text

    tools, added, found = anyio.run(session)
    assert {"add_memory", "retrieve_memory"} <= tools
    page = json.loads(added)["page"]
    assert page["id"] == 1 and page["tier"] == "short"
    recent = json.loads(found)["recent"]
    assert [(p["id"], p["user_input"]) for p in recent] == [(1, "My sister Ana lives in Porto.")]
    assert (home / "data" / "vaults" / "alice.memoryos").is_file()


def test_importing_the_cli_loads_no_qt_per_importtime():
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import engine.cli"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    modules = [line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()[1:]]
    assert "engine.cli" in modules
    assert [m for m in modules if m.split(".")[0] in ("PySide6", "shiboken6", "app")] == []
