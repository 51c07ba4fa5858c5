"""The conversations sidebar (Ctrl+B): past conversations by day, newest first; full-text
search across all of them (Ctrl+Shift+F, sidebar_search.py) with the matching words
highlighted; open, rename and forget (showing what forgetting also removes)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QStyledItemDelegate,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.conversation_view import day_label
from app.errors import describe
from app.icons import icon
from app.sidebar_search import SearchMixin
from app.widgets import KEEP_SELECTION, KEYBOARD_FOCUS
from engine import conversations

ROLE = Qt.ItemDataRole.UserRole


def forget_question(title: str, preview: Any) -> tuple[str, str]:
    """The confirmation text: the conversation, then everything else that goes with it."""
    one = preview.pages == 1
    exchanges = "only exchange is" if one else f"{preview.pages} exchanges are"
    question = f"Forget “{title}”? Its {exchanges} removed everywhere."
    learned = [f.text for f in preview.facts] + [s.text for s in preview.slots]
    if learned:
        lines = "\n".join(f"• {text}" for text in learned[:12])
        more = f"\n…and {len(learned) - 12} more" if len(learned) > 12 else ""
        was = "it was" if len(learned) == 1 else "they were"
        detail = (
            f"Also forgotten, because {was} learned only from this conversation:\n{lines}{more}"
        )
    else:
        detail = "Nothing was learned only from this conversation, so nothing else is removed."
    return question, detail + "\n\nThis cannot be undone."


class TitleEditor(QStyledItemDelegate):
    """The box Rename (F2) opens over a row, named: Qt's own box has no name, and a screen
    reader said only "text field"."""

    def createEditor(self, parent: QWidget, option: Any, index: Any) -> QWidget:  # noqa: N802
        editor = super().createEditor(parent, option, index)
        editor.setAccessibleName("Conversation title")
        return editor


class Sidebar(SearchMixin, QFrame):
    """Lists conversations; asks the window to open one with `open_requested(id)`."""

    open_requested = Signal(str)
    found_requested = Signal(str, int)  # a search result: the conversation, at that exchange
    refreshed = Signal()  # the list was drawn again
    searched = Signal()  # search results were drawn
    changed = Signal(str)  # "renamed" | "forgotten" | "error"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAccessibleName("Conversations")
        self.setMinimumWidth(theme.pixels(160))  # the window sets it for its text size: fit_text
        self._dark = theme.dark  # the scheme its day headers were drawn in (see changeEvent)
        self.session: Any = None
        self.items: list[Any] = []
        self.current: str | None = None  # the conversation on screen: its row is selected
        # The row renamed: the current (keyboard) row again after each redraw (the list read
        # once the rename is stored, then for the vault's event) until the person moves.
        self._renamed_id = ""
        self.confirm_box: QMessageBox | None = None
        self.title = title = QLabel("Conversations", objectName="sidebarTitle")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search all conversations")
        self.search.setAccessibleName("Search conversations")
        self.search.setToolTip("Search all conversations (Ctrl+Shift+F)")
        self.search.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda: self._search_timer.start())
        self.search.installEventFilter(self)  # Esc clears the search; Down, Enter: results
        self._open_first = False  # Enter pressed before the results were drawn: open the first
        self.tree = QTreeWidget()
        self.tree.setAccessibleName("Conversation list")
        self.tree.setItemDelegate(TitleEditor(self.tree))
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(8)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._show_menu)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.tree.itemChanged.connect(self._renamed)
        self.tree.currentItemChanged.connect(self._moved)  # by the person: redraws block it
        self.tree.installEventFilter(self)  # a current row on focus; Up, Down skip day headers
        self.results = QTextBrowser(objectName="searchResults")
        self.results.setAccessibleName("Search results")
        self.results.setOpenLinks(False)
        self.results.setTabChangesFocus(True)
        self.results.anchorClicked.connect(self._result_clicked)
        self.results.installEventFilter(self)  # Tab into it reaches its first result
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tree)
        self.stack.addWidget(self.results)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(self.search)
        layout.addWidget(self.stack, 1)
        self._refresh_timer = QTimer(self, singleShot=True, interval=200)
        self._refresh_timer.timeout.connect(self.refresh)
        self._search_timer = QTimer(self, singleShot=True, interval=200)
        self._search_timer.timeout.connect(self.run_search)

    def fit_text(self, most: int) -> None:
        """The narrowest the sidebar may be at the text size now: its title whole (it was cut
        at large sizes, the minimum set once at the start), and at most `most` pixels."""
        margins = self.layout().contentsMargins()
        title = self.title.sizeHint().width() + margins.left() + margins.right()
        self.setMinimumWidth(min(most, max(theme.pixels(160), title)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Esc in a search with text clears it (the list comes back); taken before the
        window's Esc (Stop) only while there is text to clear."""
        kinds = (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
        if (
            watched is self.search
            and event.type() in kinds
            and event.key() == Qt.Key.Key_Escape
            and self.search.text()
        ):
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self.search.clear()
            return True
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            if self._search_key(event.key()):
                return True
        if watched is self.results and event.type() in kinds and self._results_key(event):
            return True
        if watched is self.tree and self._tree_key(event):
            return True
        if (watched is self.results and event.type() == QEvent.Type.FocusIn
                and event.reason() in KEYBOARD_FOCUS):
            self._focus_result(last=event.reason() == Qt.FocusReason.BacktabFocusReason)
        return super().eventFilter(watched, event)


    def _tree_key(self, event: QEvent) -> bool:
        """With the keyboard in the list: a conversation is current (after a temporary chat
        none was, and Enter did nothing); Up and Down go from conversation to conversation,
        over the day headers. True when the event was used here."""
        current = self.tree.currentItem()
        rows = self.rows()
        if event.type() == QEvent.Type.FocusIn:
            # not a click, which makes its own row current (Qt made the first row current: a
            # day header)
            clicked = event.reason() == Qt.FocusReason.MouseFocusReason
            if rows and not clicked and (current is None or current.data(0, ROLE) is None):
                index = self.tree.indexFromItem(rows[0])
                self.tree.selectionModel().setCurrentIndex(index, KEEP_SELECTION)
            return False
        if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Menu:
            if current is not None and current.data(0, ROLE) is not None:
                # the current row's menu (itemAt(point) found none, or another row's)
                self._show_menu(self.tree.visualItemRect(current).center(), current)
            return True
        if event.type() != QEvent.Type.KeyPress or event.modifiers() not in (
            Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier
        ):
            return False
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(event.key())
        if step is None or not rows:
            return False
        if current in rows:
            at = rows.index(current) + step
        elif step == 1 or current is None:
            at = 0
        else:
            at = len(rows) - 1
        if 0 <= at < len(rows):
            self.tree.setCurrentItem(rows[at])
        return True

    def attach(self, session: Any) -> None:
        self.session = session
        session.memory_changed.connect(self._on_event)
        self.refresh()

    def detach(self) -> None:
        """The vault closed (locked, quitting): nothing from it stays, the search term neither."""
        self.session = None
        self._refresh_timer.stop()
        self.search.blockSignals(True)  # no search queued for a vault that is gone
        self.search.clear()
        self.search.blockSignals(False)
        self._search_timer.stop()
        self.tree.clear()
        self.results.clear()
        self.stack.setCurrentWidget(self.tree)

    def _on_event(self, event: str) -> None:
        if event == "pages":
            self._refresh_timer.start()
            if self.search.text().strip():
                self._search_timer.start()  # results shown stay true to what is stored

    # --- the list ------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """The day headers in the new scheme's muted grey after a switch of scheme."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            self._dark = theme.dark
            self._draw(self.items)

    def refresh(self) -> None:
        if self.session is not None:
            asked = self.session
            self.session.run(
                self.session.mem.conversations,
                on_result=lambda items: self._draw(items) if self.session is asked else None,
                on_error=self._failed,
            )

    def _draw(self, items: list) -> None:
        """The conversations read for the session still attached (a read that comes back
        after a lock drew the titles on the locked screen)."""
        self.items = sorted(items, key=lambda c: c.last_ts or 0, reverse=True)
        self.tree.blockSignals(True)
        self.tree.clear()
        group: QTreeWidgetItem | None = None
        label = None
        for conversation in self.items:
            moment = dt.datetime.fromtimestamp(conversation.last_ts or 0)
            day = day_label(moment, short=True)
            if day != label:
                label = day
                group = QTreeWidgetItem([day])
                group.setToolTip(0, day_label(moment))
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setForeground(0, QColor(theme.color(theme.MUTED)))  # Qt's grey: 2.6:1
                self.tree.addTopLevelItem(group)
            row = QTreeWidgetItem([conversation.title or "(untitled)"])
            row.setData(0, ROLE, conversation)
            row.setToolTip(0, f"{conversation.title}\n{conversation.pages} exchanges")
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsEditable)
            group.addChild(row)
        self.tree.expandAll()
        self._select_current()
        self._keep_renamed()
        self.tree.blockSignals(False)
        self.refreshed.emit()

    def set_current(self, conversation_id: str | None) -> None:
        """Mark the conversation on screen (None: a new one, not in the list yet)."""
        if conversation_id != self.current:
            self._renamed_id = ""  # another conversation opened: the keyboard goes with it
        self.current = conversation_id
        self.tree.blockSignals(True)
        self._select_current()
        self._keep_renamed()
        self.tree.blockSignals(False)

    def _keep_renamed(self) -> None:
        """The row just renamed stays the current row, the open one's selected: the keyboard
        goes on from it, and the Menu key opens its menu (it opened the open one's)."""
        renamed = self.row_of(self._renamed_id) if self._renamed_id else None
        if renamed is None:
            self._renamed_id = ""  # forgotten meanwhile
            return
        index = self.tree.indexFromItem(renamed)
        self.tree.selectionModel().setCurrentIndex(index, KEEP_SELECTION)

    def _moved(self, row: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        """The person moved (a key, a click): redraws keep the row moved to, not the renamed."""
        if row is None or row.data(0, ROLE) is None or row.data(0, ROLE).id != self._renamed_id:
            self._renamed_id = ""

    def _select_current(self) -> None:
        row = self.row_of(self.current) if self.current else None
        if row is None:
            self.tree.clearSelection()
            self.tree.setCurrentItem(None)
        else:
            self.tree.setCurrentItem(row)

    def rows(self) -> list[QTreeWidgetItem]:
        """The conversation rows, in order (not the day headers)."""
        out = []
        for index in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(index)
            out += [group.child(i) for i in range(group.childCount())]
        return out

    def row_of(self, conversation_id: str) -> QTreeWidgetItem | None:
        for row in self.rows():
            if row.data(0, ROLE).id == conversation_id:
                return row
        return None

    def _activated(self, row: QTreeWidgetItem, _column: int = 0) -> None:
        conversation = row.data(0, ROLE)
        if conversation is not None:
            self.open_requested.emit(conversation.id)

    # --- rename and forget ---------------------------------------------------------------
    def context_menu(self, row: QTreeWidgetItem) -> QMenu:
        menu = QMenu(self)
        menu.addAction("&Open", lambda: self._activated(row))
        menu.addAction("&Rename", lambda: self.tree.editItem(row, 0))
        menu.addSeparator()
        menu.addAction("&Forget…", lambda: self.forget(row.data(0, ROLE).id))
        return menu

    def _show_menu(self, point: QPoint, row: QTreeWidgetItem | None = None) -> None:
        row = row or self.tree.itemAt(point)
        if row is None or row.data(0, ROLE) is None:
            return
        menu = self.context_menu(row)
        menu.exec(self.tree.viewport().mapToGlobal(point))
        menu.deleteLater()

    def _renamed(self, row: QTreeWidgetItem, _column: int) -> None:
        conversation = row.data(0, ROLE)
        title = row.text(0).strip()
        if conversation is None or title == conversation.title or self.session is None:
            return
        if not title:
            self.tree.blockSignals(True)
            row.setText(0, conversation.title)
            self.tree.blockSignals(False)
            return
        self._renamed_id = conversation.id
        self.session.run(
            conversations.rename,
            self.session.mem,
            conversation.id,
            title,
            on_result=lambda _t: self._done("renamed"),
            on_error=self._failed,
        )

    def forget(self, conversation_id: str) -> None:
        """Show what forgetting the conversation removes, then ask."""
        if self.session is not None:
            self.session.run(
                conversations.preview_forget,
                self.session.mem,
                conversation_id,
                on_result=self._ask_forget,
                on_error=self._failed,
            )

    def _ask_forget(self, preview: Any) -> None:
        row = self.row_of(preview.conversation_id)
        title = row.text(0) if row is not None else preview.conversation_id
        question, detail = forget_question(title, preview)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Forget conversation",
            question,
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(detail)
        forget = box.addButton("Forget", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        forget.clicked.connect(lambda: self._forget(preview.conversation_id))
        self.confirm_box = box
        box.open()

    def _forget(self, conversation_id: str) -> None:
        self.session.run(
            self.session.mem.forget_conversation,
            conversation_id,
            on_result=lambda _r: self._done("forgotten", conversation_id),
            on_error=self._failed,
        )

    def _done(self, what: str, conversation_id: str = "") -> None:
        self.refresh()
        if self.search.text().strip():
            self.run_search()
        self.changed.emit(what if not conversation_id else f"{what}:{conversation_id}")

    def _failed(self, error: Exception) -> None:
        from app.errors import show_message

        show_message(self, "Conversations", describe(error), warning=True)
        self.changed.emit("error")
