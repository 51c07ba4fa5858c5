"""The Qt binding must keep Python's reference counts: PySide6 6.12.0 dropped one reference to
None on every Qt call that returns nothing, and on Python 3.11 the app aborted with "Fatal
Python error: none_dealloc" after about ten streamed answers (pyproject.toml excludes it)."""

from __future__ import annotations

import sys

import pytest

pytestmark = pytest.mark.gui


@pytest.mark.skipif(sys.version_info >= (3, 12),
                    reason="None, True and False are immortal from Python 3.12: no count to lose")
def test_qt_calls_keep_the_reference_counts_of_none_true_and_false(qapp):
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QTextBrowser

    view = QTextBrowser()
    cursor = view.textCursor()
    calls = 500  # few enough that a losing binding fails here instead of aborting the run

    def counts() -> tuple[int, int, int]:
        return sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)

    before = counts()
    for _ in range(calls):  # the calls that streaming an answer makes, each thousands of times
        view.setPlainText("x")  # returns None
        view.setVisible(False)
        view.isVisible()  # returns False
        cursor.movePosition(QTextCursor.MoveOperation.End)  # returns True
        cursor.insertText("a")
    after = counts()
    drift = [b - a for a, b in zip(before, after, strict=True)]
    # A count may move by a few (objects made or freed meanwhile); a binding that loses one
    # per call moves it by thousands.
    assert all(abs(d) < calls // 10 for d in drift), f"None/True/False counts drifted by {drift}"
