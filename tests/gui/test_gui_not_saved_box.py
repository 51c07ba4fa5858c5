"""The message box after a full disk and an edit: a message the full disk kept out stays in
the box through Lock now and Switch memory (and says which memory it was not saved in), one
never asked shows no made-up answer, an edit left in the box at Switch memory replaces nothing
in the other memory, and Regenerate pressed while an edit waits in the box loses nothing. The
disk is filled with the vault's own limit, as in test_gui_disk_full.py."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest

from tests.gui.test_gui_disk_full import LONG_ANSWER, QUESTION
from tests.gui.test_gui_unanswered_lock_switch import _new_memory_dialog, _switch_back_to
from tests.gui_steps import create_vault, send_on_a_full_disk, shown_dialog, start_unlocked, unlock
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@contextmanager
def box_emptied(window):
    """The window's message box emptied at the end, failed or not: closed with a message the
    full disk kept out in it, the window asks first (pytest-qt closes it before fixtures end),
    and a failed test hung on that question."""
    try:
        yield window
    finally:
        window.composer.input.clear()


def _drawn(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.status.vault.text() not in ("", "Vault locked"))
    qtbot.waitUntil(lambda: not window.session.pool.active)


def _kept_out(qtbot, window) -> None:
    """QUESTION sent while its question's record fits and its exchange does not."""
    mem = window.session.mem
    send_on_a_full_disk(qtbot, window, mem, mem.chat, QUESTION, LONG_ANSWER * 20, spare=2)
    assert window.composer.input.toPlainText() == QUESTION


def _stored(path) -> tuple[list, list]:
    """The exchanges and the unanswered questions' records of the vault at `path` (closed)."""
    mem = open_fast(path, False, None)
    try:
        pages = [(p.user_input, p.agent_response) for p in mem.pages()]
        return pages, json.loads(mem.vault.get_meta("unanswered") or "[]")
    finally:
        mem.close()


# --- 1. a message the full disk kept out, through Lock now and Switch memory ---------------


def test_lock_now_keeps_it_in_the_box_with_its_note(qtbot, desktop, tmp_path, fail_keyring, send):
    window, opener = desktop(tmp_path / "v.memoryos")
    with box_emptied(window):
        _lock_now_keeps_it(qtbot, window, opener, send)


def _lock_now_keeps_it(qtbot, window, opener, send) -> None:
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    send(window, "My dog is called Biscuit.")
    _kept_out(qtbot, window)
    box, notice = window.composer.input, window.composer.notice
    said = notice.text()

    unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now), PASSPHRASE)
    _drawn(qtbot, window)
    assert box.toPlainText() == QUESTION  # once, not emptied, not given back twice
    assert notice.isVisible() and notice.text() == said
    assert "Biscuit" in window.view.plain_text()

    window.session.mem.chat.queue("Once upon a time, a keeper.")  # the disk has room again
    assert send(window, box.toPlainText()).page is not None
    assert box.toPlainText() == "" and not notice.isVisible()
    assert [p.user_input for p in window.session.mem.pages()] == [
        "My dog is called Biscuit.", QUESTION
    ]


def test_switch_memory_keeps_it_and_says_where_it_was_not_saved(
    qtbot, desktop, memory_keyring, send
):
    window, opener = desktop()
    with box_emptied(window):
        _switch_keeps_it(qtbot, window, opener, send)


def _switch_keeps_it(qtbot, window, opener, send) -> None:
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My dog is called Rex and he loves the beach.")
    default = window.session.mem.path
    _kept_out(qtbot, window)
    box, notice = window.composer.input, window.composer.notice
    said = notice.text()

    create_vault(qtbot, window, _new_memory_dialog(qtbot, window, opener, "work"), None)
    _drawn(qtbot, window)
    assert box.toPlainText() == QUESTION and notice.isVisible()
    # It names the memory it was not saved in, and the one it goes to if sent now.
    assert "default" in notice.text() and "work" in notice.text()
    stored_in_default = _stored(default)

    _switch_back_to(qtbot, window, "default")  # where it was not saved: as it said there
    _drawn(qtbot, window)
    assert box.toPlainText() == QUESTION and notice.text() == said

    _switch_back_to(qtbot, window, "work")
    _drawn(qtbot, window)
    assert "work" in notice.text()
    window.session.mem.chat.queue("Once upon a time, a keeper.")
    done = send(window, box.toPlainText())
    assert done.page is not None and box.toPlainText() == ""
    assert [p.user_input for p in window.session.mem.pages()] == [QUESTION]  # in "work"
    window.close()
    assert _stored(default) == stored_in_default  # nothing of "default" was let go


