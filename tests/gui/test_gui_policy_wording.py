"""What the app says under the administrator's policy is true: no advice to export when export
is off, a setting the policy forces not shown as merely "Allowed", and a remote address refused
as it is typed rather than only at Save."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QLabel

pytestmark = pytest.mark.gui


@pytest.fixture
def policy(tmp_path, monkeypatch):
    """policy(**keys): the administrator's policy file with those keys, in force."""

    def _write(**keys):
        path = tmp_path / "policy.json"
        path.write_text(json.dumps(keys), encoding="utf-8")
        monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(path))
        return path

    return _write


def _erase_text(qtbot) -> str:
    from app.export import EraseDialog

    dialog = EraseDialog("family photos")
    qtbot.addWidget(dialog)
    return " ".join(label.text() for label in dialog.findChildren(QLabel))


def test_the_erase_dialog_does_not_advise_an_export_the_policy_forbids(qtbot, policy):
    assert "Export first" in _erase_text(qtbot)  # no policy: the advice stands
    policy(export=False)
    text = _erase_text(qtbot)
    assert "Export first" not in text
    assert "turned off by your administrator" in text


@pytest.mark.parametrize("keeps", [True, False])
def test_keep_what_was_learned_forced_by_the_policy_says_so(qtbot, window, policy, keeps):
    policy(retention_days=30, retention_keeps_facts=keeps)
    dialog = window.open_settings()
    box = dialog.memory_form.inputs["retention_keeps_facts"]
    assert not box.isEnabled() and box.isChecked() is keeps
    assert "administrator" in box.text()
    assert not box.text().startswith(("Allowed", "Not allowed (")), box.text()
    assert ("Required" in box.text()) is keeps
    dialog.reject()


def test_a_remote_address_is_refused_as_it_is_typed(qtbot, window, policy):
    path = policy(remote_models=False)
    dialog = window.open_settings()
    dialog.server.setChecked(True)
    dialog.server_url.setText("https://api.example.com/v1")
    note = dialog.model_tab.url_note.text()
    assert "turned off by your administrator" in note and str(path) in note
    # An address on this computer is not refused.
    dialog.server_url.setText("http://127.0.0.1:8080/v1")
    assert "administrator" not in dialog.model_tab.url_note.text()
    dialog.reject()


def test_plain_http_to_another_computer_is_not_offered_when_remote_models_are_off(
    qtbot, window, policy
):
    """"Allow plain http:// to a server that is not this computer" was offered under a policy
    that allows no such server."""
    path = policy(remote_models=False)
    dialog = window.open_settings()
    box = dialog.model_tab.allow_plain_http
    assert not box.isEnabled() and str(path) in box.toolTip()
    dialog.reject()
    policy()  # no rule: offered again
    dialog = window.open_settings()
    assert dialog.model_tab.allow_plain_http.isEnabled()
    dialog.reject()
