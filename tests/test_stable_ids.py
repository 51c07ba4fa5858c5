"""Stable ids: a forgotten page's id is never reused, and two processes on one vault agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import errors
from engine.api import MemoryOS


def _open(path: Path, embedder) -> MemoryOS:
    return MemoryOS.open(path, create=True, embedder=embedder, background=False)


def test_ids_of_forgotten_pages_and_facts_are_never_reused(memory):
    pages = [memory.add_memory(f"I visited museum number {i}", "Nice") for i in range(3)]
    fact = memory.add_fact("The user collects stamps.")
    memory.forget_page(pages[-1].id)
    memory.delete_fact(fact.id)
    assert memory.add_memory("I visited a zoo", "Fun").id == pages[-1].id + 1
    assert memory.add_fact("The user likes tea.").id == fact.id + 1


def test_app_and_mcp_server_on_one_vault_see_the_same_pages(tmp_path, memory_keyring, embedder):
    """Two MemoryOS instances on one file, as the app and the MCP server would be."""
    path = tmp_path / "shared.memoryos"
    app = _open(path, embedder)
    server = _open(path, embedder)
    try:
        kayak = app.add_memory("I bought a red kayak for the lake", "Have fun paddling")
        violin = server.add_memory("I started violin lessons on Tuesdays", "Practice daily")
        # Each side finds the other's page (vector mirrors pick up the other process's rows).
        assert kayak.id in server.retrieve("red kayak lake").page_ids()
        assert violin.id in app.retrieve("violin lessons Tuesdays").page_ids()

        # The server forgets the app's page; the app must stop finding it at once...
        server.forget_page(kayak.id)
        assert kayak.id not in app.retrieve("red kayak lake").page_ids()
        assert kayak.id not in [p.id for p in app.pages()]
        with pytest.raises(errors.NotFoundError):
            app.page(kayak.id)
        # ...and a page the app adds next takes a new id, so the server cannot confuse it
        # with the forgotten one.
        canoe = app.add_memory("I rent a canoe on Sundays", "Sounds relaxing")
        assert canoe.id > violin.id > kayak.id
        assert canoe.id in server.retrieve("canoe Sundays").page_ids()
        with pytest.raises(errors.NotFoundError):
            server.forget_page(kayak.id)  # a stale id names nothing, not someone else's page

        # The app forgets the server's page; same the other way round.
        app.forget_page(violin.id)
        assert violin.id not in server.retrieve("violin lessons Tuesdays").page_ids()
        assert sorted(p.id for p in server.pages()) == [canoe.id]
        assert sorted(p.id for p in app.pages()) == [canoe.id]

        # Facts too: one side deletes, the other's fact search forgets it.
        fact = app.add_fact("The user paddles a canoe every Sunday.")
        assert [f.fact.id for f in server.retrieve("canoe Sunday").facts][:1] == [fact.id]
        server.delete_fact(fact.id)
        assert fact.id not in [f.fact.id for f in app.retrieve("canoe Sunday").facts]
    finally:
        app.close()
        server.close()


def test_mirror_reloads_when_another_process_deletes_and_adds_the_same_count(
    tmp_path, memory_keyring, embedder
):
    """The old row-count sync missed a delete plus an add between two looks."""
    path = tmp_path / "shared.memoryos"
    first = _open(path, embedder)
    second = _open(path, embedder)
    try:
        old = first.add_memory("My locker code is in the blue notebook", "Noted")
        assert old.id in second.retrieve("locker code notebook").page_ids()  # mirror loaded
        first.forget_page(old.id)
        new = first.add_memory("I water the ficus on Mondays", "Good habit")
        assert old.id not in second.retrieve("locker code notebook").page_ids()
        found = second.page_mirror.search(embedder.embed_one("locker code notebook"), 5)
        assert [row_id for row_id, _ in found] == [new.id]
    finally:
        first.close()
        second.close()


def test_only_the_newest_migration_backup_is_kept(tmp_path, fail_keyring, embedder):
    path = tmp_path / "old.memoryos"
    for _ in range(2):
        with MemoryOS.open(
            path, create=True, passphrase="long enough pass", embedder=embedder, background=False
        ) as mem:
            with mem.vault.transaction():  # pretend the last step is new again
                mem.vault.conn.execute("DELETE FROM migrations WHERE name='0004_stable_ids'")
    with MemoryOS.open(
        path, passphrase="long enough pass", embedder=embedder, background=False
    ) as mem:
        assert "0004_stable_ids" in mem.vault.schema_steps()
    assert len(list(tmp_path.glob("old.memoryos.backup-*"))) == 1
