"""What the window shows is what the next message continues: at start, after New chat, in a
temporary chat, and after an auto-lock and unlock."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui

HOUR = 3600


def _titles(window) -> list[str]:
    return [row.text(0) for row in window.sidebar.rows()]


@pytest.fixture
def earlier(memory):
    """A conversation from an earlier run of the app, in the encrypted vault (keyring key)."""
    conversation = memory.new_conversation()
    memory.add_memory("I am planning a trip to Kyoto", "Spring is lovely there.",
                      timestamp=time.time() - 2 * HOUR)  # fmt: skip
    memory.add_memory("Which temple first?", "Start with Kiyomizu-dera.",
                      timestamp=time.time() - HOUR)  # fmt: skip
    memory.close()  # the app is quit; it opens the vault again below
    return conversation


@pytest.fixture
def started(qtbot, earlier, memory, desktop):
    """The app started as desktop.run does it: the window, the silent keyring unlock, attach;
    returns the window once the earlier conversation is on screen and in the sidebar."""
    window, opener = desktop(memory.path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    qtbot.waitUntil(lambda: "Start with Kiyomizu-dera." in window.view.plain_text())
    qtbot.waitUntil(lambda: _titles(window) == ["I am planning a trip to Kyoto"])
    window.opener = opener
    return window


def _send_and_list(qtbot, window, send, text):
    """Send `text` and wait until the sidebar was drawn again with its page."""
    with qtbot.waitSignal(window.sidebar.refreshed, timeout=10_000):
        answer = send(window, text)
    return answer


def test_the_next_message_continues_the_conversation_shown_at_start(qtbot, started, earlier, send):
    window = started
    window.session.mem.chat.queue("Then walk the Philosopher's Path.")

    answer = _send_and_list(qtbot, window, send, "And after that?")

    mem = window.session.mem
    assert answer.page.conversation_id == earlier  # the conversation on screen, not a new one
    assert [p.user_input for p in mem.pages(conversation_id=earlier)] == [
        "I am planning a trip to Kyoto", "Which temple first?", "And after that?",
    ]  # fmt: skip
    assert [c.id for c in mem.conversations()] == [earlier]
    assert _titles(window) == ["I am planning a trip to Kyoto"]  # no new entry


def test_new_chat_after_the_start_still_starts_a_fresh_conversation(qtbot, started, earlier, send):
    window = started
    # Both switches happen at once, in order, not in the worker pool, whose threads run in no
    # fixed order: a continue queued at the start once ran after this New chat and undid it.
    assert window.session.mem.conversation_id == earlier
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.view.message_count == 0
    assert window.session.mem.conversation_id != earlier

    answer = _send_and_list(qtbot, window, send, "Recommend a novel")

    assert answer.page.conversation_id != earlier
    mem = window.session.mem
    assert len(mem.pages(conversation_id=earlier)) == 2  # the earlier one is untouched
    assert _titles(window) == ["Recommend a novel", "I am planning a trip to Kyoto"]
    # and what follows continues the new one, as shown
    again = _send_and_list(qtbot, window, send, "Something shorter?")
    assert again.page.conversation_id == answer.page.conversation_id
    assert len(window.sidebar.rows()) == 2


def test_a_temporary_chat_then_back_starts_a_fresh_conversation(qtbot, started, earlier, send):
    window = started
    window.temporary_action.trigger()
    assert window.view.message_count == 0
    assert send(window, "Just between us").page is None
    window.temporary_action.trigger()  # back: a new conversation, not the earlier one

    answer = _send_and_list(qtbot, window, send, "Where was I?")

    assert answer.page.conversation_id != earlier
    assert len(window.session.mem.pages(conversation_id=earlier)) == 2
    assert len(window.sidebar.rows()) == 2


def test_new_conversation_in_a_temporary_chat_starts_a_saved_one(qtbot, started, earlier, send):
    """New conversation (Ctrl+N, the toolbar button) inside a temporary chat started another
    temporary one: what was said next was neither saved nor learned from."""
    window = started
    window.temporary_action.trigger()
    assert send(window, "Just between us").page is None
    window.new_action.trigger()
    assert not window.temporary and not window.temporary_banner.isVisible()
    assert not window.temporary_action.isChecked() and window.view.message_count == 0

    answer = _send_and_list(qtbot, window, send, "I start a new job on Monday.")

    assert answer.page is not None and answer.page.conversation_id != earlier
    assert "Just between us" not in [p.user_input for p in window.session.mem.pages()]


def _lock_and_unlock(qtbot, window, while_locked=None):
    """Auto-lock, `while_locked(path)` (another program writing to the vault), then Unlock."""
    path = window.session.mem.path
    with qtbot.waitSignal(window.opener.dialog_shown, timeout=10_000) as shown:
        window.lock()
    assert window.session is None and window.view.message_count == 0
    if while_locked is not None:
        while_locked(path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        next(b for b in shown.args[0].buttons() if b.text() == "Unlock").click()


def _import_newer(path):
    """What `memoryos import` does meanwhile: a newer conversation in the same vault."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    with MemoryOS.open(path, embedder=HashEmbedder(), background=False) as mem:
        mem.add_memory("Imported: my dentist is Dr. Alves", "Noted.", timestamp=time.time())


