"""From a walkthrough: "Remember this" on an answer asks first (its words are not the person's),
a "Remembered" line stays one line, a Learned notice shows the day a fact meant, a Learned
notice follows a delete by another program, and Esc is Cancel on Switch memory's unlock."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.view_learned import DELETED_NOTICE as DELETED
from tests.gui_steps import create_vault, shown_dialog, switch_dialog, switch_open_button
from tests.helpers import open_fast, run_cli

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("quick_outside_checks")]

PASSPHRASE = "correct horse battery"  # run_cli's passphrase
REPLY = "Lisbon is lovely in December.\n\nPack a light coat.\n\nThe trams are worth a ride."



def _actions(window, message) -> dict:
    menu = window.view.context_menu(window.view.point_of(message))
    return {a.text().replace("&", ""): a for a in menu.actions()}


def _notice_block(window, start: str):
    return window.view.browser.document().find(start).block()


def test_remember_this_on_an_answer_asks_with_its_first_paragraph(
    qtbot, window, chat, memory, send
):
    chat.queue(REPLY)
    send(window, "Any tips for Lisbon?")
    user, answer = window.view.messages[:2]

    actions = _actions(window, answer)
    assert "Remember this…" in actions and "Remember this" not in actions
    actions["Remember this…"].trigger()
    dialog = window.view.remember_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.editor.toPlainText() == "Lisbon is lovely in December."
    assert memory.facts() == []  # nothing saved before the person says so

    dialog.reject()  # Cancel: still nothing
    assert memory.facts() == []

    _actions(window, answer)["Remember this…"].trigger()
    dialog = window.view.remember_dialog
    dialog.editor.setPlainText("I am going to Lisbon in December")
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
        dialog.remember_button.click()
    assert [(f.text, f.origin) for f in memory.facts()] == [
        ("I am going to Lisbon in December", "user")
    ]

    # The person's own message is remembered at once, as before.
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
        _actions(window, user)["Remember this"].trigger()
    assert "Any tips for Lisbon?" in [f.text for f in memory.facts()]


def test_remember_this_on_an_answer_offers_the_selected_words(qtbot, window, chat, memory, send):
    chat.queue(REPLY)
    send(window, "Any tips for Lisbon?")
    answer = window.view.messages[1]
    document = window.view.browser.document()
    found = document.find("Pack a light coat.")
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart())
    cursor.setPosition(found.selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
    window.view.browser.setTextCursor(cursor)

    _actions(window, answer)["Remember this…"].trigger()
    assert window.view.remember_dialog.editor.toPlainText() == "Pack a light coat."


def test_a_remembered_line_for_a_long_message_is_one_line(qtbot, window, chat, memory, send):
    long = "I keep bees.\n\n" + "They live in three hives at the end of the garden. " * 4
    chat.queue("Noted.")
    send(window, long)
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
        _actions(window, window.view.messages[0])["Remember this"].trigger()
    assert [f.text for f in memory.facts()] == [long.strip()]  # the whole message, as before
    block = _notice_block(window, "Remembered: I keep bees.")
    assert "\u2028" not in block.text() and "They live" in block.text()
    assert block.text().endswith("…") and len(block.text()) < 120


def test_facts_list_prints_each_item_on_one_line(home):
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    path = home / "cli.memoryos"
    with MemoryOS.open(path, create=True, passphrase=PASSPHRASE, embedder=HashEmbedder(384),
                       background=False) as mem:
        mem.add_fact("I keep bees.\n\nThree hives.")  # "Remember this" on a long message
        mem.add_fact("I live in Porto")
    out = run_cli("facts", "list", "--vault-path", str(path), "--embedder", "fake", home=home)
    assert out.returncode == 0, out.stderr.decode()
    lines = out.stdout.decode().splitlines()
    assert len(lines) == 2
    bees = next(line for line in lines if "bees" in line)
    assert "Three hives." in bees and "added by you" in bees


def test_a_learned_notice_shows_the_day_a_fact_meant(qtbot, window, chat, memory, send):
    from engine.retrieval_facts import dated_facts

    send(window, "Next Friday I fly to Lisbon.")
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    (fact,) = [f for f in memory.facts() if "Lisbon" in f.text]
    (dated,) = dated_facts(memory.vault, [fact])
    assert dated.text != fact.text and "[" in dated.text  # the day, as Privacy shows it
    assert f"Learned: {dated.text}" in window.view.plain_text()

    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        document = window.view.browser.document()
        cursor = document.find("Undo", document.find(f"Learned: {dated.text}"))
        cursor.setPosition(cursor.selectionStart() + 1)
        point = window.view.browser.cursorRect(cursor).center()
        qtbot.mouseClick(window.view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert done.args == ["undone"]  # the dated notice still names its fact
    assert all(f.id != fact.id for f in memory.facts())


def test_a_learned_notice_follows_a_delete_by_another_program(qtbot, home, chat, send):
    from app.main_window import MainWindow
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    path = home / "shared.memoryos"
    mem = MemoryOS.open(path, create=True, passphrase=PASSPHRASE, embedder=HashEmbedder(384),
                        chat=chat, background=False)
    window = MainWindow.for_memory(mem, chat)
    qtbot.addWidget(window)
    window.show()
    try:
        send(window, "I live in Madrid.")
        with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
            mem.run_consolidation()
        (slot,) = mem.profile()
        assert f"Learned: {slot.text}" in window.view.plain_text()
        qtbot.waitUntil(lambda: window.session._outside_version is not None)

        out = run_cli("facts", "delete", f"p{slot.id}", "--yes", "--vault-path", str(path),
                      "--embedder", "fake", home=home)

        assert out.returncode == 0, out.stderr.decode()
        qtbot.waitUntil(lambda: DELETED in window.view.plain_text(),
                        timeout=10_000)
        assert f"Learned: {slot.text}" not in window.view.plain_text()
    finally:
        window.close()


def test_esc_cancels_switch_memorys_unlock_dialog(qtbot, fail_keyring, send, desktop):
    from app.vault_dialogs import UnlockDialog
    from engine.paths import vault_path

    window, opener = desktop()
    create_vault(qtbot, window, shown_dialog(qtbot, opener, opener.start), PASSPHRASE)
    open_fast(vault_path("work"), True, "work passphrase 42").close()
    before = window.session.mem
    picker = switch_dialog(qtbot, window)
    picker.list.setCurrentRow(
        [picker._name_at(i) for i in range(picker.list.count())].index("work"))
    unlock = shown_dialog(qtbot, opener, lambda: qtbot.mouseClick(
        switch_open_button(picker), Qt.MouseButton.LeftButton))
    assert isinstance(unlock, UnlockDialog) and unlock.quit_button.text() == "Cancel"
    qtbot.keyClicks(unlock.passphrase, "half typed")

    qtbot.keyClick(unlock.passphrase, Qt.Key.Key_Escape)

    qtbot.waitUntil(lambda: not shiboken6.isValid(unlock) or not unlock.isVisible())
    assert window.session.mem is before and not before._closed
