"""Large pages over MCP: every result stays well under the official client's 1 MiB event limit
(Streamable HTTP), long texts are shortened with a note, and get_page returns a page whole in
parts. Real servers (HTTP on 127.0.0.1 and stdio), driven by the official SDK client."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import anyio
from mcp import ClientSession
from test_mcp_http import free_port, http_session, start_http, stop, wait_listening
from test_mcp_server import PASSPHRASE, call, make_vault, open_direct, run

HALF_MIB = 512 * 1024
# A long message with what JSON must escape: quotes, backslashes, newlines, control characters,
# accented letters and emoji (several bytes each on the wire).
PIECE = 'He said "ok" \\ then\nleft\t\x01 café 😀 tahoe '


def long_text(chars: int, start: str = "") -> str:
    text = start + PIECE * (chars // len(PIECE) + 1)
    return text[:chars]


def wire_size(result: dict[str, Any]) -> int:
    """Bytes of a result as sent: structured content plus the same JSON as text."""
    text = json.dumps(result, ensure_ascii=False)
    return len(text.encode()) + len(json.dumps(text, ensure_ascii=False).encode())


async def whole_page(session: ClientSession, page_id: int) -> dict[str, Any]:
    """A page read part by part with get_page's offset, as its description says."""
    texts = {"user_input": "", "agent_response": "", "chain_summary": ""}
    offset: int | None = 0
    parts = 0
    while offset is not None:
        result = await call(session, "get_page", id=page_id, offset=offset)
        assert wire_size(result) < HALF_MIB
        for name in texts:
            texts[name] += result["page"][name]
        offset, parts = result["next_offset"], parts + 1
    return texts | {"parts": parts}


def test_a_huge_page_does_not_break_retrieval_over_http(home):
    """After a 200,000-character page (and a 1,000,000-character one, the most a page may
    hold), retrieve_memory over Streamable HTTP still answers, in well under 1 MiB: the long
    texts are shortened, said so with their full length, and get_page returns them whole."""
    vault = make_vault(home)
    huge = long_text(200_000, "Lake Tahoe trip notes: ")
    biggest = long_text(1_000_000, "The whole diary: ")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_http(vault, home, port, passphrase=PASSPHRASE, stdin=subprocess.DEVNULL)

    async def main() -> None:
        await wait_listening(url)
        with anyio.fail_after(120):
            async with http_session(url) as session:
                added = await call(session, "add_memory", user_input=huge, agent_response="Ok")
                page = added["page"]
                assert page["shortened"] == {"user_input": 200_000}
                assert huge.startswith(page["user_input"]) and len(page["user_input"]) <= 4000
                await call(session, "add_memory", user_input=biggest)
                await call(session, "add_memory", user_input="A short note about tahoe")

                found = await call(session, "retrieve_memory", query="tahoe", max_results=1)
                assert wire_size(found) < HALF_MIB
                (mine,) = [p for p in found["pages"] + found["recent"] if p["id"] == page["id"]]
                assert mine["shortened"] == {"user_input": 200_000}
                assert huge.startswith(mine["user_input"]) and len(mine["user_input"]) <= 4000
                assert "shortened" not in next(
                    p for p in found["recent"] if p["user_input"] == "A short note about tahoe"
                )
                # memories_used holds previews: the texts are in pages/recent already
                assert all(len(m["text"]) <= 300 for m in found["memories_used"])
                used = {(m["kind"], m["id"]) for m in found["memories_used"]}
                assert ("exchange", page["id"]) in used

                whole = await whole_page(session, page["id"])
                assert whole["user_input"] == huge and whole["agent_response"] == "Ok"
                assert whole["parts"] > 1

    try:
        anyio.run(main)
    finally:
        stop(server)


def test_many_long_facts_and_large_metadata_fit_one_result(home):
    """150 facts of 20,000 characters and recent pages with 60 KB of metadata each, all asked
    for: each result is cut to fit, over stdio as well (no client should get megabytes)."""
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        for number in range(10):
            text = long_text(20_000, f"Entry {number} about tahoe: ")
            memory.add_memory(text, "Noted.", meta={"notes": "n" * 60_000})
        for number in range(150):
            words = "".join(f'w{number}x{j}"\n\x01😀 ' for j in range(2000))
            memory.add_fact(f"Fact {number}: {words}"[:20_000], kind="user_fact")

    async def body(session: ClientSession) -> None:
        found = await call(session, "retrieve_memory", query="entry about tahoe", max_results=100)
        assert wire_size(found) < HALF_MIB
        assert len(found["recent"]) == 10
        for page in found["recent"]:
            assert page["shortened"]["user_input"] == 20_000 > len(page["user_input"])
            assert page["shortened"]["metadata"] > 60_000 and page["metadata"] == {}
        for fact in found["facts"]:
            assert fact["shortened"] == {"text": 20_000}
        profile = await call(session, "get_user_profile", max_facts=1000)
        listed = await call(session, "list_facts", limit=1000)
        for result, facts in ((profile, profile["facts"]), (listed, listed["facts"])):
            assert wire_size(result) < HALF_MIB and len(facts) == 150
            assert all(f["shortened"] == {"text": 20_000} for f in facts)
            assert all(f["text"].startswith("Fact ") for f in facts)
        page = await call(session, "get_page", id=found["recent"][0]["id"])
        assert len(json.dumps(page["page"]["metadata"])) > 60_000  # whole in get_page

    run(vault, home, body)


def test_the_reference_compatible_server_shortens_only_what_would_not_fit(home):
    """`--compat reference` keeps the reference's shapes and whole texts, except in a result
    too large for a client: a 200,000-character page and a 1,000,000-character one made every
    retrieve_memory that returned them megabytes long. Then each long text is cut, its entry
    saying so with the full length; a result that fits is the reference's, whole."""
    from test_mcp_reference import serve_and_run

    vault = make_vault(home)
    huge = long_text(200_000, "Lake Tahoe trip notes: ")
    biggest = long_text(1_000_000, "The whole diary: ")

    async def body(session: ClientSession) -> None:
        await call(session, "add_memory", user_input="A short note about tahoe",
                   agent_response="Noted.")
        small = await call(session, "retrieve_memory", query="tahoe")
        assert small["status"] == "success" and "shortened" not in json.dumps(small)
        assert small["short_term_memory"][0]["user_input"] == "A short note about tahoe"

        await call(session, "add_memory", user_input=huge, agent_response="Ok")
        await call(session, "add_memory", user_input=biggest, agent_response="Ok")
        found = await call(session, "retrieve_memory", query="tahoe")
        assert found["status"] == "success" and wire_size(found) < HALF_MIB
        entries = found["short_term_memory"] + found["retrieved_pages"]
        cut = [e for e in entries if "shortened" in e]
        assert {e["shortened"]["user_input"] for e in cut} == {200_000, 1_000_000}
        for entry in cut:
            full = huge if entry["shortened"]["user_input"] == 200_000 else biggest
            assert full.startswith(entry["user_input"]) and len(entry["user_input"]) < 200_000
            assert entry["agent_response"] == "Ok" and "timestamp" in entry  # the same keys
        assert found["short_term_count"] == len(found["short_term_memory"])

    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)
