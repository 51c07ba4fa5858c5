"""A backup's message says that what is forgotten after it is made stays in it, as it does."""

from __future__ import annotations

import pytest

from engine import paths
from tests.helpers import open_fast

PASSPHRASE = "correct horse battery"
SECRET = "My bank PIN is 4417."


@pytest.mark.parametrize("own_passphrase", [False, True])
def test_the_backup_says_it_keeps_what_is_forgotten_after_it(tmp_path, own_passphrase):
    mem = open_fast(paths.vault_path("default"), True, PASSPHRASE)
    try:
        page = mem.add_memory(SECRET, "Noted.", 1_700_000_000.0)
        copy = PASSPHRASE + " copy" if own_passphrase else None
        done = mem.backup(tmp_path / "backup.memoryos", passphrase=copy)
        mem.forget_page(page.id)
        assert SECRET not in [p.user_input for p in mem.pages()]
    finally:
        mem.close()
    kept = open_fast(done.path, False, copy or PASSPHRASE)
    try:
        assert SECRET in [p.user_input for p in kept.pages()]  # what the message must say
    finally:
        kept.close()
    said = done.how_to_open()
    assert "stays in this backup" in said and "forget" in said
