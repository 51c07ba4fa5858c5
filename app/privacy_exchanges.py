"""The Privacy panel's exchanges of one conversation: listed 200 at a time, one forgotten."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.chat_commands import SHOWN_EXCHANGES
from app.icons import icon
from app.widgets import WithPlaceholder, make_tree, one_line, redrawn_keeping, speakers, when
from app.workers import while_open

ROLE = Qt.ItemDataRole.UserRole
DANGER = "#B42318"  # the Erase icons' red, as the panel's
OPEN_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
CHOOSE = "Select one conversation to see its exchanges."


def read_exchanges(mem: Any, conversation_id: str, limit: int) -> tuple[list, int]:
    """Read in a worker: the most recent `limit` exchanges of the conversation, newest first,
    and how many it holds (a long one is not read whole: the panel stayed frozen)."""
    pages = mem.pages(conversation_id=conversation_id, limit=limit, newest=True)
    pages.sort(key=lambda page: (page.timestamp, page.id), reverse=True)
    return pages, mem.conversation_length(conversation_id)


class ExchangeList(QWidget):
    """The exchanges of the conversation selected above them, newest first, with the one
    selected in full below. `forget_requested(page ids)`: Forget exchange… or Delete, for the
    panel's preview and confirm (the same as for the exchange a fact came from)."""

    forget_requested = Signal(list)
    drawn = Signal()  # a read was drawn (tests wait on it)

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.conversation = ""  # the conversation listed ("" none)
        self.limit = SHOWN_EXCHANGES
        self.total = 0
        self._reads = 0  # only the latest read is drawn
        self._gone_at: int | None = None  # the row of an exchange forgotten: select its place
        self.tree = make_tree(["Said", "Question", "Answer"], stretch=1)
        # The question and the answer share the width: the answer sized to its contents ran
        # off to the right and left the question two letters ("Qu...") at 1.25x
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.tree.setAccessibleName("Exchanges of the selected conversation")
        self.tree.itemSelectionChanged.connect(self._selected)
        self.tree.installEventFilter(self)
        self.box = WithPlaceholder(self.tree, CHOOSE)
        self.detail = QTextBrowser(objectName="detail")
        self.detail.setAccessibleName("The selected exchange in full")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.box)
        splitter.addWidget(self.detail)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([200, 110])
        self.splitter = splitter  # its list keeps to whole rows (PrivacyPanel: WholeRows)
        self._keep_rows()
        self.count = QLabel(objectName="hint")
        self.earlier_button = QPushButton(f"Show {SHOWN_EXCHANGES} earlier")
        self.earlier_button.setToolTip("List older exchanges of this conversation too")
        self.earlier_button.clicked.connect(self.show_earlier)
        self.earlier_button.hide()
        self.forget_button = QPushButton(icon("erase", DANGER), " Forget exchange…",
                                         objectName="danger")
        self.forget_button.setToolTip("Forget the selected exchange, after seeing what else goes "
                                      "with it; the rest of the conversation stays (Delete)")
        self.forget_button.clicked.connect(self.forget_selected)
        # The Delete key in the list does what the button does (it asks first)
        forget_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.tree)
        forget_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        forget_key.activated.connect(self.forget_selected)
        row = QHBoxLayout()
        row.addWidget(self.count, 1)
        row.addWidget(self.earlier_button)
        row.addWidget(self.forget_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(splitter, 1)
        column.addLayout(row)
        self.show_conversation("")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._keep_rows()  # the text size changed (Ctrl+=)

    def _keep_rows(self) -> None:
        """Two rows and a half of the list and two lines of the exchange at least, at any text
        size: at 1.5x on a 1366x768 screen the list showed half a row, and none after Ctrl+=
        twice (a scroll area's least height is its header and scroll bar). A third whole row
        and line would not fit a 1024x560 screen with the rest of the panel."""
        rows = max(self.tree.sizeHintForRow(0), self.tree.fontMetrics().height() + 8)
        frame = 2 * self.tree.frameWidth()  # no row scrolls sideways: the columns fit
        least = self.tree.header().sizeHint().height() + 5 * rows // 2 + frame
        if self.tree.minimumHeight() != least:
            self.tree.setMinimumHeight(least)
        lines = 2 * self.detail.fontMetrics().lineSpacing()
        self.detail.setMinimumHeight(lines + 2 * self.detail.frameWidth()
                                     + 2 * round(self.detail.document().documentMargin()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if (watched is self.tree and event.type() == QEvent.Type.FocusIn
                and not self.tree.selectedItems() and self.tree.topLevelItemCount()):
            # Tabbed into: a row is selected at once, so Delete acts on one the person sees
            row = self.tree.currentItem() or self.tree.topLevelItem(0)
            self.tree.setCurrentItem(row)
        return super().eventFilter(watched, event)

    def show_conversation(self, conversation_id: str) -> None:
        """List the exchanges of `conversation_id` ("" none, or several chosen), read again."""
        if conversation_id != self.conversation:
            self.conversation, self.limit = conversation_id, SHOWN_EXCHANGES
            self.tree.clear()
        self._reads += 1
        if not conversation_id:
            self.total = 0
            self._draw([], 0)
            return
        asked = self._reads
        self.session.run(read_exchanges, self.session.mem, conversation_id, self.limit,
                         on_result=while_open(self, lambda found: self._latest(asked, found)),
                         on_error=while_open(self, self._failed))

    def show_earlier(self) -> None:
        self.limit += SHOWN_EXCHANGES
        self.show_conversation(self.conversation)

    def _latest(self, asked: int, found: tuple[list, int]) -> None:
        if asked == self._reads:
            self._draw(*found)

    def _failed(self, error: Exception) -> None:
        from app.errors import describe

        self.count.setText(f"The exchanges could not be read: {describe(error)}")

    def _draw(self, pages: list, total: int) -> None:
        self.total = total
        with redrawn_keeping(self.tree, lambda row: row.data(0, ROLE).id):
            for page in pages:
                row = QTreeWidgetItem([when(page.timestamp), one_line(page.user_input, 120),
                                       one_line(page.agent_response, 120)])
                row.setData(0, ROLE, page)
                row.setToolTip(1, one_line(page.user_input, 600))
                self.tree.addTopLevelItem(row)
        if not self.conversation:
            self.box.set_empty(True, CHOOSE)
        else:
            self.box.set_empty(not pages, "This conversation has no stored exchanges.")
        gone, self._gone_at = self._gone_at, None
        if gone is not None and not self.tree.selectedItems() and pages:
            # The row after the one forgotten (else the one before): the arrows go on from it
            self.tree.setCurrentItem(self.tree.topLevelItem(min(gone, len(pages) - 1)))
        elif self.tree.hasFocus() and not self.tree.selectedItems() and pages:
            self.tree.setCurrentItem(self.tree.topLevelItem(0))  # given the keyboard before
        shown = len(pages)
        if not self.conversation:
            self.count.setText("")
        elif shown < total:
            self.count.setText(f"The newest {shown} of {total} exchanges.")
        else:
            self.count.setText(f"{total} exchange{'s' if total != 1 else ''}, newest first.")
        self.earlier_button.setVisible(shown < total)
        self._keep_rows()  # the rows' own height, now there are some
        self._selected()
        self.drawn.emit()

    def selected_page(self) -> Any:
        rows = self.tree.selectedItems()
        return rows[0].data(0, ROLE) if rows else None

    def _selected(self) -> None:
        page = self.selected_page()
        self.forget_button.setEnabled(page is not None)
        muted = theme.color(theme.MUTED)
        if page is None and not self.conversation:
            self.detail.clear()  # the list above says to choose one: said twice, it read as amiss
            return
        if page is None:
            text = "Select an exchange to see it in full."
            self.detail.setHtml(f"<p style='color:{muted}'>{text}</p>")
            return
        user, agent = speakers(page)
        self.detail.setHtml(
            f"<p><span style='color:{muted}'>{escape(when(page.timestamp))}</span><br>"
            f"<b>{escape(user)}:</b> {escape(page.user_input)}</p>"
            f"<p><b>{escape(agent)}:</b> {escape(page.agent_response)}</p>")

    def forget_selected(self) -> None:
        page = self.selected_page()
        if page is not None:
            self._gone_at = self.tree.indexOfTopLevelItem(self.tree.selectedItems()[0])
            self.forget_requested.emit([page.id])

    def take_keyboard(self) -> None:
        """Enter or Space on a conversation: the keyboard goes to its exchanges."""
        self.tree.setFocus(Qt.FocusReason.TabFocusReason)
