"""`memoryos facts delete`: the hint names the one exchange a fact came from, not its
whole conversation."""

from __future__ import annotations

import json
import re

from engine import paths
from tests.helpers import run_cli
from tests.test_cli import write_transcript

FAKE = ("--embedder", "fake")


def test_the_hint_forgets_the_exchange_the_fact_came_from_and_nothing_else(tmp_path, home):
    """It said `memoryos forget conversation ID`, which forgets every exchange of it."""
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    biscuit = next(f for f in data["facts"] if "Biscuit" in f["text"])
    deleted = run_cli("facts", "delete", biscuit["ref"], "--yes", *FAKE, home=home)
    out = deleted.stdout.decode()
    assert deleted.returncode == 0, deleted.stderr.decode()
    assert "forget conversation" not in out
    hint = re.search(r"`memoryos forget page (\d+)`", out)
    assert hint, out

    forgot = run_cli("forget", "page", hint.group(1), "--yes", *FAKE, home=home)
    assert forgot.returncode == 0, forgot.stderr.decode()
    from engine.api import MemoryOS
    from engine.backends.build import make_embedder

    mem = MemoryOS.open(paths.vault_path("default"), passphrase="correct horse battery",
                        embedder=make_embedder("fake"), background=False)  # as `--embedder fake`
    try:
        said = [page.user_input for page in mem.pages()]
    finally:
        mem.close()
    assert not any("greyhound" in text for text in said)  # the exchange the fact came from
    assert len(said) == 2  # the rest of its conversation stays
