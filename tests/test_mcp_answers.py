"""What an agent reads from the MCP tools, over stdio with the official SDK client: an exchange
replaced since is marked out of date, a profile entry's id is not a fact's, results can be
made small, text of spaces alone is refused, and the server says its version."""

from __future__ import annotations

import json

from mcp import ClientSession

from engine.cli_parser import version
from tests.test_mcp_reference import serve_and_run
from tests.test_mcp_server import call, error, make_vault, open_direct, run, until_consolidated


def test_an_exchange_replaced_since_is_marked_out_of_date(home):
    """After "I live in Chorlton" and later "I moved to Lisbon", the Chorlton exchange still
    comes back for "where do I live?", marked out of date (as the app's prompt marks it)."""
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        old = (await call(session, "add_memory", user_input="I live in Chorlton."))["page"]
        new = (await call(session, "add_memory", user_input="I moved to Lisbon in May."))["page"]
        other = (await call(session, "add_memory", user_input="I love rock climbing."))["page"]
        await until_consolidated(session)
        profile = (await call(session, "get_user_profile"))["profile"]
        assert [s["value"] for s in profile if s["name"] == "location"] == ["Lisbon"]

        found = await call(session, "retrieve_memory", query="where do I live?")
        pages = {p["id"]: p for p in found["pages"] + found["recent"]}
        assert old["id"] in pages and new["id"] in pages
        assert pages[old["id"]]["out_of_date"] is True
        assert pages[new["id"]]["out_of_date"] is False
        assert all(isinstance(p["out_of_date"], bool) for p in pages.values())
        climbing = await call(session, "retrieve_memory", query="rock climbing")
        shown = {p["id"]: p for p in climbing["pages"] + climbing["recent"]}
        assert shown[other["id"]]["out_of_date"] is False

    run(vault, home, body)


def test_delete_fact_takes_refs_and_a_profile_entry_id_is_never_a_fact_number(home):
    """get_user_profile gave a profile entry {"id": 2}; delete_fact {"id": 2} then deleted
    fact 2. A profile entry's id is now its ref (p2), which delete_fact takes."""
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        await call(session, "add_memory", user_input="I work as a nurse. I love hiking.")
        await until_consolidated(session)
        for text in ("Is allergic to peanuts", "Has a cat called Miso", "Plays the cello"):
            await call(session, "add_fact", text=text)
        profile = await call(session, "get_user_profile")
        facts = {f["id"] for f in profile["facts"]}
        assert profile["profile"] and all(isinstance(f, int) for f in facts)
        for slot in profile["profile"]:
            assert slot["id"] == slot["ref"] and slot["ref"].startswith("p")
        found = await call(session, "retrieve_memory", query="nurse hiking peanuts")
        assert all(s["id"] == s["ref"] for s in found["profile"])
        used = [m for m in found["memories_used"] if m["kind"] == "profile"]
        assert used and all(m["id"] == m["ref"] for m in used)

        slot = profile["profile"][0]
        done = await call(session, "delete_fact", id=slot["id"])
        assert done == {"deleted_profile_entry_id": slot["ref"], "ref": slot["ref"]}
        after = await call(session, "get_user_profile")
        assert slot["ref"] not in [s["ref"] for s in after["profile"]]
        assert {f["id"] for f in after["facts"]} == facts  # no fact went with it

        first, second, *_ = sorted(facts)
        done = await call(session, "delete_fact", id=f"f{first}")
        assert done == {"deleted_fact_id": first, "ref": f"f{first}"}
        done = await call(session, "delete_fact", id=second)  # a number is a fact, as before
        assert done == {"deleted_fact_id": second, "ref": f"f{second}"}
        left = {f["id"] for f in (await call(session, "get_user_profile"))["facts"]}
        assert left == facts - {first, second}

        for bad in ("p", "x3", "p0", "f 3 4"):
            message = await error(session, "delete_fact", {"id": bad})
            assert message.startswith("delete_fact: id must be") and "p3" in message, message
        message = await error(session, "delete_fact", {"id": "p99999"})
        assert "not found" in message
        assert {f["id"] for f in (await call(session, "get_user_profile"))["facts"]} == left

    run(vault, home, body)


