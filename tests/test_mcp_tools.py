"""What an agent developer meets using the MCP tools: plain argument errors, forget_page saying
what went with the page, add_memory safe to retry with an external_id, ids the CLI takes."""

from __future__ import annotations

import multiprocessing
import re
import subprocess
import sys

import anyio
from mcp import ClientSession

from tests.test_mcp_reference import serve_and_run, status_error
from tests.test_mcp_server import (
    ROOT,
    call,
    error,
    make_vault,
    open_direct,
    run,
    server_env,
    until_consolidated,
)

# (tool, arguments, the argument the message must name, words of what it accepts)
BAD_VALUES = [
    ("retrieve_memory", {"query": "x", "max_results": 0}, "max_results", ["1", "100"]),
    ("retrieve_memory", {"query": "x", "max_results": "many"}, "max_results", ["1", "100"]),
    ("retrieve_memory", {"query": ""}, "query", ["empty"]),
    ("retrieve_memory", {}, "query", ["required"]),
    ("add_memory", {"user_input": ["a list"]}, "user_input", ["text"]),
    ("add_memory", {"user_input": "x" * 1_000_001}, "user_input", ["1000000"]),
    ("add_memory", {"user_input": "hi", "metadata": "no"}, "metadata", ["object"]),
    ("list_facts", {"kind": "gossip"}, "kind", ["user_fact", "assistant_knowledge"]),
    ("list_facts", {"limit": 5000}, "limit", ["1000"]),
    ("get_user_profile", {"include_knowledge": "maybe"}, "include_knowledge", ["true", "false"]),
    ("add_fact", {"text": "x", "kind": 3}, "kind", ["user_fact"]),
    ("delete_fact", {"id": "abc"}, "id", ["whole number"]),
    ("get_page", {"id": -3}, "id", ["1"]),
    ("forget_page", {}, "id", ["required"]),
    # a value of another type is refused, not converted (pydantic's lax mode would take these)
    ("retrieve_memory", {"query": "x", "max_results": "3"}, "max_results", ["whole number"]),
    ("retrieve_memory", {"query": "x", "max_results": True}, "max_results", ["whole number"]),
    ("get_user_profile", {"include_knowledge": "no"}, "include_knowledge", ["true or false"]),
    ("get_user_profile", {"include_knowledge": "false"}, "include_knowledge", ["true", "false"]),
    ("get_user_profile", {"include_knowledge": 0}, "include_knowledge", ["true or false"]),
    ("get_user_profile", {"max_facts": "2"}, "max_facts", ["whole number", "1000"]),
    ("get_page", {"id": "1"}, "id", ["whole number"]),
    ("get_page", {"id": 1, "offset": "5"}, "offset", ["whole number"]),
    ("add_memory", {"user_input": "hi", "metadata": {"external_id": 5}}, "external_id", ["text"]),
    ("add_memory", {"user_input": "hi", "metadata": {"external_ids": "a1"}}, "external_ids",
     ["list"]),  # fmt: skip
    # the engine's own checks read the same way
    ("add_memory", {"user_input": " ", "agent_response": ""}, "user_input", ["empty"]),
    ("add_memory", {"user_input": "hi", "timestamp": "soonish"}, "timestamp", ["soonish"]),
    ("add_memory", {"user_input": "hi", "metadata": {"blob": "y" * 70_000}}, "metadata",
     ["64 KiB"]),  # fmt: skip
]


def plain(message: str) -> bool:
    """A short message in words, not pydantic's report (types, input values, a doc link)."""
    return not re.search(r"pydantic|https?://|validation error|type=|input_value|\n", message)


