"""After a crash, the next start says so before it asks for the memory: shown at once, the
welcome (or unlock) dialog covered the crash report, seen on a first start under Xvfb."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_the_crash_report_comes_first_and_the_memory_is_asked_for_once_it_is_read(
    qtbot, fail_keyring, desktop, tmp_path
):
    from PySide6.QtWidgets import QMessageBox

    from app.desktop import begin
    from app.vault_dialogs import FirstRunDialog

    window, opener = desktop()
    report = tmp_path / "crash-20261128-035400.log"
    report.write_text("Fatal Python error: Aborted\n", encoding="utf-8")
    shown: list = []
    opener.dialog_shown.connect(shown.append)

    begin(window, opener, report)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and str(report) in boxes[0].text()
    assert "stopped unexpectedly" in boxes[0].text()
    assert shown == []  # nothing asked for on top of it

    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000):
        boxes[0].button(QMessageBox.StandardButton.Ok).click()
    assert isinstance(shown[0], FirstRunDialog) and shown[0].isVisible()
    assert not [b for b in window.findChildren(QMessageBox) if b.isVisible()]


def test_without_a_crash_the_memory_is_asked_for_at_once(qtbot, fail_keyring, desktop):
    from PySide6.QtWidgets import QMessageBox

    from app.desktop import begin

    window, opener = desktop()
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000):
        begin(window, opener, None)
    assert not [b for b in window.findChildren(QMessageBox) if b.isVisible()]
