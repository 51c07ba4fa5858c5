"""Chatting in the main window: streamed answers, Stop, Enter/Shift+Enter, temporary chat, quit."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import answering_a_long_story

pytestmark = pytest.mark.gui

LONG_REPLY = " ".join(f"word{i}" for i in range(200))


def test_sent_message_gets_a_streamed_answer_that_is_stored(
    qtbot, window, chat, memory, monkeypatch
):
    chat.queue("Nice to meet you, Tom. Data science in San Francisco sounds great.")
    # The model stops after its first words until the test has seen them on screen: streamed
    # means shown before the rest is written, however fast or slow the machine is.
    release = threading.Event()
    stream = chat._stream

    def held(*args, **kwargs):
        for index, chunk in enumerate(stream(*args, **kwargs)):
            if index == 5:  # "Nice to meet you, Tom. " written, the rest waits
                assert release.wait(10)
            yield chunk

    monkeypatch.setattr(chat, "_stream", held)
    window.composer.input.setPlainText("I'm Tom, I work as a data scientist in San Francisco.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as finished:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: "Nice to meet you, Tom." in window.view.plain_text())
        assert "sounds great" not in window.view.plain_text()
        assert window.composer.stop_button.isVisible()
        release.set()
    answer = finished.args[0]

    assert answer.text.startswith("Nice to meet you, Tom.")
    assert not answer.stopped
    shown = window.view.plain_text()
    assert "I'm Tom, I work as a data scientist" in shown
    assert "Data science in San Francisco sounds great." in shown
    pages = memory.pages()
    assert [p.user_input for p in pages] == ["I'm Tom, I work as a data scientist in San Francisco."]
    assert window.composer.send_button.isVisible()


def test_shift_enter_starts_a_new_line_and_enter_sends(qtbot, window, chat):
    box = window.composer.input
    box.setFocus()
    qtbot.keyClicks(box, "first line")
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(box, "second line")
    assert box.toPlainText() == "first line\nsecond line"
    assert window.view.message_count == 0
    with qtbot.waitSignal(window.answer_finished):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.toPlainText() == ""
    assert "first line\nsecond line" in window.view.plain_text()


def test_stop_cancels_the_answer_and_keeps_what_was_said(qtbot, window, chat, memory):
    answering_a_long_story(qtbot, window, chat, LONG_REPLY)
    assert window.composer.stop_button.isVisible()
    assert window.session.ask("a second question at the same time") is None  # one at a time

    with qtbot.waitSignal(window.answer_finished, timeout=5000) as blocker:
        qtbot.mouseClick(window.composer.stop_button, Qt.MouseButton.LeftButton)

    answer = blocker.args[0]
    assert answer.stopped
    assert 0 < len(answer.text) < len(LONG_REPLY)
    assert "Stopped" in window.view.plain_text()
    assert window.composer.send_button.isVisible()
    (page,) = memory.pages()
    assert page.meta.get("stopped") is True
    assert page.agent_response == answer.text.strip()


def test_temporary_chat_leaves_the_vault_file_unchanged(qtbot, window, chat, memory, send, vault_bytes):
    memory.add_memory("I live in Lisbon.", "Noted.")
    memory.run_consolidation()
    window.session.refresh_status()
    qtbot.waitUntil(lambda: window.session.status is not None)
    before = vault_bytes(memory.path)
    pages_before = len(memory.pages())

    window.temporary_action.trigger()
    assert window.temporary and window.temporary_banner.isVisible()
    chat.queue("You live in Lisbon.")
    answer = send(window, "Where do I live?")

    assert answer.text == "You live in Lisbon."
    assert answer.page is None
    assert "Not saved (temporary chat)" in window.view.plain_text()
    assert len(memory.pages()) == pages_before
    assert vault_bytes(memory.path) == before


def test_new_conversation_clears_the_view(qtbot, window, chat, memory, send):
    send(window, "hello")
    first = memory.conversation_id
    window.new_action.trigger()
    assert window.view.message_count == 0
    qtbot.waitUntil(lambda: memory.conversation_id != first)


def test_quitting_during_an_answer_is_clean(qtbot, window, chat, memory):
    answering_a_long_story(qtbot, window, chat, LONG_REPLY)
    generation = window.session.generation

    window.close()

    assert generation.done
    assert window.session is None
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    # The vault was closed cleanly and kept the part of the answer given before the quit.
    with MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False) as again:
        (page,) = again.pages()
    assert page.meta.get("stopped") is True
    assert page.agent_response.startswith("word0 word1")


def test_errors_become_messages_not_crashes(qtbot, window, chat, send, monkeypatch):
    from engine.errors import BackendError

    def broken(*args, **kwargs):
        raise BackendError("the model server went away")
        yield  # pragma: no cover - makes this a generator like the real one

    monkeypatch.setattr(chat, "_stream", broken)
    result = send(window, "hello?")
    assert isinstance(result, BackendError)
    assert "the model server went away" in window.view.plain_text()
    assert window.composer.send_button.isEnabled()


def test_new_conversation_during_an_answer_stops_it_first(qtbot, window, chat, memory):
    answering_a_long_story(qtbot, window, chat, LONG_REPLY)
    first = memory.conversation_id

    with qtbot.waitSignal(window.answer_finished):
        window.new_action.trigger()

    qtbot.waitUntil(lambda: memory.conversation_id != first)
    assert window.view.message_count == 0
    (page,) = memory.pages()
    assert page.conversation_id == first and page.meta.get("stopped") is True


def test_the_last_conversation_is_shown_when_the_window_opens(qtbot, memory, chat):
    from app.main_window import MainWindow

    memory.add_memory("I'm Tom.", "Nice to meet you, Tom!", timestamp=1_700_000_000)
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: "Nice to meet you, Tom!" in window.view.plain_text())
    assert "November 2023" in window.view.plain_text()  # dated
    qtbot.waitUntil(lambda: "default · keyring" in window.status.vault.text())
    window.close()


def test_leaving_a_temporary_chat_redraws_the_box_without_the_temporary_hint(qtbot, window):
    """The empty box said "(temporary: not saved)" on screen after Ctrl+T turned it off: the
    changed placeholder must be painted again, not only stored."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    box = window.composer.input
    window.temporary_action.trigger()
    assert box.placeholderText() == "Message MemoryOS (temporary: not saved)"
    qtbot.waitUntil(lambda: box.viewport().isVisible())

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint:
                self.count += 1
            return False

    paints = Paints()
    QApplication.processEvents()  # paints already queued by the switch are not counted
    box.viewport().installEventFilter(paints)
    window.temporary_action.trigger()
    assert not window.temporary and box.placeholderText() == "Message MemoryOS"
    qtbot.waitUntil(lambda: paints.count > 0, timeout=2000)
    box.viewport().removeEventFilter(paints)


def test_help_lists_the_shortcuts_and_the_commands(window):
    """Help → Keyboard shortcuts (F1): read from the window's own actions, so it stays true."""
    assert window.shortcuts_action.shortcut().toString() == "F1"
    assert window.shortcuts_action in window.menuBar().actions()[-1].menu().actions()
    text = window.shortcuts_text()
    for name, key in (("New conversation", "Ctrl+N"), ("Privacy", "Ctrl+P"), ("Stop", "Esc")):
        assert name in text and key in text
    assert "/remember TEXT" in text and "/forget WORDS" in text


def test_about_names_the_version_and_the_vault_file(window, memory):
    from engine import __version__

    text = window.about_text()
    assert f"MemoryOS Desktop {__version__}" in text
    assert str(memory.path) in text