def test_argument_errors_name_the_argument_and_what_it_accepts(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        for tool, arguments, name, allowed in BAD_VALUES:
            message = await error(session, tool, arguments)
            assert plain(message) and len(message) < 200, message
            assert re.search(rf"\b{name}\b", message), message
            for word in allowed:
                assert word in message, (word, message)
        # several wrong at once: each named
        message = await error(session, "list_facts", {"limit": 0, "offset": -1})
        assert plain(message) and "limit" in message and "offset" in message
        assert (await call(session, "memory_status"))["vault"]["pages"] == 0

    run(vault, home, body)


def test_every_error_reads_tool_colon_what_was_wrong(home):
    """No "Error executing tool ...: invalid input: ...": engine refusals read like argument
    errors, and a fact's ref given for its number says which number to give."""
    from tests.test_mcp_server import BAD_CALLS

    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        for tool, arguments in [c for c in BAD_CALLS if c[0] != "no_such_tool"]:
            message = await error(session, tool, arguments)
            assert message.startswith(f"{tool}: "), message
            assert "Error executing" not in message and "invalid input" not in message
        # delete_fact takes a ref too (f999, p3): an unknown one is not found
        message = await error(session, "delete_fact", {"id": "f999"})
        assert message == "delete_fact: not found: no fact with id 999."
        assert "use the number" not in await error(session, "delete_fact", {"id": "abc"})
        assert "use the number" not in await error(session, "get_page", {"id": "f3"})
        assert (await call(session, "memory_status"))["vault"]["pages"] == 0

    run(vault, home, body)


def test_reference_tools_report_argument_errors_as_plain_status_messages(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        message = await status_error(
            session, "retrieve_memory", {"query": "job", "max_results": "lots"}
        )
        assert plain(message) and "max_results" in message and "whole number" in message

    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)


def test_forget_page_says_which_facts_and_profile_entries_went_with_it(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        page = (
            await call(
                session,
                "add_memory",
                user_input="I work as a data scientist at a bank. I love rock climbing.",
                agent_response="Noted.",
            )
        )["page"]
        other = (await call(session, "add_memory", user_input="I am allergic to peanuts"))["page"]
        await until_consolidated(session)
        profile = await call(session, "get_user_profile")
        from_page = [f for f in profile["facts"] if page["id"] in f["source_page_ids"]]
        slots = [s for s in profile["profile"] if page["id"] in s["evidence_page_ids"]]
        kept = [f for f in profile["facts"] if f["source_page_ids"] == [other["id"]]]
        assert from_page and slots and kept

        done = await call(session, "forget_page", id=page["id"])
        assert done["forgotten_page_id"] == page["id"]
        assert {f["id"] for f in done["deleted_facts"]} == {f["id"] for f in from_page}
        assert {s["id"] for s in done["deleted_profile_entries"]} == {s["id"] for s in slots}
        assert {f["id"] for f in kept}.isdisjoint(f["id"] for f in done["deleted_facts"])
        refs = {f["ref"] for f in done["deleted_facts"]}
        assert refs == {f"f{f['id']}" for f in from_page}
        assert done["summary"] and all(isinstance(line, str) for line in done["summary"])
        left = await call(session, "list_facts", include_superseded=True)
        assert {f["id"] for f in left["facts"]} == {f["id"] for f in kept}

    run(vault, home, body)


def test_adding_an_external_id_again_returns_the_stored_page(home):
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:  # the desktop app, or a LoCoMo import
        imported = memory.add_memory("Moved to Lisbon in May", "Nice!", meta={"external_id": 7})
        transcript = memory.add_memory(
            "Caroline: I went to a support group", "", meta={"external_ids": ["D1:3", "D1:4"]}
        )

    async def body(session: ClientSession) -> None:
        arguments = {"user_input": "Book the dentist for Tuesday", "agent_response": "Booked."}
        first = await call(session, "add_memory", **arguments, metadata={"external_id": "m-1"})
        assert first["already_stored"] is False
        retry = await call(session, "add_memory", **arguments, metadata={"external_id": "m-1"})
        assert retry["already_stored"] is True and retry["page"] == first["page"]
        # held by pages another program stored, by number or in a list
        again = await call(session, "add_memory", user_input="x", metadata={"external_id": "7"})
        assert again["already_stored"] and again["page"]["id"] == imported.id
        again = await call(session, "add_memory", user_input="x", metadata={"external_id": "D1:4"})
        assert again["already_stored"] and again["page"]["id"] == transcript.id
        # another id, or none, is a new page
        other = await call(session, "add_memory", **arguments, metadata={"external_id": "m-2"})
        plain_add = await call(session, "add_memory", **arguments)
        assert not other["already_stored"] and not plain_add["already_stored"]
        assert (await call(session, "memory_status"))["vault"]["pages"] == 5
        # a page stored meanwhile by another process is found too, a forgotten one is not
        with open_direct(vault, background=False) as memory:
            late = memory.add_memory("Late note", "", meta={"external_id": "m-3"})
        again = await call(session, "add_memory", user_input="x", metadata={"external_id": "m-3"})
        assert again["already_stored"] and again["page"]["id"] == late.id
        await call(session, "forget_page", id=first["page"]["id"])
        anew = await call(session, "add_memory", **arguments, metadata={"external_id": "m-1"})
        assert not anew["already_stored"] and anew["page"]["id"] != first["page"]["id"]
        assert (await call(session, "memory_status"))["vault"]["pages"] == 6

    run(vault, home, body)


def test_a_list_of_external_ids_is_idempotent_too_and_other_text_is_said(home):
    """metadata.external_ids: any id of the list already held returns that page (no second
    page holding it); the same id with other text says that text was not stored."""
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        first = await call(session, "add_memory", user_input="Caroline: I went to a support group",
                           metadata={"external_id": "a2"})  # fmt: skip
        again = await call(session, "add_memory", user_input="Caroline: I went to a support group",
                           metadata={"external_ids": ["a2", "a3"]})  # fmt: skip
        assert again["already_stored"] is True and again["page"]["id"] == first["page"]["id"]
        assert "differs" not in again
        other = await call(session, "add_memory", user_input="Melanie: I painted a lake",
                           metadata={"external_ids": ["a4", "a2"]})  # fmt: skip
        assert other["already_stored"] is True and other["page"]["id"] == first["page"]["id"]
        assert other["differs"] is True and "not stored" in other["note"]
        page = (await call(session, "get_page", id=first["page"]["id"]))["page"]
        assert page["user_input"] == "Caroline: I went to a support group"
        assert (await call(session, "memory_status"))["vault"]["pages"] == 1
        fresh = await call(session, "add_memory", user_input="Melanie: I painted a lake",
                           metadata={"external_ids": ["a4", "a5"]})  # fmt: skip
        assert fresh["already_stored"] is False and fresh["page"]["external_ids"] == ["a4", "a5"]

    run(vault, home, body)
    with open_direct(vault, background=False) as memory:
        held = [key for page in memory.pages(limit=100) for key in page.external_ids]
    assert sorted(held) == ["a2", "a4", "a5"]  # each id on one page


def _add_in_step(vault, home, ids, barrier, results) -> None:
    """One agent (its own MCP server process) adding each id once, in step with another
    agent adding the same ids (a child process of the test below)."""

    async def body(session: ClientSession) -> None:
        pages = {}
        for key in ids:
            await anyio.to_thread.run_sync(barrier.wait, 60)
            added = await call(session, "add_memory", user_input=f"Note {key}",
                               metadata={"external_id": key})  # fmt: skip
            pages[key] = added["page"]["id"]
        results.put(pages)

    run(vault, home, body)


def test_two_servers_adding_the_same_ids_at_once_store_each_once(home):
    """Two agents, each with its own MCP server process on one encrypted vault, add the same
    external ids at the same moment: each id is stored once and both get that page."""
    vault = make_vault(home)
    ids = [f"msg-{i}" for i in range(40)]
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(2), spawn.Queue()
    agents = [
        spawn.Process(target=_add_in_step, args=(vault, home, ids, barrier, results))
        for _ in range(2)
    ]
    for agent in agents:
        agent.start()
    try:
        first, second = results.get(timeout=240), results.get(timeout=240)
    finally:
        for agent in agents:
            agent.join(timeout=60)
    assert [agent.exitcode for agent in agents] == [0, 0]
    assert first == second  # both were given the one page of each id
    with open_direct(vault, background=False) as memory:
        pages = memory.pages(limit=1000)
    held = [key for page in pages for key in page.external_ids]
    assert sorted(held) == sorted(ids)  # one page per id, none twice
    assert {page.id for page in pages} == set(first.values())


def test_a_vault_with_pages_sharing_an_id_keeps_the_id_on_the_earliest(home):
    """A vault from before ids were unique, where two servers had raced and stored one id
    twice: after the upgrade the id names the earliest page, and no memory is dropped."""
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        earliest = memory.add_memory("Book the dentist", "Booked.", meta={"external_id": "m-1"})
        memory.add_memory("Book the dentist", "Booked.", meta={"external_id": "m-1"})
        memory.add_memory("Call Ana", "", meta={"external_ids": ["m-2", "m-1"]})
        with memory.vault.transaction():  # as the program before step 0008 left it
            memory.vault.conn.execute("DROP TABLE external_ids")
            memory.vault.conn.execute("DELETE FROM migrations WHERE name='0008_external_ids'")
    with open_direct(vault, background=False) as memory:
        assert "0008_external_ids" in memory.vault.schema_steps()
        assert len(memory.pages(limit=100)) == 3

    async def body(session: ClientSession) -> None:
        again = await call(session, "add_memory", user_input="x", metadata={"external_id": "m-1"})
        assert again["already_stored"] and again["page"]["id"] == earliest.id
        other = await call(session, "add_memory", user_input="x", metadata={"external_id": "m-2"})
        assert other["already_stored"] and other["page"]["user_input"] == "Call Ana"
        assert (await call(session, "memory_status"))["vault"]["pages"] == 3

    run(vault, home, body)


def test_facts_and_profile_entries_carry_the_ids_the_cli_takes(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        await call(session, "add_memory", user_input="I work as a nurse. I love hiking.")
        await until_consolidated(session)
        added = (await call(session, "add_fact", text="Is allergic to peanuts"))["fact"]
        assert added["ref"] == f"f{added['id']}"
        profile = await call(session, "get_user_profile")
        assert profile["profile"] and all(s["ref"] == s["id"] for s in profile["profile"])
        facts = (await call(session, "list_facts"))["facts"]
        assert all(f["ref"] == f"f{f['id']}" for f in facts)
        found = await call(session, "retrieve_memory", query="peanuts nurse hiking")
        for item in found["facts"] + found["knowledge"]:
            assert item["ref"] == f"f{item['id']}"
        used = {m["kind"]: m["ref"] for m in found["memories_used"]}
        assert used["profile"].startswith("p") and used["fact"].startswith("f")
        slot = profile["profile"][0]

        # the person deletes with the CLI what the agent showed them
        done = subprocess.run(
            [sys.executable, "-m", "engine.cli", "facts", "delete", added["ref"], slot["ref"]]
            + ["--vault-path", str(vault), "--embedder", "fake", "--yes"],
            env=server_env(home),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        left = await call(session, "get_user_profile")
        assert added["id"] not in [f["id"] for f in left["facts"]]
        assert slot["id"] not in [s["id"] for s in left["profile"]]

    run(vault, home, body)
