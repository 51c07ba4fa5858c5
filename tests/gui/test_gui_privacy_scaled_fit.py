"""The Privacy panel on a 1366x768 laptop at QT_SCALE_FACTOR=1.5 (the room it has there, 870x452
logical pixels, at the same logical text sizes): the Facts table shows whole rows. And the
scrolled column the panels share (widgets.scrolled_column)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QScrollArea

from app import theme
from tests.gui_steps import cut_rows, settle

pytestmark = pytest.mark.gui

ROOM = (round(1366 / 1.5) - 40, round(768 / 1.5) - 60)  # screen_room on that laptop


@pytest.fixture
def scaled_laptop(monkeypatch):
    from app import privacy, widgets

    monkeypatch.setattr(widgets, "screen_room", lambda window: ROOM)
    monkeypatch.setattr(privacy, "screen_room", lambda window: ROOM)


def test_the_scrolled_column_holds_its_widgets_without_frame_or_focus(qtbot):
    from app.widgets import scrolled_column

    title, table, hint = QLabel("Title"), QLineEdit(), QLabel("Hint")
    area = scrolled_column("someColumn", [title, table, hint], stretch=table, spacing=7,
                           across=False)
    qtbot.addWidget(area)
    column = area.widget()
    layout = column.layout()
    assert isinstance(area, QScrollArea) and column.objectName() == "someColumn"
    assert [layout.itemAt(i).widget() for i in range(layout.count())] == [title, table, hint]
    assert [layout.stretch(i) for i in range(layout.count())] == [0, 1, 0]
    assert layout.spacing() == 7 and layout.contentsMargins().top() == 0
    assert area.frameShape() == QScrollArea.Shape.NoFrame and area.widgetResizable()
    assert area.focusPolicy() == Qt.FocusPolicy.NoFocus
    assert not area.viewport().autoFillBackground() and not column.autoFillBackground()
    assert area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    other = scrolled_column("other", [QLabel("One")])  # by default it scrolls sideways too
    qtbot.addWidget(other)
    assert other.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded


@pytest.mark.parametrize("size", [theme.BASE_SIZE, theme.MAX_SIZE],
                         ids=["normal text", "largest text"])
def test_the_facts_table_shows_whole_rows(qtbot, qapp, window, memory, scaled_laptop,
                                          look_back, size):
    """As opened, and at its smallest."""
    for number in range(20):
        memory.add_memory(f"I keep bees number {number} on the roof.", "Noted.")
    memory.run_consolidation()
    theme.apply_look(qapp, "light", size)
    panel = window.open_privacy()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() == 20, timeout=10_000)
    settle()
    tree, row = panel.tree, panel.tree.sizeHintForRow(0)
    for state in ("as opened", "at its smallest"):
        if state == "at its smallest":
            panel.resize(panel.minimumSize())
            settle()
        assert tree.viewport().height() >= row, state  # a row is there to see
        assert tree.viewport().height() % row == 0, state  # its own edge cuts no row
        assert cut_rows(tree) == [], state  # nor does the page's, as it opens
    panel.close()
