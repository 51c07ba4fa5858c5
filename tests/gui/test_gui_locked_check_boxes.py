"""A check box that cannot be changed is drawn greyed, as disabled fields are: under a policy
with remote models off, "Allow plain http:// to a server that is not this computer" was greyed
in name only, its text as dark as an enabled box's."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gui


def _darkest(widget) -> float:
    """The lightness of the darkest pixel drawn (the text's): 0 black, 1 white."""
    image = widget.grab().toImage()
    return min(
        image.pixelColor(x, y).lightnessF()
        for y in range(image.height())
        for x in range(image.width())
    )


def _plain_http_box(qtbot, window):
    dialog = window.open_settings()
    dialog.server.setChecked(True)  # its part of the Model tab shown
    box = dialog.model_tab.allow_plain_http
    qtbot.waitUntil(lambda: box.isVisible() and not box.grab().isNull())  # laid out
    return dialog, box


def test_plain_http_under_remote_models_off_is_drawn_greyed(qtbot, window, tmp_path, monkeypatch):
    dialog, box = _plain_http_box(qtbot, window)
    enabled = _darkest(box)
    dialog.reject()
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"remote_models": False}), encoding="utf-8")
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(path))
    dialog, box = _plain_http_box(qtbot, window)
    assert not box.isEnabled() and str(path) in box.toolTip()  # greyed, saying why
    greyed = _darkest(box)
    # the text as light as a disabled field's (#9CA3AF), not the dark text of an enabled box
    assert enabled < 0.3 < 0.55 < greyed, (enabled, greyed)
    # the boxes the policy locks on the Memory tab are greyed the same way
    dialog.tabs.setCurrentWidget(dialog.memory_scroll)
    locked = dialog.memory_scroll.memory_form.inputs["remote_consolidation"]
    qtbot.waitUntil(lambda: locked.isVisible() and not locked.grab().isNull())
    assert not locked.isEnabled() and _darkest(locked) > 0.55
    dialog.reject()
