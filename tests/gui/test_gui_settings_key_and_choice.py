"""Settings, from a new-user walkthrough: a server that refuses the API key is not saved over
the working model without a question, and the key's field says why; "Use this model" on the
Models page switches as the model step does, and a switch that is stopped keeps the choice in
view; the 160-token note follows the model chosen, a small GGUF file included."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.gui_steps import shown_settings
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


def _answer(qtbot, dialog, name: str, use: bool) -> None:
    """Wait for the question box `name` and answer it: "Use it anyway", or Cancel."""
    qtbot.waitUntil(lambda: dialog.silent_box is not None and dialog.silent_box.isVisible(),
                    timeout=10_000)
    box = dialog.silent_box
    assert box.objectName() == name
    if use:
        next(button for button in box.buttons()
             if box.buttonRole(button) == QMessageBox.ButtonRole.AcceptRole).click()
    else:
        box.button(QMessageBox.StandardButton.Cancel).click()


def test_a_server_that_refuses_the_key_is_not_saved_over_the_working_model(qtbot):
    """llama.cpp's server started with an API key, on 127.0.0.1, and a wrong key typed: the
    form says the key was refused, Save asks, and Cancel keeps the GGUF that worked."""
    from app.settings_store import AppSettings
    from models.catalogue import bundled_gguf_path

    working = AppSettings(model_source="gguf", gguf_path=str(bundled_gguf_path()))
    dialog = shown_settings(qtbot, working)
    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key="right-key") as server:
        dialog.server.setChecked(True)
        dialog.server_url.setText(server.url)
        dialog.server_model.setText("smollm2-135m")
        dialog.api_key.setText("wrong-key")
        with qtbot.assertNotEmitted(dialog.applied, wait=200):
            dialog.save()
            _answer(qtbot, dialog, "keyRefused", use=False)
        assert dialog.isVisible() and dialog.error.isVisible()
        assert dialog.original.model_source == "gguf"  # nothing applied
        key_problem = dialog.model_tab.key_problem
        assert key_problem.isVisible() and "401" in key_problem.text()  # by the key, in red
        assert key_problem.objectName() == "error"
        assert dialog.focusWidget() is dialog.api_key

        dialog.api_key.setText("still-wrong")  # the form says it as soon as the key is typed
        assert not key_problem.isVisible()
        with qtbot.waitSignal(dialog.models_listed, timeout=10_000):
            dialog.api_key.editingFinished.emit()
        assert key_problem.isVisible() and "401" in key_problem.text()

        dialog.api_key.setText("right-key")  # the key the server was started with
        assert not dialog.model_tab.key_problem.isVisible()  # an old refusal is gone
        with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
            dialog.save()
        settings, changed = applied.args
        assert changed and settings.model_source == "openai"
        assert settings.server_url == server.url
        dialog.pool.wait(5000)


def test_a_refused_key_can_still_be_used_when_the_person_chooses_to(qtbot):
    from app.settings_store import AppSettings

    dialog = shown_settings(qtbot, AppSettings())
    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key="right-key") as server:
        dialog.server.setChecked(True)
        dialog.server_url.setText(server.url)
        dialog.server_model.setText("smollm2-135m")  # no key typed, none stored: 401
        with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
            dialog.save()
            _answer(qtbot, dialog, "keyRefused", use=True)
        assert applied.args[0].server_url == server.url
        dialog.pool.wait(5000)


def test_use_this_model_in_settings_switches_as_the_model_step_does(qtbot, person):
    from app.model_picker import FILES
    from app.settings_store import AppSettings

    dialog = shown_settings(qtbot, AppSettings())
    dialog.tabs.setCurrentWidget(dialog.models_page)
    picker = dialog.models_page.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    row = next(row for row in picker.rows(FILES) if row.text(1) == "LM Studio")
    with qtbot.waitSignal(picker.fitted, timeout=10_000):
        picker.table.setCurrentItem(row)
    with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
        picker.use_button.click()
    settings, changed = applied.args
    assert changed and settings.model_source == "gguf" and settings.gguf_path == person["gguf"]
    assert not dialog.isVisible()  # done: nothing left for Esc to drop
    dialog.pool.wait(5000)


def test_a_switch_stopped_by_a_question_keeps_the_choice_in_view(qtbot, tmp_path, monkeypatch):
    """The server listed on the Models page stops before "Use this model": the switch asks,
    and Cancel leaves the choice on the Model tab with the reason, not silently dropped."""
    from app.model_picker import SERVERS
    from app.settings_store import AppSettings

    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    server = ChatServer(models=["qwen2.5:7b"], reply=["Hi"]).__enter__()
    monkeypatch.setattr("models.probe.DEFAULT_PORTS", {server.port: "llama.cpp server"})
    dialog = shown_settings(qtbot, AppSettings())
    dialog.tabs.setCurrentWidget(dialog.models_page)
    picker = dialog.models_page.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    picker.table.setCurrentItem(picker.rows(SERVERS)[0])
    server.__exit__(None, None, None)  # stopped: nothing answers there now
    with qtbot.assertNotEmitted(dialog.applied, wait=200):
        picker.use_button.click()
        _answer(qtbot, dialog, "serverSilent", use=False)
    assert dialog.isVisible() and dialog.tabs.currentIndex() == 0
    assert dialog.server.isChecked() and dialog.server_model.text() == "qwen2.5:7b"
    assert dialog.error.isVisible() and server.url in dialog.error.text()
    dialog.pool.wait(5000)


def test_the_short_answer_note_follows_a_small_gguf_file(qtbot):
    """The bundled 135M model loaded as a GGUF file stops at 160 tokens too (engine/prompt.py
    caps every model under 1 B parameters): the note beside "Longest answer" says so."""
    from app.settings_store import AppSettings
    from engine.prompt import SMALL_MAX_TOKENS
    from models.catalogue import bundled_gguf_path

    dialog = shown_settings(qtbot, AppSettings(model_source="gguf", max_tokens=512,
                                              gguf_path=str(bundled_gguf_path())))
    qtbot.waitUntil(dialog.demo_limit.isVisible, timeout=10_000)
    assert str(SMALL_MAX_TOKENS) in dialog.demo_limit.text()
    assert "135 M parameters" in dialog.demo_limit.text()
    dialog.server.setChecked(True)  # a server's size is not known: no note
    assert not dialog.demo_limit.isVisible()
    dialog.gguf_path.setText(str(bundled_gguf_path()) + ".missing")
    dialog.gguf.setChecked(True)  # another file, not read: no note until it is
    assert not dialog.demo_limit.isVisible()
    dialog.pool.wait(5000)
