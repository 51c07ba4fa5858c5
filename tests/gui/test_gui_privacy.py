"""The privacy panel: facts with provenance, delete, forget, search, export, erase."""

from __future__ import annotations

import json

import pytest

from tests.gui_steps import privacy_row

pytestmark = pytest.mark.gui

JOB = "I work as a data scientist in San Francisco."


def _message(parent, title: str):
    """The message box with this title the window shows, if any."""
    from PySide6.QtWidgets import QMessageBox

    boxes = [box for box in parent.findChildren(QMessageBox) if box.windowTitle() == title]
    return boxes[-1] if boxes else None


@pytest.fixture
def panel(qtbot, window, memory):
    """The privacy panel after Tom talked about his job and consolidation ran."""
    memory.add_memory(JOB, "Nice, data science is a great field.")
    memory.add_memory("My favourite food is spicy ramen.", "Noted!")
    memory.run_consolidation()
    privacy = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(privacy, "data scientist") is not None)
    return privacy


def test_facts_show_where_they_came_from(qtbot, panel, memory):
    row = privacy_row(panel, "I work as a data scientist")
    assert row.text(3).startswith("I work as a data scientist")  # the source conversation
    row.setSelected(True)
    qtbot.waitUntil(lambda: "Nice, data science is a great field." in panel.source.toPlainText())
    assert JOB in panel.source.toPlainText()


def test_deleting_a_fact_removes_it_from_the_panel_and_from_retrieval(qtbot, panel, memory):
    before = [f.fact.text for f in memory.retrieve("What is my job?").facts]
    assert any("data scientist" in text for text in before)
    privacy_row(panel, "I work as a data scientist").setSelected(True)

    with qtbot.waitSignal(panel.changed):
        panel.delete_selected(confirm=False)

    qtbot.waitUntil(lambda: privacy_row(panel, "I work as a data scientist") is None)
    assert privacy_row(panel, "spicy ramen") is not None
    after = [f.fact.text for f in memory.retrieve("What is my job?").facts]
    assert not any("data scientist" in text for text in after)
    assert not any("data scientist" in f.text for f in memory.facts())


def test_delete_many_at_once(qtbot, panel, memory):
    panel.tree.selectAll()
    count = len(panel.selected_items())
    assert count >= 2 and panel.delete_button.text() == f" Delete ({count})"
    with qtbot.waitSignal(panel.changed):
        panel.delete_selected(confirm=False)
    qtbot.waitUntil(lambda: panel.tree_box.currentWidget() is panel.tree_box.placeholder)
    assert memory.facts() == [] and memory.profile() == []


def test_after_a_delete_the_detail_shows_the_next_item_never_the_deleted_one(
    qtbot, panel, memory
):
    """The detail pane kept showing the deleted item; now the item that followed it is
    selected and shown, and once nothing is left the pane is back to its hint."""
    items = panel.visible_items()
    assert len(items) >= 3
    deleted, following = items[0], items[1]
    panel.tree.topLevelItem(0).setSelected(True)
    qtbot.waitUntil(lambda: panel.source.toPlainText().startswith(deleted.text))

    with qtbot.waitSignal(panel.changed):
        panel.delete_selected(confirm=False)

    qtbot.waitUntil(lambda: [i.key for i in panel.selected_items()] == [following.key])
    qtbot.waitUntil(lambda: panel.source.toPlainText().startswith(following.text))
    assert deleted.key not in [i.key for i in panel.visible_items()]
    assert deleted.text not in panel.source.toPlainText().splitlines()[0]

    panel.tree.selectAll()
    count = len(panel.selected_items())
    assert panel.source.toPlainText() == f"{count} items selected."
    with qtbot.waitSignal(panel.changed):
        panel.delete_selected(confirm=False)
    qtbot.waitUntil(lambda: panel.tree_box.currentWidget() is panel.tree_box.placeholder)
    assert panel.selected_items() == []
    assert panel.source.toPlainText() == "Select an item to see the exchange it was learned from."
    assert memory.facts() == [] and memory.profile() == []


