"""Switch memory before an answer's first word, then Cancel: the conversation shows what the
vault holds. The question, never stored, is back in the message box and not drawn above it
too as a stopped exchange."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import create_vault, shown_dialog, switch_dialog, switch_open_button

pytestmark = pytest.mark.gui

EARLIER = "My dog is called Rex and he loves the beach."
QUESTION = "Remember that my dentist appointment is on Friday at 9."


def _ask_slowly(qtbot, window) -> None:
    """Send QUESTION; its answer's first word is a second away."""
    window.session.mem.chat.chunk_delay = 1.0
    window.composer.input.setPlainText(QUESTION)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert window.session.generating


def _switch_and_cancel(qtbot, window, opener) -> None:
    """Switch memory → a new memory "family" → Open, then Cancel on its first-run dialog."""
    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, "family")
    first = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(
        switch_open_button(dialog), Qt.MouseButton.LeftButton))
    first.quit_button.click()  # Cancel: this memory goes on


@pytest.mark.parametrize("earlier", [True, False], ids=["conversation", "new chat"])
def test_a_cancelled_switch_draws_only_what_the_vault_holds(
    qtbot, memory_keyring, send, desktop, earlier
):
    """The question came back in the box, and the conversation still showed it with
    "Stopped" under it: an exchange the vault never stored, sent again it was there twice."""
    window, opener = desktop()
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    mem = window.session.mem
    if earlier:
        send(window, EARLIER)
    _ask_slowly(qtbot, window)
    _switch_and_cancel(qtbot, window, opener)
    assert window.session.mem is mem
    box, view = window.composer.input, window.view
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    qtbot.waitUntil(lambda: QUESTION not in view.plain_text(), timeout=5_000)

    stored = [page.user_input for page in mem.pages()]
    assert stored == ([EARLIER] if earlier else [])
    assert "Stopped" not in view.plain_text()
    assert [m.text for m in view.messages if m.role == "user"] == stored
    assert (EARLIER in view.plain_text()) == earlier

    # Sent from the box, the question is drawn once, with its answer
    mem.chat.chunk_delay = 0.0
    mem.chat.queue("Noted: the dentist on Friday at 9.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert done.args[0].page is not None and not done.args[0].stopped
    assert view.plain_text().count(QUESTION) == 1
    assert [m.text for m in view.messages if m.role == "user"] == [*stored, QUESTION]
    assert [page.user_input for page in mem.pages()] == [*stored, QUESTION]
