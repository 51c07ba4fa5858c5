"""`memoryos import` run again after a run stopped part-way: it says how many exchanges were
already there and continues the conversation the transcript went into."""

from __future__ import annotations

import json

from engine import paths
from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")
PASSPHRASE = "correct horse battery"


def test_a_resumed_import_continues_its_conversation_and_says_what_it_skipped(tmp_path, home):
    said = [
        {"user": f"Day {n}: I watered the tomatoes on the balcony.", "assistant": "Good.",
         "timestamp": f"2025-03-{n:02d}T10:00:00Z"}
        for n in range(1, 11)
    ]  # fmt: skip
    part = tmp_path / "part.json"  # what a run killed part-way had stored
    part.write_text(json.dumps(said[:4]), encoding="utf-8")
    whole = tmp_path / "big.json"
    whole.write_text(json.dumps(said), encoding="utf-8")
    first = run_cli("import", str(part), "--create", "--no-consolidate", *FAKE, home=home)
    assert first.returncode == 0, first.stderr.decode()

    again = run_cli("import", str(whole), "--no-consolidate", *FAKE, home=home)

    err = again.stderr.decode()
    assert again.returncode == 0, err
    assert "4 of 10 exchanges are already in this vault" in err and "other 6" in err
    memory = MemoryOS.open(paths.vault_path("default"), passphrase=PASSPHRASE,
                           embedder=HashEmbedder(384), background=False)  # fmt: skip
    try:
        conversations = memory.conversations()
        assert len(conversations) == 1  # one transcript, one conversation
        pages = memory.pages(conversations[0].id)
        assert [p.user_input for p in pages] == [s["user"] for s in said]
    finally:
        memory.close()