def test_search_and_kind_filter(qtbot, panel):
    panel.search.setText("ramen")
    visible = panel.visible_items()
    assert visible and all("ramen" in item.text.lower() for item in visible)
    panel.search.setText("no such thing at all")
    assert panel.visible_items() == []
    assert panel.tree_box.currentWidget() is panel.tree_box.placeholder
    panel.search.clear()
    panel.kind.setCurrentIndex(panel.kind.findData("profile"))
    assert all(item.kind == "profile" for item in panel.visible_items())


def test_editing_a_fact_rewrites_it(qtbot, panel, memory):
    row = privacy_row(panel, "spicy ramen")
    with qtbot.waitSignal(panel.changed):
        row.setText(1, "My favourite food is mild ramen.")
    qtbot.waitUntil(lambda: privacy_row(panel, "mild ramen") is not None)
    assert any(f.text == "My favourite food is mild ramen." for f in memory.facts())


def test_forgetting_a_conversation_removes_its_pages_and_facts(qtbot, panel, memory):
    privacy_row(panel, "I work as a data scientist").setSelected(True)
    with qtbot.waitSignal(panel.changed):
        panel.forget_source_conversation(confirm=False)
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() == 0)
    assert memory.pages() == []
    assert memory.retrieve("data scientist").facts == ()


def test_export_writes_everything_to_json(qtbot, panel, memory, tmp_path):
    from app.export import export_memory

    target = tmp_path / "export.json"
    export_memory(panel, panel.session, path=str(target))
    qtbot.waitUntil(lambda: _message(panel, "Export") is not None)
    assert str(target) in _message(panel, "Export").text()
    assert "This copy is not encrypted" in _message(panel, "Export").text()
    data = json.loads(target.read_text(encoding="utf-8"))
    assert any(JOB == page["user_input"] for page in data["pages"])
    assert target.stat().st_mode & 0o077 == 0  # readable by its owner only


def test_erase_everything_removes_the_vault_and_its_key(qtbot, window, memory, memory_keyring):
    path = memory.path
    assert path.exists() and memory_keyring.secrets
    with qtbot.waitSignal(window.vault_erased):
        window.erase_everything(confirmed=True)
    assert not path.exists()
    assert not memory_keyring.secrets
    assert window.session is None
    assert not window.composer.send_button.isEnabled()


def test_importing_a_transcript_adds_its_exchanges(qtbot, window, memory, tmp_path):
    from app.importer import import_transcript

    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([
        {"user": "I moved to Porto last year.", "assistant": "How do you like it?"},
        {"user": "I love the tiles everywhere.", "assistant": "Azulejos are beautiful."},
    ]), encoding="utf-8")
    current = memory.conversation_id

    import_transcript(window, window.session, str(transcript))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None)

    assert "Imported 2 exchanges" in _message(window, "Import").text()
    texts = sorted(page.user_input for page in memory.pages())
    assert texts == ["I love the tiles everywhere.", "I moved to Porto last year."]
    assert memory.conversation_id == current  # the conversation on screen is untouched
    assert len({page.conversation_id for page in memory.pages()}) == 1


def test_import_restores_an_export_made_by_export_everything(
    qtbot, window, memory, embedder, tmp_path
):
    """A backup made with Export everything comes back through File → Import: its exchanges
    in their conversation, and the facts as they were (not learned again)."""
    from app.importer import import_transcript
    from engine.api import MemoryOS

    with MemoryOS.open(tmp_path / "old.memoryos", create=True, passphrase="old vault phrase",
                       embedder=embedder, background=False) as old:
        old.new_conversation()
        old.add_memory("My cat is called Miso.", "A lovely name.")
        old.add_memory("I play the cello on Sundays.", "Lovely.")
        old.add_fact("I am allergic to peanuts")
        old.export_json(tmp_path / "backup.json")

    import_transcript(window, window.session, str(tmp_path / "backup.json"))
    qtbot.waitUntil(lambda: _message(window, "Restore") is not None, timeout=10_000)

    assert "Restored 2 exchanges in 1 conversation" in _message(window, "Restore").text()
    said = sorted(page.user_input for page in memory.pages())
    assert said == ["I play the cello on Sundays.", "My cat is called Miso."]
    assert "I am allergic to peanuts" in [fact.text for fact in memory.facts()]


