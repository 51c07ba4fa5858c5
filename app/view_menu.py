"""The conversation's links and its context menu (copy, remember, forget, regenerate, edit),
for the mouse and the Menu key, and the Remember this… dialog. A mixin of ConversationView,
which declares the signals it emits.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QUrl
from PySide6.QtGui import (
    QAction,
    QContextMenuEvent,
    QGuiApplication,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.thinking_fold import SCHEME as FOLD_SCHEME
from app.view_memory import EARLIER_SCHEME, LONG_SCHEME, Message, _is_code


class MenuMixin:
    """Methods ConversationView gets for its links and its context menu."""

    # --- links and the context menu -------------------------------------------------------
    def _on_link(self, url: QUrl) -> None:
        href = url.toString()
        scheme, _, rest = href.partition(":")
        parts = rest.split(":")
        try:
            if scheme == "remembered":
                self.toggle_remembered(self.messages[int(parts[0])])
            elif scheme == LONG_SCHEME:
                self.toggle_fold(self.messages[int(parts[0])])
            elif scheme == "memory":
                message = self.messages[int(parts[0])]
                self.memory_opened.emit(message.memories[int(parts[1])])
            elif scheme == EARLIER_SCHEME:
                self.earlier_requested.emit()
            elif scheme in ("undo", "manage"):
                item = self.messages[int(parts[0])].learned[int(parts[1])]
                signal = (
                    self.learned_undo_requested
                    if scheme == "undo"
                    else self.learned_manage_requested
                )
                signal.emit(item)
            elif scheme != FOLD_SCHEME:  # folded thinking handles its own links
                # a link the model wrote: asked about first, never opened on one click
                self.links.clicked(url)
        except (IndexError, ValueError, TypeError):
            pass  # a link from a message redrawn since: nothing to do

    def _focused_link(self) -> str:
        """The address of the link reached with Tab (the text cursor selects it), or ""."""
        return self._focused_link_start().charFormat().anchorHref()

    def _focused_link_start(self) -> QTextCursor:
        """A cursor just inside the selected text: on the focused link's first character."""
        selected = self.browser.textCursor()
        cursor = QTextCursor(self.browser.document())
        if selected.hasSelection():
            cursor.setPosition(selected.selectionStart() + 1)
        return cursor

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """The Menu key on a remembered item reached with Tab: that item's menu. Qt puts the
        keyboard's menu at the text cursor, just past the link, where the message's menu is."""
        if (
            watched is self.browser
            and event.type() == QEvent.Type.ContextMenu
            and event.reason() == QContextMenuEvent.Reason.Keyboard
            and self._focused_link().startswith("memory:")
        ):
            self._show_menu(self.browser.cursorRect(self._focused_link_start()).center())
            return True
        return super().eventFilter(watched, event)

    def message_at(self, point: QPoint) -> Message | None:
        """The message under a point of the browser's viewport."""
        position = self.browser.cursorForPosition(point).position()
        for message in self.messages:
            if message.frame.firstPosition() <= position <= message.frame.lastPosition():
                return message
        return None

    def point_of(self, message: Message) -> QPoint:
        """A viewport point inside `message` (tests, keyboard menu)."""
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(message.frame.firstPosition() + 1)
        return self.browser.cursorRect(cursor).center()

    def context_menu(self, point: QPoint) -> QMenu:
        """The actions for what is under `point`: a remembered item, a code block, a message.
        Each has its own underlined letter, so a key picks it once the menu is open."""
        menu = QMenu(self)
        href = self.browser.anchorAt(point)
        if href.startswith("memory:"):
            _, index, position = href.split(":")
            item = self.messages[int(index)].memories[int(position)]
            menu.addAction("&Show where it came from", lambda: self.memory_opened.emit(item))
            menu.addAction("&Forget this memory…", lambda: self.memory_forget_requested.emit(item))
            return menu
        selected = self.browser.textCursor().selectedText()
        if selected:
            copy = QAction("&Copy", menu)
            copy.triggered.connect(self.browser.copy)
            menu.addAction(copy)
        message = self.message_at(point)
        if message is not None:
            code = self._code_block_at(point)
            if code:
                copy_code = menu.addAction("Copy code &block", lambda: _copy(code))
                copy_code.setShortcut(self.COPY_CODE_KEY)  # shown; the window's action has it
            menu.addAction("Copy &message", lambda: _copy(message.text))
            menu.addSeparator()
            remember = message.text
            if remember.strip() and message.role == "assistant":
                # MemoryOS's words are not the person's: asked first, as something they say
                part = self._selected_in(message) or first_paragraph(remember)
                menu.addAction("&Remember this…", lambda: self.ask_to_remember(part))
            elif remember.strip():
                menu.addAction("&Remember this", lambda: self.remember_requested.emit(remember))
            if message.page_id is not None:
                page_id = message.page_id
                menu.addAction(
                    "&Forget this exchange…", lambda: self.exchange_forget_requested.emit(page_id)
                )
            if self._answer is None and message in self.last_exchange():
                menu.addSeparator()
                if message.role == "assistant":
                    menu.addAction("Re&generate answer", self.regenerate_requested.emit)
                else:
                    menu.addAction("&Edit and resend", self.edit_requested.emit)
        menu.addSeparator()
        menu.addAction("Select &all", self.browser.selectAll)
        return menu

    def _selected_in(self, message: Message) -> str:
        """The text selected inside `message`, one line ("" if none is, or it goes beyond)."""
        cursor = self.browser.textCursor()
        inside = (message.frame.firstPosition() <= cursor.selectionStart()
                  and cursor.selectionEnd() <= message.frame.lastPosition())
        return " ".join(cursor.selectedText().split()) if inside else ""

    def ask_to_remember(self, text: str) -> None:
        """Remember this… on an answer: the part to remember, to check or edit before it is
        saved as something the person said (the whole reply was saved, unasked)."""
        dialog = RememberDialog(text, self)
        dialog.accepted.connect(lambda: self.remember_requested.emit(dialog.text()))
        dialog.finished.connect(dialog.deleteLater)
        self.remember_dialog = dialog  # tests reach it here
        dialog.open()

    def _code_block_at(self, point: QPoint) -> str:
        """The text of the fenced code block under `point`, or ""."""
        block = self.browser.cursorForPosition(point).block()
        if not _is_code(block):
            return ""
        first = block
        while first.previous().isValid() and _is_code(first.previous()):
            first = first.previous()
        lines = []
        while first.isValid() and _is_code(first):
            lines.append(first.text())
            first = first.next()
        return "\n".join(lines)

    def _show_menu(self, point: QPoint) -> None:
        menu = self.context_menu(point)
        menu.exec(self.browser.viewport().mapToGlobal(point))
        menu.deleteLater()


def first_paragraph(text: str) -> str:
    """The first paragraph of a message, on one line."""
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.strip():
            return " ".join(paragraph.split())
    return ""


class RememberDialog(QDialog):
    """What to remember from an answer, as a sentence about the person, editable first."""

    def __init__(self, text: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Remember this")
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        note = QLabel("MemoryOS will remember this as something about you. Edit it if you like.")
        note.setWordWrap(True)
        layout.addWidget(note)
        self.editor = QPlainTextEdit(text)
        self.editor.setAccessibleName("What to remember")
        self.editor.setTabChangesFocus(True)
        layout.addWidget(self.editor)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.remember_button = buttons.addButton(
            "Remember", QDialogButtonBox.ButtonRole.AcceptRole)
        self.remember_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.editor.textChanged.connect(
            lambda: self.remember_button.setEnabled(bool(self.text())))
        self.remember_button.setEnabled(bool(self.text()))
        self.editor.selectAll()
        self.editor.setFocus()

    def text(self) -> str:
        """What will be remembered: one line."""
        return " ".join(self.editor.toPlainText().split())


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
