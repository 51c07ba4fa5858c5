"""The page an agent already stored under an external id, so a retried add_memory is not stored
twice, even by two processes (two MCP servers on one vault) adding the same id at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.records import Page, turn_ids


def given_id(metadata: dict[str, Any] | None) -> str | None:
    """The caller's id for the exchange it adds: metadata["external_id"], as text."""
    value = (metadata or {}).get("external_id")
    return None if value is None or value == "" else str(value)


def add_once(memory: Any, external_id: str, add: Callable[[], Page]) -> tuple[Page, bool]:
    """(the page stored under `external_id`, True), or (the page `add()` stores, False).

    The lookup and the insert are one write transaction: BEGIN IMMEDIATE holds the vault's
    write lock across processes, so a second process adding the same id waits, then finds the
    first one's page (the vault's unique key on external ids backs this). A page already
    stored is found without taking the lock (a retry does not queue behind other writers).
    `add` embeds inside the transaction: one exchange, a short hold."""
    vault = memory.vault
    stored = vault.external_id_page(external_id)
    if stored is not None:
        return stored, True
    page = None
    try:
        with vault.transaction():
            stored = vault.external_id_page(external_id)
            if stored is not None:
                return stored, True
            page = add()
    except BaseException:
        if page is not None:  # rolled back: the in-RAM vector copies must not keep it
            memory.page_mirror.remove([page.id])
            memory.turn_mirror.remove(turn_ids([page.id]))
        raise
    return page, False
