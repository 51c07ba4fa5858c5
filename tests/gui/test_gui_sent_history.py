"""The inspector's Sent tab lists every request since the app started: a Lock and an unlock,
or a switch to another memory and back, do not empty it (each request names its memory)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import (
    create_vault,
    shown_dialog,
    start_unlocked,
    switch_dialog,
    switch_open_button,
    unlock,
)

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"


@pytest.fixture
def app(desktop):
    return desktop()


def _sent_rows(qtbot, window, count: int) -> list[tuple[str, str]]:
    """(For, Sent to) of each row of the Sent tab, newest first, once it lists `count`."""
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: inspector.sent_tab.tree.topLevelItemCount() == count)
    tree = inspector.sent_tab.tree
    rows = [(tree.topLevelItem(i).text(1), tree.topLevelItem(i).text(2))
            for i in range(tree.topLevelItemCount())]
    assert inspector.sent_tab.box.currentWidget() is tree  # not "Nothing was sent…"
    inspector.close()
    return rows


def test_the_sent_tab_keeps_the_requests_made_before_a_lock(qtbot, app, fail_keyring, send):
    window, opener = app
    opener.path = opener.path.with_name("locked.memoryos")
    start_unlocked(qtbot, window, opener, PASSPHRASE)
    send(window, "My dog is called Biscuit")
    assert _sent_rows(qtbot, window, 1) == [("answer", "this computer")]

    unlock(qtbot, window, shown_dialog(qtbot, opener, window.lock_action.trigger), PASSPHRASE)
    assert window.session.mem.sent_log() == []  # the memory opened again logs afresh
    assert _sent_rows(qtbot, window, 1) == [("answer", "this computer")]  # still listed
    send(window, "What is my dog called?")
    assert len(_sent_rows(qtbot, window, 2)) == 2


def test_the_sent_tab_keeps_another_memorys_requests_and_names_it(
    qtbot, app, memory_keyring, send
):
    window, opener = app
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), None)
    send(window, "My dog is called Biscuit")
    assert _sent_rows(qtbot, window, 1) == [("answer", "this computer")]  # one memory: unnamed

    dialog = switch_dialog(qtbot, window)
    qtbot.keyClicks(dialog.new_name, "work")
    created = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(switch_open_button(dialog),
                                                                   Qt.MouseButton.LeftButton))
    create_vault(qtbot, window, created, None)
    assert window.session.mem.path.name == "work.memoryos"
    send(window, "The report is due on Friday.")

    assert _sent_rows(qtbot, window, 2) == [("answer (work)", "this computer"),
                                            ("answer (default)", "this computer")]
