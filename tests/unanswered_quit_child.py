"""Child process for the quit tests: the app (offscreen) sends a question, or an edit of the
last one, whose answer's first word is seconds away, and is quit (Ctrl+Q) before it comes."""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.helpers import open_fast


def wait_until(app: QApplication, condition, timeout: float = 30.0) -> None:
    """What pytest-qt's waitUntil does: the window's events run until `condition()`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def main() -> None:
    from app.main_window import MainWindow

    path, passphrase, question, edited = sys.argv[1:5]
    app = QApplication([])
    mem = open_fast(path, True, passphrase)
    chat = mem.chat
    if edited:
        chat.queue("Noted: the dentist on Thursday at 9.")
        mem.get_response(question).collect()
    window = MainWindow.for_memory(mem, chat)
    window.show()
    wait_until(app, lambda: window.session.can_answer)
    if edited:
        wait_until(app, lambda: bool(window.view.last_exchange()))
        window.edit_last_question()
    chat.chunk_delay = 3.0  # the first word comes after the quit
    chat.queue("Noted: the dentist on Friday at 9.")
    window.composer.input.setPlainText(edited or question)
    QTest.keyClick(window.composer.input, Qt.Key.Key_Return)
    wait_until(app, lambda: window.session.generating)
    print("asked", flush=True)
    window.quit_action.trigger()  # Ctrl+Q
    wait_until(app, lambda: window.session is None)


if __name__ == "__main__":
    main()
