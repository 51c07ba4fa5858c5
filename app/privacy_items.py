"""The privacy panel's "Facts and profile" tab: list, filter, source, edit, delete, undo."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.errors import show_message
from app.icons import icon, themed
from app.persona_items import (
    KIND_LABELS,
    Deleted,
    Edited,
    PersonaItem,
    delete_items,
    edit_item,
    origin_text,
    source_pages,
    undo_delete,
    undo_edit,
)
from app.privacy_forget import (
    UNDO_LASTS,
    ForgetButton,
    delete_and_forget_action,
    delete_question,
    exchanges_words,
    source_exchanges,
)
from app.privacy_helpers import (
    DANGER,
    ROLE,
    SELECT_ROW,
    WHAT_IT_KNOWS,
    RowEditor,
    ask,
    items_words,
)
from app.widgets import WithPlaceholder, make_tree, one_line, speakers, when
from app.workers import while_open
from engine.errors import NotFoundError
from engine.memory import when as when_said
from engine.reference_import import ORIGIN as REFERENCE_ORIGIN

# The deletes and edits Undo can take back, newest first; older ones drop off
UNDO_DEPTH = 20


class ItemsTabMixin:
    """The facts and profile entries: listed, filtered, shown with their source, changed. A mixin
    of PrivacyPanel (kept apart so the panel's own module stays small)."""

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
        self.tree.itemSelectionChanged.connect(self._selection_moved)
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
        self.items_splitter = splitter  # its list keeps to whole rows (PrivacyPanel: WholeRows)
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

    def _selection_moved(self) -> None:
        """Another row chosen: the note of the last change goes (not for the rows selected
        again as the list is drawn: after a delete, the one that followed; after an Undo,
        those it put back)."""
        if not self._drawing:
            self.done_note.clear()

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

    # --- changes -----------------------------------------------------------------------
    @property
    def last_change(self) -> Deleted | Edited | None:
        """The delete or edit Undo takes back next: the newest of those kept, or None."""
        return self.undo_stack[-1][0] if self.undo_stack else None

    def _run_change(self, fn: Any, *args: Any, done: Any, failed: Any) -> None:
        """Run a change (a delete, an edit, a forget, an undo) in a worker. Undo waits while one
        runs: two undos at once could put back an edit before the delete after it, which then
        found no item to put the text in."""
        self._changing += 1
        self._offer_undo()

        def then(handle: Any) -> Any:
            def call(value: Any) -> None:
                self._changing -= 1
                self._offer_undo()
                handle(value)
            return while_open(self, call)

        # Closed before it is done (Close right after Delete): the change is made all the same,
        # and the notices and Used lines follow the engine's "facts" event, not this panel.
        self.session.run(fn, *args, on_result=then(done), on_error=then(failed))

    def _keep_undo(self, change: Deleted | Edited, note: str = "") -> None:
        """Keep a change for Undo, the newest on top (`note`: what the panel said of it); the
        oldest drops off past UNDO_DEPTH."""
        self.undo_stack.append((change, note))
        del self.undo_stack[:-UNDO_DEPTH]
        self._offer_undo()

    def _offer_undo(self) -> None:
        """Show Undo for the newest change kept, saying what it puts back (none while a change
        runs). The window keeps the changes for the next time the panel opens, while this
        memory is open."""
        window = self.parentWidget()
        if window is not None and hasattr(window, "privacy_undo"):
            window.privacy_undo = (self.session, list(self.undo_stack)) if self.undo_stack else None
        change = self.last_change
        if change is None or self._changing:
            self.undo_button.hide()
            return
        if isinstance(change, Edited):
            self.undo_button.setText("Undo edit")
            self.undo_button.setToolTip(
                f"Put back the text as it was before your edit: "
                f"“{one_line(change.item.shown, 80)}” (Ctrl+Z, {UNDO_LASTS})")
        else:
            items = list(change.items)
            more = f" and {len(items) - 1} more" if len(items) > 1 else ""
            self.undo_button.setText("Undo delete")
            self.undo_button.setToolTip(
                f"Put back the {items_words(items)} deleted: "
                f"“{one_line(items[0].shown, 80)}”{more} (Ctrl+Z, {UNDO_LASTS})")
        self.undo_button.show()

    def _forget_undo(self) -> None:
        self.undo_stack.clear()
        self._offer_undo()

    def undo(self) -> None:
        """Take back the newest delete or edit kept (the Undo button, Ctrl+Z in the panel); the
        one before it is offered next."""
        if not self.undo_stack or self._changing:
            return
        change, note = self.undo_stack.pop()
        self._after_delete = None  # they come back: the row after them is not wanted now
        self.done_note.clear()
        undo = undo_edit if isinstance(change, Edited) else undo_delete
        self._run_change(undo, self.session.mem, change,
                         done=lambda keys: self._undone(change, keys),
                         failed=lambda error: self._undo_failed(change, note, error))

    def _undone(self, change: Deleted | Edited, keys: set) -> None:
        if isinstance(change, Edited):
            self.done_note.setText("Put back the text as it was before your edit.")
        else:
            self.done_note.setText(f"Restored {items_words(list(change.items))}.")
        self._after_undo = keys
        self.refresh()
        self.changed.emit()

    def _undo_failed(self, change: Deleted | Edited, note: str, error: Exception) -> None:
        # Put back or not, it is dropped; the older changes stay offered
        if isinstance(change, Edited) and isinstance(error, NotFoundError):
            show_message(self, "Privacy", "The text could not be put back: the item was deleted "
                         "or forgotten after your edit.", warning=True)
            return
        if isinstance(error, NotFoundError):  # undo_delete: its exchanges were forgotten since
            show_message(self, "Privacy", f"The {items_words(list(change.items))} could not be "
                         "put back: an exchange they were learned from was forgotten since, and "
                         "what was learned from it stays forgotten.", warning=True)
            return
        self._keep_undo(change, note)  # nothing was put back: it may be tried again
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
                    said=lambda _edited: f"Changed {items_words([item])}.")

    def delete_selected(self, confirm: bool = True) -> None:
        chosen = self.selected_items()
        if not chosen:
            return
        also = delete_and_forget_action(chosen)
        actions = ["Delete", also] if also else ["Delete"]
        answer = ask(self, "Delete", delete_question(chosen), *actions) if confirm else "Delete"
        if answer == "Delete":
            self._follow_delete(chosen)
            self._write(delete_items, self.session.mem, chosen,
                        said=lambda _count: f"Deleted {items_words(chosen)}.")
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
