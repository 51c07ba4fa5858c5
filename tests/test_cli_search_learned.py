"""`memoryos search` looks through the items `memoryos facts list` shows: the refs it gives are
the listing's (what `facts delete` takes), facts before profile entries, each with its text as
said, and an item is found only when it holds every word."""

from __future__ import annotations

import json

from tests.helpers import run_cli
from tests.test_cli_facts_search import FAKE
from tests.test_cli_facts_search import _import as import_lisbon_and_nurse


def _import(tmp_path, home) -> dict:
    """A Lisbon trip and a nurse in Toronto; what `facts list --json` shows, by ref."""
    import_lisbon_and_nurse(tmp_path, home)
    listed = json.loads(run_cli("facts", *FAKE, "list", "--json", home=home).stdout)
    return {item["ref"]: item for item in listed["facts"] + listed["profile"]}


def _found(home, *words: str) -> list[tuple[str, str]]:
    """The learned items `memoryos search WORDS --json` gives, as (ref, text)."""
    done = run_cli("search", *words, "--json", *FAKE, home=home)
    assert done.returncode == 0, done.stderr.decode()
    return [(item["ref"], item["text"]) for item in json.loads(done.stdout)["facts"]]


def test_search_gives_the_listings_refs_facts_first(tmp_path, home):
    listed = _import(tmp_path, home)
    found = _found(home, "nurse")
    kinds = [ref[0] for ref, _ in found]
    assert "f" in kinds and "p" in kinds, found  # the fact and the profile entry both hold it
    assert kinds == sorted(kinds)  # facts (f) before profile entries (p)
    for ref, text in found:
        assert ref in listed and "nurse" in text.casefold()
        item = listed[ref]
        # a fact's text as said; a profile entry's value with what it is about
        assert text == item["text"] if ref.startswith("f") else item["value"] in text

    # the terminal's lines show the same refs and texts, in the same order
    out = run_cli("search", "nurse", *FAKE, home=home).stdout.decode()
    lines = out.split("Facts and profile entries:\n", 1)[1].splitlines()
    assert [tuple(line.split(maxsplit=1)) for line in lines] == found


def test_search_finds_an_item_only_with_every_word_and_as_said(tmp_path, home):
    listed = _import(tmp_path, home)
    both = _found(home, "nurse", "toronto")
    assert [ref for ref, _ in both] == [
        ref for ref, item in listed.items() if ref.startswith("f") and "nurse" in item["text"]
    ]
    # "Next Friday" as said, not with the day it meant as `facts list` dates it
    friday = _found(home, "friday")
    assert len(friday) == 1 and "Lisbon" in friday[0][1] and "[" not in friday[0][1]
    assert _found(home, "nurse", "lisbon") == []

    # a deleted profile entry is no longer found; the fact still is
    profile = next(ref for ref, _ in _found(home, "nurse") if ref.startswith("p"))
    assert run_cli("facts", *FAKE, "delete", profile, "--yes", home=home).returncode == 0
    assert [ref[0] for ref, _ in _found(home, "nurse")] == ["f"]
