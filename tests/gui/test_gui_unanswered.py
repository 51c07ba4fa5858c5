"""The app killed while it answers a message: at the next start the message is back in the box
of its own conversation, with a line saying why, and is not sent until the person sends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import window_giving_back
from tests.helpers import ROOT, killed_while_streaming, open_fast

pytestmark = [
    pytest.mark.gui,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL"),
]

QUESTION = "Remember that my dentist appointment is on Friday at 9."
PASSPHRASE = "correct horse battery"


def killed_mid_answer(path) -> str:
    """A program answering QUESTION in the vault's older conversation, killed (SIGKILL) while
    the answer streams; returns that conversation's id."""
    line = killed_while_streaming("unanswered_child.py", str(path), PASSPHRASE, QUESTION)
    return line.split()[1]


def test_the_message_the_app_was_answering_when_killed_is_back_in_its_box(qtbot, tmp_path):
    path = tmp_path / "killed.memoryos"
    older = killed_mid_answer(path)
    mem = open_fast(path, False, PASSPHRASE)
    chat = mem.chat
    chat.queue("Noted: the dentist on Friday at 9.")
    window = window_giving_back(qtbot, mem, QUESTION)
    notice = window.composer.notice
    assert notice.isVisible() and "not answered" in notice.text()
    # Its own conversation is open (not the most recent one), and the message waits: unsent.
    shown = window.view.plain_text()
    assert "I am going hiking on Saturday." in shown and "rye bread" not in shown
    assert QUESTION not in shown
    assert mem.conversation_id == older
    assert not window.session.generating and chat.seen_messages == []
    assert [p.user_input for p in mem.pages(conversation_id=older)] == [
        "I am going hiking on Saturday."
    ]
    assert mem.unanswered() is None  # it is the person's now: not offered again at each open

    # Sent by the person (Enter): answered once, in that conversation; nothing is offered again.
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert done.args[0].page is not None
    assert not notice.isVisible()
    asked = [p.user_input for p in mem.pages(conversation_id=older)]
    assert sorted(asked) == sorted(["I am going hiking on Saturday.", QUESTION])
    assert mem.unanswered() is None
    window.close()


EDITED = "Remember that my dentist appointment is on Thursday at 9."


def quit_before_the_first_word(path, edited: str = "") -> None:
    """The app (another process) sends QUESTION, or an edit of it to `edited`, and is quit
    with Ctrl+Q before the answer's first word."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "unanswered_quit_child.py"), str(path), PASSPHRASE,
         QUESTION, edited],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen"),
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("asked"), done.stderr


@pytest.mark.parametrize("edit", [False, True], ids=["question", "edit"])
def test_a_message_quit_before_its_answer_began_is_back_in_its_box(qtbot, tmp_path, edit):
    """Ctrl+Q while the answer has not begun is no Stop: the message is offered back at the
    next start; an edit of the last question still replaces that exchange when sent."""
    path = tmp_path / "quit.memoryos"
    sent = EDITED if edit else QUESTION
    quit_before_the_first_word(path, EDITED if edit else "")
    mem = open_fast(path, False, PASSPHRASE)
    chat = mem.chat
    chat.queue("Noted: the dentist on Thursday at 9.")
    window = window_giving_back(qtbot, mem, sent)
    assert "not answered" in window.composer.notice.text()
    assert bool(window.composer.property("editing")) == edit
    assert chat.seen_messages == []  # not sent by itself

    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert done.args[0].page is not None
    assert [p.user_input for p in mem.pages()] == [sent]  # an edit took the old one's place
    assert mem.unanswered() is None
    window.close()


def _window_with_put_back(qtbot, tmp_path, edit: bool):
    path = tmp_path / "notice.memoryos"
    quit_before_the_first_word(path, EDITED if edit else "")
    mem = open_fast(path, False, PASSPHRASE)
    window = window_giving_back(qtbot, mem, EDITED if edit else QUESTION)
    assert window.composer.notice.isVisible()
    return window


def test_the_notice_goes_when_the_put_back_edit_is_cancelled(qtbot, tmp_path):
    """Esc cancelled the edit and emptied the box, but "It is back in the box" stayed."""
    window = _window_with_put_back(qtbot, tmp_path, edit=True)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
    assert window.composer.input.toPlainText() == ""
    assert not window.composer.property("editing")
    assert not window.composer.notice.isVisible()
    window.close()


def test_the_notice_stays_while_the_message_is_edited_and_goes_when_replaced(qtbot, tmp_path):
    from PySide6.QtGui import QGuiApplication

    window = _window_with_put_back(qtbot, tmp_path, edit=False)
    box, notice = window.composer.input, window.composer.notice
    qtbot.keyClicks(box, " Thanks")  # still that message, changed a little
    assert notice.isVisible()
    QGuiApplication.clipboard().setText("What is 2 plus 2?")  # shares "is" with it
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(box, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # pasted over it
    assert box.toPlainText() == "What is 2 plus 2?"
    assert not notice.isVisible()
    window.close()


def test_the_notice_goes_when_the_box_is_cleared(qtbot, tmp_path):
    window = _window_with_put_back(qtbot, tmp_path, edit=False)
    box = window.composer.input
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(box, Qt.Key.Key_Delete)
    assert box.toPlainText() == ""
    assert not window.composer.notice.isVisible()
    window.close()