def test_a_broken_transcript_is_reported(qtbot, window, memory, tmp_path):
    from app.importer import import_transcript

    transcript = tmp_path / "broken.json"
    transcript.write_text("{not json", encoding="utf-8")
    import_transcript(window, window.session, str(transcript))
    qtbot.waitUntil(lambda: _message(window, "Import failed") is not None)
    assert "not valid JSON" in _message(window, "Import failed").text()
    assert memory.pages() == []


def test_a_transcript_of_the_wrong_shape_says_nothing_was_imported(qtbot, window, memory, tmp_path):
    from app.importer import import_transcript

    transcript = tmp_path / "shape.json"
    transcript.write_text('{"bad": 1}', encoding="utf-8")
    import_transcript(window, window.session, str(transcript))
    qtbot.waitUntil(lambda: _message(window, "Import failed") is not None)
    text = _message(window, "Import failed").text()
    assert text.startswith("Expected a JSON list of exchanges or messages")
    assert text.endswith("Nothing was imported.")
    assert memory.pages() == []


def test_the_delete_question_says_the_source_exchange_stays():
    """Deleting a learned fact leaves the exchange it came from: the question says so, and
    offers to forget that exchange too (not its whole conversation); a fact the person typed
    (/remember) has no exchange to mention."""
    from app.persona_items import PersonaItem
    from app.privacy import delete_question
    from engine.records import USER_FACT

    def item(*exchanges: int) -> PersonaItem:
        return PersonaItem(USER_FACT, 1, "My dog is called Biscuit", "active", 0.0, 0.0, (3,),
                           "learned", conversation_id="c1" if exchanges else "",
                           exchanges=exchanges)

    learned = delete_question([item(3)])
    assert learned.startswith("Delete this item?")
    assert "The exchange it was learned from stays" in learned
    assert "“Delete and forget the exchange”" in learned and "conversation…" not in learned
    both = delete_question([item(3), item()])
    assert both.startswith("Delete these 2 items?")
    assert "The exchange they were learned from stays" in both
    many = delete_question([item(3, 4)])
    assert "The 2 exchanges it was learned from stay in" in many and "forget them too" in many
    typed = delete_question([item()])
    assert "forget" not in typed and "no longer be recalled" in typed


def test_importing_old_exchanges_says_what_retention_will_forget(qtbot, window, memory, tmp_path):
    import dataclasses

    from app.importer import import_transcript

    memory.update_settings(dataclasses.replace(memory.settings, retention_days=7))
    transcript = tmp_path / "old.json"
    transcript.write_text(json.dumps([
        {"user": "I moved to Porto.", "assistant": "Nice.", "timestamp": "2024-01-05T10:00:00Z"},
        {"user": "I love the tiles.", "assistant": "Lovely.", "timestamp": "2024-01-06T10:00:00Z"},
    ]), encoding="utf-8")  # fmt: skip
    import_transcript(window, window.session, str(transcript))
    qtbot.waitUntil(lambda: _message(window, "Import") is not None)
    text = _message(window, "Import").text()
    assert "Imported 2 exchanges" in text
    assert "2 of these exchanges are older than the 7 days your memory keeps" in text


def test_the_delete_key_deletes_the_selected_item_after_asking(qtbot, panel, memory, monkeypatch):
    """The Delete key did nothing in the list; only the button worked."""
    from PySide6.QtCore import Qt

    asked = []
    monkeypatch.setattr("app.privacy_items.ask", lambda parent, title, text, *actions: (
        asked.append(text) or "Delete"))  # the person answers Delete
    items = panel.visible_items()
    panel.tree.topLevelItem(0).setSelected(True)
    panel.tree.setFocus()
    with qtbot.waitSignal(panel.changed):
        qtbot.keyClick(panel.tree, Qt.Key.Key_Delete)
    assert len(asked) == 1
    qtbot.waitUntil(lambda: items[0].key not in [i.key for i in panel.visible_items()])
