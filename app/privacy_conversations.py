"""The privacy panel's "Conversations" tab: the saved conversations, their exchanges, forget."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.icons import icon, themed
from app.privacy_exchanges import ExchangeList
from app.privacy_helpers import DANGER, ROLE, SELECT_ROW
from app.widgets import WithPlaceholder, make_tree, one_line, redrawn_keeping, when
from app.workers import while_open
from engine import conversations as past
from engine.terminal.wording import count

TITLE = ROLE + 1  # a conversation's whole title (the row shows 80 characters of it)
PAGE_HEIGHT = 420  # the page's preferred height at the normal text size (ConversationsPage)


class ConversationsPage(QWidget):
    """The tab's page, asking for the height of the Facts tab's design, or its least height if
    more. The panel's column is as tall as its pages prefer (its subtitle wraps, and a scroll
    area sizes such a column by its preferred height for its width): the two lists' preferred
    heights made this page 704 px, the column 758 px in a view of 601 on a 1366x768 screen, and
    Forget exchange… was below the view's edge, with the whole panel in view. Where the screen
    is shorter, the page still scrolls, its lists keeping room for whole rows."""

    def _preferred(self, least: int) -> int:
        from app import theme

        return max(least, theme.pixels(PAGE_HEIGHT))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(super().sizeHint().width(), self._preferred(self.minimumSizeHint().height()))

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._preferred(self.layout().totalMinimumHeightForWidth(width))


class ConversationsTabMixin:
    """The saved conversations: listed, their exchanges shown, forgotten. A mixin of PrivacyPanel
    (kept apart so the panel's own module stays small)."""

    # --- layout ------------------------------------------------------------------------
    def _conversations_tab(self) -> QWidget:
        # 361 conversations are too many to find one by scrolling: the titles and dates shown
        # are filtered as one types, the words said a moment later (read in a worker)
        self.conversation_search = QLineEdit()
        self.conversation_search.setPlaceholderText(
            "Search conversations by title, date or words said")
        self.conversation_search.setAccessibleName("Search conversations")
        self.conversation_search.setToolTip("Esc clears the search")
        self.conversation_search_icon = self.conversation_search.addAction(
            themed("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.conversation_search.setClearButtonEnabled(True)
        self.conversation_search.textChanged.connect(self._search_conversations)
        self.conversation_count = QLabel(objectName="hint")
        self.conversation_count.setAccessibleName("Conversations shown")
        self._word_matches: tuple[str, set] = ("", set())  # (the words, their conversations)
        self._word_reads = 0  # only the latest word search is used
        self._word_timer = QTimer(self)
        self._word_timer.setSingleShot(True)
        self._word_timer.setInterval(250)
        self._word_timer.timeout.connect(self._find_words)
        # After a forget: (the conversations forgotten, the one to select once they are gone)
        self._after_forget: tuple[set, str] | None = None
        filters = QHBoxLayout()
        filters.addWidget(self.conversation_search, 1)
        filters.addWidget(self.conversation_count)
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
        self.conversations_splitter = both  # its list keeps to whole rows (PrivacyPanel)
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
        page = ConversationsPage()
        column = QVBoxLayout(page)
        column.setContentsMargins(14, 14, 14, 14)
        column.addLayout(filters)
        column.addWidget(both, 1)
        column.addLayout(row)
        # The list first, as before the search box came: Ctrl+Tab or Tab into the page gives
        # the keyboard to the list, with a row selected, where Delete forgets (F1); its search
        # box comes next
        QWidget.setTabOrder(self.conversation_tree, self.conversation_search)
        return page

    def _list_exchanges(self) -> None:
        """The exchanges of the one conversation selected, read again (none for several)."""
        rows = self.conversation_tree.selectedItems()
        self.exchanges.show_conversation(rows[0].data(0, ROLE) if len(rows) == 1 else "")

    # --- loading -----------------------------------------------------------------------
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
                row.setData(0, TITLE, conversation.title or "")
                tree.addTopLevelItem(row)
        self._filter_conversations()
        if self.conversation_search.text().strip():
            self._word_timer.start()  # exchanges added or forgotten: their words too
        self._select_after_forget()
        self._update_buttons()
        self._list_exchanges()  # an exchange forgotten or added: its list too

    # --- search ------------------------------------------------------------------------
    def _search_conversations(self) -> None:
        self._filter_conversations()
        self._word_timer.start()

    def _find_words(self) -> None:
        text = self.conversation_search.text().strip()
        self._word_reads += 1
        if not text:
            return
        asked = self._word_reads
        self.session.run(past.conversations_saying, self.session.mem, text,
                         on_result=while_open(self, lambda found: self._words_found(
                             asked, text, found)),
                         on_error=while_open(self, self._words_failed))

    def _words_found(self, asked: int, text: str, found: set[str]) -> None:
        if asked == self._word_reads:
            self._word_matches = (text, found)
            self._filter_conversations()

    def _words_failed(self, error: Exception) -> None:
        from app.errors import describe

        self.conversation_count.setText(f"The words said could not be searched: "
                                        f"{describe(error)}")

    def _filter_conversations(self) -> None:
        """Show the conversations whose title or dates hold the search's text, or whose
        exchanges hold all its words (as the sidebar's search finds them)."""
        tree = self.conversation_tree
        text = self.conversation_search.text().strip()
        needle = text.lower()
        words, found = self._word_matches
        by_words = found if words == text else set()
        rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        shown, hidden_selected = 0, []
        for row in rows:
            seen = [row.data(0, TITLE) or "", row.text(1), row.text(2)]
            show = (not needle or any(needle in part.lower() for part in seen)
                    or row.data(0, ROLE) in by_words)
            row.setHidden(not show)
            shown += show
            if not show and row.isSelected():
                hidden_selected.append(row)
        # A selection the search hides is let go: Forget conversation acted on rows not shown
        for row in hidden_selected:
            row.setSelected(False)
        if not rows:
            self.conversation_box.set_empty(True, "No saved conversations.")
        else:
            self.conversation_box.set_empty(shown == 0, "No conversation matches this search.")
        total = count(len(rows), "conversation", grouped=True)
        self.conversation_count.setText(f"{shown:,} of {total}" if needle and rows else total)

    # --- changes -----------------------------------------------------------------------
    def forget_conversations(self, confirm: bool = True) -> None:
        ids = [row.data(0, ROLE) for row in self.conversation_tree.selectedItems()]
        if ids:
            self._follow_forget(set(ids))
            what = "this conversation" if len(ids) == 1 else f"these {len(ids)} conversations"
            self._forget("forget_conversation", ids, confirm, f"Forget {what}")

    def _follow_forget(self, ids: set) -> None:
        """The conversation after them (else before) is selected once they are gone, and its
        exchanges listed: both panes said "Select one conversation" after a forget."""
        tree = self.conversation_tree
        rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        visible = [row.data(0, ROLE) for row in rows if not row.isHidden()]
        shown = [i for i, key in enumerate(visible) if key in ids]
        if not shown:
            return
        last = max(shown)
        rest = [key for key in visible[last + 1:] + visible[last::-1] if key not in ids]
        self._after_forget = (ids, rest[0]) if rest else None

    def _select_after_forget(self) -> None:
        if self._after_forget is None:
            return
        tree = self.conversation_tree
        gone, following = self._after_forget
        rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        if gone & {row.data(0, ROLE) for row in rows}:
            return  # a list read before the forget finished, or the forget was not confirmed
        self._after_forget = None
        if tree.selectedItems():
            return
        for row in rows:
            if row.data(0, ROLE) == following and not row.isHidden():
                tree.setCurrentItem(row, 0, SELECT_ROW)  # the arrows go on from it
                tree.scrollToItem(row)
