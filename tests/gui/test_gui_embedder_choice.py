"""Settings: choosing another embedding model re-embeds the vault with a progress bar, or refuses."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui

NEW_MODEL = "minilm-32"  # HashEmbedder names itself MODEL-DIMENSION


@pytest.fixture
def folder_model(tmp_path):
    """The person's model folder, and the factory the app would build its embedder with. The
    fake hash embedder stands in for the sentence-transformers model (speed, rule 13)."""
    from engine.backends.fake import HashEmbedder

    folder = tmp_path / "minilm"
    folder.mkdir()
    asked: list[str] = []

    def factory(name: str):
        asked.append(name)
        return HashEmbedder(32, model_id="minilm") if name else HashEmbedder()

    factory.asked = asked
    return folder, factory


def _settings_with_folder(qtbot, window, folder, factory):
    window.session.embedder_factory = factory
    dialog = window.open_settings()
    qtbot.waitUntil(
        lambda: "Your memories are embedded with" in dialog.embedder_box.vault_note.text()
    )
    assert "<b>fake/hash-embedder-64</b> (64 dimensions)" in dialog.embedder_box.vault_note.text()
    dialog.embedder_box.folder.setChecked(True)
    with qtbot.waitSignal(dialog.embedder_box.described, timeout=5000):
        dialog.embedder_box.path.setText(str(folder))
    assert dialog.embedder_box.info.text() == f"<b>{NEW_MODEL}</b> · 32 dimensions"
    return dialog


def _question(qtbot, dialog):
    qtbot.waitUntil(
        lambda: (
            getattr(dialog, "switcher", None) is not None
            and dialog.switcher.box is not None
            and dialog.switcher.box.isVisible()
        )
    )
    return dialog.switcher.box


def test_a_new_embedder_reembeds_the_vault_behind_a_progress_bar(qtbot, memory, chat, folder_model):
    from app.main_window import MainWindow
    from app.settings_store import load_settings
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    folder, factory = folder_model
    memory.add_memory("I keep three hives of bees in Lyon.", "Lovely.")
    memory.add_memory("My sister Ana lives in Porto.", "Noted.")
    memory.add_fact("I keep bees.")
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    dialog = _settings_with_folder(qtbot, window, folder, factory)

    dialog.save()
    box = _question(qtbot, dialog)
    assert "2 exchanges and 1 fact are embedded again" in box.text()
    assert f"To search them with {NEW_MODEL} (32 dimensions)" in box.text()
    with qtbot.waitSignal(window.reopen_requested, timeout=10_000):
        dialog.switcher.reembed_button.click()
        progress = dialog.switcher.progress
        assert progress is not None and progress.isVisible() and progress.maximum() == 1000
    assert window.session is None  # closed: the launcher opens it again with the new model
    assert not dialog.isVisible()
    assert load_settings().embedder == str(folder)

    with pytest.raises(Exception, match=f"indexed with {NEW_MODEL} \\(32 dimensions\\)"):
        MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
    with MemoryOS.open(
        memory.path, embedder=HashEmbedder(32, model_id="minilm"), background=False
    ) as again:
        assert again.info().embedder_id == NEW_MODEL
        # 32-dimension queries against the rebuilt vector tables: the fact is found by meaning
        found = again.retrieve("bees", record_visits=False)
        assert [fact.fact.text for fact in found.facts] == ["I keep bees."]


def test_declining_the_reembedding_refuses_clearly_and_changes_nothing(
    qtbot, memory, chat, folder_model
):
    from app.main_window import MainWindow
    from app.settings_store import load_settings

    folder, factory = folder_model
    memory.add_memory("I keep three hives of bees in Lyon.", "Lovely.")
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    dialog = _settings_with_folder(qtbot, window, folder, factory)

    dialog.save()
    box = _question(qtbot, dialog)
    keep = next(b for b in box.buttons() if b.text() == "Keep the current model")
    keep.click()
    qtbot.waitUntil(dialog.error.isVisible)
    assert dialog.error.text() == (
        "Not switched: your memories were embedded with fake/hash-embedder-64 (64 dimensions), "
        f"and vectors from {NEW_MODEL} (32 dimensions) cannot be compared with them. Re-embed "
        "the vault to switch, or keep fake/hash-embedder-64."
    )
    assert window.session is not None and window.session.mem is memory
    assert memory.info().embedder_id == "fake/hash-embedder-64"
    assert load_settings().embedder == ""
    dialog.reject()


def test_a_folder_choice_without_a_folder_is_not_saved(qtbot, memory, chat, folder_model):
    from app.main_window import MainWindow

    _folder, factory = folder_model
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.session.embedder_factory = factory
    dialog = window.open_settings()
    dialog.embedder_box.folder.setChecked(True)
    dialog.save()
    assert dialog.error.text() == "Choose the embedding model's folder, or pick the bundled model."
    assert dialog.isVisible()
    dialog.reject()


def test_the_apps_embedder_checks_the_folder_without_loading_a_model(tmp_path):
    from app.embedder_choice import app_embedder
    from engine.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="is not a sentence-transformers model folder"):
        app_embedder(str(tmp_path))
    bundled = app_embedder("")
    assert (bundled.model_id, bundled.dimension, bundled.loaded) == (
        "sentence-transformers/all-MiniLM-L6-v2",
        384,
        False,
    )
