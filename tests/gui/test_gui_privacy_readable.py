"""The Conversations tab of the Privacy panel stays readable when small and at a large text
size: at 1.5x on a 1366x768 laptop the exchanges showed half a row (none after Ctrl+= twice)
and the questions read "..." (the answers took the width)."""

from __future__ import annotations

import pytest

from app import theme
from tests.gui_steps import privacy_with_two_exchanges

pytestmark = pytest.mark.gui

JOB = "I work as a data scientist in San Francisco and I like long walks in the hills."
FOOD = "My favourite food is spicy ramen, best from the little shop near the station."


@pytest.mark.parametrize("size", [theme.BASE_SIZE, theme.BASE_SIZE + 4])
def test_the_exchanges_can_be_read_in_a_small_panel(qtbot, window, memory, look_back, qapp, size):
    for number in range(4):
        memory.add_memory(f"Will the trains run on time this week, number {number}?",
                          "They should, unless the strike planned for Thursday goes ahead. " * 6)
    panel = privacy_with_two_exchanges(qtbot, window, memory, JOB, FOOD)
    theme.apply_look(qapp, "light", size)  # Ctrl+= twice
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.setCurrentItem(panel.conversation_tree.topLevelItem(0))
    exchanges = panel.exchanges
    tree = exchanges.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 6)
    tree.setCurrentItem(tree.topLevelItem(0))
    panel.resize(1, 1)  # as small as it goes
    qtbot.waitUntil(lambda: tree.viewport().height() > 0)

    row = tree.visualItemRect(tree.topLevelItem(0)).height()
    assert tree.viewport().height() >= 2 * row + row // 3, "not two exchanges and part of a third"
    detail = exchanges.detail
    assert detail.viewport().height() >= 2 * detail.fontMetrics().lineSpacing()
    question = tree.columnWidth(1)
    assert question >= 20 * tree.fontMetrics().averageCharWidth(), "the question is cut short"
    # neither column is pushed off to the right: both show whole in the list's width
    assert sum(tree.columnWidth(column) for column in range(3)) <= tree.viewport().width()
    assert abs(tree.columnWidth(2) - question) <= 1  # they share the width