def test_forget_page_names_profile_entries_by_ref(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        page = await call(session, "add_memory", user_input="I work as a data scientist.")
        await until_consolidated(session)
        done = await call(session, "forget_page", id=page["page"]["id"])
        assert done["deleted_profile_entries"]
        assert all(e["id"] == e["ref"] for e in done["deleted_profile_entries"])

    run(vault, home, body)


def size(result: dict) -> int:
    return len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode())


def test_retrieve_memory_lists_a_page_once_and_can_be_made_small(home):
    """max_results 1 on a 20-page vault sent one older page, the recent queue again, 10 facts
    and 25 previews (15.7 KB): a recent page is no longer repeated in `pages`, and max_recent,
    max_facts and include_memories_used make the result smaller."""
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:
        for i in range(20):  # the best matches are the newest, in the recent queue
            memory.add_memory(
                f"Trip {i}: we hiked the ridge near Lake Tahoe, I love hiking there."
                if i >= 17 else f"Note {i}: the weather at Lake Tahoe was mild today.",
                f"Noted {i}: Lake Tahoe.",
            )
            memory.add_fact(f"Went on hiking trip number {i} near Lake Tahoe")

    async def body(session: ClientSession) -> None:
        full = await call(session, "retrieve_memory", query="hiking Lake Tahoe", max_results=1)
        assert len(full["pages"]) <= 1 and full["recent"]
        recent = {p["id"] for p in full["recent"]}
        assert not recent & {p["id"] for p in full["pages"]}
        assert any("score" in p and p["found_by"] for p in full["recent"])  # found, said there
        used = [(m["kind"], m["id"]) for m in full["memories_used"]]
        assert len(used) == len(set(used))

        small = await call(
            session,
            "retrieve_memory",
            query="hiking Lake Tahoe",
            max_results=1,
            max_recent=2,
            max_facts=2,
            include_memories_used=False,
        )
        assert [p["id"] for p in small["recent"]] == [p["id"] for p in full["recent"][:2]]
        assert small["facts"] == full["facts"][:2] and len(small["knowledge"]) <= 2
        assert "memories_used" not in small
        assert len(small["pages"]) == 1  # a recent page left out is an older page again
        assert size(small) < size(full) / 2

        trimmed = await call(session, "retrieve_memory", query="hiking Lake Tahoe",
                             max_recent=0, max_facts=0)  # fmt: skip
        assert trimmed["recent"] == [] and trimmed["facts"] == []
        kinds = {m["kind"] for m in trimmed["memories_used"]}
        assert "fact" not in kinds and {m["tier"] for m in trimmed["memories_used"]} != {"recent"}

    run(vault, home, body)


def test_text_of_spaces_alone_is_refused_like_empty_text(home):
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        await call(session, "add_memory", user_input="I love rock climbing.")
        await until_consolidated(session)
        facts = (await call(session, "list_facts"))["total"]
        for tool, arguments, name in [
            ("retrieve_memory", {"query": "   "}, "query"),
            ("retrieve_memory", {"query": "\n\t "}, "query"),
            ("add_fact", {"text": "  "}, "text"),
            ("add_memory", {"user_input": "  ", "agent_response": "\n"}, "user_input"),
        ]:
            message = await error(session, tool, arguments)
            assert message.startswith(f"{tool}: {name}") and "empty" in message, message
        assert (await call(session, "list_facts"))["total"] == facts
        assert (await call(session, "memory_status"))["vault"]["pages"] == 1

    run(vault, home, body)


def test_server_info_gives_the_package_version_in_both_modes(home):
    vault = make_vault(home)
    seen = []

    async def body(session: ClientSession) -> None:
        seen.append((session.server_info.name, session.server_info.version))

    run(vault, home, body)
    serve_and_run(home, ["--vault-path", str(vault), "--compat", "reference"], body)
    assert version()  # e.g. 0.1.0, what `memoryos --version` prints
    assert [v for _, v in seen] == [version(), version()], seen
