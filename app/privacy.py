"""The privacy panel: every persona item with its source; search, edit, delete, forget, export, erase."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.errors import describe, show_message
from app.icons import icon, themed
from app.persona_items import (
    CANDIDATE_TIP,
    Deleted,
    Edited,
    PersonaItem,
    delete_and_forget,
    load_items,
)
from app.privacy_conversations import ConversationsTabMixin
from app.privacy_exchanges import OPEN_KEYS
from app.privacy_forget import (
    UNDO_LASTS,
    delete_question,  # noqa: F401  (tests import it from here)
)
from app.privacy_helpers import (
    DANGER,
    ROLE,
    SELECT_ROW,
    WHAT_IT_KNOWS,  # noqa: F401  (tests import it from here)
    forgot_words,
    items_words,
    keyboard_back,
    learned_later,
)
from app.privacy_items import ItemsTabMixin
from app.privacy_size import PanelSizeMixin
from app.widgets import (
    KEYBOARD_FOCUS,
    WholeRows,
    fit_window,
    no_default_buttons,
    one_line,
    redrawn_keeping,
    screen_room,
    scrolled_column,
    when,
)
from app.workers import while_open

ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class PrivacyPanel(ItemsTabMixin, ConversationsTabMixin, PanelSizeMixin, QDialog):
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
        self._drawing = False  # the list drawn again (_draw): its rows are selected again
        # After a delete: (the keys deleted, the key of the row to select once they are gone)
        self._after_delete: tuple[set, Any] | None = None
        # The deletes and edits Undo can take back, oldest first, each with what the panel said
        # of it ("Deleted 1 fact."); then the keys to select once one is undone
        self.undo_stack: list[tuple[Deleted | Edited, str]] = []
        self._changing = 0  # changes running in workers: Undo waits for them (_run_change)
        self._after_undo: set | None = None
        self.last_forget_preview: Any = None  # what the last forget dialog showed
        # Where the keyboard was in the window behind (the message box): it goes back there
        self._came_from = parent.focusWidget() if parent is not None else None
        self.setWindowTitle("Privacy")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        fit_window(self, 1000, 680)
        title = QLabel("What MemoryOS knows about you", objectName="title")
        self._title = title
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
        # Nor does it change the panel's least width as it comes and goes (its longest word did:
        # see the Undo button)
        self.done_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # A delete or an edit can be taken back (a forget cannot: its exchanges are gone);
        # the button says which (_offer_undo)
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.hide()
        # The note and Undo share one place, at least as wide as Undo with its longest text
        # (_keep_lines_whole): the panel's least width came and went with Undo on every edit
        # and undo, and each time at 1.5x the window was put back 1 px narrower (1306 -> 1300
        # px in six). While Undo is hidden the note has its room: kept empty beside it, the
        # note wrapped on two lines at 1.5x (257 px for 263 px of text)
        self.note_place = QWidget()
        place = QHBoxLayout(self.note_place)
        place.setContentsMargins(0, 0, 0, 0)
        place.addWidget(self.done_note, 1)
        place.addWidget(self.undo_button)
        undo_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self)
        undo_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo_key.activated.connect(self.undo)
        self._buttons_row = QHBoxLayout()
        self._buttons_row.addWidget(export)
        self._buttons_row.addWidget(erase)
        self._buttons_row.addSpacing(12)
        # All the room there is: it wraps only when short. On a screen too narrow for the note
        # and Undo beside the buttons they go on a line of their own above them (_place_note)
        self._buttons_row.addWidget(self.note_place, 1)
        self._buttons_row.addWidget(close)
        self._note_row = QHBoxLayout()
        bottom = QVBoxLayout()
        bottom.setSpacing(6)
        bottom.addLayout(self._note_row)
        bottom.addLayout(self._buttons_row)
        # The subtitle and the tabs scroll where the screen is too short for them (a 1366x768
        # laptop at 1.5x has 452 px for the panel, which needed 495 and cut its buttons off):
        # the title and the buttons below stay in view (_keep_lines_whole)
        self.middle = scrolled_column("privacyMiddle", [subtitle, self.tabs], stretch=self.tabs,
                                      spacing=10)
        WholeRows(self.items_splitter, self.tree, self.middle)
        # So do the conversations and the exchanges of one (at 1.5x the exchanges showed 7
        # rows and 7 px of an eighth)
        WholeRows(self.conversations_splitter, self.conversation_tree, self.middle)
        WholeRows(self.exchanges.splitter, self.exchanges.tree, self.middle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(self.middle, 1)
        layout.addLayout(bottom)
        self._place_note(screen_room(self)[0])  # before the window first takes its size
        no_default_buttons(self)
        self._fields = [self.search, self.conversation_search, self.kind, self.edit_button, self.delete_button,
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
        self.conversation_search.installEventFilter(self)
        self.tree.installEventFilter(self)
        self.conversation_tree.installEventFilter(self)
        # Ctrl+Tab to a tab whose list had the keyboard: the list keeps it, and gets a row
        self.tabs.currentChanged.connect(
            lambda: self._select_on_focus(QApplication.focusWidget()))
        # The last change's note is of the list it was made in, and of the rows selected then:
        # another tab or another row, and it goes (Undo stays, and says what it undoes)
        self.tabs.currentChanged.connect(self.done_note.clear)
        self.conversation_tree.itemSelectionChanged.connect(self._selection_moved)
        # (change, search text) when a key was first pressed in the search box after a change
        self._search_at_change: tuple[Any, str] = (None, "")
        # Typing filters at once (it opened on the tab bar, where the letters went nowhere)
        self.search.setFocus()
        self._erase_buttons = [erase, self.delete_button, self.forget_conversations_button,
                               self.exchanges.forget_button]
        self._icons_of = [(export, "export"), (self.edit_button, "edit")]
        kept = getattr(parent, "privacy_undo", None)
        if kept is not None and kept[0] is session:  # closed since, this memory still open
            self.undo_stack = list(kept[1])
            self._offer_undo()
            note = self.undo_stack[-1][1]
            self.done_note.setText(f"{note} You can still undo it {UNDO_LASTS}.".lstrip())
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
        self.conversation_search_icon.setIcon(themed("search"))
        self.refresh()
        self._selected()

    # --- keys --------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.search and self._search_undo_key(event):
            return True
        if (watched is self.conversation_search and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Escape and not event.modifiers()
                and watched.text()):
            watched.clear()  # Esc clears the search first; pressed again it closes the panel
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
            QTimer.singleShot(0, window, lambda: keyboard_back(window, came_from))
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
        self._drawing = True
        try:
            self._draw_rows(data)
        finally:
            self._drawing = False

    def _draw_rows(self, data: dict[str, Any]) -> None:
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
                later = learned_later(item)
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
        A delete or an edit is kept for Undo, on top of the earlier ones."""
        self.done_note.clear()
        self._run_change(fn, *args, done=lambda result: self._written(result, said),
                         failed=self._failed)

    def _written(self, result: object, said: Any = None) -> None:
        note = said(result) if said is not None else ""
        if said is not None:
            self.done_note.setText(note)
        if isinstance(result, (Deleted, Edited)):
            self._keep_undo(result, note)
        self.refresh()
        self.changed.emit()

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
            # A forget cannot be undone, and the deletes and edits before it are not offered
            # past it: Ctrl+Z just after it put back an older change, not what it took
            self._forget_undo()
            if delete:
                self._follow_delete(delete)
                self._write(delete_and_forget, self.session.mem, delete, pages,
                            said=lambda done: f"Deleted {items_words(delete)} and forgot "
                            f"{forgot_words(done)}.")
            else:
                self._write(forget_preview.forget, self.session.mem, pages,
                            said=lambda done: f"Forgot {forgot_words(done)}.")

        self.session.run(forget_preview.preview, self.session.mem, method, ids,
                         on_result=while_open(self, previewed), on_error=self._failed)

    def export(self) -> None:
        from app.export import export_memory

        export_memory(self, self.session)
