"""`memoryos conversations` on a vault damaged on disk (bytes overwritten in its middle): it
lists what can be read, says how much could not be and what to do, and exits 1, as export
does. It refused with the damaged-vault error, and a person could not see what it held."""

from __future__ import annotations

import re

import pytest

from engine import paths
from tests.damaged_vault import EXCHANGES, PASSPHRASE, damage, make_vault, said
from tests.test_backup import open_fast
from tests.test_damaged_vault import cli, names_what_to_do


def middle_page(path, name: str) -> int:
    """A page in the middle of table or index `name` (read before any damage)."""
    memory = open_fast(path, False, PASSPHRASE)
    try:
        found = [row[0] for row in memory.vault.conn.execute(
            "SELECT pageno FROM dbstat WHERE name=? ORDER BY path", (name,))]  # fmt: skip
    finally:
        memory.close()
    assert len(found) >= 3, f"{name} has too few pages to damage one in its middle"
    return found[len(found) // 2]


@pytest.fixture
def vault(home):
    """The vault `--vault damaged` (one conversation of EXCHANGES exchanges), its id, and the
    pages to damage: of the index that lists conversations, and of the exchanges."""
    path = paths.vault_path("damaged")
    make_vault(path)
    memory = open_fast(path, False, PASSPHRASE)
    try:
        [conversation] = memory.conversations()
    finally:
        memory.close()
    pages = {name: middle_page(path, name) for name in ("pages_conversation", "pages")}
    return path, conversation.id, pages


def no_sqlite_words(err: str) -> None:
    assert "Traceback" not in err and "malformed" not in err and "apsw" not in err


def test_the_list_of_a_damaged_vault_shows_what_can_be_read(vault, home):
    path, conversation, pages = vault
    damage(path, pages["pages_conversation"])  # what the list was read through
    damage(path, pages["pages"])  # and some exchanges
    code, out, err = cli("conversations", home=home)
    assert code == 1
    [lost] = re.findall(r"damaged: (\d+) exchanges could not be read \(not counted above\)", err)
    lost = int(lost)
    assert 0 < lost < EXCHANGES // 2
    [line] = out.splitlines()
    assert line.startswith(conversation) and f"{EXCHANGES - lost} exchanges" in line
    assert said(0) in line  # its title
    names_what_to_do(err)
    no_sqlite_words(err)
    code, out, err = cli("conversations", "--json", home=home)
    assert code == 1 and f'"exchanges": {EXCHANGES - lost}' in out
    assert "could not be read" in err


def test_a_damaged_index_lists_every_exchange_and_says_the_vault_is_damaged(vault, home):
    path, conversation, pages = vault
    damage(path, pages["pages_conversation"])
    code, out, err = cli("conversations", home=home)
    assert code == 1 and f"{EXCHANGES} exchanges" in out
    assert "everything shown was read" in err
    names_what_to_do(err)
    no_sqlite_words(err)


def test_the_exchanges_of_a_conversation_that_can_be_read_are_listed(vault, home):
    path, conversation, pages = vault
    damage(path, pages["pages"])
    code, out, err = cli("conversations", "--pages", conversation, home=home)
    assert code == 1
    [lost] = re.findall(r"(\d+) exchanges could not be read \(some may be of this", err)
    listed = out.splitlines()
    assert len(listed) == EXCHANGES - int(lost) and 0 < int(lost) < EXCHANGES // 2
    assert said(0)[:60] in listed[0] and said(EXCHANGES - 1)[:60] in listed[-1]
    names_what_to_do(err)
    no_sqlite_words(err)
