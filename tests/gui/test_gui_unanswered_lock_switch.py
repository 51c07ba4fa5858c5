"""Lock now or Switch memory while an answer has not begun is no Stop: the message is back in
its box when that memory is open here again (as after a quit), and only there, only once."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import (
    create_vault,
    shown_dialog,
    start_unlocked,
    switch_dialog,
    switch_open_button,
    unlock,
    window_giving_back,
)
from tests.helpers import open_fast

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
QUESTION = "Remember that my dentist appointment is on Friday at 9."


@pytest.fixture
def app(desktop, tmp_path):
    """The desktop app as it starts (window and vault opener) on a fresh passphrase vault."""
    return desktop(tmp_path / "v.memoryos")


def _unlock(qtbot, window, dialog) -> None:
    unlock(qtbot, window, dialog, PASSPHRASE)


def _ask_slowly(qtbot, window, text: str = QUESTION) -> None:
    """Send `text`; its answer's first word is a second away."""
    window.session.mem.chat.chunk_delay = 1.0
    window.composer.input.setPlainText(text)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert window.session.generating


def _drawn(qtbot, window) -> None:
    """What the window reads when a vault opens (its conversation, a message to give back)
    has been drawn: the status line names the vault then."""
    qtbot.waitUntil(lambda: window.status.vault.text() not in ("", "Vault locked"))


def _records(path) -> list:
    mem = open_fast(path, False, PASSPHRASE)
    try:
        return json.loads(mem.vault.get_meta("unanswered") or "[]")
    finally:
        mem.close()


def test_lock_now_before_the_first_word_gives_the_message_back_after_the_unlock(
    qtbot, app, fail_keyring, send
):
    from app.vault_dialogs import UnlockDialog

    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    send(window, "My dog is called Biscuit")
    conversation = window.session.mem.conversation_id
    _ask_slowly(qtbot, window)

    asked = shown_dialog(qtbot, opener, window.lock_action.trigger)  # Ctrl+L
    assert isinstance(asked, UnlockDialog) and window.session is None
    _unlock(qtbot, window, asked)

    box, notice = window.composer.input, window.composer.notice
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    assert notice.isVisible() and "not answered" in notice.text()
    mem = window.session.mem
    shown = window.view.plain_text()
    assert "Biscuit" in shown and QUESTION not in shown  # its conversation, the message unsent
    assert mem.conversation_id == conversation
    assert mem.chat.seen_messages == [] and not window.session.generating
    assert mem.unanswered() is None

    # Sent by the person: answered once, in that conversation.
    done = send(window, box.toPlainText())
    assert done.page is not None and done.page.conversation_id == conversation
    assert sorted(p.user_input for p in mem.pages(conversation_id=conversation)) == sorted(
        ["My dog is called Biscuit", QUESTION])


def test_lock_now_before_an_edits_first_word_gives_the_edit_back(
    qtbot, app, fail_keyring, send
):
    """Sent after the unlock, the edit still takes the place of the exchange it edits."""
    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    send(window, QUESTION)
    window.edit_last_question()
    edited = "Remember that my dentist appointment is on Thursday at 9."
    _ask_slowly(qtbot, window, edited)
    _unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now))

    box = window.composer.input
    qtbot.waitUntil(lambda: box.toPlainText() == edited)
    assert window.composer.property("editing") and "not answered" in window.composer.notice.text()
    mem = window.session.mem
    assert [p.user_input for p in mem.pages()] == [QUESTION]  # the earlier exchange stays
    assert send(window, edited).page is not None
    assert [p.user_input for p in mem.pages()] == [edited]
    assert mem.unanswered() is None


def test_a_message_given_back_after_a_lock_is_not_offered_again(qtbot, app, fail_keyring):
    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    _ask_slowly(qtbot, window)
    _unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now))
    box = window.composer.input
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    box.clear()  # the person does not want it after all

    _unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now))
    _drawn(qtbot, window)
    assert box.toPlainText() == "" and not window.composer.notice.isVisible()
    window.close()
    assert _records(opener.path) == []  # nor at the next start


def test_lock_now_after_the_first_words_stores_them_and_gives_nothing_back(
    qtbot, app, fail_keyring
):
    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    chat = window.session.mem.chat
    chat.queue("Noted: the dentist on Friday at 9, and many more words after that.")
    chat.chunk_delay = 0.2
    window.composer.input.setPlainText(QUESTION)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(window.view.answer_text()) > 0)

    _unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now))
    qtbot.waitUntil(lambda: QUESTION in window.view.plain_text())  # stored, as Stop stores it
    assert window.composer.input.toPlainText() == ""
    assert window.session.mem.unanswered() is None


def test_lock_now_in_a_temporary_chat_writes_nothing(qtbot, app, fail_keyring):
    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    window.temporary_action.trigger()
    _ask_slowly(qtbot, window)
    _unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_now))
    _drawn(qtbot, window)
    assert window.composer.input.toPlainText() == ""
    mem = window.session.mem
    assert mem.pages() == [] and mem.unanswered() is None
    assert json.loads(mem.vault.get_meta("unanswered") or "[]") == []