def test_unlock_goes_back_to_the_conversation_the_person_was_in(qtbot, started, earlier, send):
    window = started
    send(window, "And after that?")  # in the earlier conversation (shown at start)

    _lock_and_unlock(qtbot, window, _import_newer)

    qtbot.waitUntil(lambda: "And after that?" in window.view.plain_text())
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 2)
    text = window.view.plain_text()
    assert "Start with Kiyomizu-dera." in text and "Dr. Alves" not in text
    answer = _send_and_list(qtbot, window, send, "How long should I stay?")
    assert answer.page.conversation_id == earlier
    assert len(window.sidebar.rows()) == 2


def test_unlock_after_new_chat_stays_in_a_new_chat(qtbot, started, earlier, send):
    window = started
    window.new_action.trigger()

    _lock_and_unlock(qtbot, window)

    qtbot.waitUntil(lambda: "default" in window.status.vault.text())  # the summary was shown
    assert window.view.message_count == 0
    answer = _send_and_list(qtbot, window, send, "Recommend a novel")
    assert answer.page.conversation_id != earlier
    assert len(window.sidebar.rows()) == 2


def test_the_next_start_opens_the_conversation_on_screen_at_the_last_quit(
    qtbot, memory, tmp_path, desktop
):
    """After a restart the most recently updated conversation opened, not the one the person
    was reading, and the sidebar marked none."""
    from app.settings_store import load_settings

    older = memory.new_conversation()
    memory.add_memory("Plan the garden beds", "Tomatoes by the wall.", timestamp=time.time() - 5 * HOUR)
    newer = memory.new_conversation()
    memory.add_memory("Book the dentist", "Thursday at nine.", timestamp=time.time() - HOUR)
    memory.close()

    def start():
        window, opener = desktop(memory.path, load_settings())  # what the last quit saved
        with qtbot.waitSignal(window.session_attached, timeout=30_000):
            opener.start()
        return window

    window = start()
    qtbot.waitUntil(lambda: "Thursday at nine." in window.view.plain_text())
    qtbot.waitUntil(lambda: window.sidebar.tree.currentItem() is not None)
    assert window.sidebar.tree.currentItem().text(0) == "Book the dentist"
    with qtbot.waitSignal(window.conversation_shown):
        window.sidebar._activated(window.sidebar.row_of(older))
    assert window.sidebar.tree.currentItem().text(0) == "Plan the garden beds"
    window.close()
    assert load_settings().last_conversation == older

    again = start()
    qtbot.waitUntil(lambda: "Tomatoes by the wall." in again.view.plain_text())
    assert "Thursday at nine." not in again.view.plain_text()
    qtbot.waitUntil(lambda: again.sidebar.tree.currentItem() is not None)
    assert again.sidebar.tree.currentItem().text(0) == "Plan the garden beds"
    assert again.session.mem.conversation_id == older  # and the next message continues it
    again.new_action.trigger()
    assert again.sidebar.tree.currentItem() is None
    again.close()
    assert load_settings().last_conversation == ""  # a new, empty chat: the newest next time
    assert newer != older
