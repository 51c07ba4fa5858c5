"""`memoryos forget page ID` takes ids a person can find: `memoryos conversations --pages ID`
lists a conversation's exchanges with them (export may be off by policy, and the app's privacy
panel shows none), and the help says where they are."""

from __future__ import annotations

import json

from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def test_the_page_ids_forget_takes_are_listed_per_conversation(tmp_path, home):
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([
        {"user": "I planted tomatoes.", "assistant": "Noted.", "timestamp": "2024-05-01T10:00:00Z"},
        {"user": "I am seeing Dr Quillfeather.", "assistant": "Noted.",
         "timestamp": "2024-05-01T11:00:00Z"},
    ]), encoding="utf-8")  # fmt: skip
    done = run_cli("import", str(transcript), "--create", "--no-consolidate", *FAKE, home=home)
    assert done.returncode == 0, done.stderr.decode()
    (conversation,) = json.loads(run_cli("conversations", "--json", *FAKE, home=home).stdout)

    listed = run_cli("conversations", "--pages", conversation["id"], *FAKE, home=home)
    assert listed.returncode == 0, listed.stderr.decode()
    lines = listed.stdout.decode().splitlines()
    assert len(lines) == 2
    assert "tomatoes" in lines[0] and "Quillfeather" in lines[1]  # oldest first
    data = json.loads(run_cli("conversations", "--pages", conversation["id"], "--json", *FAKE,
                              home=home).stdout)
    assert [line.split()[0] for line in lines] == [str(p["id"]) for p in data]

    forgot = run_cli("forget", "page", str(data[1]["id"]), "--yes", *FAKE, home=home)
    assert forgot.returncode == 0, forgot.stderr.decode()
    left = run_cli("conversations", "--pages", conversation["id"], *FAKE, home=home)
    assert "Quillfeather" not in left.stdout.decode() and "tomatoes" in left.stdout.decode()

    unknown = run_cli("conversations", "--pages", "no-such-id", *FAKE, home=home)
    assert unknown.returncode != 0
    assert "`memoryos conversations` lists the ids" in unknown.stderr.decode()


def test_forget_help_names_a_place_that_shows_page_ids(home):
    helped = " ".join(run_cli("forget", "--help", home=home).stdout.decode().split())
    assert "privacy panel" not in helped  # it shows no ids
    assert "`memoryos conversations --pages CONVERSATION_ID` lists them" in helped
