"""Settings and the API key of the server in use, from a walkthrough: a new key typed alone is
checked as a new address is (a wrong one is not saved over the working model without asking),
and the Model tab says that a key is in use for the address and where it comes from, never
the key itself; the field left empty keeps that key."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.gui_steps import shown_settings
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

KEY = "sk-right-7c1e"


@pytest.fixture
def no_key_variable(monkeypatch):
    from engine.api_keys import API_KEY_ENV

    monkeypatch.delenv(API_KEY_ENV, raising=False)


def _in_use(server):
    from app.settings_store import SERVER, AppSettings

    return AppSettings(model_source=SERVER, server_url=server.url, server_model="smollm2-135m")


def test_a_wrong_key_typed_alone_is_asked_about_and_cancel_keeps_the_key_in_use(
    qtbot, memory_keyring, no_key_variable
):
    """The server model in use answers with the key in the keyring; only the key is changed,
    to a wrong one: Save asks, and Cancel keeps the model and the key that work."""
    from engine.api_keys import get_api_key, set_api_key

    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key=KEY) as server:
        set_api_key(server.url, KEY)
        dialog = shown_settings(qtbot, _in_use(server))
        dialog.api_key.setText("wrong-key")
        with qtbot.assertNotEmitted(dialog.applied, wait=200):
            dialog.save()
            qtbot.waitUntil(lambda: dialog.silent_box is not None
                            and dialog.silent_box.isVisible(), timeout=10_000)
            box = dialog.silent_box
            assert box.objectName() == "keyRefused"
            assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
            box.button(QMessageBox.StandardButton.Cancel).click()
        assert dialog.isVisible() and dialog.error.isVisible()
        assert "401" in dialog.model_tab.key_problem.text()
        assert get_api_key(server.url) == KEY  # the wrong key was not stored

        dialog.api_key.setText(KEY)  # the right one is saved without a question
        with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
            dialog.save()
        assert applied.args[1]  # the model is loaded again, with the key typed
        assert get_api_key(server.url) == KEY
        dialog.pool.wait(5000)


def test_an_empty_key_field_keeps_the_key_in_the_keyring_and_says_it_is_there(
    qtbot, memory_keyring, no_key_variable
):
    from engine.api_keys import get_api_key, set_api_key

    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key=KEY) as server:
        set_api_key(server.url, KEY)
        dialog = shown_settings(qtbot, _in_use(server))
        note = dialog.model_tab.key_source
        qtbot.waitUntil(note.isVisible, timeout=5000)
        assert "keyring" in note.text() and KEY not in note.text()
        assert dialog.api_key.text() == ""
        assert "keep" in dialog.api_key.placeholderText()
        with qtbot.waitSignal(dialog.applied, timeout=10_000):
            dialog.save()  # the field left empty
        assert get_api_key(server.url) == KEY  # not dropped
        dialog.pool.wait(5000)


def test_the_key_from_the_environment_is_said_by_the_variables_name(qtbot, monkeypatch):
    from engine.api_keys import API_KEY_ENV

    monkeypatch.setenv(API_KEY_ENV, KEY)
    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key=KEY) as server:
        dialog = shown_settings(qtbot, _in_use(server))
        note = dialog.model_tab.key_source
        qtbot.waitUntil(note.isVisible, timeout=5000)
        assert API_KEY_ENV in note.text() and KEY not in note.text()
        dialog.pool.wait(5000)


def test_a_key_kept_for_this_session_is_said_so(qtbot, fail_keyring, no_key_variable):
    from engine.api_keys import ApiKeyError, keep_for_session, set_api_key

    with ChatServer(models=["smollm2-135m"], reply=["Hi"], api_key=KEY) as server:
        keep_for_session(server.url, KEY)  # typed earlier, no keyring to keep it
        try:
            dialog = shown_settings(qtbot, _in_use(server))
            note = dialog.model_tab.key_source
            qtbot.waitUntil(note.isVisible, timeout=5000)
            assert "this session only" in note.text() and KEY not in note.text()
            dialog.pool.wait(5000)
        finally:
            with pytest.raises(ApiKeyError):  # the key kept for the session goes
                set_api_key(server.url, "")


def test_no_key_in_use_is_told_apart_from_each_source(memory_keyring, monkeypatch,
                                                      no_key_variable):
    from app.settings_lookups import (
        KEY_FOR_SESSION,
        KEY_FROM_ENVIRONMENT,
        KEY_FROM_KEYRING,
        key_source,
    )
    from engine.api_keys import API_KEY_ENV, keep_for_session, set_api_key

    url = "http://127.0.0.1:9/v1"
    assert key_source(url) == (url, "")
    monkeypatch.setenv(API_KEY_ENV, "from-the-variable")
    assert key_source(url) == (url, KEY_FROM_ENVIRONMENT)
    set_api_key(url, KEY)  # the keyring's comes before the variable
    assert key_source(url) == (url, KEY_FROM_KEYRING)
    keep_for_session(url, "typed-this-session")  # and this session's before the keyring's
    assert key_source(url) == (url, KEY_FOR_SESSION)
    set_api_key(url, "")
    monkeypatch.delenv(API_KEY_ENV)
    assert key_source(url) == (url, "")
