"""What an answer remembered, what was learned, and the chat commands, in the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_steps import click_text
from tests.helpers import prompt_ids

pytestmark = pytest.mark.gui


def _answers(view):
    return [m for m in view.messages if m.role == "assistant"]


def test_an_answer_shows_what_its_prompt_remembered(qtbot, window, chat, memory, send, spied):
    memory.add_fact("I am allergic to peanuts")
    # retrieval keeps only facts that share something with the question (#12): both do
    memory.add_fact("I am also allergic to shellfish")
    memory.add_memory("Can you suggest a dinner without peanuts?", "A lentil curry.")
    chat.queue("Avoid peanuts.")

    answer = send(window, "what am I allergic to? peanuts")

    (retrieval,) = spied
    (message,) = _answers(window.view)
    assert [i.key for i in message.memories] == prompt_ids(retrieval)
    assert [i.key for i in answer.memories] == prompt_ids(retrieval)
    text = window.view.plain_text()
    assert "Used 3 memories: 2 facts, 1 recent exchange" in text
    assert "I am allergic to peanuts" not in text  # collapsed: quiet

    click_text(qtbot, window.view, "Used 3 memories")

    qtbot.waitUntil(lambda: message.expanded)
    text = window.view.plain_text()
    assert "Fact · persona · " in text and "I am allergic to peanuts" in text
    assert "Exchange · recent · " in text and "Can you suggest a dinner without peanuts?" in text


def test_expanding_the_last_answers_list_scrolls_it_into_view(qtbot, window, chat, memory, send):
    """The list opened below the bottom of the view (the line was the last thing on screen):
    expanding scrolls just enough for all of it to be seen, its line included."""
    for fact in ("I am allergic to peanuts", "I am also allergic to shellfish",
                 "My peanut-free bakery is on Elm Street", "Peanuts give me hives"):
        memory.add_fact(fact)
    for question in ("What should I cook tonight?", "And for dessert?"):
        chat.queue("A long answer. " * 60)
        send(window, question)
    chat.queue("Avoid peanuts.")
    send(window, "what am I allergic to? peanuts")
    view = window.view
    bar = view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    message = _answers(view)[-1]
    assert len(message.memories) >= 4

    click_text(qtbot, view, "Used ", after="Avoid peanuts.")

    assert message.expanded

    def list_in_view():
        rect = view.browser.document().documentLayout().frameBoundingRect(
            message.remembered_frame)
        shown = bar.value(), bar.value() + view.browser.viewport().height()
        return shown[0] <= rect.top() and rect.bottom() <= shown[1]

    qtbot.waitUntil(list_in_view)
    assert "I am allergic to peanuts" in view.plain_text()


def test_an_item_forgotten_later_shows_as_forgotten(qtbot, window, chat, memory, send):
    fact = memory.add_fact("I am allergic to peanuts")
    send(window, "peanuts?")
    memory.delete_fact(fact.id)

    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()

    (message,) = _answers(window.view)
    assert [(i.key, i.forgotten, i.text) for i in message.memories] == [
        (("fact", fact.id), True, "")
    ]
    assert "Used 1 memory: 1 fact (1 forgotten since)" in window.view.plain_text()
    window.view.toggle_remembered(message)
    assert "Fact · forgotten" in window.view.plain_text()


def test_the_line_under_an_answer_on_screen_follows_a_delete(qtbot, window, chat, memory, send):
    """Deleting a fact the answer used (here, in the privacy panel, or from another process)
    redraws its "Used" line in place: the conversation need not be opened again."""
    fact = memory.add_fact("I am allergic to peanuts")
    send(window, "peanuts?")
    assert "Used 1 memory: 1 fact" in window.view.plain_text()
    assert "forgotten since" not in window.view.plain_text()

    with qtbot.waitSignal(window.used_memories.refreshed, timeout=5000):
        memory.delete_fact(fact.id)

    qtbot.waitUntil(lambda: "1 fact (1 forgotten since)" in window.view.plain_text())
    (message,) = _answers(window.view)
    assert [(i.key, i.forgotten) for i in message.memories] == [(("fact", fact.id), True)]


def test_an_old_answer_shows_what_it_used_when_the_window_opens(qtbot, memory, chat):
    from app.main_window import MainWindow

    memory.add_fact("I am allergic to peanuts")
    memory.get_response("peanuts?").collect()
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: "Used 1 memory: 1 fact" in window.view.plain_text())
    window.close()


def test_a_temporary_chat_shows_what_it_remembered(qtbot, window, chat, memory, send):
    memory.add_fact("I am allergic to peanuts")
    window.temporary_action.trigger()
    answer = send(window, "peanuts?")
    assert answer.page is None
    assert "Used 1 memory: 1 fact" in window.view.plain_text()


def test_a_remembered_item_opens_its_provenance(qtbot, window, chat, memory, send):
    fact = memory.add_fact("I am allergic to peanuts")
    memory.add_fact("I live in Porto")
    send(window, "peanuts?")
    (message,) = _answers(window.view)
    window.view.toggle_remembered(message)

    click_text(qtbot, window.view, "I am allergic to peanuts")

    qtbot.waitUntil(lambda: "privacy" in window.panels)
    panel = window.panels["privacy"]
    qtbot.waitUntil(lambda: [i.key for i in panel.selected_items()] == [("user_fact", fact.id)])
    panel.close()


def test_forget_from_a_remembered_item_asks_then_deletes_exactly_it(
    qtbot, window, chat, memory, send
):
    fact = memory.add_fact("I am allergic to peanuts")
    other = memory.add_fact("I eat peanuts never")
    send(window, "peanuts?")
    (message,) = _answers(window.view)
    window.view.toggle_remembered(message)
    position = [i.key for i in message.memories].index(("fact", fact.id))
    cursor = window.view.browser.document().find("I am allergic to peanuts")
    cursor.setPosition(cursor.selectionStart() + 1)
    menu = window.view.context_menu(window.view.browser.cursorRect(cursor).center())
    actions = {a.text().replace("&", ""): a for a in menu.actions()}
    assert message.memories[position].text == "I am allergic to peanuts"
    with qtbot.waitSignal(window.chat_actions.done):
        actions["Forget this memory…"].trigger()
    assert window.forget_panel.isVisible()
    assert [m.key for m in window.forget_panel.ticked()] == [("fact", fact.id)]
    with qtbot.waitSignal(window.chat_actions.done) as done:
        window.forget_panel.forget_button.click()
    assert done.args == ["forgot"]
    assert [f.id for f in memory.facts()] == [other.id]


# --- "Learned" notices ------------------------------------------------------------------


def _learn(qtbot, window, memory):
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()  # the page-added job: first-person statements become facts


def test_a_learned_fact_gets_one_notice_and_undo_deletes_exactly_it(
    qtbot, window, chat, memory, send
):
    kept = memory.add_fact("I live in Porto")
    answer = send(window, "I am allergic to peanuts")
    _learn(qtbot, window, memory)

    learned = window.view.learned_items()
    facts = [f for f in memory.facts() if f.id != kept.id]
    assert [i.text for i in learned if i.kind == "fact"] == [f.text for f in facts]
    assert all(i.page_id == answer.page.id for i in learned)
    text = window.view.plain_text()
    assert text.count("Learned: ") == len(learned) >= 1
    assert "Learned: I am allergic to peanuts" in text
    # A second burst of events does not repeat the notice.
    with qtbot.waitSignal(window.learned_notices.checked):
        window.learned_notices.check()
    assert window.view.plain_text().count("Learned: ") == len(learned)

    target = next(i for i in learned if i.text == "I am allergic to peanuts")
    others = {(f.id, f.text) for f in memory.facts()} - {(target.id, target.text)}
    with qtbot.waitSignal(window.chat_actions.done) as done:
        click_text(qtbot, window.view, "Undo", after="Learned: I am allergic to peanuts")
    assert done.args == ["undone"]
    assert {(f.id, f.text) for f in memory.facts()} == others
    assert "Forgot: I am allergic to peanuts" in window.view.plain_text()
    # Drawn again (after a forget, a new text size): the notices come back as they were.
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert "Forgot: I am allergic to peanuts" in window.view.plain_text()
    assert window.view.plain_text().count("Learned: ") == len(learned) - 1


def test_no_learned_notice_in_a_temporary_chat(qtbot, window, chat, memory, send):
    window.temporary_action.trigger()
    send(window, "I am allergic to peanuts")
    memory.run_consolidation()
    with qtbot.waitSignal(window.learned_notices.checked):
        window.learned_notices.check()
    assert window.view.learned_items() == []
    assert "Learned:" not in window.view.plain_text()


def test_no_learned_notice_when_turned_off(qtbot, window, chat, memory, send):
    window.settings.learned_notices = False
    send(window, "I am allergic to peanuts")
    _learn(qtbot, window, memory)
    assert [f.text for f in memory.facts()] == ["I am allergic to peanuts"]
    assert window.view.learned_items() == []
    assert "Learned:" not in window.view.plain_text()


def test_the_setting_is_in_the_settings_dialog(qtbot, window):
    dialog = window.open_settings()
    assert dialog.conversation_page.learned_notices.isChecked()
    dialog.conversation_page.learned_notices.setChecked(False)
    assert dialog.values().learned_notices is False
    dialog.reject()


# --- commands and the message menu ---------------------------------------------------------


def _type(qtbot, window, text):
    window.composer.input.setPlainText(text)
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    return done.args[0]


def test_remember_command_stores_a_fact_from_the_person(qtbot, window, chat, memory):
    assert _type(qtbot, window, "/remember I am vegetarian") == "remembered"
    (fact,) = memory.facts()
    assert (fact.text, fact.origin) == ("I am vegetarian", "user")
    assert "Remembered: I am vegetarian" in window.view.plain_text()
    assert memory.pages() == [] and chat.seen_messages == []  # not sent to the model


def test_forget_command_asks_first_and_cancel_deletes_nothing(qtbot, window, chat, memory, send):
    memory.add_fact("I am allergic to peanuts")
    keep = memory.add_fact("I live in Porto")
    send(window, "Any snacks without peanuts?")
    pages = memory.pages()

    assert _type(qtbot, window, "/forget peanuts") == "asked"
    panel = window.forget_panel
    assert panel.isVisible()
    assert [m.kind for m in panel.ticked()] == ["fact", "exchange"]
    assert "Forget 2 items matching “peanuts”?" == panel.title.text()
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert done.args == ["cancelled"]
    assert len(memory.facts()) == 2 and memory.pages() == pages
    assert "Cancelled; nothing was forgotten." in window.view.plain_text()

    assert _type(qtbot, window, "/forget peanuts") == "asked"
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.mouseClick(panel.forget_button, Qt.MouseButton.LeftButton)
    assert done.args == ["forgot"]
    assert [f.id for f in memory.facts()] == [keep.id]
    assert memory.pages() == []
    qtbot.waitUntil(lambda: "Forgot 2 items." in window.view.plain_text())
    assert "Any snacks without peanuts?" not in window.view.plain_text()


def test_forget_shows_a_long_exchange_around_the_word_that_matched(qtbot, window, memory):
    """The answer named the dog 300 characters in: the row shows that part, not the start."""
    memory.add_memory(
        "I work as a nurse at the city hospital, mostly night shifts.",
        "Night shifts are hard on sleep. " * 8 + "Does Biscuit keep you company at night?",
    )
    assert _type(qtbot, window, "/forget biscuit") == "asked"
    (row,) = [window.forget_panel.list.item(i) for i in range(window.forget_panel.list.count())]
    assert "Biscuit keep you company" in row.text() and "— …" in row.text()
    assert "I work as a nurse" in row.toolTip()  # the whole exchange, on hover
    window.forget_panel.cancel()


def test_one_line_around_the_matched_word():
    from app.remembered import one_line_around

    text = "word " * 60 + "my dogs love the beach"
    assert one_line_around("fact", text, ["dog"], 60).endswith("my dogs love the beach")
    assert one_line_around("fact", text, ["dog"], 60).startswith("…")
    assert len(one_line_around("fact", text, ["dog"], 60)) <= 60
    assert one_line_around("fact", "My dog is Biscuit", ["dog"], 60) == "My dog is Biscuit"
    assert one_line_around("fact", text, ["cat"], 60) == ("word " * 12)[:59] + "…"


def test_help_and_unknown_commands(qtbot, window, chat, memory):
    assert _type(qtbot, window, "/help") == "help"
    assert "/forget WORDS" in window.view.plain_text()
    # The keys for what the right-click menu and the menus do: regenerate, edit, find.
    help_text = window.view.plain_text()
    for keys in ("Ctrl+Shift+R answer again", "Ctrl+Shift+E edit your last question",
                 "Ctrl+B conversations", "Ctrl+Shift+F search them"):  # fmt: skip
        assert keys in help_text
    assert _type(qtbot, window, "/remeber I like figs") == "unknown"
    assert window.composer.input.toPlainText() == "/remeber I like figs"  # nothing lost
    assert memory.facts() == []


def test_remember_this_and_forget_this_exchange_from_the_message_menu(
    qtbot, window, chat, memory, send
):
    chat.queue("Noted.")
    send(window, "My bike is a blue Brompton")
    user, answer = window.view.messages[:2]

    menu = window.view.context_menu(window.view.point_of(user))
    actions = {a.text().replace("&", ""): a for a in menu.actions()}
    assert {"Copy message", "Remember this", "Forget this exchange…"} <= set(actions)
    with qtbot.waitSignal(window.chat_actions.done):
        actions["Remember this"].trigger()
    assert [(f.text, f.origin) for f in memory.facts()] == [("My bike is a blue Brompton", "user")]

    menu = window.view.context_menu(window.view.point_of(answer))
    actions = {a.text().replace("&", ""): a for a in menu.actions()}
    actions["Copy message"].trigger()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == "Noted."
    with qtbot.waitSignal(window.chat_actions.done):
        actions["Forget this exchange…"].trigger()
    assert [m.kind for m in window.forget_panel.ticked()] == ["exchange"]
    with qtbot.waitSignal(window.chat_actions.done):
        window.forget_panel.forget_button.click()
    assert memory.pages() == []
    assert [f.text for f in memory.facts()] == ["My bike is a blue Brompton"]  # said by the person


def test_remember_is_refused_in_a_temporary_chat(qtbot, window, chat, memory):
    window.temporary_action.trigger()
    assert _type(qtbot, window, "/remember I am vegetarian") == "refused"
    assert memory.facts() == []


def test_an_imported_exchange_claims_no_memories(qtbot, memory, chat):
    from app.main_window import MainWindow

    memory.add_memory("I'm Tom.", "Nice to meet you, Tom!")  # stored, not answered here
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: "Nice to meet you, Tom!" in window.view.plain_text())
    assert "Used" not in window.view.plain_text()
    window.close()


def test_manage_on_a_learned_notice_opens_the_item(qtbot, window, chat, memory, send):
    send(window, "I am allergic to peanuts")
    _learn(qtbot, window, memory)
    target = next(i for i in window.view.learned_items() if i.text == "I am allergic to peanuts")
    click_text(qtbot, window.view, "Manage", after=f"Learned: {target.text}")
    qtbot.waitUntil(lambda: "privacy" in window.panels)
    panel = window.panels["privacy"]
    qtbot.waitUntil(lambda: [i.key for i in panel.selected_items()] == [("user_fact", target.id)])
    panel.close()


def test_the_remembered_list_opens_from_the_keyboard(qtbot, window, chat, memory, send):
    memory.add_fact("I am allergic to peanuts")
    send(window, "peanuts?")
    (message,) = _answers(window.view)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_M, ctrl_shift)
    assert message.expanded and "Fact · persona" in window.view.plain_text()
    qtbot.keyClick(window, Qt.Key.Key_M, ctrl_shift)
    assert not message.expanded and "Fact · persona" not in window.view.plain_text()


def test_the_forget_panel_shows_what_goes_along(qtbot, window, chat, memory):
    memory.add_memory("My name is Tom and I am allergic to peanuts.", "Noted.")
    memory.run_consolidation()
    assert _type(qtbot, window, "/forget peanuts") == "asked"
    panel = window.forget_panel
    rows = [panel.list.item(i).text() for i in range(panel.list.count())]
    # the fact, the allergy's profile entry and the exchange say "peanuts"; name: Tom goes along
    assert panel.title.text() == "Forget 3 items matching “peanuts”?"
    assert len(rows) == 4 and "also goes with those exchanges" in rows[3] and "name: Tom" in rows[3]
    assert [m.kind for m in panel.ticked()] == ["fact", "profile", "exchange"]
    assert panel.forget_button.text() == "Forget 3 items"
    with qtbot.waitSignal(window.chat_actions.done):
        panel.forget_button.click()
    assert memory.profile() == [] and memory.facts() == [] and memory.pages() == []
    qtbot.waitUntil(lambda: "Forgot 4 items." in window.view.plain_text())


def test_an_answer_that_used_no_memories_still_says_so_when_drawn_again(
    qtbot, window, chat, memory, send
):
    """"Used no memories" was shown under a first answer, and gone once the conversation was
    drawn again (a new text size, a restart): an empty list was read as no list at all."""
    answer = send(window, "Hello there")
    assert answer.memories == () and "Used no memories" in window.view.plain_text()
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert "Used no memories" in window.view.plain_text()
    # An exchange stored without an answer's list (an import) still gets no line at all.
    memory.add_memory("Imported question", "Imported answer", conversation_id=memory.conversation_id)
    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert window.view.plain_text().count("Used no memories") == 1


def test_undo_on_an_item_already_deleted_says_so_plainly(qtbot, window, chat, memory, send):
    """Undo on a notice whose fact was deleted in Privacy added "⚠ no profile slot with id 2"
    to the conversation and jumped there."""
    send(window, "I am allergic to peanuts")
    _learn(qtbot, window, memory)
    target = next(i for i in window.view.learned_items() if i.text == "I am allergic to peanuts")
    memory.delete_fact(target.id)  # as Privacy does
    with qtbot.waitSignal(window.chat_actions.done) as done:
        click_text(qtbot, window.view, "Undo", after="Learned: I am allergic to peanuts")
    assert done.args == ["gone"]
    assert window.status.currentMessage() == "Already deleted."
    text = window.view.plain_text()
    assert "⚠" not in text and "id " not in text
    assert "Forgot: I am allergic to peanuts" in text
