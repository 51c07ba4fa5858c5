"""`memoryos facts list --search`: finds what the list shows, a fact's resolved date included."""

from __future__ import annotations

import json
import re

from tests.helpers import import_into_a_new_vault, run_cli

FAKE = ("--embedder", "fake")


def _import(tmp_path, home) -> str:
    """A conversation from a Monday that says "next Friday"; the listing it gives."""
    said = [
        {"role": "user", "content": "Next Friday I fly to Lisbon for a conference.",
         "timestamp": "2025-11-10T10:00:00Z"},
        {"role": "assistant", "content": "Have a good trip!"},
        {"role": "user", "content": "I work as a nurse in Toronto.",
         "timestamp": "2025-11-10T10:05:00Z"},
        {"role": "assistant", "content": "Noted."},
    ]  # fmt: skip
    assert import_into_a_new_vault(tmp_path, home, said).returncode == 0
    return run_cli("facts", *FAKE, "list", home=home).stdout.decode()


def _search(home, words: str, *more: str) -> str:
    return run_cli("facts", *FAKE, "list", "--search", words, *more, home=home).stdout.decode()


def test_search_finds_what_each_line_shows(tmp_path, home):
    listing = _import(tmp_path, home)
    lisbon = next(line for line in listing.splitlines() if "Lisbon" in line)
    resolved = re.search(r"Next Friday \[([^\]]+)\]", lisbon)
    assert resolved, lisbon  # the day "next Friday" meant, shown beside the words said
    fact_id = lisbon.split()[1]  # f1
    nurse = next(line for line in listing.splitlines() if re.search(r"^profile .*: nurse", line))
    shown = re.search(r"p\d+  (\S+: nurse)", nurse).group(1)  # identity/occupation: nurse
    for words in (resolved.group(1), resolved.group(1).upper(), f"{fact_id} ", "Next Friday ["):
        assert _search(home, words).splitlines() == [lisbon], words
    assert _search(home, shown).splitlines() == [nurse]
    # --json gives the same items the listing shows
    data = json.loads(_search(home, resolved.group(1), "--json"))
    assert [f["ref"] for f in data["facts"]] == [fact_id] and data["profile"] == []


def test_a_search_that_finds_nothing_says_so(tmp_path, home):
    _import(tmp_path, home)
    said = _search(home, "Madrid")
    assert "Madrid" in said and "Nothing learned yet" not in said  # things were learned


def test_a_profile_entry_whose_value_says_its_name_is_listed_once(tmp_path, home):
    """"pets/cat: Miso", not "pets/cat: Miso: cat: Miso"; the listing's words find it."""
    said = [
        {"role": "user", "content": "My cat is called Miso.", "timestamp": "2025-11-10T10:00:00Z"},
        {"role": "assistant", "content": "A lovely name."},
    ]  # fmt: skip
    assert import_into_a_new_vault(tmp_path, home, said).returncode == 0
    listing = run_cli("facts", *FAKE, "list", home=home).stdout.decode()
    (cat,) = [line for line in listing.splitlines() if line.startswith("profile ")]
    assert re.search(r"p\d+  pets/cat: Miso  \(", cat), cat
    assert _search(home, "pets/cat: Miso").splitlines() == [cat]