def test_an_edit_left_in_the_box_replaces_nothing_in_the_memory_switched_to(
    qtbot, desktop, memory_keyring, send
):
    """Sent in the other memory, the edit took the place of the exchange there with the page
    number of the one edited: "Work question one." was gone."""
    window, opener = desktop()
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My dog is called Rex.")
    create_vault(qtbot, window, _new_memory_dialog(qtbot, window, opener, "work"), None)
    _drawn(qtbot, window)
    send(window, "Work question one.")
    _switch_back_to(qtbot, window, "default")
    _drawn(qtbot, window)
    window.edit_last_question()
    window.composer.input.setPlainText("My dog is called Rex, and my cat Tom.")

    _switch_back_to(qtbot, window, "work")
    _drawn(qtbot, window)
    assert window.composer.input.toPlainText() == "My dog is called Rex, and my cat Tom."
    assert not window.composer.property("editing")
    assert send(window, window.composer.input.toPlainText()).page is not None
    assert [p.user_input for p in window.session.mem.pages()] == [
        "Work question one.", "My dog is called Rex, and my cat Tom."
    ]


# --- 2. a question whose record the full disk kept out too ---------------------------------


def test_a_message_never_asked_shows_no_answer_text(qtbot, window, memory, chat):
    with box_emptied(window) as shown:
        _never_asked(qtbot, shown, memory, chat)


def _never_asked(qtbot, shown, memory, chat) -> None:
    long_question = "Tell me about the lighthouse and its keeper, please. " * 600
    # the question's record does not fit either
    done = send_on_a_full_disk(qtbot, shown, memory, chat, long_question, LONG_ANSWER, spare=0)
    assert getattr(done, "kept_question", None) is None
    question, answer = shown.view.last_exchange()
    assert question.not_saved and answer.not_saved and answer.text == ""
    drawn = shown.view.plain_text()
    assert "(no answer)" not in drawn  # the model was never asked
    assert "disk is full" in drawn.lower()
    assert chat.seen_messages == []
    assert shown.composer.input.toPlainText() == long_question
    assert shown.composer.notice.isVisible()
    assert "its answer" not in shown.composer.notice.text()  # none began


# --- 3. Regenerate while an edit of the last question waits in the box ---------------------


def test_regenerate_ends_an_unchanged_edit(qtbot, window, memory, chat, send):
    chat.queue("A short telling.", "Another telling.", "Paris.")
    send(window, QUESTION)
    window.edit_action.trigger()
    assert window.composer.property("editing")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.regenerate_action.trigger()
    assert window.composer.input.toPlainText() == ""
    assert not window.composer.property("editing")
    # The next message is a new one: the edit no longer points at the exchange replaced.
    assert send(window, "What is the capital of France?").page is not None
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        (QUESTION, "Another telling."), ("What is the capital of France?", "Paris.")
    ]


def test_regenerate_keeps_a_changed_edit(qtbot, window, memory, chat, send):
    edited = "Tell me the story of the lighthouse keeper's daughter."
    chat.queue("A short telling.", "The daughter's story.")
    send(window, QUESTION)
    asked = len(chat.seen_messages)
    window.edit_action.trigger()
    window.composer.input.setPlainText(edited)
    window.regenerate_action.trigger()
    assert not window.session.generating and len(chat.seen_messages) == asked
    assert window.composer.input.toPlainText() == edited and window.composer.property("editing")
    assert window.status.currentMessage()  # it says why nothing happened
    assert send(window, edited).page is not None  # the edit still replaces that exchange
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        (edited, "The daughter's story.")
    ]
