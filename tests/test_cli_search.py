"""`memoryos search WORDS`: what the app's sidebar search finds, from the terminal (there was no
way to search one's memory there: `facts list --search` covers facts only)."""

from __future__ import annotations

import json

from tests.helpers import import_into_a_new_vault, run_cli

FAKE = ("--embedder", "fake")


def _import(tmp_path, home) -> None:
    data = [
        {"user": "I play the cello in a quartet on Thursdays.", "assistant": "Lovely.",
         "timestamp": "2025-03-01T10:00:00Z"},
        {"user": "My flight to Lisbon leaves at 7am.", "assistant": "Safe travels.",
         "timestamp": "2025-03-02T10:00:00Z"},
        {"user": "I bought new cello strings.", "assistant": "Nice.",
         "timestamp": "2025-03-03T10:00:00Z"},
    ]  # fmt: skip
    done = import_into_a_new_vault(tmp_path, home, data)
    assert done.returncode == 0, done.stderr.decode()


def test_search_finds_the_exchanges_and_facts_that_hold_the_words(tmp_path, home):
    _import(tmp_path, home)
    found = run_cli("search", "cello", *FAKE, home=home)
    assert found.returncode == 0, found.stderr.decode()
    out = found.stdout.decode()
    assert out.count("page ") == 2 and "Lisbon" not in out
    assert "[cello]" in out  # the word marked (no terminal: brackets, not bold)
    assert "Facts and profile entries:" in out and "quartet" in out

    # the last word may be unfinished, as in the app's search
    data = json.loads(run_cli("search", "lisb", "--json", *FAKE, home=home).stdout)
    assert len(data["exchanges"]) == 1 and "Lisbon" in data["exchanges"][0]["snippet"]
    assert data["exchanges"][0]["date"].startswith("2025-03-02")
    page_id = data["exchanges"][0]["page_id"]

    # the page id it shows is the one `forget page` takes
    assert run_cli("forget", "page", str(page_id), "--yes", *FAKE, home=home).returncode == 0
    gone = run_cli("search", "lisbon", *FAKE, home=home)
    assert gone.returncode == 1 and "Nothing holds" in gone.stdout.decode()


def test_search_without_words_or_with_a_bad_limit_says_what_to_do(tmp_path, home):
    _import(tmp_path, home)
    assert run_cli("search", *FAKE, home=home).returncode == 2  # argparse: WORDS required
    bad = run_cli("search", "cello", "--limit", "0", *FAKE, home=home)
    assert bad.returncode == 2 and "--limit" in bad.stderr.decode()
    one = run_cli("search", "cello", "--limit", "1", *FAKE, home=home).stdout.decode()
    assert one.count("page ") == 1 and "--limit N for more" in one


def test_search_shows_the_words_as_said_marked_whole_with_the_count(tmp_path, home):
    """`memoryos search Lisbon March` printed "last Tuesday [24 [March]…": the snippet was cut
    inside the date the index holds resolved. It shows what was typed, the matching relative
    date marked whole, and how many exchanges were found."""
    data = [
        {"user": "Lisbon was lovely, we walked for hours with my sister last Tuesday and it was "
                 "good and then we ate custard tarts until late",
         "assistant": "That sounds like a lovely break.", "timestamp": "2026-03-27T12:00:00Z"},
        {"user": "In March I flew to Lisbon again", "assistant": "Twice in a month!",
         "timestamp": "2026-03-30T12:00:00Z"},
    ]  # fmt: skip
    assert import_into_a_new_vault(tmp_path, home, data).returncode == 0

    found = run_cli("search", "Lisbon", "March", *FAKE, home=home)
    assert found.returncode == 0, found.stderr.decode()
    out = found.stdout.decode()
    assert out.count("page ") == 2 and "2 exchanges in 1 conversation" in out
    assert "[last Tuesday]" in out and "[Lisbon]" in out
    assert "2026]" not in out and "[24" not in out and "[[" not in out

    cut = run_cli("search", "Lisbon", "March", "--limit", "1", *FAKE, home=home).stdout.decode()
    assert cut.count("page ") == 1 and "(the first 1 of 2: --limit N for more)" in cut
