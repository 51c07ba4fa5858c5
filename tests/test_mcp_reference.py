"""`memoryos mcp --compat reference` and `--config`, driven by the official MCP SDK client over stdio."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.test_mcp_server import ROOT, call, make_vault, server_env

REFERENCE_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
# The reference's tools (BAI-LAB/MemoryOS memoryos-mcp/server_new.py): required and defaults.
REFERENCE_TOOLS = {
    "add_memory": (["user_input", "agent_response"], {"timestamp": None, "meta_data": None}),
    "retrieve_memory": (
        ["query"],
        {"relationship_with_user": "friend", "style_hint": "", "max_results": 10},
    ),
    "get_user_profile": ([], {"include_knowledge": True, "include_assistant_knowledge": False}),
}
RETRIEVE_KEYS = {
    "status", "query", "timestamp", "user_profile", "short_term_memory", "short_term_count",
    "retrieved_pages", "retrieved_user_knowledge", "retrieved_assistant_knowledge",
    "total_pages_found", "total_user_knowledge_found", "total_assistant_knowledge_found",
}  # fmt: skip
REFERENCE_CONFIG = {
    "user_id": "test_user_001",
    "openai_api_key": "",
    "openai_base_url": "",
    "data_storage_path": "./memoryos_data",
    "assistant_id": "memoryos_assistant",
    "short_term_capacity": 2,
    "mid_term_capacity": 2000,
    "embedding_model_name": "all-MiniLM-L6-v2",
    "long_term_knowledge_capacity": 100,
    "retrieval_queue_capacity": 7,
    "mid_term_heat_threshold": 7.0,
    "mid_term_similarity_threshold": 0.6,
    "llm_model": "gpt-4o-mini",
}


def serve_and_run(
    home: Path, args: list[str], body: Callable[[ClientSession], Awaitable[None]]
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", *args, "--embedder", "fake"],
        env=server_env(home),
        cwd=ROOT,
    )

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await body(session)

    anyio.run(main)


async def status_error(session: ClientSession, tool: str, arguments: dict) -> str:
    """The message of a failure, in the reference's shape and an error result (isError)."""
    result = await session.call_tool(tool, arguments)
    assert result.structured_content["status"] == "error", result.structured_content
    assert result.is_error and json.loads(result.content[0].text) == result.structured_content
    assert set(result.structured_content) == {"status", "message"}
    return result.structured_content["message"]


def test_exactly_the_reference_tools_with_its_arguments_and_defaults(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == set(REFERENCE_TOOLS)
        for name, (required, defaults) in REFERENCE_TOOLS.items():
            schema = tools[name].input_schema
            assert sorted(schema.get("required", [])) == sorted(required), name
            assert set(schema["properties"]) == set(required) | set(defaults), name
            for argument, default in defaults.items():
                assert schema["properties"][argument].get("default") == default, (name, argument)

    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)


def test_reference_calls_get_the_reference_result_keys(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        added = await call(
            session,
            "add_memory",
            user_input="Hi! I'm Tom, I work as a data scientist in San Francisco.",
            agent_response="Hello Tom! Nice to meet you.",
            timestamp="2025-05-01 12:00:00",
            meta_data={"channel": "cli"},
        )
        assert added == {
            "status": "success",
            "message": "Memory has been successfully added to MemoryOS",
            "timestamp": "2025-05-01 12:00:00",
            "details": {
                "user_input_length": 57,
                "agent_response_length": 28,
                "has_meta_data": True,
            },
        }
        later = await call(session, "add_memory", user_input="I like tea", agent_response="Noted")
        assert REFERENCE_TIME.fullmatch(later["timestamp"])
        assert later["details"]["has_meta_data"] is False

        found = await call(
            session,
            "retrieve_memory",
            query="What is my job?",
            relationship_with_user="friend",
            style_hint="",
            max_results=10,
        )
        assert set(found) == RETRIEVE_KEYS and found["status"] == "success"
        assert found["short_term_count"] == 2
        assert found["short_term_memory"][0] == {
            "user_input": "Hi! I'm Tom, I work as a data scientist in San Francisco.",
            "agent_response": "Hello Tom! Nice to meet you.",
            "timestamp": "2025-05-01 12:00:00",
        }
        assert found["retrieved_pages"] == [] and found["total_pages_found"] == 0  # all in STM
        for item in found["retrieved_user_knowledge"]:
            assert set(item) == {"knowledge", "timestamp"}

        profile = await call(session, "get_user_profile")
        assert set(profile) == {
            "status", "timestamp", "user_id", "assistant_id", "user_profile",
            "user_knowledge", "user_knowledge_count",
        }  # fmt: skip
        assert (
            profile["user_id"] == "alice" and profile["assistant_id"] == "default_assistant_profile"
        )
        both = await call(session, "get_user_profile", include_knowledge=False,
                          include_assistant_knowledge=True)  # fmt: skip
        assert {"assistant_knowledge", "assistant_knowledge_count"} <= set(both)
        assert "user_knowledge" not in both

    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)


