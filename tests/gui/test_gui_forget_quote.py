"""Privacy's forget of one exchange: the question quotes it, and says what backups keep."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import answer_box

pytestmark = pytest.mark.gui

LONG = ("What a lovely sunny morning it is today, the kind that makes me want to walk along "
        "the river all the way to the old harbour.")  # fmt: skip
OTHER = "My favourite food is spicy ramen."


def test_the_question_quotes_the_exchange_and_says_backups_keep_it(qtbot, window, memory):
    """It asked "Forget this exchange? This will: • 1 exchange removed" without saying which,
    and "Nothing of it stays on this computer" whatever a backup made before holds."""
    memory.add_memory(OTHER, "Noted!")
    memory.add_memory(LONG, "It is indeed.")
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: panel.conversation_tree.topLevelItemCount() == 1)
    panel.tabs.setCurrentIndex(1)
    panel.conversation_tree.setCurrentItem(panel.conversation_tree.topLevelItem(0))
    exchanges = panel.exchanges
    qtbot.waitUntil(lambda: exchanges.tree.topLevelItemCount() == 2, timeout=30000)
    exchanges.tree.setCurrentItem(exchanges.tree.topLevelItem(0))  # newest: LONG
    assert exchanges.selected_page().user_input == LONG

    seen: dict = {}
    answer_box(panel, "forgetPreview", "Cancel", seen)
    qtbot.mouseClick(exchanges.forget_button, Qt.MouseButton.LeftButton)  # what Delete does
    qtbot.waitUntil(lambda: "texts" in seen)
    asked = seen["texts"][0]
    assert LONG[:60] in asked  # the exchange's question, quoted
    assert "old harbour" not in asked  # its start only: the question stays one line
    assert OTHER not in asked
    assert "on this computer" not in asked and "backups" in asked
    assert len(memory.pages()) == 2  # Cancel forgets nothing
