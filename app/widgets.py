"""Small shared widgets and formatting helpers for the panels."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, QPoint, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

# The ways the keyboard moves into a list or pane (not a click, which picks a place itself)
KEYBOARD_FOCUS = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                  Qt.FocusReason.ShortcutFocusReason)
# A list's current row moved to, its selection left as it is
KEEP_SELECTION = QItemSelectionModel.SelectionFlag.NoUpdate


def when(timestamp: float | None, *, seconds: bool = False) -> str:
    """A local date and time a person reads at a glance: 'Today 14:02', '3 Mar 2025 09:15'."""
    if not timestamp:
        return ""
    moment = dt.datetime.fromtimestamp(timestamp)
    clock = f"{moment:%H:%M:%S}" if seconds else f"{moment:%H:%M}"
    today = dt.date.today()
    if moment.date() == today:
        return f"Today {clock}"
    if moment.date() == today - dt.timedelta(days=1):
        return f"Yesterday {clock}"
    return f"{moment.day} {moment:%b %Y} {clock}"


def screen_room(window: QWidget) -> tuple[int, int]:
    """The width and height a window may take on its screen: less its frame and a margin across,
    less its title bar and a panel down."""
    screen = window.screen().availableGeometry()
    return screen.width() - 40, screen.height() - 60


def fit_window(
    window: QWidget, width: int, height: int, least: tuple[int, int] | None = None
) -> None:
    """Size a window for the text size chosen (the design's pixels at the base size), within
    the screen it is on: at the largest text a dialog made for the normal size cut its tables.
    `least`, the design's minimum, grows with the text as far as the screen allows. Its
    height is never more than the screen's (its frame included): on a screen under 600 px
    tall Settings kept its 620 px, its Save and Cancel below the screen's edge; what does not
    fit then scrolls (the dialog's pages) or gives way (its tables). So is its width: `least`
    is a wish, the screen wins (at 1.5x a 1366 px screen is 910 px wide, and the model step
    kept its 940, its buttons and title bar past the screen's right edge)."""
    from app import theme

    room = screen_room(window)
    if least is not None:
        least = (min(theme.pixels(least[0]), room[0]), min(theme.pixels(least[1]), room[1]))
        window.setMinimumSize(*least)
    window.resize(min(theme.pixels(width), room[0]), min(theme.pixels(height), room[1]))


def fit_to_lines(dialog: QWidget, least_width: int = 0) -> None:
    """Size a dialog of lines and fields to its contents: the height its wrapped lines need at
    its width, which is what it asks for (at least `least_width`), or more where the screen
    is too short for its lines at that width; all within the screen. That size is its least
    size too: a window's least height counts no wrapped line, and made shorter its fields
    were squeezed. (adjustSize() stops at two thirds of the screen's height: on a 1024x560
    screen the first run's warning was cut to half a line.)"""
    widest, tallest = screen_room(dialog)
    layout = dialog.layout()
    layout.activate()

    def height(width: int) -> int:
        if layout.hasHeightForWidth():
            return layout.totalHeightForWidth(width)
        return dialog.sizeHint().height()

    width = min(max(dialog.sizeHint().width(), least_width), widest)
    while height(width) > tallest and width < widest:  # wider: fewer lines
        width = min(widest, width + 40)
    size = (width, min(height(width), tallest))
    dialog.setMinimumSize(*size)
    dialog.resize(*size)


# The answer of an exchange an agent stored through the MCP server (meta source "mcp"): the
# agent wrote it, not this app's model, and the conversation says so
MCP_AGENT = "Agent (MCP)"


def speakers(page: object) -> tuple[str, str]:
    """Who spoke in a page, as the app names them: 'You' and 'MemoryOS' unless a transcript says,
    or an agent stored it through the MCP server (its answer is the agent's)."""
    user = getattr(page, "user_speaker", "User")
    agent = getattr(page, "agent_speaker", "Assistant")
    meta = getattr(page, "meta", None) or {}
    ours = MCP_AGENT if meta.get("source") == "mcp" else "MemoryOS"
    return ("You" if user == "User" else user, ours if agent == "Assistant" else agent)


def no_default_buttons(widget: QWidget) -> None:
    """Panels are not forms: Enter must not press the first button (QDialog's autoDefault)."""
    from PySide6.QtWidgets import QPushButton

    for button in widget.findChildren(QPushButton):
        button.setAutoDefault(False)
        button.setDefault(False)


class EnterPresses(QObject):
    """Enter in a dialog presses its `button` (Save, OK), or the one of its row that has the
    focus (Cancel). A button in the page is pressed by Space: clicked, it keeps the focus, and
    Enter pressed it again (Settings' Reset did)."""

    KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)

    def __init__(self, dialog: QWidget, button: QWidget) -> None:
        super().__init__(dialog)
        self.button = button
        dialog.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # A key a field leaves (a line, a spin box, a closed list) comes on to the dialog
        if (event.type() != QEvent.Type.KeyPress
                or event.key() not in self.KEYS  # type: ignore[attr-defined]
                or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):  # type: ignore[attr-defined]
            return False
        from PySide6.QtWidgets import QPushButton

        focused = watched.focusWidget()  # type: ignore[attr-defined]
        if (isinstance(focused, QPushButton) and focused.isVisible()
                and focused.parentWidget() is self.button.parentWidget()):
            if focused.isEnabled():
                focused.click()
            return True
        if self.button.isVisible():
            if self.button.isEnabled():
                self.button.click()  # type: ignore[attr-defined]
            return True  # a disabled Save: nothing, as Qt's own default does
        return False


def enter_presses(dialog: QWidget, button: QWidget) -> None:
    """Enter in any field of `dialog` presses `button`, whichever buttons Tab passed over;
    Enter on a button beside it (Cancel) presses that one. Call it once the buttons are in
    the dialog.

    Qt makes a button the default while it has the focus (autoDefault), and where the default
    had been set before its button was in the dialog, kept it after: Tab once past Cancel, and
    Enter in a field clicked Cancel, the changes thrown away without a word. So no button is
    autoDefault, `button` is the default (the dialog now holds it: Qt goes back to it), and
    Enter is decided here rather than by whichever button had the focus last."""
    no_default_buttons(dialog)
    button.setDefault(True)  # type: ignore[attr-defined]
    EnterPresses(dialog, button)


def one_line(text: str, limit: int = 140) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@contextmanager
def redrawn_keeping(
    tree: QTreeWidget, key: Callable[[QTreeWidgetItem], Hashable]
) -> Iterator[None]:
    """Clear `tree` for the block to fill it again, its signals held, then select the rows
    whose `key` was selected and make the row whose key was current (and its column) current
    again: a read after any change to memory let both go, and the arrow keys went on from the
    first row (Delete asked about a row the person never chose)."""
    selected = {key(row) for row in tree.selectedItems()}
    current = tree.currentItem()
    current_key = key(current) if current is not None else None
    column = max(tree.currentColumn(), 0)
    tree.blockSignals(True)
    try:
        tree.clear()
        yield
        for index in range(tree.topLevelItemCount()):
            row = tree.topLevelItem(index)
            row.setSelected(key(row) in selected)
            if current_key is not None and key(row) == current_key:
                tree.setCurrentItem(row, column, KEEP_SELECTION)
    finally:
        tree.blockSignals(False)


def make_tree(headers: Sequence[str], *, multi: bool = False, stretch: int = 1) -> QTreeWidget:
    """A flat, sortable list with headers (a tree without branches)."""
    tree = QTreeWidget()
    tree.setHeaderLabels(list(headers))
    tree.setRootIsDecorated(False)
    tree.setUniformRowHeights(True)
    tree.setAlternatingRowColors(True)
    tree.setSortingEnabled(False)
    tree.setWordWrap(False)
    tree.setTextElideMode(Qt.TextElideMode.ElideRight)
    tree.setSelectionMode(
        QAbstractItemView.SelectionMode.ExtendedSelection
        if multi
        else QAbstractItemView.SelectionMode.SingleSelection
    )
    header = tree.header()
    header.setStretchLastSection(False)
    for column in range(len(headers)):
        mode = QHeaderView.ResizeMode.Stretch if column == stretch else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)
    return tree


def scrolled_column(
    name: str, widgets: Sequence[QWidget], *, stretch: QWidget | None = None,
    spacing: int | None = None, across: bool = True,
) -> QScrollArea:
    """`widgets` one under another in a column (a widget named `name`, its `.widget()`) that
    scrolls where the window is too short for them, rather than squeezing them on top of one
    another: no frame, the parent's background showing through, and never the keyboard's
    stop (Tab goes to the fields inside). `stretch` takes the height left over; `spacing`
    between them, the style's unless given; `across`: False where the column never scrolls
    sideways (its lines wrap or elide instead)."""
    column = QWidget(objectName=name)
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    if spacing is not None:
        layout.setSpacing(spacing)
    for widget in widgets:
        layout.addWidget(widget, 1 if widget is stretch else 0)
    area = QScrollArea()
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    if not across:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidgetResizable(True)
    area.setWidget(column)
    column.setAutoFillBackground(False)  # setWidget() made it fill
    area.viewport().setAutoFillBackground(False)
    return area


class WholeRows(QObject):
    """Keeps the list at the top of a vertical `splitter` to whole rows, the pane below taking
    the rest: at 1.5x on a 1366x768 screen Privacy's Facts table showed 3.5 rows, the fourth
    cut in half. Where the splitter is in `area`, a scroll area too short for it, the list
    ends where the area's view does as it opens (unless the splitter was moved by hand): the
    rest of the page is scrolled to, the list's own rows are not cut by the view's edge."""

    def __init__(self, splitter: QSplitter, view: QAbstractItemView,
                 area: QScrollArea | None = None) -> None:
        super().__init__(splitter)
        self.splitter, self.view, self.area = splitter, view, area
        self.moved = False  # by hand: its size is the person's, only made whole rows
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)  # once the layouts have placed it
        self.timer.timeout.connect(self.snap)
        splitter.installEventFilter(self)
        view.installEventFilter(self)
        if area is not None:
            area.viewport().installEventFilter(self)
        splitter.splitterMoved.connect(self._moved)
        # the rows come after the panel shows (read in a worker), and change height with the text
        view.model().rowsInserted.connect(lambda *_: self.timer.start())
        view.model().modelReset.connect(lambda *_: self.timer.start())

    def _moved(self) -> None:
        self.moved = True
        self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.FontChange,
                            QEvent.Type.StyleChange):
            self.timer.start()
        return False

    def snap(self) -> None:
        sizes = self.splitter.sizes()
        row = self.view.sizeHintForRow(0)  # -1 with no rows
        if len(sizes) != 2 or row <= 0 or not self.view.isVisible():
            return
        pane = self.splitter.widget(0)
        fixed = pane.height() - self.view.viewport().height()  # header, frame, scroll bar
        room = sizes[0]
        area = self.area
        if area is not None and not self.moved and area.verticalScrollBar().value() == 0:
            shown = area.viewport().height() - pane.mapTo(area.widget(), QPoint(0, 0)).y()
            if fixed + row <= shown < room:
                room = shown
        whole = fixed + max(1, (room - fixed) // row) * row
        # Not under the pane's least height, which the splitter keeps (there Privacy's exchanges
        # list showed two rows and a half, on a 1024x560 screen): the next whole row up
        least = max(pane.minimumHeight(), pane.minimumSizeHint().height())
        if whole < least:
            whole += (least - whole + row - 1) // row * row
        if whole != sizes[0] and whole < sum(sizes):
            self.splitter.setSizes([whole, sum(sizes) - whole])


class WithPlaceholder(QStackedWidget):
    """Shows `widget`, or a centred explanation when it has nothing to show."""

    def __init__(self, widget: QWidget, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widget = widget
        self.placeholder = QLabel(text, objectName="placeholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setMargin(24)
        self.addWidget(widget)
        self.addWidget(self.placeholder)

    def set_empty(self, empty: bool, text: str | None = None) -> None:
        if text is not None:
            self.placeholder.setText(text)
        self.setCurrentWidget(self.placeholder if empty else self.widget)


class TallLabel(QLabel):
    """A wrapped hint that keeps the height its text needs: a form layout short of room would
    otherwise squeeze it into the row above."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().minimumSizeHint()
        width = max(self.width(), self.minimumWidth())
        return QSize(hint.width(), max(hint.height(), self.heightForWidth(width)))


class WheelGuard(QObject):
    """Wheel events scroll the page, not the spin box or combo box under the pointer, unless
    that field has the keyboard focus (scrolling Settings changed Capacity from 10 to 7)."""

    def guard(self, root: QWidget) -> None:
        for widget in root.findChildren(QWidget):
            if isinstance(widget, (QAbstractSpinBox, QComboBox)):
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel does not focus it
                widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if (event.type() == QEvent.Type.Wheel
                and not watched.hasFocus()):  # type: ignore[attr-defined]
            event.ignore()  # ignored, the event goes on to the parents: the scroll area
            return True
        return False
