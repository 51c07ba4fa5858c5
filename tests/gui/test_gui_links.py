"""Links in answers ask before opening; only web and mail addresses are ever opened."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl

from tests.gui_steps import keep_looking

pytestmark = pytest.mark.gui


@pytest.fixture
def opened(monkeypatch):
    """The addresses handed to the system browser (there is no browser in the tests)."""
    from app import link_guard

    calls: list[str] = []
    monkeypatch.setattr(link_guard, "open_url", lambda url: calls.append(url.toString()))
    return calls


def _press(view, name: str, button: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    def look() -> bool:
        boxes = [b for b in view.findChildren(QMessageBox) if b.isVisible()]
        box = next((b for b in boxes if not name or b.objectName() == name), None)
        if box is None:
            return False
        next(b for b in box.buttons() if b.text().replace("&", "") == button).click()
        return True

    keep_looking(look)


def test_a_link_opens_only_after_the_person_says_so(qtbot, window, opened):
    view = window.view
    assert not view.browser.openExternalLinks()
    _press(view, "linkQuestion", "Cancel")
    with qtbot.waitSignal(view.links.asked) as first:
        view.browser.anchorClicked.emit(QUrl("https://example.com/phish"))
    assert first.args == ["https://example.com/phish", False] and opened == []
    _press(view, "linkQuestion", "Open")
    with qtbot.waitSignal(view.links.asked) as second:
        view.browser.anchorClicked.emit(QUrl("https://example.com/docs"))
    assert second.args == ["https://example.com/docs", True]
    assert opened == ["https://example.com/docs"]


def test_other_schemes_are_never_opened(qtbot, window, opened):
    _press(window.view, "", "OK")
    with qtbot.waitSignal(window.view.links.asked) as done:
        window.view.browser.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert done.args == ["file:///etc/passwd", False] and opened == []
