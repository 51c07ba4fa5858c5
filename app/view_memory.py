"""The conversation's messages as things to act on: the Remembered line under an answer,
"Learned" notices, links, the context menu (copy, remember, forget, regenerate, edit) and the
last exchange. A mixin of ConversationView, which declares the signals it emits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QTimer, QUrl
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QTextBlockFormat,
    QTextCursor,
    QTextFrame,
    QTextFrameFormat,
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

from app import remembered as shown
from app import theme
from app.text_formats import char_format as _format
from app.text_formats import link_format as _link
from app.thinking_fold import SCHEME as FOLD_SCHEME
from engine.memory import keywords

# A message of the person's longer than this is shown folded: its first lines and a link that
# unfolds it in place (a long paste took some 85 wheel clicks to get past).
FOLD_LINES, FOLD_CHARS = 40, 3000
SHOWN_LINES, SHOWN_CHARS = 12, 900  # what of a folded message is shown
LONG_SCHEME = "longmessage"  # the link that unfolds (and folds back) a long message
EARLIER_SCHEME = "earlier"  # the link above a long conversation that draws more of it
# A Learned notice whose item was deleted since (without its text: see _draw_learned).
GLUE = "\u00a0\u00a0·\u00a0\u00a0"  # "  ·  " where no line breaks
DELETED_NOTICE = "Deleted: what was learned here is no longer remembered."


@dataclass
class Message:
    """One message on screen, with where it sits in the document."""

    role: str  # "user" | "assistant"
    text: str
    frame: QTextFrame
    page_id: int | None = None
    memories: list[Any] | None = None  # assistant: what its prompt remembered (None: unknown)
    expanded: bool = False
    remembered_frame: QTextFrame | None = None
    notices_frame: QTextFrame | None = None
    learned: list[Any] = field(default_factory=list)  # LearnedItem notices shown after it
    undone: set[tuple[str, int]] = field(default_factory=set)
    deleted: set[tuple[str, int]] = field(default_factory=set)  # of `undone`: gone elsewhere
    changed: dict[Any, str] = field(default_factory=dict)  # notice key: its item's text now
    long: bool = False  # the person's message is long: shown folded until unfolded
    unfolded: bool = False


def is_long(text: str) -> bool:
    return text.count("\n") + 1 > FOLD_LINES or len(text) > FOLD_CHARS


def folded_part(text: str) -> str:
    """The start of a long message: its first lines (a long line cut at a word, "…")."""
    part = "\n".join(text.split("\n")[:SHOWN_LINES])
    if len(part) <= SHOWN_CHARS:
        return part.rstrip()
    part = part[:SHOWN_CHARS]
    cut = max(part.rfind(" "), part.rfind("\n"))
    return (part[:cut] if cut > SHOWN_CHARS // 2 else part).rstrip() + "…"


def show_all_label(text: str) -> str:
    """ "Show all (320 lines)", or in words for a message of few, long lines."""
    lines = text.count("\n") + 1
    if lines > SHOWN_LINES:
        return f"Show all ({lines:,} lines)"
    return f"Show all ({len(text.split()):,} words)"


def _found_at(text: str, words: list[str], start: int) -> int:
    """Where in `text`, at or after `start`, a word of a conversation search matches (as the
    search does: the same stem, the last word also as the start of one); -1 if nowhere."""
    typed = [w.lower() for w in keywords.tokens(" ".join(words))]
    if not typed:
        return -1
    stems = {keywords.fts_term(w) for w in typed}
    for match in re.finditer(r"[^\W_]+", text[start:]):
        word = match.group().lower()
        if keywords.fts_term(word) in stems or word.startswith(typed[-1]):
            return start + match.start()
    return -1


class MessagesMixin:
    """Methods ConversationView gets for acting on its messages."""

    found_words: list[str]  # the words of the conversation search whose result was opened

    # --- long messages of the person: folded -----------------------------------------------
    def _write_user_text(self, message: Message, cursor: QTextCursor) -> None:
        """The person's message at `cursor`; a long one folded (or unfolded) with its link."""
        text = message.text
        message.long = is_long(text)
        if not message.long:
            cursor.insertText(text, _format(theme.TEXT))
            return
        cursor.insertText(text if message.unfolded else folded_part(text), _format(theme.TEXT))
        block = QTextBlockFormat()
        block.setTopMargin(6)
        cursor.insertBlock(block)
        label = "Show less" if message.unfolded else show_all_label(text)
        cursor.insertText(label, _link(f"{LONG_SCHEME}:{self.messages.index(message)}"))

    def toggle_fold(self, message: Message) -> None:
        """Unfold a long message in place, or fold it back (its top is kept in view)."""
        if not message.long:
            return
        document = self.browser.document()
        cursor = QTextCursor(document)
        cursor.setPosition(self._body_start(message))
        cursor.setPosition(message.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.setBlockFormat(QTextBlockFormat())
        message.unfolded = not message.unfolded
        self._write_user_text(message, cursor)
        if not message.unfolded:  # folded back from far below: the view stays on it
            top = document.documentLayout().frameBoundingRect(message.frame).top()
            if top < self.browser.verticalScrollBar().value():
                self.scroll_to(message)

    def _body_start(self, message: Message) -> int:
        """Where a message's text starts: the block after its speaker line."""
        document = self.browser.document()
        return document.findBlock(message.frame.firstPosition()).next().position()

    # --- what an answer remembered, what was learned ----------------------------------------
    def set_memories(self, message: Message, memories: list[Any] | None) -> None:
        """Show (or redraw) the quiet "Used N memories" line under an answer."""
        message.memories = None if memories is None else list(memories)
        if message.memories is None:
            return
        if message.remembered_frame is None:
            cursor = QTextCursor(self.browser.document())
            cursor.setPosition(message.frame.lastPosition())
            frame_format = QTextFrameFormat()
            frame_format.setTopMargin(6)
            frame_format.setBorder(0)
            message.remembered_frame = cursor.insertFrame(frame_format)
            # its links have a menu of their own, for the Menu key too (see eventFilter)
            self.browser.installEventFilter(self)
            # open before the conversation was drawn again (a new text size): open still
            message.expanded = message.page_id in getattr(self, "_open_lists", ())
        self._draw_remembered(message)

    def toggle_remembered(self, message: Message) -> None:
        """Open or close the list under an answer; a line reached with Tab keeps the focus
        (redrawn, it lost it: the next Tab went to the conversation's first link)."""
        focused = self._focused_link() == f"remembered:{self.messages.index(message)}"
        message.expanded = not message.expanded
        self._draw_remembered(message)
        if focused:
            line = QTextCursor(self.browser.document())
            line.setPosition(message.remembered_frame.firstPosition())
            line.movePosition(QTextCursor.MoveOperation.EndOfBlock,
                              QTextCursor.MoveMode.KeepAnchor)
            self.browser.setTextCursor(line)
        if message.expanded:  # the list opens below the line: bring it into view
            self._show_remembered(message)
            QTimer.singleShot(0, self, lambda: self._show_remembered(message))  # laid out since

    def _show_remembered(self, message: Message) -> None:
        """Scroll as little as it takes for the whole Remembered list to be in view; its
        "Used N memories" line stays in view when the list is taller than the view."""
        frame = message.remembered_frame
        shown = any(m is message for m in self.messages)  # not cleared since
        if frame is None or not message.expanded or not shown:
            return
        rect = self.browser.document().documentLayout().frameBoundingRect(frame)
        bar = self.browser.verticalScrollBar()
        value = bar.value()
        value = max(value, int(rect.bottom()) + 12 - self.browser.viewport().height())
        bar.setValue(min(value, int(rect.top())))

    def _draw_remembered(self, message: Message) -> None:
        frame, index = message.remembered_frame, self.messages.index(message)
        cursor = self._emptied(frame)
        cursor.setBlockFormat(QTextBlockFormat())  # not the indent of the answer's last list
        items = message.memories or []
        if not items:
            cursor.insertText("Used no memories", _format(theme.MUTED, size=9))
            return
        arrow = "\u25be" if message.expanded else "\u25b8"
        cursor.insertText(
            f"{arrow} {shown.summary(items)}", _link(f"remembered:{index}", theme.MUTED)
        )
        if not message.expanded:
            return
        for position, item in enumerate(items):
            block = QTextBlockFormat()
            block.setLeftMargin(14)
            block.setTopMargin(2)
            cursor.insertBlock(block)
            label = _format(theme.MUTED, size=8.5)
            if item.forgotten:
                label.setFontStrikeOut(True)
            cursor.insertText(shown.item_label(item) + "   ", label)
            if item.forgotten:
                cursor.insertText(shown.item_text(item), _format(theme.MUTED, italic=True, size=9))
            else:
                cursor.insertText(
                    shown.item_text(item), _link(f"memory:{index}:{position}", theme.TEXT)
                )

    def scroll_to(self, message: Message) -> None:
        """Bring a message's top to the top of the view."""
        layout = self.browser.document().documentLayout()
        self.browser.verticalScrollBar().setValue(
            int(layout.frameBoundingRect(message.frame).top())
        )

    def add_learned(self, page_id: int, item: Any) -> bool:
        """ "Learned: ... · Undo · Manage" after the answer of exchange `page_id`."""
        message = self._answer_of(page_id)
        if message is None or any(i.key == item.key for i in message.learned):
            return False
        message.learned.append(item)
        if message.notices_frame is None:
            cursor = QTextCursor(self.browser.document())
            cursor.setPosition(message.frame.lastPosition())
            frame_format = QTextFrameFormat()
            frame_format.setTopMargin(6)
            frame_format.setPadding(6)
            frame_format.setBorder(0)
            frame_format.setBackground(QBrush(QColor(theme.color(theme.LEARNED_TINT))))
            message.notices_frame = cursor.insertFrame(frame_format)
        self._draw_learned(message)
        return True

    def mark_undone(self, item: Any, deleted: bool = False) -> None:
        """The notice's item is gone: "Forgot: …" (Undo), or "Deleted: …" (`deleted`: in the
        privacy panel, by a /forget), with no Undo."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                message.undone.add((item.kind, item.id))
                message.changed.pop(item.key, None)
                if deleted:
                    message.deleted.add((item.kind, item.id))
                else:
                    message.deleted.discard((item.kind, item.id))
                self._draw_learned(message)

    def mark_changed(self, item: Any, text: str | None) -> None:
        """The notice's item was edited since: "Changed since: <its text now>", with no Undo;
        `text` None: "Learned: …" again (the edit was undone)."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                if text is None:
                    message.changed.pop(item.key, None)
                else:
                    message.changed[item.key] = text
                self._draw_learned(message)

    def mark_restored(self, item: Any) -> None:
        """The notice's item, deleted elsewhere, was put back: "Learned: …" with its Undo."""
        for message in self.messages:
            if any(i.key == item.key for i in message.learned):
                message.undone.discard((item.kind, item.id))
                message.deleted.discard((item.kind, item.id))
                self._draw_learned(message)

    def _draw_learned(self, message: Message) -> None:
        cursor = self._emptied(message.notices_frame)
        index = self.messages.index(message)
        quiet = theme.MUTED_ON_TINT  # on the notice's green tint (MUTED there is 4.4:1)
        # No-break spaces: the links stay together and with the text's last word, so a line
        # that wraps takes that word along ("· Manage" alone on a line read as stray).
        gap = (GLUE, _format(quiet, size=9))
        for n, item in enumerate(message.learned):
            if n:
                cursor.insertBlock(QTextBlockFormat())
            if (item.kind, item.id) in message.undone:
                # Deleted elsewhere (Privacy, /forget, another program): its text is not shown
                # again, the person chose to have it gone.
                said = (DELETED_NOTICE if (item.kind, item.id) in message.deleted
                        else f"Forgot: {item.text}")
                cursor.insertText(said, _format(quiet, italic=True, size=9))
                continue
            if item.key in message.changed:
                now = message.changed[item.key]
                cursor.insertText(f"Changed since: {now}", _format(quiet, italic=True, size=9))
                cursor.insertText(*gap)
                cursor.insertText("Manage", _link(f"manage:{index}:{n}"))
                continue
            knowledge = item.kind == "knowledge"
            label = "Noted what MemoryOS said: " if knowledge else "Learned: "
            cursor.insertText(label, _format(theme.LEARNED, bold=True, size=9))
            cursor.insertText(item.text.rstrip(), _format(theme.TEXT, size=9))
            cursor.insertText(*gap)
            cursor.insertText("Undo", _link(f"undo:{index}:{n}"))
            cursor.insertText(*gap)
            cursor.insertText("Manage", _link(f"manage:{index}:{n}"))

    def learned_items(self) -> list[Any]:
        return [item for m in self.messages for item in m.learned]

    def page_ids(self) -> list[int]:
        return sorted({m.page_id for m in self.messages if m.page_id is not None})

    def show_exchange(self, page_id: int) -> bool:
        """Scroll so the exchange stored as `page_id` starts at the top of the view (a search
        result opened); False if it is not on screen. Where the search's words (found_words)
        are in the folded part of a long message, it is unfolded and they are shown."""
        message = next((m for m in self.messages if m.page_id == page_id), None)
        if message is None:
            return False
        found = self._unfold_found(message, self.found_words)
        self.found_words = []

        def scroll() -> None:
            if any(m is message for m in self.messages):  # not cleared since
                layout = self.browser.document().documentLayout()
                top = layout.frameBoundingRect(message.frame).top()
                if found is not None:  # the line with the word, a third down the view
                    top = self.browser.cursorRect(found).top() + self._scrolled()
                    top -= self.browser.viewport().height() // 3
                self.browser.verticalScrollBar().setValue(max(0, int(top) - 8))

        scroll()
        QTimer.singleShot(0, self, scroll)  # again once the layout has caught up
        return True

    def _unfold_found(self, message: Message, words: list[str]) -> QTextCursor | None:
        """Unfold `message` where `words` match in its folded part; the match, selected."""
        if not words or message.role != "user" or not message.long or message.unfolded:
            return None
        at = _found_at(message.text, words, len(folded_part(message.text).rstrip("…")))
        if at < 0:
            return None
        self.toggle_fold(message)
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(self._body_start(message) + at)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
        self.browser.setTextCursor(cursor)  # the word found, highlighted
        return cursor

    def _scrolled(self) -> int:
        return self.browser.verticalScrollBar().value()

    def answers_with_memories(self) -> list[int]:
        """The stored answers on screen that show a "Used N memories" line."""
        return sorted({
            m.page_id for m in self.messages
            if m.role == "assistant" and m.page_id is not None and m.memories is not None
        })

    def update_memories(self, lists: dict[int, list[Any]]) -> int:
        """Redraw the "Used N memories" lines whose items read differently now (one deleted
        since shows as forgotten); returns how many changed."""
        changed = 0
        for message in self.messages:
            if message.role != "assistant" or message.memories is None:
                continue
            now = lists.get(message.page_id) if message.page_id is not None else None
            if now is not None and list(now) != message.memories:
                self.set_memories(message, now)
                changed += 1
        return changed

    def finish_last_answer(self, page_id: int | None, memories: list[Any] | None) -> None:
        """After an answer ends: tie the last exchange to its stored page, show what it used."""
        answers = [m for m in self.messages if m.role == "assistant"]
        if not answers:
            return
        answer = answers[-1]
        answer.page_id = page_id
        position = self.messages.index(answer)
        if position and self.messages[position - 1].role == "user":
            self.messages[position - 1].page_id = page_id
        self.set_memories(answer, memories)
        if self._at_end():
            self._scroll_to_end()

    def last_exchange(self) -> list[Message]:
        """The last question and its answer, when the conversation ends with both."""
        if len(self.messages) >= 2 and [m.role for m in self.messages[-2:]] == [
            "user",
            "assistant",
        ]:
            return self.messages[-2:]
        return []

    def remove_last_exchange(self) -> None:
        """Take the last question and answer off the screen (they are being replaced)."""
        exchange = self.last_exchange()
        if not exchange:
            return
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(max(0, exchange[0].frame.firstPosition() - 1))
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del self.messages[-2:]
        self._messages -= 2

    def _answer_of(self, page_id: int) -> Message | None:
        for message in self.messages:
            if message.role == "assistant" and message.page_id == page_id:
                return message
        return None

    def _emptied(self, frame: QTextFrame) -> QTextCursor:
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(frame.firstPosition())
        cursor.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        return cursor

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


def _is_code(block: Any) -> bool:
    from PySide6.QtGui import QTextFormat

    return bool(block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence))


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
