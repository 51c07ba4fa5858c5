"""The privacy panel forgets just the exchange a fact came from, not its whole conversation."""

from __future__ import annotations

import pytest

from tests.gui_steps import answer_box, choose_in_menu, privacy_row, privacy_with_two_exchanges

pytestmark = pytest.mark.gui

JOB = "I work as a data scientist in San Francisco."
FOOD = "My favourite food is spicy ramen."


@pytest.fixture
def panel(qtbot, window, memory):
    """Two exchanges of one conversation, each with what was learned from it."""
    return privacy_with_two_exchanges(qtbot, window, memory, JOB, FOOD)


# the offscreen platform cannot raise a popup menu nor give it the keyboard: said, not a fault
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_forget_the_exchange_a_fact_came_from_keeps_the_rest_of_its_conversation(
    qtbot, panel, memory
):
    """Only "Forget its conversation…" was offered, which forgets every exchange of it."""
    conversation = memory.pages()[0].conversation_id
    privacy_row(panel, "data scientist").setSelected(True)
    entry = panel.forget_exchange_action
    assert entry.isEnabled() and entry.text() == "Forget the exchange it came from…"
    seen: dict = {}
    answer_box(panel, "forgetPreview", "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        choose_in_menu(qtbot, panel.forget_button, entry.text())

    preview = seen["texts"][0]
    assert "1 exchange removed" in preview and "conversation removed" not in preview
    assert JOB in preview  # the fact goes with its only exchange, and the preview says so
    assert [page.user_input for page in memory.pages()] == [FOOD]
    assert [page.conversation_id for page in memory.pages()] == [conversation]
    assert not any("data scientist" in fact.text for fact in memory.facts())
    assert any(fact.text == FOOD for fact in memory.facts())
    qtbot.waitUntil(lambda: privacy_row(panel, "data scientist") is None)
    assert privacy_row(panel, "spicy ramen") is not None
    assert panel.conversation_tree.topLevelItemCount() == 1


def test_the_delete_question_offers_to_forget_the_exchange_too(qtbot, panel, memory):
    """The delete question pointed at "Forget its conversation…"; it now offers to forget
    the fact's own exchange with it, after the usual preview."""
    privacy_row(panel, "spicy ramen").setSelected(True)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete and forget the exchange…", seen)
    answer_box(panel, "forgetPreview", "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        panel.delete_selected()

    question, preview = seen["texts"]
    assert "Forget its conversation" not in question
    assert "choose “Delete and forget the exchange”" in question
    assert "Delete and forget the exchange…" in seen["buttons"][0]
    assert "1 exchange removed" in preview
    assert [page.user_input for page in memory.pages()] == [JOB]
    assert not any("ramen" in fact.text for fact in memory.facts())
    assert any("data scientist" in fact.text for fact in memory.facts())
    qtbot.waitUntil(lambda: privacy_row(panel, "spicy ramen") is None)


def test_an_item_with_no_stored_exchange_has_none_to_forget(qtbot, panel, memory):
    memory.add_fact("I am allergic to peanuts")
    qtbot.waitUntil(lambda: privacy_row(panel, "peanuts") is not None)
    privacy_row(panel, "peanuts").setSelected(True)
    assert not panel.forget_exchange_action.isEnabled()
    assert "added by hand" in panel.forget_exchange_action.toolTip()

    panel.tree.selectAll()  # with the others: the exchanges of those that have one
    assert panel.forget_exchange_action.text() == "Forget the 2 exchanges they came from…"


def _forget_exchange_of(qtbot, panel, needle: str) -> str:
    """Forget the exchange the item saying `needle` came from; the preview's text."""
    panel.tree.clearSelection()
    privacy_row(panel, needle).setSelected(True)
    seen: dict = {}
    answer_box(panel, "forgetPreview", "Forget", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        panel.forget_source_exchanges()
    return seen["texts"][0]


def test_the_preview_says_renamed_only_when_the_title_changes(qtbot, panel, memory):
    """The preview said "1 conversation renamed" for any exchange forgotten from a
    conversation that keeps others, though its title (from its first question) stayed."""
    (before,) = memory.conversations()
    preview = _forget_exchange_of(qtbot, panel, "spicy ramen")  # the second exchange
    assert "renamed" not in preview and "title" not in preview
    assert [c.title for c in memory.conversations()] == [before.title]

    memory.add_memory("My sister lives in Lisbon.", "Lovely city.")
    memory.run_consolidation()
    qtbot.waitUntil(lambda: privacy_row(panel, "Lisbon") is not None)
    preview = _forget_exchange_of(qtbot, panel, "data scientist")  # the first: named after it
    assert "1 conversation renamed" in preview
    (after,) = memory.conversations()
    assert after.title != before.title and "Lisbon" in after.title


def test_delete_and_forget_say_what_they_did(qtbot, panel, memory):
    """After Delete or Forget the rows just vanished: a line now says what went."""
    note = panel.done_note
    assert not note.text()
    privacy_row(panel, "data scientist").setSelected(True)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        panel.delete_selected(confirm=False)
    assert note.isVisible() and note.text().startswith("Deleted") and "1 fact" in note.text()

    _forget_exchange_of(qtbot, panel, "spicy ramen")
    assert note.isVisible() and note.text().startswith("Forgot")
    assert "1 exchange" in note.text() and "1 fact" in note.text()
