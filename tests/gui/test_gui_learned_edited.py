""""Learned" notices and the person's own edits in Privacy: an edit is never announced as
learned, the notice it changed says so and its Undo deletes nothing, undoing the edit puts the
notice back, and a delete makes it "Deleted"."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.view_learned import DELETED_NOTICE as DELETED
from tests.gui_steps import click_text, privacy_row

pytestmark = pytest.mark.gui

CELLO = "I play the cello on Sundays"
VIOLA = "I play the viola on Sundays"


def _learned(qtbot, window, memory, send):
    send(window, CELLO)
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    assert f"Learned: {CELLO}" in window.view.plain_text()
    (fact,) = [f for f in memory.facts() if f.text == CELLO]
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, CELLO) is not None)
    return fact, panel


def _change(qtbot, window, panel, act):
    """A change in Privacy, and the notices' check that follows it."""
    with qtbot.waitSignal(window.learned_notices.checked, timeout=10_000):
        act()


def test_an_edit_in_privacy_is_not_learned_and_the_notice_says_it_changed(
    qtbot, window, chat, memory, send
):
    fact, panel = _learned(qtbot, window, memory, send)
    _change(qtbot, window, panel, lambda: privacy_row(panel, CELLO).setText(1, VIOLA))
    panel.close()
    for _ in range(2):  # and after the "facts" events' own check
        with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
            window.learned_notices.check()

    text = window.view.plain_text()
    assert f"Learned: {VIOLA}" not in text  # the person's own words, not learned
    assert f"Changed since: {VIOLA}" in text and f"Learned: {CELLO}" not in text
    assert "Forgot" not in text and "Deleted" not in text
    assert "Undo" not in text  # nothing to offer: the notice's text is gone
    assert [f.text for f in memory.facts() if f.id == fact.id] == [VIOLA]

    # An Undo clicked before the line changed (the item named by the notice) deletes nothing.
    item = next(i for i in window.view.learned_items() if i.id == fact.id)
    with qtbot.waitSignal(window.chat_actions.done) as done:
        window.view.learned_undo_requested.emit(item)
    assert done.args == ["changed"]
    assert [f.text for f in memory.facts() if f.id == fact.id] == [VIOLA]
    assert "nothing was deleted" in window.status.currentMessage()
    text = window.view.plain_text()
    assert f"Changed since: {VIOLA}" in text and "Forgot" not in text


def test_undoing_the_edit_brings_the_notice_back_and_a_delete_says_deleted(
    qtbot, window, chat, memory, send
):
    fact, panel = _learned(qtbot, window, memory, send)
    _change(qtbot, window, panel, lambda: privacy_row(panel, CELLO).setText(1, VIOLA))
    qtbot.waitUntil(lambda: f"Changed since: {VIOLA}" in window.view.plain_text())

    _change(qtbot, window, panel, lambda: qtbot.mouseClick(
        panel.undo_button, Qt.MouseButton.LeftButton))
    qtbot.waitUntil(lambda: f"Learned: {CELLO}" in window.view.plain_text())
    text = window.view.plain_text()
    assert "Changed since" not in text and f"Learned: {VIOLA}" not in text
    assert text.count(f"Learned: {CELLO}") == 1

    # Its Undo works again: it deletes exactly that fact.
    with qtbot.waitSignal(window.chat_actions.done) as done:
        click_text(qtbot, window.view, "Undo", after=f"Learned: {CELLO}")
    assert done.args == ["undone"]
    assert fact.id not in [f.id for f in memory.facts()]
    assert f"Forgot: {CELLO}" in window.view.plain_text()


def test_an_edited_then_deleted_item_says_deleted(qtbot, window, chat, memory, send):
    fact, panel = _learned(qtbot, window, memory, send)
    _change(qtbot, window, panel, lambda: privacy_row(panel, CELLO).setText(1, VIOLA))
    qtbot.waitUntil(lambda: f"Changed since: {VIOLA}" in window.view.plain_text())
    qtbot.waitUntil(lambda: privacy_row(panel, VIOLA) is not None)  # the list read back
    panel.tree.clearSelection()
    privacy_row(panel, VIOLA).setSelected(True)
    _change(qtbot, window, panel, lambda: panel.delete_selected(confirm=False))
    qtbot.waitUntil(lambda: DELETED in window.view.plain_text())
    assert fact.id not in [f.id for f in memory.facts()]
    assert "Changed since" not in window.view.plain_text()
    panel.close()


def test_closing_privacy_before_its_delete_is_done_loses_nothing(
    qtbot, window, chat, memory, send, monkeypatch
):
    """Close right after Delete: the delete finishes in its worker after the panel is gone. Its
    result must not write to the panel's deleted widgets, and the delete still shows."""
    import threading

    from shiboken6 import isValid

    from app import privacy_items

    fact, panel = _learned(qtbot, window, memory, send)
    held, release = threading.Event(), threading.Event()
    real_delete = privacy_items.delete_items

    def delete_when_released(mem, items):  # the real delete, once the panel is closed
        held.set()
        assert release.wait(10)
        return real_delete(mem, items)

    monkeypatch.setattr(privacy_items, "delete_items", delete_when_released)
    privacy_row(panel, CELLO).setSelected(True)
    panel.delete_selected(confirm=False)
    qtbot.waitUntil(held.is_set)
    panel.close()
    qtbot.waitUntil(lambda: not isValid(panel))

    with qtbot.waitSignal(window.learned_notices.checked, timeout=10_000):
        release.set()
    qtbot.waitUntil(lambda: not window.session.pool.active)  # its result was delivered
    qtbot.waitUntil(lambda: DELETED in window.view.plain_text())
    assert fact.id not in [f.id for f in memory.facts()]
    assert "privacy" not in window.panels
