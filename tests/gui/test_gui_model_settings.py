"""Settings → Model, from a new person's walkthrough: a file that is not a model is never saved,
a server that does not answer is asked about, the model name is offered from the server's own
list, "Models you added" can lose an entry, and "Add a folder…" opens at home."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from tests.gui_steps import server_address_typed
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


def closed_port() -> int:
    """A port nothing listens on (bound, read, released): connecting there is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def dialog(qtbot):
    """The settings dialog on the bundled model, without a vault; what it applied is kept."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    shown = SettingsDialog(AppSettings())
    qtbot.addWidget(shown)
    shown.applied_args = []
    shown.applied.connect(lambda *args: shown.applied_args.append(args))
    shown.show()
    yield shown
    shown.pool.wait(5000)


def test_save_refuses_a_gguf_that_is_broken_and_the_model_in_use_is_kept(
    qtbot, memory, chat, loads, tmp_path
):
    from app.main_window import MainWindow

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"<html>404 Not Found</html>" * 20)  # a failed download, named .gguf
    dialog = window.open_settings()
    applied: list = []
    dialog.applied.connect(lambda *args: applied.append(args))
    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(broken))
    qtbot.waitUntil(lambda: "not a GGUF model" in dialog.gguf_info.text(), timeout=5000)
    assert "Choose a GGUF model file" in dialog.gguf_info.text()
    dialog.tabs.setCurrentIndex(2)  # Save pressed from another tab
    dialog.save()
    assert dialog.isVisible() and applied == []
    # said once, under the field, where the focus goes; not again at the bottom
    assert not dialog.error.isVisible() and "not a GGUF model" in dialog.gguf_info.text()
    assert dialog.tabs.currentIndex() == 0 and dialog.focusWidget() is dialog.gguf_path
    # a missing file, saved before its inline check has even run, is refused too
    dialog.gguf_path.setText(str(tmp_path / "gone.gguf"))
    dialog.save()
    assert applied == [] and "Model file not found" in dialog.gguf_info.text()
    # a file with another name that is no GGUF either
    notes = tmp_path / "model.safetensors"
    notes.write_bytes(b"\x00" * 64)
    dialog.gguf_path.setText(str(notes))
    dialog.save()
    assert applied == [] and "not a GGUF model" in dialog.gguf_info.text()
    assert not dialog.error.isVisible()
    dialog.reject()
    assert window.settings.model_source == "bundled" and window.composer.isEnabled()
    assert loads.asked == []  # the working model was never replaced
    window.close()


def test_a_server_that_does_not_answer_is_asked_about_and_cancel_keeps_the_model(
    qtbot, dialog
):
    from PySide6.QtWidgets import QMessageBox

    url = f"http://127.0.0.1:{closed_port()}/v1"
    dialog.server.setChecked(True)
    dialog.server_url.setText(url)
    dialog.server_model.setText("llama3.1:8b")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.silent_box is not None and dialog.silent_box.isVisible(),
                    timeout=5000)
    box = dialog.silent_box
    assert box.text() == f"The server at {url} does not answer. Use it anyway?"
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.applied_args == [] and dialog.isVisible()
    assert "model in use is kept" in dialog.error.text()
    dialog.save()  # asked again: this time used anyway
    qtbot.waitUntil(lambda: dialog.silent_box is not box and dialog.silent_box.isVisible(),
                    timeout=5000)
    use = next(b for b in dialog.silent_box.buttons() if b.text() == "Use it anyway")
    use.click()
    settings, changed = dialog.applied_args[-1]
    assert changed and (settings.server_url, settings.server_model) == (url, "llama3.1:8b")


def test_a_server_that_answers_is_saved_without_a_question(qtbot, dialog):
    with ChatServer(models=["qwen2.5:7b"], reply=["hi"]) as server:
        dialog.server.setChecked(True)
        dialog.server_url.setText(server.url)
        dialog.server_model.setText("qwen2.5:7b")
        with qtbot.waitSignal(dialog.applied, timeout=5000):
            dialog.save()
    assert dialog.silent_box is None
    assert dialog.applied_args[-1][0].server_url == server.url


def test_the_model_name_offers_what_the_server_lists(qtbot, dialog):
    with ChatServer(models=["llama3.1:8b", "qwen2.5:7b"], reply=["hi"]) as server:
        dialog.server.setChecked(True)
        server_address_typed(qtbot, dialog, server.url)
        box = dialog.server_model_box
        assert [box.itemText(i) for i in range(box.count())] == ["llama3.1:8b", "qwen2.5:7b"]
        assert dialog.server_model.text() == ""  # two: the person picks
        assert "2 models: pick one from the list" in dialog.server_models_note.text()
        box.setCurrentIndex(1)
        assert dialog.server_model.text() == "qwen2.5:7b"
        with qtbot.waitSignal(dialog.applied, timeout=5000):
            dialog.save()
    assert dialog.applied_args[-1][0].server_model == "qwen2.5:7b"


def test_a_server_with_one_model_fills_the_name_and_a_silent_one_says_so(qtbot, dialog):
    dialog.server.setChecked(True)
    with ChatServer(models=["smollm2-135m"], reply=["hi"]) as server:
        server_address_typed(qtbot, dialog, server.url)
    assert dialog.server_model.text() == "smollm2-135m"
    assert "one model: smollm2-135m" in dialog.server_models_note.text()
    silent = f"http://127.0.0.1:{closed_port()}/v1"
    server_address_typed(qtbot, dialog, silent)
    assert f"The server at {silent} does not answer" in dialog.server_models_note.text()
    assert dialog.server_model_box.count() == 0
    assert dialog.server_model.text() == "smollm2-135m"  # what was there is not wiped


# the offscreen platform cannot raise a popup menu nor give it the keyboard: said, not a fault
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_an_added_model_can_be_removed_on_save_but_not_the_one_in_use(qtbot, tmp_path):
    import shutil

    from app.settings_dialog import SettingsDialog
    from app.settings_store import GGUF, AppSettings
    from models.catalogue import add_endpoint, add_gguf, bundled_gguf_path, list_models

    in_use = tmp_path / "in-use.gguf"
    shutil.copyfile(bundled_gguf_path(), in_use)
    dead = tmp_path / "dead.gguf"
    shutil.copyfile(bundled_gguf_path(), dead)
    add_gguf(in_use)
    add_gguf(dead)
    add_endpoint(f"http://127.0.0.1:{closed_port()}/v1", "gone-model")
    dead.unlink()  # deleted outside the app: "(file missing)"

    def ids() -> list[str]:
        return [entry.id for entry in list_models()[1:]]

    everything = ids()

    def opened() -> SettingsDialog:
        shown = SettingsDialog(AppSettings(model_source=GGUF, gguf_path=str(in_use)))
        qtbot.addWidget(shown)
        qtbot.waitUntil(lambda: shown.recent.count() == 4, timeout=5000)
        return shown

    dialog = opened()
    recent = dialog.recent
    labels = [recent.itemText(i) for i in range(recent.count())]
    assert labels[2].endswith("(file missing)") and labels[3].startswith("gone-model @ ")
    assert not dialog.remove_recent.isEnabled()  # "Choose…" shown: nothing to remove
    # the button takes the entry shown off the list; the catalogue changes only on Save
    recent.setCurrentIndex(3)
    assert dialog.remove_recent.isEnabled()
    dialog.remove_recent.click()
    assert recent.count() == 3 and ids() == everything
    assert "when you press Save" in dialog.removed_note.text()
    assert "gone-model" in dialog.removed_note.text()
    # Delete in the open list removes the row under the cursor
    view = recent.view()
    view.setCurrentIndex(recent.model().index(2, 0))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert recent.count() == 2 and ids() == everything
    # the model in use stays, whichever way is tried, and the person is told why
    recent.setCurrentIndex(1)
    assert "model in use" in dialog.remove_recent.toolTip()
    recent.customContextMenuRequested.emit(QPoint(4, 4))
    assert [a.text() for a in dialog.recent_menu.actions()] == ["Remove from this list"]
    dialog.recent_menu.actions()[0].trigger()
    dialog.recent_menu.close()
    assert "is the model in use, so it stays on the list" in dialog.error.text()
    assert recent.count() == 2
    # Cancel undoes the removals
    dialog.reject()
    dialog.pool.wait(5000)
    assert ids() == everything
    # Save makes them; no file is touched
    dialog = opened()
    dialog.recent.setCurrentIndex(3)
    dialog.remove_recent.click()
    dialog.recent.setCurrentIndex(2)
    dialog.remove_recent.click()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.save()
    dialog.pool.wait(5000)
    assert ids() == [f"gguf:{in_use.resolve()}"] and in_use.is_file()


def test_add_a_folder_opens_at_home_then_at_the_folder_added_last(qtbot, tmp_path, monkeypatch):
    from app.model_picker import ModelPicker
    from app.workers import WorkerPool

    home = tmp_path / "person"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    asked: list[str] = []
    picked = {"folder": ""}

    def dialog(_parent, _title, start=""):
        asked.append(start)
        return picked["folder"]

    monkeypatch.setattr("app.model_picker.QFileDialog.getExistingDirectory", dialog)
    pool = WorkerPool()
    picker = ModelPicker(pool, probe=False)
    qtbot.addWidget(picker)
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    assert Path.cwd() != home
    picker.add_folder_button.click()
    assert asked == [str(home)]
    models = tmp_path / "my models"
    models.mkdir()
    picked["folder"] = str(models)
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.add_folder_button.click()
    picker.add_folder_button.click()
    assert asked[-1] == str(models.resolve())
    pool.wait(5000)


def test_save_says_what_is_wrong_with_the_address_before_the_missing_model_name(qtbot):
    """"http://" and no model name: Save said a server needs both, while the field said there
    is no computer name; the address's own problem comes first."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import SERVER, AppSettings

    problem = SettingsDialog._problem(AppSettings(model_source=SERVER, server_url="http://"))
    assert "no computer name" in problem and "both" not in problem
    missing = SettingsDialog._problem(AppSettings(model_source=SERVER, server_url=""))
    assert missing == "A server needs both a base URL and a model name."
