"""The privacy panel's "Conversations" tab: the saved conversations, their exchanges, forget."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.icons import icon
from app.privacy_exchanges import ExchangeList
from app.privacy_helpers import DANGER, ROLE
from app.widgets import WithPlaceholder, make_tree, one_line, redrawn_keeping, when


class ConversationsTabMixin:
    """The saved conversations: listed, their exchanges shown, forgotten. A mixin of PrivacyPanel
    (kept apart so the panel's own module stays small)."""

    # --- layout ------------------------------------------------------------------------
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

    # --- changes -----------------------------------------------------------------------
    def forget_conversations(self, confirm: bool = True) -> None:
        ids = [row.data(0, ROLE) for row in self.conversation_tree.selectedItems()]
        if ids:
            what = "this conversation" if len(ids) == 1 else f"these {len(ids)} conversations"
            self._forget("forget_conversation", ids, confirm, f"Forget {what}")
