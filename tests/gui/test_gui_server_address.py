"""Settings → Model: a malformed server address is said to be one, and plain http:// to
another computer points at the box on the same tab."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def _server(dialog, url: str) -> None:
    dialog.model_tab.server.setChecked(True)
    dialog.model_tab.server_url.setText(url)
    dialog.model_tab.server_model.setText("llama3")


def test_a_malformed_base_url_is_refused_as_an_address(qtbot, window):
    dialog = window.open_settings()
    _server(dialog, "htp:/bad url")
    note = dialog.model_tab.url_note.text()
    assert "Not a valid address" in note and "Remote" not in note
    dialog.save()
    said = dialog.error.text()
    assert dialog.error.isVisible() and said.startswith("Not a valid address")
    assert "http:// or https://" in said and "plain http" not in said
    assert dialog.isVisible()  # nothing saved
    dialog.reject()


def test_plain_http_to_another_computer_points_at_the_box_on_this_tab(qtbot, window):
    dialog = window.open_settings()
    _server(dialog, "http://api.example.com/v1")
    assert "tick the box below" in dialog.model_tab.url_note.text()
    dialog.save()
    said = dialog.error.text()
    assert dialog.allow_plain_http.text() in said and "in Settings" not in said
    dialog.allow_plain_http.setChecked(True)
    assert "tick the box below" not in dialog.model_tab.url_note.text()
    dialog.reject()
