"""The page an agent already stored under an external id, so a retried add_memory is not stored
twice, even by two processes (two MCP servers on one vault) adding the same id at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.records import Page, external_ids_of


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


class _Taken(Exception):
    """Raised in the transaction of the page being written when another process stored one of
    its ids first: the page is rolled back, and `page` (the other one) is the answer."""

    def __init__(self, page: Page) -> None:
        super().__init__(f"external id already held by page {page.id}")
        self.page = page


def add_once(
    memory: Any, external_ids: tuple[str, ...], add: Callable[[Callable[[], None]], Page]
) -> tuple[Page, bool]:
    """(the page stored under any of `external_ids`, True), or (the page `add` stores, False).

    `add(check)` stores the exchange as add_memory does: it embeds with no lock held (the
    model may take seconds, or still be loading: holding the write lock meanwhile made another
    MCP server's add_memory fail with "busy" after the 10 s timeout), then writes the page in
    one short transaction and calls `check` inside it. If another process (two MCP servers on
    one vault) stored one of the ids since the lookup, the vault's unique key kept its page,
    `check` sees that and rolls this page back, and that page is returned. A page already
    stored is found without taking the lock (a retry does not queue behind other writers)."""
    vault = memory.vault
    stored = _stored(vault, external_ids)
    if stored is not None:
        return stored, True

    def check() -> None:
        written = vault.newest_page_id()  # ours: this transaction holds the write lock
        for key in external_ids:
            page = vault.external_id_page(key)
            if page is not None and page.id != written:
                raise _Taken(page)

    try:
        return add(check), False
    except _Taken as taken:
        return taken.page, True


def _stored(vault: Any, external_ids: tuple[str, ...]) -> Page | None:
    """The page holding the first of `external_ids` the vault knows, or None."""
    for key in external_ids:
        page = vault.external_id_page(key)
        if page is not None:
            return page
    return None
