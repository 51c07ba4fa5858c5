"""The privacy panel: every persona item with its source; search, edit, delete, forget, export, erase."""

from __future__ import annotations

import datetime as dt
from html import escape
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QTabWidget,
    QTextBrowser,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app import theme
from app.errors import describe, show_message
from app.icons import icon, themed
from app.persona_items import (
    CANDIDATE_TIP,
    KIND_LABELS,
    PROFILE,
    Deleted,
    Edited,
    PersonaItem,
    delete_and_forget,
    delete_items,
    edit_item,
    load_items,
    origin_text,
    source_pages,
    undo_delete,
    undo_edit,
)
from app.privacy_exchanges import OPEN_KEYS, ExchangeList
from app.privacy_forget import (
    UNDO_LASTS,
    ForgetButton,
    delete_and_forget_action,
    delete_question,
    exchanges_words,
    source_exchanges,
)
from app.widgets import (
    KEYBOARD_FOCUS,
    WithPlaceholder,
    fit_window,
    make_tree,
    no_default_buttons,
    one_line,
    redrawn_keeping,
    screen_room,
    speakers,
    when,
)
from app.workers import while_open
from engine.errors import NotFoundError
from engine.memory import when as when_said
from engine.reference_import import ORIGIN as REFERENCE_ORIGIN

ROLE = Qt.ItemDataRole.UserRole
WHAT_IT_KNOWS = 1  # the list's only editable column
DANGER = "#B42318"  # the Erase icons' red, of the light design (icons.pixmap adapts it)
ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
# The row alone, selected: without explicit flags a held Ctrl or Shift toggles or extends
SELECT_ROW = (QItemSelectionModel.SelectionFlag.ClearAndSelect
              | QItemSelectionModel.SelectionFlag.Rows)


