"""A message the full disk kept out, in the message box: quitting asks first (it is nowhere
else), and Regenerate pressed again while the disk is still full draws the earlier answer
again. The disk is filled with the vault's own limit, as in test_gui_disk_full.py."""

from __future__ import annotations

import pytest

from tests.gui.test_gui_disk_full import LONG_ANSWER, QUESTION
from tests.gui_steps import (
    keep_looking,
    regenerate_on_a_full_disk,
    restarted_window,
    send_on_a_full_disk,
)
from tests.helpers import fill_disk

pytestmark = pytest.mark.gui


def answer_quit_box(choice: str, seen: dict) -> None:
    """When a modal box opens, keep its text and press the button labelled `choice`; looks
    for 2 s, so a box that never opens leaves `seen` empty instead of hanging the test."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    def look() -> bool:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            return False
        seen["text"] = f"{box.text()} {box.informativeText()}"
        seen["buttons"] = [b.text() for b in box.buttons()]
        seen["default"] = box.defaultButton().text()
        next(b for b in box.buttons() if b.text() == choice).click()
        return True

    keep_looking(look, tries=100)


def test_cancel_keeps_the_window_and_the_message(qtbot, window, memory, chat):
    send_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20, spare=2)
    seen: dict = {}
    answer_quit_box("Cancel", seen)
    window.quit_action.trigger()  # Ctrl+Q
    assert "not saved" in seen["text"] and "Quit anyway" in seen["buttons"]
    assert seen["default"] == "Cancel"
    assert window.isVisible() and not window.closing
    assert window.composer.input.toPlainText() == QUESTION
    window.composer.input.clear()  # the fixture's close quits without asking


def test_quit_anyway_closes(qtbot, window, memory, chat):
    send_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20, spare=2)
    seen: dict = {}
    answer_quit_box("Quit anyway", seen)
    assert window.close()
    assert "not saved" in seen["text"]
    assert not window.isVisible() and window.session is None
    # The question was nowhere else: the next start has nothing to give back.
    again = restarted_window(qtbot, type(memory).open(memory.path, background=False,
                                                      embedder=memory.embedder), chat)
    qtbot.waitUntil(lambda: not again.session.pool.active)
    assert again.composer.input.toPlainText() == ""
    again.close()


def test_a_message_whose_record_the_full_disk_kept_out_too_asks(qtbot, window, memory, chat):
    long_question = "Tell me about the lighthouse and its keeper, please. " * 600
    # the question's record does not fit either
    done = send_on_a_full_disk(qtbot, window, memory, chat, long_question, LONG_ANSWER, spare=0)
    assert getattr(done, "kept_question", None) is None
    seen: dict = {}
    answer_quit_box("Cancel", seen)
    window.close()
    assert "not saved" in seen["text"] and window.isVisible()
    assert window.composer.input.toPlainText() == long_question
    window.composer.input.clear()


def test_no_question_once_the_box_holds_something_else(qtbot, window, memory, chat):
    send_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20, spare=2)
    window.composer.input.setPlainText("Something else")
    seen: dict = {}
    answer_quit_box("Cancel", seen)
    window.close()
    assert not seen and not window.isVisible()


def test_no_question_after_a_regeneration_the_full_disk_kept_out(qtbot, window, memory, chat):
    regenerate_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20)
    assert window.composer.input.toPlainText() == QUESTION
    seen: dict = {}
    answer_quit_box("Cancel", seen)
    window.close()
    assert not seen and not window.isVisible()


def test_regenerate_twice_on_a_full_disk_draws_the_earlier_answer(qtbot, window, memory, chat):
    """The second press came while the first failure's redraw was still reading: it took the
    exchange not stored for one never stored, asked the question as a new one, and its
    failure marked the earlier, stored exchange "not saved"."""
    chat.queue("A short telling.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.send(QUESTION)
    fill_disk(memory, spare=2)
    chat.queue(LONG_ANSWER * 20, LONG_ANSWER * 20)
    with qtbot.waitSignal(window.answer_finished, timeout=20_000):
        window.regenerate_action.trigger()
    window.regenerate_action.trigger()  # at once, as a double press does
    qtbot.waitUntil(lambda: not window.session.generating and not window.reloading, timeout=20_000)
    with qtbot.waitSignal(window.conversation_shown, timeout=20_000):
        window.regenerate_action.trigger()  # once the earlier answer is drawn again
    assert [(m.text, m.page_id, m.not_saved) for m in window.view.messages] == [
        (QUESTION, 1, False), ("A short telling.", 1, False)
    ]
    assert "(no answer)" not in window.view.plain_text()
    assert "not saved" in window.view.plain_text()
    assert window.composer.input.toPlainText() == QUESTION and window._editing == 1
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        (QUESTION, "A short telling.")
    ]
    window.composer.input.clear()
