"""Menu entries that are turned off look it and say why: Export memory… off by the
administrator's policy was drawn like the entries around it and did nothing on click; so was
Privacy's "Forget the exchange it came from…" for a fact with no stored exchange."""

from __future__ import annotations

import json

import pytest
from PySide6.QtGui import QColor, QGuiApplication

from tests.gui_steps import privacy_row, privacy_with_two_exchanges

pytestmark = pytest.mark.gui


def _ink(menu, action) -> float:
    """How far the entry's darkest or lightest pixel is from its row's background (0..1): the
    strength its text is drawn with."""
    image = menu.grab().toImage()
    rect = menu.actionGeometry(action)
    ratio = image.width() / menu.width()
    left, top = int(rect.left() * ratio), int(rect.top() * ratio)
    right, bottom = int(rect.right() * ratio), int(rect.bottom() * ratio)
    ground = QColor(image.pixel(right - 2, top + 1)).lightnessF()
    return max(
        abs(QColor(image.pixel(x, y)).lightnessF() - ground)
        for x in range(left, right)
        for y in range(top, bottom)
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_export_off_by_policy_is_greyed_in_the_file_menu_and_says_why(
    qtbot, window, tmp_path, monkeypatch, scheme
):
    from app import theme

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"export": False}), encoding="utf-8")
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(policy))
    window._apply_policy()
    theme.apply_look(QGuiApplication.instance(), scheme)
    try:
        menu = next(m.menu() for m in window.menuBar().actions() if m.text() == "&File")
        export = window.export_action
        assert not export.isEnabled()
        # Its text is drawn fainter than an entry that works (Import), clearly so.
        assert _ink(menu, export) < 0.6 * _ink(menu, window.import_action)
        # Pointed at, it says why: the policy and its file.
        assert menu.toolTipsVisible() and str(policy) in export.toolTip()
    finally:
        theme.apply_look(QGuiApplication.instance(), "light")


def test_forget_the_exchange_of_a_fact_with_none_is_greyed_and_says_why(
    qtbot, window, memory
):
    memory.add_fact("I keep bees on the allotment")  # typed in: no exchange behind it
    panel = privacy_with_two_exchanges(
        qtbot, window, memory, "I work as a data scientist.", "My favourite food is ramen."
    )
    qtbot.waitUntil(lambda: privacy_row(panel, "keep bees") is not None)
    button = panel.forget_button
    menu = button.menu()
    privacy_row(panel, "data scientist").setSelected(True)
    assert button.exchange.isEnabled()
    offered = _ink(menu, button.exchange)

    panel.tree.clearSelection()
    privacy_row(panel, "keep bees").setSelected(True)

    assert not button.exchange.isEnabled()
    assert _ink(menu, button.exchange) < 0.6 * offered
    assert menu.toolTipsVisible() and "exchange" in button.exchange.toolTip()