def _ask(parent: QWidget, title: str, text: str, *actions: str) -> str:
    """Ask with Cancel and the destructive `actions`; the action chosen, "" for Cancel."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)  # it quotes items: "<b>" in one is not markup
    for action in actions:
        box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    if clicked is None or box.buttonRole(clicked) != QMessageBox.ButtonRole.DestructiveRole:
        return ""
    return clicked.text()


def _count(number: int, one: str, many: str = "") -> str:
    return f"{number} {one if number == 1 else (many or one + 's')}"


def _and(parts: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


def _items_words(items: list[PersonaItem]) -> str:
    """"1 fact", "2 facts and 1 profile entry": what a delete removed."""
    slots = sum(item.kind == PROFILE for item in items)
    facts = len(items) - slots
    parts = [_count(facts, "fact")] if facts else []
    if slots:
        parts.append(_count(slots, "profile entry", "profile entries"))
    return _and(parts)


def _forgot_words(done: Any) -> str:
    """"1 exchange and 1 fact": what a forget removed (the engine's ForgetPreview)."""
    parts = [_count(len(done.pages), "exchange")]
    if done.facts:
        parts.append(_count(len(done.facts), "fact"))
    if done.slots:
        parts.append(_count(len(done.slots), "profile entry", "profile entries"))
    return _and(parts)


def _learned_later(item: PersonaItem) -> str:
    """"learned 27 Nov 2026 03:24" when that was another day than it was said (imported
    history), else "": the list shows when it was said."""
    said = item.said or item.learned
    days = {dt.date.fromtimestamp(t) for t in (said, item.learned) if t}
    return f"learned {when(item.learned)}" if len(days) > 1 else ""


def _keyboard_back(window: QWidget, came_from: QWidget | None) -> None:
    """The window a panel closed over comes to the front with the keyboard where it was: with
    no window manager to activate it the keys typed next went nowhere, and a window that lost
    track of its focus gives it to its first control (the conversation search). `came_from`:
    where the keyboard was in it when the panel opened."""
    active = QApplication.activeWindow()
    if not window.isVisible() or (active not in (None, window) and active.isVisible()):
        return
    target = window.focusWidget()
    if target is None or not target.isVisibleTo(window):
        target = came_from
    if target is not None and isValid(target) and target.isVisibleTo(window):
        target.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
    window.activateWindow()


class RowEditor(QStyledItemDelegate):
    """Edits "What it knows" in a box over the whole cell: Qt put it at the text's place,
    inside the row's padding, and it sat lower than the row it edits."""

    def updateEditorGeometry(self, editor: QWidget, option: Any, index: Any) -> None:  # noqa: N802
        editor.setGeometry(option.rect)


class PrivacyPanel(QDialog):
    """See, correct and erase what MemoryOS knows about the person."""

    refreshed = Signal()
    changed = Signal()  # an edit, delete or forget finished
    erase_requested = Signal()

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = theme.dark  # the scheme its colours were drawn in (see changeEvent)
        self.session = session
        self.items: list[PersonaItem] = []
        self._reads = 0  # list reads asked for: only the latest one is drawn (refresh)
        # After a delete: (the keys deleted, the key of the row to select once they are gone)
        self._after_delete: tuple[set, Any] | None = None
        # The last delete or edit, while its Undo is offered; then the keys to select once it
        # is undone
        self.last_change: Deleted | Edited | None = None
        self._undo_note = ""  # what the panel said of that change ("Deleted 1 fact.")
        self._after_undo: set | None = None
        self.last_forget_preview: Any = None  # what the last forget dialog showed
        # Where the keyboard was in the window behind (the message box): it goes back there
        self._came_from = parent.focusWidget() if parent is not None else None
        self.setWindowTitle("Privacy")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        fit_window(self, 1000, 680)
        title = QLabel("What MemoryOS knows about you", objectName="title")
        subtitle = QLabel(
            "Everything below was learned from your conversations or imported. Select an item "
            "to see where it came from; double-click it or press F2 to correct it. Deleted items "
            "are gone from memory and from every future answer.", objectName="subtitle")
        subtitle.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._items_tab(), "Facts and profile")
        self.tabs.addTab(self._conversations_tab(), "Conversations")
        export = QPushButton(themed("export"), " Export everything…")
        export.clicked.connect(self.export)
        self.export_button = export
        from app.policy_lock import disable_if_forbidden
        from engine.policy import current

        disable_if_forbidden([export], current().export_forbidden, current())
        erase = QPushButton(icon("erase", DANGER), " Erase everything…", objectName="danger")
        erase.clicked.connect(self.erase_requested)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        # What the last delete or forget did: the rows just vanish otherwise
        self.done_note = QLabel(objectName="hint")
        self.done_note.setWordWrap(True)  # a long one widened the panel past the screen
        self.done_note.setAccessibleName("Last change")
        # A delete or an edit can be taken back (a forget cannot: its exchanges are gone);
        # the button says which (_offer_undo)
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.hide()
        undo_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self)
        undo_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo_key.activated.connect(self.undo)
        bottom = QHBoxLayout()
        bottom.addWidget(export)
        bottom.addWidget(erase)
        bottom.addSpacing(12)
        bottom.addWidget(self.done_note, 1)  # all the room there is: it wraps only when short
        bottom.addWidget(self.undo_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(subtitle)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(bottom)
        no_default_buttons(self)
        self._fields = [self.search, self.kind, self.edit_button, self.delete_button,
                        self.forget_button, self.forget_conversations_button,
                        self.exchanges.earlier_button, self.exchanges.forget_button, export,
                        erase, self.undo_button, close]
        self._update_buttons()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.refresh)
        session.memory_changed.connect(self._on_event)
        self.search.installEventFilter(self)
        self.tree.installEventFilter(self)
        self.conversation_tree.installEventFilter(self)
        # Ctrl+Tab to a tab whose list had the keyboard: the list keeps it, and gets a row
        self.tabs.currentChanged.connect(
            lambda: self._select_on_focus(QApplication.focusWidget()))
        # (change, search text) when a key was first pressed in the search box after a change
        self._search_at_change: tuple[Any, str] = (None, "")
        # Typing filters at once (it opened on the tab bar, where the letters went nowhere)
        self.search.setFocus()
        self._erase_buttons = [erase, self.delete_button, self.forget_conversations_button,
                               self.exchanges.forget_button]
        self._icons_of = [(export, "export"), (self.edit_button, "edit")]
        kept = getattr(parent, "privacy_undo", None)
        if kept is not None and kept[0] is session:  # closed since, this memory still open
            self._offer_undo(kept[1], kept[2])
            self.done_note.setText(f"{kept[2]} You can still undo it {UNDO_LASTS}.".lstrip())
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            self._follow_scheme()

    def _follow_scheme(self) -> None:
        """Icons, replaced rows and the source in the new scheme's colours: drawn once, they
        kept the old one's (the red Erase icon, 2.6:1 on the dark button)."""
        self._dark = theme.dark
        for button in self._erase_buttons:
            button.setIcon(icon("erase", DANGER))
        for button, name in self._icons_of:
            button.setIcon(themed(name))
        self.search_icon.setIcon(themed("search"))
        self.refresh()
        self._selected()

    # --- size --------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # the text size changed, a note came
            self._keep_lines_whole()
        return handled

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._keep_lines_whole()

    def _keep_lines_whole(self) -> None:
        """Made as small as it goes at a large text size, the panel squeezed its search field
        and buttons: the style sheet's least heights are those of the normal text size, and a
        window's least height counts no wrapped line. Each field keeps the height its text
        needs, and the panel the height its wrapped lines need at its least width."""
        if not hasattr(self, "_fields"):
            return  # not built yet
        for field in self._fields:
            need = field.sizeHint().height()
            if field.minimumHeight() != need:
                field.setMinimumHeight(need)
        layout = self.layout()
        least = min(layout.totalMinimumHeightForWidth(self.minimumWidth()),
                    screen_room(self)[1])
        if least != self.minimumHeight():
            self.setMinimumHeight(least)

    # --- keys --------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.search and self._search_undo_key(event):
            return True
        if (watched is self.conversation_tree and event.type() == QEvent.Type.KeyPress
                and event.key() in OPEN_KEYS and not event.modifiers()
                and len(self.conversation_tree.selectedItems()) == 1):
            self.exchanges.take_keyboard()  # Enter or Space: into its exchanges
            return True
        if (watched in (self.tree, self.conversation_tree)
                and event.type() == QEvent.Type.FocusIn and event.reason() in KEYBOARD_FOCUS):
            self._select_on_focus(watched)
        return super().eventFilter(watched, event)

    def _search_undo_key(self, event: QEvent) -> bool:
        """Ctrl+Z in the search box takes back the latest thing done: the typing since the last
        change if any (back to the text the box had then: the box's own undo would also take
        the typing before the change, one run of letters being one step), else the change.
        True when the event was handled here."""
        undo = isinstance(event, QKeyEvent) and event.matches(QKeySequence.StandardKey.Undo)
        change, text = self._search_at_change
        typed = change is self.last_change and self.search.text() != text
        if event.type() == QEvent.Type.KeyPress:
            if change is not self.last_change:
                self._search_at_change = (self.last_change, self.search.text())  # before it
            elif undo and typed and self.last_change is not None:
                self.search.selectAll()
                self.search.insert(text)  # one step, so Redo types it again
                return True
            return False
        if event.type() != QEvent.Type.ShortcutOverride or not undo or self.last_change is None:
            return False
        if typed:
            event.accept()  # the key comes to the box as a key press (above), not the shortcut
        else:
            # The search box claims Ctrl+Z for its own text; while the panel offers Undo the
            # key is the panel's (its shortcut), as the button's tooltip says
            event.ignore()
        return True

    def _select_on_focus(self, tree: Any) -> None:
        """Tabbed into with nothing selected, a list selects its current row (else the first
        shown), so Up, Down, Delete and F2 act at once: with one row, Down did nothing (and on
        the conversations, a focused row not selected left Forget conversation greyed out)."""
        if tree not in (self.tree, self.conversation_tree) or tree.selectedItems():
            return
        row = tree.currentItem()
        if row is None or row.isHidden():
            rows = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
            row = next((row for row in rows if not row.isHidden()), None)
        if row is not None:
            tree.setCurrentItem(row, 0, SELECT_ROW)

    def done(self, result: int) -> None:
        """Esc, Close or the window's close button: closed while it has the keyboard, the
        keyboard goes back to the window behind (once it is gone: not if that window closes
        too, or a question took the keyboard)."""
        window = self.parentWidget()
        if self.isActiveWindow() and window is not None:
            came_from = self._came_from
            QTimer.singleShot(0, window, lambda: _keyboard_back(window, came_from))
        super().done(result)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Enter presses the focused button, as Space does. (The panel's buttons are not
        autoDefault, so that Enter in the search box or the list presses none of them, and a
        button that is not autoDefault lets Enter go on to here.)"""
        button = self.focusWidget()
        if (event.key() in ENTER_KEYS and isinstance(button, QPushButton)
                and button.isEnabled() and button.isVisible()
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            button.animateClick()  # Forget…: opens its menu, as Space does
            return
        super().keyPressEvent(event)

    # --- layout ------------------------------------------------------------------------
    def _items_tab(self) -> QWidget:
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search what it knows")
        self.search.setAccessibleName("Search what it knows")
        self.search_icon = self.search.addAction(themed("search"),
                                                 QLineEdit.ActionPosition.LeadingPosition)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.apply_filter)
        self.kind = QComboBox()
        self.kind.addItem("All kinds", "")
        for kind, label in KIND_LABELS.items():
            self.kind.addItem(label, kind)
        self.kind.currentIndexChanged.connect(self.apply_filter)
        self.superseded = QCheckBox("Show replaced items")
        self.superseded.toggled.connect(self.refresh)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.kind)
        # Centred, not stretched: a check box is of fixed height, and as one of a row its
        # height was the row's, which squeezed the search field at a large text size
        filters.addWidget(self.superseded, 0, Qt.AlignmentFlag.AlignVCenter)
        self.tree = make_tree(["Kind", "What it knows", "Said", "From conversation"], multi=True)
        self.tree.setAccessibleName("Facts and profile")
        self.tree.header().setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self.tree.header().resizeSection(3, 230)
        self.tree.itemSelectionChanged.connect(self._selected)
        self.tree.itemChanged.connect(self._edited)
        # Only "What it knows" is edited, whichever cell F2 or a double-click is on: Qt's own
        # triggers edit the current cell, and F2 edited the Kind (nothing saved it)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setItemDelegateForColumn(WHAT_IT_KNOWS, RowEditor(self.tree))
        self.tree.itemDoubleClicked.connect(
            lambda row, _column: self.tree.editItem(row, WHAT_IT_KNOWS))
        edit_key = QShortcut(QKeySequence(Qt.Key.Key_F2), self.tree)
        edit_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        edit_key.activated.connect(self.edit_selected)
        self.tree_box = WithPlaceholder(self.tree, "")
        self.source = QTextBrowser(objectName="detail")
        self.source.setAccessibleName("Where the selected item came from")
        self._show_no_source()
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree_box)
        splitter.addWidget(self.source)
        splitter.setSizes([380, 180])
        self.edit_button = QPushButton(themed("edit"), " Edit")
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button = QPushButton(icon("erase", DANGER), " Delete", objectName="danger")
        self.delete_button.clicked.connect(lambda: self.delete_selected())
        # The Delete key in the list does what the button does (it asks first).
        delete_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.tree)
        delete_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        delete_key.activated.connect(lambda: self.delete_selected())
        self.forget_button = ForgetButton()
        self.forget_exchange_action = self.forget_button.exchange
        self.forget_exchange_action.triggered.connect(lambda: self.forget_source_exchanges())
        self.forget_conversation_action = self.forget_button.conversation
        self.forget_conversation_action.triggered.connect(
            lambda: self.forget_source_conversation())
        self.forget_segment_action = self.forget_button.segment
        self.forget_segment_action.triggered.connect(lambda: self.forget_source_segment())
        actions = QHBoxLayout()
        actions.addWidget(self.edit_button)
        actions.addWidget(self.delete_button)
        actions.addStretch(1)
        actions.addWidget(self.forget_button)
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(14, 14, 14, 14)
        column.setSpacing(10)
        column.addLayout(filters)
        column.addWidget(splitter, 1)
        column.addLayout(actions)
        return page

    def _conversations_tab(self) -> QWidget:
        self.conversation_tree = make_tree(["Conversation", "Started", "Last message", "Exchanges"],
                                           stretch=0, multi=True)
        self.conversation_tree.setAccessibleName("Saved conversations")
        self.conversation_tree.itemSelectionChanged.connect(self._update_buttons)
        self.conversation_tree.itemSelectionChanged.connect(self._list_exchanges)
        self.conversation_box = WithPlaceholder(self.conversation_tree, "No saved conversations.")
        # One exchange can be forgotten here too, not only the exchange a fact came from
        self.exchanges = ExchangeList(self.session)
        self.exchanges.forget_requested.connect(
            lambda pages: self._forget("forget_page", pages, True, "Forget this exchange"))
        both = QSplitter(Qt.Orientation.Vertical)
        both.addWidget(self.conversation_box)
        both.addWidget(self.exchanges)
        both.setSizes([200, 300])
        self.forget_conversations_button = QPushButton(icon("erase", DANGER),
                                                       " Forget conversation", objectName="danger")
        self.forget_conversations_button.clicked.connect(lambda: self.forget_conversations())
        # The Delete key in the list does what the button does (it asks first), as F1 says.
        forget_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete),
                               self.conversation_tree)
        forget_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        forget_key.activated.connect(lambda: self.forget_conversations())
        hint = QLabel("Forgetting a conversation or an exchange removes it everywhere, and the "
                      "facts and profile entries learned only from it.", objectName="hint")
        self.conversation_tree.setToolTip("Enter or Space on a conversation lists its "
                                          "exchanges below and goes to them")
        hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(hint, 1)
        row.addWidget(self.forget_conversations_button)
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(14, 14, 14, 14)
        column.addWidget(both, 1)
        column.addLayout(row)
        return page

    def _list_exchanges(self) -> None:
        """The exchanges of the one conversation selected, read again (none for several)."""
        rows = self.conversation_tree.selectedItems()
        self.exchanges.show_conversation(rows[0].data(0, ROLE) if len(rows) == 1 else "")

    # --- loading -----------------------------------------------------------------------
    def _on_event(self, event: str) -> None:
        if event in ("facts", "pages", "segments"):
            self._timer.start()

    def refresh(self) -> None:
        """Read the list again. Reads run in a pool, so an earlier one can finish after a later
        one: only the latest asked is drawn (an older read, begun before an Undo was written,
        put the undone text back on screen)."""
        self._reads += 1
        asked = self._reads
        self.session.run(load_items, self.session.mem, self.superseded.isChecked(),
                         on_result=while_open(self, lambda data: self._draw_latest(asked, data)),
                         on_error=self._failed)

    def _draw_latest(self, asked: int, data: dict[str, Any]) -> None:
        if asked == self._reads:
            self._draw(data)

    def _failed(self, error: Exception) -> None:
        self._after_delete = None
        show_message(self, "Privacy", describe(error), warning=True)

    def _draw(self, data: dict[str, Any]) -> None:
        self.items = data["items"]
        with redrawn_keeping(self.tree, lambda row: row.data(0, ROLE).key):
            for item in self.items:
                # "Next Friday [27 November 2026] I fly to Lisbon": the day it meant, as the
                # model reads it (dated in load_items, from when it was said)
                # When it was said (imported history of 3 November is not new); when it was
                # learned, if another day, in the tooltip
                said = when(item.said or item.learned)
                row = QTreeWidgetItem([item.kind_label, item.shown, said,
                                       one_line(item.conversation_title, 48) or "—"])
                row.setData(0, ROLE, item)
                row.setToolTip(1, item.shown)
                later = _learned_later(item)
                row.setToolTip(2, f"Said {said}; {later}" if later else f"Said {said}")
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsEditable)
                if item.status == "superseded":
                    row.setText(0, f"{item.kind_label} (replaced)")
                    for column in range(4):  # muted: Qt's grey was 2.6:1 on white
                        row.setForeground(column, QColor(theme.color(theme.MUTED)))
                elif item.status == "candidate":
                    row.setToolTip(0, CANDIDATE_TIP)
                self.tree.addTopLevelItem(row)
        self._draw_conversations(data["conversations"])
        self.apply_filter()
        self._selected()
        self._select_after_delete()
        self._select_after_undo()
        self._select_wanted()
        self.refreshed.emit()

    def _draw_conversations(self, conversations: list) -> None:
        """The conversations, with the selection and the keyboard's current row kept."""
        tree = self.conversation_tree
        with redrawn_keeping(tree, lambda row: row.data(0, ROLE)):
            for conversation in sorted(conversations, key=lambda c: c.last_ts or 0,
                                       reverse=True):
                row = QTreeWidgetItem([one_line(conversation.title, 80) or conversation.id,
                                       when(conversation.first_ts), when(conversation.last_ts),
                                       str(conversation.pages)])
                row.setData(0, ROLE, conversation.id)
                tree.addTopLevelItem(row)
        self._update_buttons()
        self.conversation_box.set_empty(not conversations)
        self._list_exchanges()  # an exchange forgotten or added: its list too

    def apply_filter(self) -> None:
        needle = self.search.text().strip().lower()
        kind = self.kind.currentData()
        visible = 0
        hidden_selected = []
        for index in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(index)
            item: PersonaItem = row.data(0, ROLE)
            # Its own words, with the day they meant as shown: not its conversation's title,
            # which every item learned in that conversation shares (a search found them all)
            show = (not kind or item.kind == kind) and (not needle or needle in item.shown.lower())
            row.setHidden(not show)
            visible += show
            if not show and row.isSelected():
                hidden_selected.append(row)
        # A selection the filter hides is let go: the detail showed it and Edit and Delete
        # looked ready for it, while they acted on the (empty) visible selection
        self.tree.blockSignals(True)
        for row in hidden_selected:
            row.setSelected(False)
        self.tree.blockSignals(False)
        if hidden_selected:
            self._selected()
        if not self.items:
            text = ("MemoryOS has not learned anything about you yet. Facts appear here after "
                    "you talk about yourself and memory consolidation runs.")
        else:
            text = "Nothing matches this search."
        self.tree_box.set_empty(visible == 0, text)

    def show_item(self, kind: str, item_id: int, conversation_id: str = "") -> None:
        """Select one item (kinds as engine.remembered names them) once the list is drawn;
        an exchange selects its conversation on the Conversations tab."""
        self._wanted = (kind, int(item_id), conversation_id)
        self._select_wanted()

    def _select_wanted(self) -> None:
        wanted = getattr(self, "_wanted", None)
        if wanted is None:
            return
        kind, item_id, conversation_id = wanted
        if kind == "exchange":
            for index in range(self.conversation_tree.topLevelItemCount()):
                row = self.conversation_tree.topLevelItem(index)
                if row.data(0, ROLE) == conversation_id:
                    self._wanted = None
                    self.tabs.setCurrentIndex(1)
                    self.conversation_tree.setCurrentItem(row, 0, SELECT_ROW)
                    self.conversation_tree.scrollToItem(row)
            return
        key = ({"fact": "user_fact", "knowledge": "assistant_knowledge"}.get(kind, kind), item_id)
        for index in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(index)
            if row.data(0, ROLE).key == key:
                self._wanted = None
                self.tabs.setCurrentIndex(0)
                self.search.clear()
                self.kind.setCurrentIndex(0)
                self.tree.setCurrentItem(row, 0, SELECT_ROW)  # the arrows go on from it
                self.tree.scrollToItem(row)

    def _select_after_delete(self) -> None:
        """Once the deleted items are gone from the list, select the one that followed them."""
        if self._after_delete is None:
            return
        gone, following = self._after_delete
        if gone & {item.key for item in self.items}:
            return  # a list read before the delete finished
        self._after_delete = None
        if self.selected_items():
            return
        for index in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(index)
            if row.data(0, ROLE).key == following and not row.isHidden():
                self.tree.setCurrentItem(row, 0, SELECT_ROW)  # not toggled by a held Ctrl
                self.tree.scrollToItem(row)

    def _select_after_undo(self) -> None:
        """Once the items an Undo put back are listed again, select them (those shown)."""
        if self._after_undo is None:
            return
        keys = self._after_undo
        rows = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        back = [row for row in rows if row.data(0, ROLE).key in keys]
        if not back:
            return  # a list read before the undo finished
        self._after_undo = None
        shown = [row for row in back if not row.isHidden()]
        if not shown:
            return
        self.tree.setCurrentItem(shown[0], 0, SELECT_ROW)  # the arrows go on from it
        for row in shown[1:]:
            row.setSelected(True)
        self.tree.scrollToItem(shown[0])

    def visible_items(self) -> list[PersonaItem]:
        rows = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [row.data(0, ROLE) for row in rows if not row.isHidden()]

    def selected_items(self) -> list[PersonaItem]:
        return [row.data(0, ROLE) for row in self.tree.selectedItems() if not row.isHidden()]

    # --- the source of an item ---------------------------------------------------------
    def _selected(self) -> None:
        self._update_buttons()
        chosen = self.selected_items()
        if len(chosen) != 1:  # not the last item shown (it may be deleted): none, or how many
            self._show_no_source(len(chosen))
            return
        item = chosen[0]
        self.session.run(source_pages, self.session.mem, item.sources,
                         on_result=self._draw_source, on_error=self._failed)

    def _show_no_source(self, selected: int = 0) -> None:
        text = (f"{selected} items selected." if selected
                else "Select an item to see the exchange it was learned from.")
        self.source.setHtml(f"<p style='color:{theme.color(theme.MUTED)}'>{text}</p>")

    def _draw_source(self, pages: list) -> None:
        chosen = self.selected_items()
        if len(chosen) != 1:
            return
        item = chosen[0]
        muted = theme.color(theme.MUTED)  # as the scheme shows it (#6B7280 was 3.6:1 on dark)
        html = [f"<p><b>{escape(item.shown)}</b><br><span style='color:{muted}'>"
                f"{escape(item.kind_label)} · {escape(origin_text(item.origin))} · learned "
                f"{escape(when(item.learned))}</span></p>"]
        if not pages and item.origin == REFERENCE_ORIGIN:
            html.append(f"<p style='color:{muted}'>Imported from the reference MemoryOS: it "
                        "came with no exchange to show.</p>")
        elif not pages:
            html.append(f"<p style='color:{muted}'>No source exchange: it was added by hand, or "
                        "its conversation was forgotten.</p>")
        for page in pages:
            user, agent = speakers(page)
            html.append(
                f"<p style='margin-top:8px'><span style='color:{muted}'>"
                f"{escape(when(page.timestamp))}"
                f" · {escape(item.conversation_title or page.conversation_id)}</span><br>"
                f"<b>{escape(user)}:</b> {escape(page.user_input)}<br>"
                f"<b>{escape(agent)}:</b> {escape(one_line(page.agent_response, 600))}</p>"
            )
        self.source.setHtml("".join(html))

    def _update_buttons(self) -> None:
        chosen = self.selected_items()
        one = len(chosen) == 1
        self.edit_button.setEnabled(one)
        self.delete_button.setEnabled(bool(chosen))
        self.delete_button.setText(f" Delete ({len(chosen)})" if len(chosen) > 1 else " Delete")
        self.forget_button.show_for(chosen)
        self.forget_conversations_button.setEnabled(bool(self.conversation_tree.selectedItems()))

    # --- changes -----------------------------------------------------------------------
    def _write(self, fn: Any, *args: Any, said: Any = None) -> None:
        """Run a change in a worker; `said(result)`: the confirmation shown once it is done.
        The Undo of an earlier delete or edit goes: only the last change is offered back."""
        self.done_note.clear()
        self._forget_undo()
        # Closed before it is done (Close right after Delete): the change is made all the same,
        # and the notices and Used lines follow the engine's "facts" event, not this panel.
        self.session.run(fn, *args,
                         on_result=while_open(self, lambda result: self._written(result, said)),
                         on_error=self._failed)

    def _written(self, result: object, said: Any = None) -> None:
        note = said(result) if said is not None else ""
        if said is not None:
            self.done_note.setText(note)
        if isinstance(result, (Deleted, Edited)):
            self._offer_undo(result, note)
        self.refresh()
        self.changed.emit()

    def _offer_undo(self, change: Deleted | Edited, note: str = "") -> None:
        """Show Undo, saying what it puts back; the window keeps it for the next time the panel
        opens, while this memory is open (`note`: what the panel said of the change)."""
        self.last_change, self._undo_note = change, note
        if isinstance(change, Edited):
            self.undo_button.setText("Undo edit")
            self.undo_button.setToolTip(
                f"Put back the text as it was before your edit: "
                f"“{one_line(change.item.shown, 80)}” (Ctrl+Z, {UNDO_LASTS})")
        else:
            self.undo_button.setText("Undo delete")
            self.undo_button.setToolTip(
                f"Put back the {_items_words(list(change.items))} just deleted "
                f"(Ctrl+Z, {UNDO_LASTS})")
        self.undo_button.show()
        window = self.parentWidget()
        if window is not None and hasattr(window, "privacy_undo"):
            window.privacy_undo = (self.session, change, note)

    def _forget_undo(self) -> None:
        self.last_change = None
        self.undo_button.hide()
        window = self.parentWidget()
        if getattr(window, "privacy_undo", None) is not None:
            window.privacy_undo = None

    def undo(self) -> None:
        """Take back the last delete or edit (the Undo button, Ctrl+Z in the panel)."""
        change = self.last_change
        if change is None:
            return
        self._forget_undo()
        self._after_delete = None  # they come back: the row after them is not wanted now
        self.done_note.clear()
        undo = undo_edit if isinstance(change, Edited) else undo_delete
        self.session.run(undo, self.session.mem, change,
                         on_result=while_open(self, lambda keys: self._undone(change, keys)),
                         on_error=while_open(self, lambda error: self._undo_failed(change, error)))

    def _undone(self, change: Deleted | Edited, keys: set) -> None:
        if isinstance(change, Edited):
            self.done_note.setText("Put back the text as it was before your edit.")
        else:
            self.done_note.setText(f"Restored {_items_words(list(change.items))}.")
        self._after_undo = keys
        self.refresh()
        self.changed.emit()

    def _undo_failed(self, change: Deleted | Edited, error: Exception) -> None:
        if isinstance(change, Edited) and isinstance(error, NotFoundError):
            show_message(self, "Privacy", "The text could not be put back: the item was deleted "
                         "or forgotten after your edit.", warning=True)
            return
        if isinstance(error, NotFoundError):  # undo_delete: its exchanges were forgotten since
            show_message(self, "Privacy", f"The {_items_words(list(change.items))} could not be "
                         "put back: an exchange they were learned from was forgotten since, and "
                         "what was learned from it stays forgotten.", warning=True)
            return
        self._offer_undo(change, self._undo_note)  # nothing was put back: it may be tried again
        self._failed(error)

    def edit_selected(self) -> None:
        rows = [row for row in self.tree.selectedItems() if not row.isHidden()]
        if len(rows) == 1:
            self.tree.editItem(rows[0], WHAT_IT_KNOWS)

    def _edited(self, row: QTreeWidgetItem, column: int) -> None:
        item: PersonaItem = row.data(0, ROLE)
        text = row.text(WHAT_IT_KNOWS).strip()
        if column != WHAT_IT_KNOWS or text in (item.text, item.shown):
            return
        if item.dated:  # the days shown are worked out from when it was said, not stored
            text = when_said.without_resolved(text).strip()
        if not text:
            row.setText(WHAT_IT_KNOWS, item.shown)
            return
        self._write(edit_item, self.session.mem, item, text,
                    said=lambda _edited: f"Changed {_items_words([item])}.")

    def delete_selected(self, confirm: bool = True) -> None:
        chosen = self.selected_items()
        if not chosen:
            return
        also = delete_and_forget_action(chosen)
        actions = ["Delete", also] if also else ["Delete"]
        answer = _ask(self, "Delete", delete_question(chosen), *actions) if confirm else "Delete"
        if answer == "Delete":
            self._follow_delete(chosen)
            self._write(delete_items, self.session.mem, chosen,
                        said=lambda _count: f"Deleted {_items_words(chosen)}.")
        elif answer and answer == also:
            one = "this item" if len(chosen) == 1 else f"these {len(chosen)} items"
            self._forget("forget_page", source_exchanges(chosen), True,
                         f"Delete {one} and forget {exchanges_words(chosen)}", delete=chosen)

    def _follow_delete(self, chosen: list[PersonaItem]) -> None:
        """The row after them (else before) is selected once they are gone: its source shows."""
        rows = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        keys = {item.key for item in chosen}
        visible = [row.data(0, ROLE).key for row in rows if not row.isHidden()]
        shown = [i for i, key in enumerate(visible) if key in keys]
        if not shown:
            return
        last = max(shown)
        rest = [key for key in visible[last + 1:] + visible[last::-1] if key not in keys]
        self._after_delete = (keys, rest[0] if rest else None)

    def forget_source_exchanges(self, confirm: bool = True) -> None:
        """Forget only the exchanges the selected items came from (not their conversations),
        after the preview of what else goes with them."""
        chosen = self.selected_items()
        pages = source_exchanges(chosen)
        if pages:
            self._forget("forget_page", pages, confirm, f"Forget {exchanges_words(chosen)}")

    def forget_source_conversation(self, confirm: bool = True) -> None:
        chosen = self.selected_items()
        if len(chosen) == 1 and chosen[0].conversation_id:
            self._forget("forget_conversation", [chosen[0].conversation_id], confirm,
                         f"Forget the conversation “{chosen[0].conversation_title}”")

    def forget_source_segment(self, confirm: bool = True) -> None:
        chosen = self.selected_items()
        if len(chosen) == 1 and chosen[0].segment_id is not None:
            self._forget("forget_segment", [chosen[0].segment_id], confirm,
                         "Forget the whole topic this item came from")

    def forget_conversations(self, confirm: bool = True) -> None:
        ids = [row.data(0, ROLE) for row in self.conversation_tree.selectedItems()]
        if ids:
            what = "this conversation" if len(ids) == 1 else f"these {len(ids)} conversations"
            self._forget("forget_conversation", ids, confirm, f"Forget {what}")

    def _forget(self, method: str, ids: list, confirm: bool, question: str,
                delete: list[PersonaItem] | None = None) -> None:
        # The preview (what else goes: facts, topics, threads, backups) is read in a worker,
        # then shown in the confirm dialog; the forget runs on exactly the pages previewed.
        # With `delete`, those items are deleted first (the delete question's other action).
        from app import forget_preview

        def previewed(result: tuple) -> None:
            pages, preview = result
            self.last_forget_preview = preview
            if confirm and not forget_preview.confirm(self, question, preview):
                return
            if delete:
                self._follow_delete(delete)
                self._write(delete_and_forget, self.session.mem, delete, pages,
                            said=lambda done: f"Deleted {_items_words(delete)} and forgot "
                            f"{_forgot_words(done)}.")
            else:
                self._write(forget_preview.forget, self.session.mem, pages,
                            said=lambda done: f"Forgot {_forgot_words(done)}.")

        self.session.run(forget_preview.preview, self.session.mem, method, ids,
                         on_result=while_open(self, previewed), on_error=self._failed)

    def export(self) -> None:
        from app.export import export_memory

        export_memory(self, self.session)
