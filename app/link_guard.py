"""Links in answers open only after the person says so: a model can write any address."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QTextBrowser

SCHEMES = ("http", "https", "mailto")


def open_url(url: QUrl) -> bool:
    """Hand the address to the system browser (replaced in tests: no browser there)."""
    return QDesktopServices.openUrl(url)


class LinkGuard(QObject):
    """Turns a click on a link into a question; `asked(url, opened)` after each answer."""

    asked = Signal(str, bool)

    def __init__(self, browser: QTextBrowser, *, connect: bool = True) -> None:
        """`connect=False`: the owner routes clicks on links that are not its own here."""
        super().__init__(browser)
        self.browser = browser
        browser.setOpenExternalLinks(False)
        browser.setOpenLinks(False)  # never navigate the conversation itself away
        if connect:
            browser.anchorClicked.connect(self.clicked)

    def clicked(self, url: QUrl) -> None:
        text = url.toString()
        if url.scheme().lower() not in SCHEMES:
            QMessageBox.warning(
                self.browser, "Link not opened",
                f"MemoryOS does not open {escape(url.scheme() or 'this kind of')} links.",
            )  # fmt: skip
            self.asked.emit(text, False)
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open link?",
            f"Open this address in your browser?<br><br><b>{escape(text)}</b><br><br>"
            "It was written by the model; the site will see that you visited it.",
            QMessageBox.StandardButton.Cancel,
            self.browser,
        )
        box.setObjectName("linkQuestion")
        box.addButton("Open", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        chosen = box.clickedButton()
        opened = chosen is not None and box.buttonRole(chosen) == QMessageBox.ButtonRole.AcceptRole
        if opened:
            open_url(url)
        self.asked.emit(text, opened)
