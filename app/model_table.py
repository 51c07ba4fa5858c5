"""The model picker's table: its groups, its widget, and which row is the model in use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import (
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
)

from app.settings_store import BUNDLED, GGUF, SERVER

FILES, SERVERS, DOWNLOADS = "files", "servers", "downloads"
KEY_NEEDED = "key needed"  # a server's row when it refused the probe for want of an API key
ITEM_PADDING = 8  # resources/style.qss: QTreeView::item { padding: 4px 4px; }
WRAP = int(Qt.TextFlag.TextWordWrap)
IN_USE = "in use"  # first in the verdict of the model being talked to now
# "slow": dark on the light scheme, as "no: ..." (theme.ERROR_RED); theme.color() makes it
# light enough to read on the dark one.
SLOW_COLOR = "#B54708"
GROUP_TITLES = {
    FILES: "On this computer",
    SERVERS: "Servers (OpenAI-compatible)",
    DOWNLOADS: "Recommended downloads",
}


class WrappingDelegate(QStyledItemDelegate):
    """Row heights for the text wrapped at its column's width: QTreeView asks the height of an
    unwrapped line, and a wrapped cell then lost its last lines."""

    def __init__(self, table: QTreeWidget) -> None:
        super().__init__(table)
        self.table = table

    def sizeHint(self, option: QStyleOptionViewItem, index: Any) -> QSize:  # noqa: N802 - Qt
        table = self.table
        if table.isFirstColumnSpanned(index.row(), index.parent()):
            width = table.viewport().width()
        else:
            width = table.columnWidth(index.column())
        if index.column() == 0:
            width -= table.indentation()
        option = QStyleOptionViewItem(option)
        # the style sheet's item padding (4 px each side) is not counted by the style's size
        option.rect = QRect(0, 0, max(1, width - ITEM_PADDING), 1 << 16)
        return super().sizeHint(option, index)


def usable_row(item: QTreeWidgetItem | None) -> bool:
    """A row that can be selected: a model, not a heading, a note or a file that cannot load."""
    wanted = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
    return item is not None and item.flags() & wanted == wanted


class ModelTable(QTreeWidget):
    """The model table, whose keys and clicks go from model row to model row. Moving the
    current row back from inside the current-row signal (as before) left the keyboard's focus
    on a row that was not selected ("Use this model" greyed, Enter doing nothing): the move is
    corrected before Qt makes it, so the row with the focus is the row selected."""

    Move = QTreeWidget.CursorAction
    FORWARD = (Move.MoveDown, Move.MoveNext, Move.MovePageDown, Move.MoveHome)
    BACKWARD = (Move.MoveUp, Move.MovePrevious, Move.MovePageUp, Move.MoveEnd)

    def moveCursor(self, action: Any, modifiers: Any) -> Any:  # noqa: N802 - Qt override
        index = super().moveCursor(action, modifiers)
        item = self.itemFromIndex(index)
        if not index.isValid() or usable_row(item):
            return index
        here = self.currentIndex()
        if action in self.FORWARD or action in self.BACKWARD:
            steps = [self.itemBelow, self.itemAbove]
            if action in self.BACKWARD:
                steps.reverse()
            if action in (self.Move.MoveDown, self.Move.MoveUp, self.Move.MoveNext,
                          self.Move.MovePrevious) and here.isValid():
                steps = steps[:1]  # no model row that way: the focus stays where it is
            for step in steps:
                found = step(item)
                while found is not None and not usable_row(found):
                    found = step(found)
                if found is not None:
                    return self.indexFromItem(found, index.column())
        return here  # Left to a heading, or no model row at all: stay

    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """A click on a heading or a note leaves the selected row as it was."""
        item = self.itemAt(event.position().toPoint())
        if item is not None and not usable_row(item):
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """A double-click on a heading uses nothing (the row selected is not the one clicked)."""
        item = self.itemAt(event.position().toPoint())
        if item is not None and not usable_row(item):
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyboardSearch(self, search: str) -> None:  # noqa: N802 - Qt override
        """Typing a name goes to a model row, never to the heading whose title matches."""
        before = self.currentItem()
        super().keyboardSearch(search)
        if not usable_row(self.currentItem()) and usable_row(before):
            self.setCurrentItem(before)


def in_use(current: Any, kind: str, data: Any) -> bool:
    """Is this row (kind and data as the table stores them) the model `current` settings use?"""
    if current is None:
        return False
    if kind == "bundled":
        return current.model_source == BUNDLED
    if kind == "file":
        return current.model_source == GGUF and _same_file(current.gguf_path, data.path)
    if kind == "server":
        server, name = data
        return (
            current.model_source == SERVER
            and name == current.server_model
            and same_server(current.server_url, server.url)
        )
    return False


def _same_file(chosen: str, found: str) -> bool:
    """One file, whichever link or spelling leads to it (LM Studio's folders hold links)."""
    if not chosen:
        return False
    try:
        return Path(chosen).expanduser().resolve() == Path(found).resolve()
    except (OSError, RuntimeError):
        return chosen == found


def same_server(chosen: str, found: str) -> bool:
    """One server: the same URL, or this computer's same port (localhost is 127.0.0.1)."""
    from urllib.parse import urlsplit

    from engine.errors import ServerError
    from engine.network import is_loopback, normalise_url

    try:
        chosen, found = normalise_url(chosen), normalise_url(found)
        if chosen == found:
            return True
        a, b = urlsplit(chosen), urlsplit(found)
        same_port = a.port == b.port and a.path.rstrip("/") == b.path.rstrip("/")
    except (ServerError, ValueError):
        return False
    return same_port and is_loopback(chosen) and is_loopback(found)
