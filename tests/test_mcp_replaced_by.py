"""An exchange retrieve_memory marks out of date says what replaced it: the facts current in
its place, with the refs delete_fact takes, read by an agent over stdio with the SDK client."""

from __future__ import annotations

from mcp import ClientSession

from tests.test_mcp_server import call, make_vault, run, until_consolidated


def test_an_out_of_date_exchange_names_the_facts_current_in_its_place(home):
    """Chorlton, then Lisbon, then Porto: "I live in Chorlton" came back `out_of_date` with
    nothing saying where the person lives now. Each replaced exchange names the Porto fact (the
    one current now, not the Lisbon one that replaced Chorlton first); the others say nothing
    more than before."""
    vault = make_vault(home)

    async def body(session: ClientSession) -> None:
        said = {}
        for town, text in (("Chorlton", "I live in Chorlton."), ("Lisbon", "I moved to Lisbon."),
                           ("Porto", "I moved to Porto in June."),
                           ("climbing", "I love rock climbing.")):  # fmt: skip
            said[town] = (await call(session, "add_memory", user_input=text))["page"]["id"]
        await until_consolidated(session)
        current = {f["ref"]: f for f in (await call(session, "list_facts"))["facts"]}
        porto = [f for f in current.values() if said["Porto"] in f["source_page_ids"]]
        assert len(porto) == 1, current

        found = await call(session, "retrieve_memory", query="where do I live?")
        pages = {p["id"]: p for p in found["pages"] + found["recent"]}
        for town in ("Chorlton", "Lisbon"):
            page = pages[said[town]]
            assert page["out_of_date"] is True
            assert page["replaced_by"] == [
                {"id": porto[0]["id"], "ref": porto[0]["ref"], "text": porto[0]["text"]}
            ], page
        assert all("replaced_by" not in p for p in pages.values() if p["out_of_date"] is False)
        assert "replaced_by" not in pages[said["Porto"]]

        # the ref is the one delete_fact takes: with the Porto fact gone, Lisbon holds again
        await call(session, "delete_fact", id=porto[0]["ref"])
        again = await call(session, "retrieve_memory", query="where do I live?")
        pages = {p["id"]: p for p in again["pages"] + again["recent"]}
        assert pages[said["Lisbon"]]["out_of_date"] is False
        lisbon = pages[said["Chorlton"]]["replaced_by"]
        assert [f["ref"] for f in lisbon] == [
            f["ref"] for f in (await call(session, "list_facts"))["facts"]
            if said["Lisbon"] in f["source_page_ids"]
        ]  # fmt: skip

    run(vault, home, body)
