"""`memoryos facts list` shows a fact that says "next Friday" with the day it meant, as the
model's prompt reads it: worked out from when it was said, never from today's date."""

from __future__ import annotations

import json

from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def test_facts_list_shows_the_day_a_plan_meant(tmp_path, home):
    transcript = tmp_path / "chat.json"
    said = [  # a Thursday: "next Friday" is the Friday of the following week
        {"role": "user", "content": "Next Friday I fly to Lisbon.",
         "timestamp": "2025-11-13T10:00:00Z"},
        {"role": "assistant", "content": "Have a good trip!"},
    ]  # fmt: skip
    transcript.write_text(json.dumps(said), encoding="utf-8")
    assert run_cli("import", str(transcript), "--create", *FAKE, home=home).returncode == 0

    listing = run_cli("facts", *FAKE, "list", home=home)

    assert listing.returncode == 0, listing.stderr.decode()
    text = listing.stdout.decode()
    assert "Next Friday [21 November 2025] I fly to Lisbon." in text
    # what is stored is what was said: the JSON for scripts keeps the words
    data = json.loads(run_cli("facts", *FAKE, "list", "--json", home=home).stdout)
    assert [f["text"] for f in data["facts"]] == ["Next Friday I fly to Lisbon."]
