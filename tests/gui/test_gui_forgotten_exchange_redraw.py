"""An exchange forgotten while its conversation is open leaves the screen: forgotten in the
privacy panel (the facade call it makes) or by another program on the same vault (the MCP
server's forget_page), not only by /forget."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("quick_outside_checks")]

KEPT = "My bike is a green Brompton"
GONE = "I am seeing Dr Quillfeather for my anxiety medication"


def _two_exchanges(window, send):
    send(window, KEPT)
    gone = send(window, GONE)
    assert GONE in window.view.plain_text()
    return gone.page


def test_an_exchange_forgotten_in_privacy_leaves_the_open_conversation(
    qtbot, window, memory, send
):
    page = _two_exchanges(window, send)

    memory.forget_pages([page.id])  # what Privacy's "Delete and forget the exchange" runs

    qtbot.waitUntil(lambda: GONE not in window.view.plain_text(), timeout=5000)
    assert KEPT in window.view.plain_text()
    assert page.id not in window.view.page_ids()


def test_an_exchange_forgotten_by_another_program_leaves_the_screen(
    qtbot, window, elsewhere, send
):
    page = _two_exchanges(window, send)
    qtbot.waitUntil(lambda: window.session._outside_version is not None)

    # What the MCP server's forget_page does: its own connection to the vault.
    with elsewhere() as server:
        server.forget_page(page.id)

    qtbot.waitUntil(lambda: GONE not in window.view.plain_text(), timeout=5000)
    assert KEPT in window.view.plain_text()
    # A question asked afterwards does not bring it back.
    send(window, "What colour is my bike?")
    assert GONE not in window.view.plain_text()
