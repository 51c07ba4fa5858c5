"""`memoryos status` and `memoryos import` count facts and profile entries apart, in the
words the app's status bar and /status use ("1 fact · 2 profile entries")."""

from __future__ import annotations

import json
import re

from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def test_status_and_the_import_summary_say_the_same_counts(tmp_path, home):
    """`memoryos status` said "facts 7" (no profile entries) and the import summary
    "0 in 0 topics, 1 facts"."""
    data = [
        {"role": "user", "content": "I work as a data scientist in San Francisco."},
        {"role": "assistant", "content": "Nice field."},
    ]
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps(data), encoding="utf-8")
    imported = run_cli("import", str(transcript), "--create", *FAKE, home=home)
    assert imported.returncode == 0, imported.stderr.decode()
    summary = next(line for line in imported.stderr.decode().splitlines()
                   if line.startswith("Memory: "))
    assert "1 facts" not in summary and "0 topics" in summary
    known = re.search(r"(\d+) facts? · (\d+) profile entr(?:y|ies)", summary)
    assert known, summary
    facts, profile = int(known.group(1)), int(known.group(2))
    assert (facts, profile) == (1, 2)  # the fake model learns one fact and two entries
    assert "1 fact · 2 profile entries" in summary

    status = run_cli("status", *FAKE, home=home).stdout.decode()
    assert "1 fact · 2 profile entries" in status
    assert not re.search(r"^facts\s+\d+$", status, re.MULTILINE)
