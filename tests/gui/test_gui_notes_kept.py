"""The conversation's notes stay true: a "Learned" notice says its item was deleted as soon as
it is (in the privacy panel, by /forget), not only once its Undo is clicked; an answer cut at
the length limit still says so when the conversation is drawn again or opened later."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.view_learned import DELETED_NOTICE as DELETED
from tests.gui_steps import window_on_server
from tests.helpers import pausing_chat
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

FACT = "I am allergic to peanuts"


def _learned(qtbot, window, memory, send):
    """The person said FACT; consolidation learned it and its notice is on screen."""
    send(window, FACT)
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    (item,) = [i for i in window.view.learned_items() if i.text == FACT]
    assert f"Learned: {FACT}" in window.view.plain_text()
    return item


def _notice_line(window, text: str) -> str:
    """The notice's line (not the message that said `text`)."""
    return next(line for line in window.view.plain_text().splitlines()
                if text in line and line.startswith(("Learned:", "Deleted:", "Forgot:")))


def _privacy_row(panel, text: str):
    rows = (panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount()))
    return next((row for row in rows if row.text(1) == text), None)


def _delete_in_privacy(qtbot, window):
    """FACT deleted in the privacy panel (no question asked); the panel."""
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: _privacy_row(panel, FACT) is not None)
    _privacy_row(panel, FACT).setSelected(True)
    with qtbot.waitSignal(panel.changed):
        panel.delete_selected(confirm=False)
    return panel


def test_a_learned_notice_says_deleted_once_its_item_is_deleted_in_privacy(
    qtbot, window, memory, send
):
    item = _learned(qtbot, window, memory, send)
    _delete_in_privacy(qtbot, window)

    # The notice says so without Undo being clicked: no Undo offered on an item that is gone.
    qtbot.waitUntil(lambda: DELETED in window.view.plain_text(), timeout=5000)
    line = _notice_line(window, DELETED)
    assert "Learned:" not in line and "Undo" not in line and "Forgot" not in line
    assert FACT not in line  # what was deleted is not shown again
    assert all(f.id != item.id for f in memory.facts())
    # Drawn again (a new text size, a forget): it still says deleted.
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert DELETED in window.view.plain_text()
    assert f"Learned: {FACT}" not in window.view.plain_text()


def test_a_notice_marked_deleted_is_offered_again_once_privacy_undoes_the_delete(
    qtbot, window, memory, send
):
    item = _learned(qtbot, window, memory, send)
    panel = _delete_in_privacy(qtbot, window)
    qtbot.waitUntil(lambda: DELETED in window.view.plain_text(), timeout=5000)

    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)

    # The fact is back under its id: the notice says Learned again and offers its Undo.
    qtbot.waitUntil(lambda: f"Learned: {FACT}" in window.view.plain_text(), timeout=5000)
    assert "Undo" in _notice_line(window, FACT)
    assert DELETED not in window.view.plain_text()
    assert any(f.id == item.id for f in memory.facts())


def test_a_learned_notice_says_deleted_once_forget_removes_its_item(
    qtbot, window, memory, send
):
    """/forget with the exchange unticked: the fact (and the profile entry read with it,
    "allergic to peanuts") goes, the exchange and its notice stay."""
    _learned(qtbot, window, memory, send)
    window.composer.input.setPlainText("/forget peanuts")
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    forget = window.forget_panel
    for row in (forget.list.item(i) for i in range(forget.list.count())):
        if row.data(Qt.ItemDataRole.UserRole).kind == "exchange":
            row.setCheckState(Qt.CheckState.Unchecked)
    assert [m.kind for m in forget.ticked()] == ["fact", "profile"]
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.mouseClick(forget.forget_button, Qt.MouseButton.LeftButton)
    assert done.args == ["forgot"]
    assert memory.facts() == [] and memory.profile() == [] and len(memory.pages()) == 1

    qtbot.waitUntil(lambda: DELETED in window.view.plain_text(), timeout=5000)
    assert "Undo" not in _notice_line(window, DELETED)


def test_a_notice_deleted_while_an_answer_streams_says_so_once_it_ends(qtbot, memory, send):
    """As a notice undone then: the streaming answer is not shifted; the notice changes after."""
    from app.main_window import MainWindow

    chat = pausing_chat()
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    item = _learned(qtbot, window, memory, send)
    chat.queue("Here is a long answer about lunch.")
    chat.pause_after = "long"
    window.composer.input.setPlainText("What should I have for lunch?")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(chat.paused.is_set)
        with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
            memory.delete_fact(item.id)  # as another program (or the privacy panel) does
        assert f"Learned: {FACT}" in window.view.plain_text()  # not redrawn mid-answer
        chat.go_on.set()
    assert DELETED in window.view.plain_text()
    assert "Here is a long answer about lunch." in window.view.plain_text()
    window.close()


def test_an_answer_cut_at_the_length_limit_says_so_when_drawn_again_and_reopened(
    qtbot, memory, send
):
    from app.main_window import MainWindow
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    note = "Stopped at the length limit · raise it in Settings › Model › Longest answer"
    with ChatServer(models=["m"], reply=["Once upon a time, ", "in a"],
                    finish_reason="length") as server:  # fmt: skip
        window, remote, settings = window_on_server(qtbot, memory, server)
        send(window, "Tell me a long story")
        assert note in window.view.plain_text()
        # Drawn again from the vault (after a forget, a new text size, a search result)
        with qtbot.waitSignal(window.conversation_shown):
            window.reload_conversation()
        assert "Once upon a time, in a" in window.view.plain_text()
        assert window.view.plain_text().count(note) == 1
        window.close()  # the vault file is closed with it

        # Opened again later: the window shows the last conversation, the note under it.
        reopened = MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
        again = MainWindow.for_memory(reopened, remote, settings=settings)
        qtbot.addWidget(again)
        again.show()
        qtbot.waitUntil(lambda: "Once upon a time, in a" in again.view.plain_text())
        assert again.view.plain_text().count(note) == 1
        again.close()