def test_errors_are_status_objects_and_unknown_arguments_are_refused(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        result = await session.call_tool("retrieve_memory", {"query": "job", "top_k": 3})
        assert result.is_error
        assert result.structured_content == {
            "status": "error",
            "message": "retrieve_memory: unknown argument 'top_k'; it takes query, "
            "relationship_with_user, style_hint, max_results",
        }
        message = await status_error(
            session, "add_memory", {"user_input": "hi", "agent_response": ""}
        )
        assert message == "user_input and agent_response are required"
        message = await status_error(
            session,
            "add_memory",
            {"user_input": "hi", "agent_response": "yo", "timestamp": "soonish"},
        )
        assert message.startswith("Error adding memory: timestamp 'soonish' is not a date")
        assert await status_error(session, "retrieve_memory", {"query": ""}) == (
            "query parameter is required"
        )
        message = await status_error(
            session, "add_memory", {"user_input": "x" * 1_000_001, "agent_response": "ok"}
        )
        assert "user_input" in message and "1000000" in message
        found = await call(session, "retrieve_memory", query="anything")
        assert found["short_term_count"] == 0  # nothing was written by the failed calls

    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)


def test_the_reference_config_file_names_the_vault_and_user(home, tmp_path):
    folder = tmp_path / "mcp"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(REFERENCE_CONFIG), encoding="utf-8")

    async def body(session: ClientSession) -> None:
        profile = await call(session, "get_user_profile")
        assert (profile["user_id"], profile["assistant_id"]) == (
            "test_user_001",
            "memoryos_assistant",
        )
        await call(session, "add_memory", user_input="I live in Oslo", agent_response="Cold!")

    config = str(folder / "config.json")
    serve_and_run(home, ["--compat", "reference", "--config", config], body)
    # relative to the config file, whatever the server's working folder
    assert (folder / "memoryos_data" / "users" / "test_user_001" / "vault.memoryos").is_file()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"short_term_capcity": 3}, "unknown keys short_term_capcity"),
        ({"user_id": None}, "lacks user_id"),
        ({"user_id": "../../etc"}, "user_id '../../etc' cannot name a folder"),
    ],
)
def test_a_bad_config_is_a_clear_error_before_serving(home, tmp_path, change, expected):
    config = {**REFERENCE_CONFIG, **change}
    config = {k: v for k, v in config.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine.mcp_server", "--compat", "reference", "--config", str(path),
         "--embedder", "fake"],
        env=server_env(home), cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and expected in done.stderr and done.stdout == ""


@pytest.mark.real_models
@pytest.mark.slow
def test_a_configured_chat_model_consolidates_under_mcp(home):
    """--model url:... : pages leaving short-term memory are summarised by that model."""
    from tests.test_compat import RecordingProxy
    from tests.test_mcp_server import until_consolidated
    from tests.test_openai_server import start_server, stop_server

    vault = make_vault(home)
    process, url = start_server()
    proxy = RecordingProxy(url)

    async def body(session: ClientSession) -> None:
        for number in range(12):  # the short-term queue holds 10
            await call(session, "add_memory", user_input=f"I walked {number + 1} km by the river today.",
                       agent_response="Good for you!")  # fmt: skip
        status = await until_consolidated(session, timeout=100)
        assert status["consolidation"]["model"] == "smollm2"
        assert status["mid_term_pages"] >= 2 and status["consolidation"]["failed_jobs"] == 0

    try:
        serve_and_run(home, ["--vault-path", str(vault), "--model", f"url:{proxy.url}",
                             "--url-model", "smollm2"], body)  # fmt: skip
    finally:
        proxy.close()
        stop_server(process)
    structured = [b for b in proxy.bodies if "response_format" in b]
    assert structured and all(b["model"] == "smollm2" for b in structured)


def test_users_of_one_assistant_share_its_knowledge_over_mcp(home, tmp_path, fail_keyring):
    """Two configs, two user_ids, one assistant_id: what the assistant learned with one user is
    in the other's get_user_profile(include_assistant_knowledge=True); another assistant's is not."""
    from engine.backends.fake import HashEmbedder
    from engine.compat import Memoryos
    from engine.records import ASSISTANT_KNOWLEDGE
    from tests.test_mcp_server import PASSPHRASE

    folder = tmp_path / "mcp"
    folder.mkdir()
    tom = Memoryos("tom", "", str(folder / "memoryos_data"), openai_base_url="http://127.0.0.1:9/v1",
                   assistant_id="memoryos_assistant", embedder=HashEmbedder(384), background=False,
                   passphrase=PASSPHRASE)  # fmt: skip
    tom.memory.add_fact("Recommended a gluten-free bakery to the user", kind=ASSISTANT_KNOWLEDGE)
    tom.close()
    for name, assistant in (("ann.json", "memoryos_assistant"), ("bob.json", "other_assistant")):
        config = {**REFERENCE_CONFIG, "user_id": name[:3], "assistant_id": assistant}
        (folder / name).write_text(json.dumps(config), encoding="utf-8")
    seen: dict[str, list] = {}

    def reader(user: str) -> Callable[[ClientSession], Awaitable[None]]:
        async def body(session: ClientSession) -> None:
            profile = await call(session, "get_user_profile", include_assistant_knowledge=True)
            seen[user] = [k["knowledge"] for k in profile["assistant_knowledge"]]
            found = await call(session, "retrieve_memory", query="gluten-free bakery")
            seen[user + " retrieved"] = [
                k["knowledge"] for k in found["retrieved_assistant_knowledge"]
            ]

        return body

    for user in ("ann", "bob"):
        config = str(folder / f"{user}.json")
        serve_and_run(home, ["--compat", "reference", "--config", config], reader(user))
    assert seen == {
        "ann": ["Recommended a gluten-free bakery to the user"],
        "ann retrieved": ["Recommended a gluten-free bakery to the user"],
        "bob": [],
        "bob retrieved": [],
    }