def test_the_idle_lock_still_waits_for_the_answer(qtbot, app, fail_keyring):
    window, opener = app
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    mem = window.session.mem
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        _ask_slowly(qtbot, window)
        window.lock()  # idle too long: not while it answers
        assert window.session is not None
    assert done.args[0].page is not None and not done.args[0].stopped
    assert [p.user_input for p in mem.pages()] == [QUESTION]


# --- Switch memory ------------------------------------------------------------------------


def _new_memory_dialog(qtbot, window, opener, name: str):
    """Switch memory → a new memory `name` → Open: its first-run dialog (not filled yet)."""
    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, name)
    return shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                                Qt.MouseButton.LeftButton))


@pytest.fixture
def switching(qtbot, memory_keyring, send, desktop):
    """The app on a new memory "default" with one exchange, asked QUESTION whose answer has not
    begun, then switched to a new memory "work"; returns (window, default's path, its
    conversation)."""
    window, opener = desktop()
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My dog is called Rex and he loves the beach.")
    default = window.session.mem
    conversation = default.conversation_id
    _ask_slowly(qtbot, window)
    create_vault(qtbot, window, _new_memory_dialog(qtbot, window, opener, "work"), None)
    assert window.session.mem.path.name == "work.memoryos" and default.vault.conn is None
    return window, default.path, conversation


def test_switch_memory_before_the_first_word_keeps_the_message_with_its_memory(
    qtbot, switching
):
    window, _path, conversation = switching
    _drawn(qtbot, window)
    assert window.composer.input.toPlainText() == ""  # not in the other memory
    assert not window.composer.notice.isVisible()
    assert window.session.mem.unanswered() is None

    back = switch_dialog(qtbot, window)
    back.list.setCurrentRow([back._name_at(i) for i in range(back.list.count())].index("default"))
    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        qtbot.mouseClick(switch_open_button(back), Qt.MouseButton.LeftButton)
    box = window.composer.input
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    assert "not answered" in window.composer.notice.text()
    mem = window.session.mem
    assert "Rex" in window.view.plain_text() and mem.conversation_id == conversation
    assert mem.chat.seen_messages == [] and mem.unanswered() is None


def test_a_message_switch_memory_stopped_is_back_at_the_next_start(qtbot, switching):
    window, path, conversation = switching
    window.close()  # quit while "work" is open

    mem = open_fast(path, False, None)
    again = window_giving_back(qtbot, mem, QUESTION)
    assert "Rex" in again.view.plain_text() and mem.conversation_id == conversation
    assert mem.unanswered() is None and mem.chat.seen_messages == []
    again.close()


def test_a_cancelled_switch_gives_the_stopped_message_back_at_once(
    qtbot, memory_keyring, send, desktop
):
    window, opener = desktop()
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    mem = window.session.mem
    _ask_slowly(qtbot, window)
    first = _new_memory_dialog(qtbot, window, opener, "family")
    first.quit_button.click()  # Cancel: this memory goes on
    assert window.session.mem is mem
    qtbot.waitUntil(lambda: window.composer.input.toPlainText() == QUESTION)
    assert mem.unanswered() is None

    # A Stop is the person's again: it lets the message go, as ever.
    _ask_slowly(qtbot, window, "What is the capital of Peru?")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.stop()
    window.close()
    mem = open_fast(mem.path, False, None)
    assert mem.unanswered() is None and mem.pages() == []
    mem.close()


def _switch_back_to(qtbot, window, name: str) -> None:
    """Switch memory → the memory `name` (already made, its key in the keyring) → Open."""
    dialog = switch_dialog(qtbot, window)
    names = [dialog._name_at(i) for i in range(dialog.list.count())]
    dialog.list.setCurrentRow(names.index(name))
    with qtbot.waitSignal(window.session_attached, timeout=10_000):
        qtbot.mouseClick(switch_open_button(dialog), Qt.MouseButton.LeftButton)


def test_a_message_given_back_does_not_follow_into_another_memory(qtbot, switching):
    """From a walkthrough: the question given back in "default"'s box stayed in the box, its
    note too, after Switch memory to "work": Send would have asked it there."""
    window, _path, _conversation = switching
    _drawn(qtbot, window)
    _switch_back_to(qtbot, window, "default")
    box, notice = window.composer.input, window.composer.notice
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)

    _switch_back_to(qtbot, window, "work")
    _drawn(qtbot, window)
    assert box.toPlainText() == "" and not notice.isVisible()
    assert window.session.mem.unanswered() is None

    _switch_back_to(qtbot, window, "default")  # it stayed with its memory: given back again
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    assert "not answered" in notice.text()


def test_what_the_person_typed_stays_in_the_box_across_a_switch(qtbot, switching):
    window, _path, _conversation = switching
    _drawn(qtbot, window)
    _switch_back_to(qtbot, window, "default")
    box = window.composer.input
    qtbot.waitUntil(lambda: box.toPlainText() == QUESTION)
    box.setPlainText(QUESTION + " And on Monday.")  # the person's own now

    _switch_back_to(qtbot, window, "work")
    _drawn(qtbot, window)
    assert box.toPlainText() == QUESTION + " And on Monday."
