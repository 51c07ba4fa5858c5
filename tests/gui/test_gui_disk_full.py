"""A full disk while the app answers and builds memory (an old laptop's walkthrough): an
exchange that could not be stored says so and its question waits in the box, Regenerate asks
it again without crashing or replacing a stored exchange, the next start says what is true,
and the status line says memory building is paused and why. The disk is filled with the
vault's own limit (PRAGMA max_page_count), as tests/test_vault.py does: real SQLite errors."""

from __future__ import annotations

import pytest

from tests.gui_steps import (
    regenerate_on_a_full_disk,
    restarted_window,
    send_on_a_full_disk,
    window_giving_back,
)
from tests.helpers import free_disk

pytestmark = pytest.mark.gui

QUESTION = "Tell me the story of the lighthouse keeper."
LONG_ANSWER = "The keeper climbed the stairs each night and lit the lamp. " * 60


def test_regenerating_a_long_answer_does_not_crash(qtbot, window, memory, chat):
    """Its text going shrank the view, which redrew frames already deleted: a segfault."""
    chat.queue(LONG_ANSWER, "A shorter telling.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.send(QUESTION)
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.regenerate_action.trigger()
    assert [m.text for m in window.view.messages] == [QUESTION, "A shorter telling."]
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        (QUESTION, "A shorter telling.")
    ]


def test_an_exchange_the_full_disk_kept_out_says_so_and_waits_in_the_box(
    qtbot, window, memory, chat
):
    from engine.errors import DiskFullError

    memory.add_memory("My sister is called Ada.", "Noted: your sister Ada.")
    window.reload_conversation()
    qtbot.waitUntil(lambda: window.view.message_count == 2)
    error = send_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20, spare=2)
    assert isinstance(error, DiskFullError)
    # On screen: the exchange, marked as not saved; the question back in the box, unsent.
    question, answer = window.view.last_exchange()
    assert question.not_saved and answer.not_saved and answer.page_id is None
    assert "Not saved" in window.view.plain_text()
    assert window.composer.input.toPlainText() == QUESTION
    assert window.composer.notice.isVisible()
    assert "not saved" in window.composer.notice.text()
    assert len(chat.seen_messages) == 1  # not sent again by itself

    # Space freed, Chat › Regenerate answer: the question is asked again as a new exchange
    # (no stored one is replaced: Ada's stays), once, and the box is empty.
    free_disk(memory)
    chat.queue("Once upon a time, a keeper.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        window.regenerate_action.trigger()
    assert done.args[0].page is not None
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("My sister is called Ada.", "Noted: your sister Ada."),
        (QUESTION, "Once upon a time, a keeper."),
    ]
    assert [m.text for m in window.view.messages].count(QUESTION) == 1
    assert window.composer.input.toPlainText() == ""
    # Its record, kept by the failure, is let go: the next start offers nothing back.
    qtbot.waitUntil(lambda: not window.session.pool.active)
    window.close()
    again = restarted_window(qtbot, type(memory).open(memory.path, background=False,
                                                      embedder=memory.embedder), chat)
    qtbot.waitUntil(lambda: again.view.message_count == 4)
    assert again.composer.input.toPlainText() == ""
    assert not again.composer.notice.isVisible()
    again.close()


def test_sending_it_again_from_the_box_leaves_one_copy_on_screen(qtbot, window, memory, chat):
    send_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20, spare=2)
    free_disk(memory)
    chat.queue("Once upon a time, a keeper.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.composer.send_button.click()
    assert [m.text for m in window.view.messages] == [QUESTION, "Once upon a time, a keeper."]
    assert not any(m.not_saved for m in window.view.messages)
    assert [p.user_input for p in memory.pages()] == [QUESTION]


def test_the_next_start_does_not_say_an_answer_that_began_never_began(qtbot, tmp_path):
    """The note that puts a message back at the next start is true of every way its answer
    was lost. Here the answer was streaming when the program was killed (as a full disk
    leaves an answer written whole and not stored): it said "stopped before it began"."""
    from tests.gui.test_gui_unanswered import PASSPHRASE, killed_mid_answer
    from tests.gui.test_gui_unanswered import QUESTION as ASKED
    from tests.helpers import open_fast

    path = tmp_path / "killed.memoryos"
    killed_mid_answer(path)
    mem = open_fast(path, False, PASSPHRASE)
    window = window_giving_back(qtbot, mem, ASKED)
    told = window.composer.notice.text()
    assert window.composer.notice.isVisible()
    assert "before it began" not in told and "not be saved" in told
    window.close()


def test_a_regeneration_the_full_disk_kept_out_keeps_the_earlier_answer(
    qtbot, window, memory, chat
):
    regenerate_on_a_full_disk(qtbot, window, memory, chat, QUESTION, LONG_ANSWER * 20)
    assert [m.text for m in window.view.messages] == [QUESTION, "A short telling."]
    assert "not saved" in window.view.plain_text()
    assert window.composer.input.toPlainText() == QUESTION  # sent, it replaces that exchange
    assert window.composer.property("editing")
    free_disk(memory)
    chat.queue("Once upon a time, a keeper.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.composer.send_button.click()
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        (QUESTION, "Once upon a time, a keeper.")
    ]


def test_the_status_line_says_memory_building_is_paused_while_the_disk_is_full(qtbot, memory):
    """The consolidation worker's report of a full disk (its jobs handed back, retried by
    itself): the line said "1 job queued" for as long as it lasted."""
    import dataclasses

    import apsw

    from app.status_bar import StatusLine
    from engine.vault.connection import translate

    line = StatusLine()
    qtbot.addWidget(line)
    memory.add_memory("What a quiet afternoon.", "It is, isn't it?")
    status = memory.consolidation_status()
    assert status.pending_jobs and not status.running
    error = translate(apsw.FullError("database or disk is full"))
    full = dataclasses.replace(status, last_error=f"{type(error).__name__}: {error}",
                               paused_by=type(error).__name__)
    line.set_memory(full)
    said = line.memory.full_text()
    assert "paused" in said and "disk is full" in said and "free some space" in said
    assert "queued" not in said
    # A write refused with no byte left, as the job stores it (the message alone)
    no_room = apsw.IOError("disk I/O error")
    no_room.result, no_room.extendedresult = apsw.SQLITE_IOERR, apsw.SQLITE_IOERR_SHMSIZE
    no_byte = translate(no_room)
    line.set_memory(dataclasses.replace(status, last_error=str(no_byte),
                                        paused_by=type(no_byte).__name__))
    said = line.memory.full_text()
    assert "paused" in said and "free some space" in said and "queued" not in said
    line.set_memory(memory.consolidation_status())  # it goes on: the line says so again
    assert "paused" not in line.memory.full_text()
    memory.run_consolidation()
    line.set_memory(memory.consolidation_status())
    assert "up to date" in line.memory.full_text()
