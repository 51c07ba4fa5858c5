"""A model that is not on this computer is marked wherever it is in use; the switch that keeps
background memory work home is off by default; the inspector shows what was sent where."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui

SHOTS = os.environ.get("MEMORYOS_SCREENSHOTS")  # a folder: screenshots are saved there too


def _shot(widget, name: str) -> None:
    if SHOTS:
        widget.grab().save(str(Path(SHOTS) / name))


def _remote_window(qtbot, memory, chat, url="https://api.example.com/v1"):
    from app.main_window import MainWindow
    from app.settings_store import SERVER, AppSettings

    settings = AppSettings(model_source=SERVER, server_url=url, server_model="big-model")
    window = MainWindow.for_memory(memory, chat, settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_status_bar_and_temporary_banner_name_the_remote_host(qtbot, memory, chat):
    window = _remote_window(qtbot, memory, chat)
    assert window.status.remote.isVisible()
    assert "Remote model: api.example.com" in window.status.remote.text()
    window.set_temporary(True)
    assert window.temporary_banner.isVisible()
    assert "sent to api.example.com, which is not on this computer" in window.temporary_text.text()
    _shot(window, "remote_status_and_temporary_banner.png")
    window.close()


def test_a_local_model_shows_no_remote_marker(qtbot, window):
    assert not window.status.remote.isVisible()
    window.set_temporary(True)
    assert "not on this computer" not in window.temporary_text.text()


def test_settings_mark_the_url_and_the_switch_is_off_by_default(qtbot, memory, chat):
    window = _remote_window(qtbot, memory, chat)
    dialog = window.open_settings()
    assert "Remote: api.example.com is not this computer" in dialog.url_note.text()
    dialog.server_url.setText("http://127.0.0.1:11434/v1")
    assert "On this computer" in dialog.url_note.text()
    dialog.server_url.setText("http://api.example.com/v1")
    dialog.save()  # plain http to a remote host: refused with a clear message
    assert dialog.error.isVisible() and "Refusing plain http://" in dialog.error.text()
    dialog.server_url.setText("https://api.example.com/v1")
    switch = dialog.memory_form.inputs["remote_consolidation"]
    assert not switch.isChecked()  # background work never goes out unless allowed
    dialog.resize(900, 760)
    _shot(dialog, "settings_model_remote_url.png")
    dialog.tabs.setCurrentIndex(1)
    _shot(dialog, "settings_memory_remote_switch_off.png")
    switch.setChecked(True)
    dialog.save()
    qtbot.waitUntil(lambda: memory.settings.remote_consolidation is True)
    window.close()


def test_the_inspector_lists_what_each_answer_sent(qtbot, window, send, memory):
    answer = send(window, "What do you know about me?")
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: inspector.sent_tab.tree.topLevelItemCount() == 1)
    row = inspector.sent_tab.tree.topLevelItem(0)
    sent = memory.sent_log()[-1]
    assert (row.text(1), row.text(2)) == ("answer", "this computer")
    assert row.text(3) == f"{sent.characters_sent:,}" and row.text(4) == f"{len(answer.text):,}"
    inspector.tabs.setCurrentWidget(inspector.sent_tab)
    _shot(inspector, "inspector_sent_tab.png")
