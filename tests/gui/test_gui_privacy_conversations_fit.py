"""The Privacy panel's Conversations tab on a 1366x768 laptop at QT_SCALE_FACTOR=1.5 (the room
it has there, 870x452 logical pixels, at the same logical text sizes): the conversations and
the exchanges of the one selected show whole rows, as the Facts table does (widgets.WholeRows).
The exchanges list showed 7 rows and 7 px of an eighth at normal text, 3 rows and 35 px of a
fourth at the largest."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint

from app import theme
from app.privacy_helpers import ROLE
from tests.gui_steps import cut_rows, settle

pytestmark = pytest.mark.gui

LAPTOP = (round(1366 / 1.5) - 40, round(768 / 1.5) - 60)  # screen_room on that laptop
NETBOOK = (1024 - 40, 560 - 60)  # and on a 1024x560 netbook


@pytest.fixture
def room(monkeypatch, request):
    """The room a window has on the screen the test names."""
    from app import privacy, widgets

    monkeypatch.setattr(widgets, "screen_room", lambda window: request.param)
    monkeypatch.setattr(privacy, "screen_room", lambda window: request.param)
    return request.param


def _whole(tree, name: str, page=None) -> list[str]:
    """Why `tree` does not show whole rows ([] if it does). On the scrolled `page` as it opens,
    only where the page shows a whole row of it: at the largest text the page's view ends
    inside the conversations' first row, and no height of the list changes that."""
    row = tree.sizeHintForRow(0)
    problems = []
    if tree.viewport().height() < row:
        problems.append(f"{name}: {tree.viewport().height()} px, less than a row ({row})")
    elif tree.viewport().height() % row:
        problems.append(f"{name}: its edge cuts a row ({tree.viewport().height()} px, rows of "
                        f"{row})")
    top = tree.viewport().mapTo(page.widget(), QPoint(0, 0)).y() if page is not None else 0
    if page is None or page.viewport().height() - top >= row:
        problems += [f"{name}: {problem}" for problem in cut_rows(tree)]
    return problems


@pytest.mark.parametrize(("room", "size"), [(LAPTOP, theme.BASE_SIZE),
                                             (LAPTOP, theme.MAX_SIZE),
                                             (NETBOOK, theme.BASE_SIZE)],
                         ids=["1.5x, normal text", "1.5x, largest text", "1024x560"],
                         indirect=["room"])
def test_the_conversations_tab_shows_whole_rows(qtbot, qapp, window, memory, room, look_back,
                                                size):
    """The conversations as the tab opens, the exchanges scrolled to; as the panel opens and at
    its smallest."""
    for talk in range(12):
        for number in range(20 if talk == 0 else 2):
            memory.add_memory(f"Question {number} of talk {talk} about bees.",
                              f"Answer {number}.", conversation_id=f"talk-{talk}")
    theme.apply_look(qapp, "light", size)
    panel = window.open_privacy()
    qtbot.waitExposed(panel)
    conversations, exchanges = panel.conversation_tree, panel.exchanges.tree
    qtbot.waitUntil(lambda: conversations.topLevelItemCount() == 12, timeout=10_000)
    panel.tabs.setCurrentIndex(1)
    first = next(conversations.topLevelItem(i) for i in range(12)
                 if conversations.topLevelItem(i).data(0, ROLE) == "talk-0")
    conversations.setCurrentItem(first)
    qtbot.waitUntil(lambda: exchanges.topLevelItemCount() == 20, timeout=10_000)
    settle()
    for state in ("as opened", "at its smallest"):
        if state == "at its smallest":
            panel.resize(panel.minimumSize())
            settle()
        conversations.scrollToTop()
        panel.middle.verticalScrollBar().setValue(0)  # the page as it opens
        settle()
        problems = _whole(conversations, "conversations", panel.middle)
        panel.middle.ensureWidgetVisible(exchanges, 0, 0)
        settle()
        problems += _whole(exchanges, "exchanges")
        assert problems == [], f"{state}: " + "\n".join(problems)
    panel.close()
