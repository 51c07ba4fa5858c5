"""The /forget panel: its "also goes" lines follow the ticks, a replaced fact says so, and
Enter presses the focused button."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui_steps import forget_asked

pytestmark = pytest.mark.gui

ALSO = "also goes with those exchanges"


def _learn(memory, said: str):
    page = memory.add_memory(said, "Okay.")
    memory.run_consolidation()
    return page


def _rows(panel) -> list:
    return [panel.list.item(i) for i in range(panel.list.count())]


def _also(panel) -> list[str]:
    """The "also goes" lines on screen, and shown as current (not greyed while found again)."""
    return [row.text() for row in _rows(panel)
            if ALSO in row.text() and row.flags() & Qt.ItemFlag.ItemIsEnabled]  # fmt: skip


def _exchange_row(panel, said: str):
    (row,) = [r for r in _rows(panel) if r.text().startswith("Exchange") and said in r.text()]
    return row


def test_the_also_goes_lines_follow_the_ticked_exchanges(qtbot, window, memory):
    _learn(memory, "My name is Tom and I drink coffee every morning.")
    _learn(memory, "I live in Porto, where the coffee is good.")
    panel = forget_asked(qtbot, window, "coffee")
    assert len(panel.ticked()) == 4  # 2 facts, 2 exchanges
    also = _also(panel)
    assert len(also) == 2 and any("name: Tom" in line for line in also)
    assert any("location: Porto" in line for line in also)

    # Tom's exchange stays: its profile entry stays too, and its line goes
    _exchange_row(panel, "My name is Tom").setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: len(_also(panel)) == 1)
    assert "location: Porto" in _also(panel)[0]
    assert not [row for row in _rows(panel) if "name: Tom" in row.text()]

    # no exchange ticked: nothing goes along
    _exchange_row(panel, "I live in Porto").setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: not [row for row in _rows(panel) if ALSO in row.text()])

    # ticked again: its line is back
    _exchange_row(panel, "I live in Porto").setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: len(_also(panel)) == 1 and "location: Porto" in _also(panel)[0])

    with qtbot.waitSignal(window.chat_actions.done) as done:
        panel.forget_button.click()
    assert done.args == ["forgot"]
    assert [s.text for s in memory.profile()] == ["name: Tom"]  # what the panel said stays
    assert [p.user_input for p in memory.pages()] == [
        "My name is Tom and I drink coffee every morning."
    ]


def test_a_replaced_fact_says_so_in_the_forget_panel(qtbot, window, memory):
    _learn(memory, "I drink coffee every morning.")
    _learn(memory, "I've switched from coffee, it kept me awake.")
    old = [f for f in memory.facts(include_superseded=True) if f.text.startswith("I drink")]
    assert old and old[0].status == "superseded"  # no longer recalled

    panel = forget_asked(qtbot, window, "coffee")
    facts = {row.data(Qt.ItemDataRole.UserRole).text: row
             for row in _rows(panel) if row.text().startswith("Fact")}  # fmt: skip
    replaced = facts["I drink coffee every morning."]
    assert replaced.text().startswith("Fact (replaced) · ")
    assert "no longer recalled" in replaced.toolTip()
    current = facts["I've switched from coffee, it kept me awake."]
    assert "replaced" not in current.text() and "no longer" not in current.toolTip()
    panel.cancel()


def _focus_on(qtbot, widget):
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget)


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_enter_presses_the_focused_button_of_the_forget_panel(qtbot, window, memory, key):
    memory.add_fact("I drink coffee every morning")
    keep = memory.add_fact("I live in Porto")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    keypad = (Qt.KeyboardModifier.KeypadModifier if key == Qt.Key.Key_Enter
              else Qt.KeyboardModifier.NoModifier)  # fmt: skip

    panel = forget_asked(qtbot, window, "coffee")
    _focus_on(qtbot, panel.cancel_button)
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.keyClick(panel.cancel_button, key, keypad)
    assert done.args == ["cancelled"] and len(memory.facts()) == 2

    panel = forget_asked(qtbot, window, "coffee")
    _focus_on(qtbot, panel.cancel_button)
    qtbot.keyClick(panel.cancel_button, Qt.Key.Key_Tab)
    _focus_on(qtbot, panel.forget_button)
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.keyClick(panel.forget_button, key, keypad)
    assert done.args == ["forgot"]
    assert [f.id for f in memory.facts()] == [keep.id]
