"""A reasoning model's thinking in the chat: kept out of the answer, shown as a folded line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser

from app import theme
from engine.thinking import ANSWER, ThinkingSplitter

SCHEME = "memoryos-thinking"
# Block user states mark our lines (Qt's default state is -1, other code may use small ones).
MARKER, BODY = 1_000_000, 2_000_000


class ThinkingRouter:
    """Between the stream and the view: answer text goes to the view, thinking is kept aside."""

    def __init__(self, append: Any) -> None:
        self.append = append
        self.splitter = ThinkingSplitter()

    def feed(self, chunk: str) -> None:
        for kind, text in self.splitter.feed(chunk):
            if kind == ANSWER:
                self.append(text)

    def finish(self) -> str:
        """Flush what was held back; returns the whole thinking text ('' for other models)."""
        for kind, text in self.splitter.finish():
            if kind == ANSWER:
                self.append(text)
        return self.splitter.thinking.strip()


class ThinkingFolds:
    """Folded thinking lines in a QTextBrowser: click "Show" to unfold, "Hide" to fold."""

    def __init__(self, browser: QTextBrowser) -> None:
        self.browser = browser
        self.texts: dict[int, str] = {}
        # Our own links are handled here; the conversation view handles every other link
        # (a web link asks first: app.link_guard).
        browser.setOpenLinks(False)
        browser.anchorClicked.connect(self._clicked)

    def add(self, thinking: str) -> int:
        """Append a folded line for `thinking` under the last answer; returns its id."""
        fold_id = len(self.texts) + 1
        self.texts[fold_id] = thinking
        cursor = QTextCursor(self.browser.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertBlock(_indented())
        cursor.block().setUserState(MARKER + fold_id)
        self._write_marker(cursor, fold_id, unfolded=False)
        return fold_id

    def is_unfolded(self, fold_id: int) -> bool:
        return self._block(BODY + fold_id) is not None

    def toggle(self, fold_id: int) -> None:
        body = self._block(BODY + fold_id)
        marker = self._block(MARKER + fold_id)
        if marker is None:
            return
        cursor = QTextCursor(marker)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self._write_marker(cursor, fold_id, unfolded=body is None)
        if body is not None:
            cursor = QTextCursor(body)
            cursor.movePosition(QTextCursor.MoveOperation.PreviousCharacter)
            cursor.setPosition(body.position() + body.length() - 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            return
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        cursor.insertBlock(_indented())
        cursor.block().setUserState(BODY + fold_id)
        # One block (line separators, not paragraphs), so folding removes exactly it.
        text = self.texts[fold_id].replace("\n", "\u2028")
        cursor.insertText(text, _format(italic=True))

    def _write_marker(self, cursor: QTextCursor, fold_id: int, unfolded: bool) -> None:
        words = len(self.texts[fold_id].split())
        cursor.insertText(f"{'▾' if unfolded else '▸'} Thought for {words} words · ", _format())
        link = _format()
        link.setAnchor(True)
        link.setAnchorHref(f"{SCHEME}:{fold_id}")
        link.setForeground(theme_color(theme.ACCENT))
        cursor.insertText("Hide" if unfolded else "Show", link)

    def _block(self, state: int) -> Any:
        block = self.browser.document().begin()
        while block.isValid():
            if block.userState() == state:
                return block
            block = block.next()
        return None

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == SCHEME:
            self.toggle(int(url.path() or 0))


def _indented() -> QTextBlockFormat:
    block = QTextBlockFormat()
    block.setLeftMargin(16)  # under the answer's text, not at the window's edge
    return block


def _format(italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(theme_color(theme.MUTED))
    fmt.setFontItalic(italic)
    fmt.setFontPointSize(9)
    return fmt


def theme_color(name: str) -> Any:
    from PySide6.QtGui import QColor

    return QColor(theme.color(name))  # as the scheme shows it: raw, 3.5:1 on dark
