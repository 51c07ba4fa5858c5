"""The page an agent already stored under an external id, so a retried add_memory is not stored
twice, even by two processes (two MCP servers on one vault) adding the same id at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.records import Page, external_ids_of, turn_ids


def given_ids(metadata: dict[str, Any] | None) -> tuple[str, ...]:
    """The caller's ids for the exchange it adds: metadata["external_ids"], then
    metadata["external_id"], as text, each once (what the stored page will hold)."""
    return external_ids_of(metadata or {})


def differs(page: Page, user_input: str, agent_response: str) -> bool:
    """Does the page stored under an id hold other text than the exchange given again?"""
    return (page.user_input.strip(), page.agent_response.strip()) != (
        user_input.strip(),
        agent_response.strip(),
    )


def add_once(
    memory: Any, external_ids: tuple[str, ...], add: Callable[[], Page]
) -> tuple[Page, bool]:
    """(the page stored under any of `external_ids`, True), or (the page `add()` stores, False).

    The lookup and the insert are one write transaction: BEGIN IMMEDIATE holds the vault's
    write lock across processes, so a second process adding the same id waits, then finds the
    first one's page (the vault's unique key on external ids backs this). A page already
    stored is found without taking the lock (a retry does not queue behind other writers).
    `add` embeds inside the transaction: one exchange, a short hold."""
    vault = memory.vault
    stored = _stored(vault, external_ids)
    if stored is not None:
        return stored, True
    page = None
    try:
        with vault.transaction():
            stored = _stored(vault, external_ids)
            if stored is not None:
                return stored, True
            page = add()
    except BaseException:
        if page is not None:  # rolled back: the in-RAM vector copies must not keep it
            memory.page_mirror.remove([page.id])
            memory.turn_mirror.remove(turn_ids([page.id]))
        raise
    return page, False


def _stored(vault: Any, external_ids: tuple[str, ...]) -> Page | None:
    """The page holding the first of `external_ids` the vault knows, or None."""
    for key in external_ids:
        page = vault.external_id_page(key)
        if page is not None:
            return page
    return None
