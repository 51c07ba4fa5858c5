"""The confirmation panel under the conversation: what a /forget (or a Forget action) would
delete, each item ticked, with Forget and Cancel. Cancel deletes nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import remembered as shown
from app import theme
from app.persona_items import status_words
from app.widgets import scrolled_column
from engine.records import SUPERSEDED
from engine.remembered import EXCHANGE

ROLE = Qt.ItemDataRole.UserRole
QUOTE_CHARS = 60  # a longer /forget text is quoted as its start … its end


def quoted(words: str) -> str:
    """`words` on one line, short enough for a title: a long one as its start … its end."""
    line = " ".join(words[: 2 * QUOTE_CHARS].split())
    if len(words) <= 2 * QUOTE_CHARS and len(line) <= QUOTE_CHARS:
        return line
    end = " ".join(words[-QUOTE_CHARS:].split())
    return f"{line[: QUOTE_CHARS * 2 // 3].rstrip()} … {end[-(QUOTE_CHARS // 3) :].lstrip()}"


class ForgetList(QListWidget):
    """The panel's list: it asks for the height of its rows (`wanted`) and gives way down to
    one row where the window has less room, scrolling then. At a fixed height the panel was
    taller than a short window let it be (1366x768 at 1.5x): the layout drew the hint and the
    buttons on top of the list's lines."""

    def __init__(self) -> None:
        super().__init__()
        self.wanted = 0

    def want(self, height: int) -> None:
        """Ask for `height`; at least one row (and its frame) is always shown."""
        self.wanted = height
        row = self.sizeHintForRow(0) if self.count() else self.fontMetrics().height()
        self.setMinimumHeight(min(height, row + 2 * self.frameWidth() + 4))
        self.setMaximumHeight(height)
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(super().sizeHint().width(), self.wanted)


class ForgetPanel(QFrame):
    """Shows matches; `confirmed(list of ForgetMatch)` when the person presses Forget.
    `consequences_wanted(ticked matches)` when the ticks change: what goes along with the
    exchanges ticked now is to be found again (it needs the vault: in a worker), and given
    back to `show_consequences`."""

    confirmed = Signal(list)
    cancelled = Signal()
    consequences_wanted = Signal(list)

    def __init__(self, room_from: QWidget | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The widget above (the conversation): while the panel is open it gives way down to a
        # few lines, so the panel's lines are whole where the window is short (at 1.5x on a
        # 1366x768 screen 140 px of empty conversation stood above a hint cut in two)
        self.room_from = room_from
        self._room_from_least = 0  # its own least height, given back when the panel closes
        self.setObjectName("forgetPanel")
        self.setAccessibleName("Forget confirmation")
        self.title = QLabel(objectName="forgetTitle")
        self.title.setWordWrap(True)
        self.hint = QLabel(
            "Exchanges go with the facts and profile entries learned only from them. "
            "Untick what should stay.",
            objectName="hint",
        )
        self.hint.setWordWrap(True)
        self.list = ForgetList()
        self.list.setAccessibleName("Items to forget")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemChanged.connect(self._update)
        self.list.currentItemChanged.connect(self._show_current)
        self.list.installEventFilter(self)  # given the keyboard: the list is scrolled into view
        self.forget_button = QPushButton("Forget", objectName="danger")
        self.forget_button.setAccessibleName("Forget the ticked items")
        self.forget_button.clicked.connect(self._confirm)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel: forget nothing")
        self.cancel_button.clicked.connect(self.cancel)
        for button in (self.cancel_button, self.forget_button):
            # Enter presses the focused button, as in a dialog (outside one, only Space did);
            # outside a dialog no button is pressed by an Enter meant for something else
            button.setAutoDefault(True)
        self._words: list[str] = []
        self._wanted: list[tuple[str, int]] = []  # the ticks the lines below are asked for
        QShortcut(
            QKeySequence(Qt.Key.Key_Escape),
            self,
            self.cancel,
            context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
        )
        buttons = QHBoxLayout()
        self._buttons = buttons
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.forget_button)
        # The title and the list scroll where the window is too short for them (a short
        # screen, the largest text): squeezed by the window's layout, they were drawn on top
        # of one another. The hint and the buttons stay, whole: in the scrolled part the hint
        # was cut where no key could scroll to it (Tab goes from the list to the buttons).
        self.lines = scrolled_column("forgetLines", [self.title, self.list], spacing=6,
                                     across=False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 10, 20, 10)
        layout.setSpacing(6)
        layout.addWidget(self.lines, 1)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        self.hide()

    # --- size --------------------------------------------------------------------------
    def _inner_width(self) -> int:
        margins = self.layout().contentsMargins()
        width = self.contentsRect().width() if self.width() > 0 else super().sizeHint().width()
        return max(1, width - margins.left() - margins.right())

    def _height_with(self, lines: int, buttons: int) -> int:
        """The panel's height with `lines` for the title and the list, the hint whole at the
        panel's width and `buttons` for the buttons."""
        layout = self.layout()
        margins = layout.contentsMargins()
        frame = self.height() - self.contentsRect().height()  # the style sheet's top border
        return (frame + margins.top() + margins.bottom() + 2 * layout.spacing() + lines
                + self.hint.heightForWidth(self._inner_width()) + buttons)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """All its lines at its width: the title wrapped, the list's rows, the hint."""
        lines = self.lines.widget().layout()
        need = lines.heightForWidth(self._inner_width()) if lines.hasHeightForWidth() else (
            lines.sizeHint().height())
        buttons = self._buttons.sizeHint().height()
        return QSize(super().sizeHint().width(), self._height_with(need, buttons))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Two lines of the title and the list (they scroll), the hint whole, the buttons."""
        buttons = self._buttons.minimumSize().height()
        least = self._height_with(self.lines.minimumHeight(), buttons)
        return QSize(super().minimumSizeHint().width(), least)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        # Its hints are those of its width (see sizeHint): asked for a height for a width, the
        # window's layout made that its least height, and the panel pushed the message box
        # off a short window
        return False

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # its wrapped lines take another height at this width

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        above = self.room_from
        if above is not None:
            self._room_from_least = above.minimumHeight()
            above.setMinimumHeight(3 * above.fontMetrics().lineSpacing())
        self.updateGeometry()

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().hideEvent(event)
        if self.room_from is not None:
            self.room_from.setMinimumHeight(self._room_from_least)

    # --- keys --------------------------------------------------------------------------
    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 - Qt override
        if watched is self.list and event.type() == QEvent.Type.FocusIn:
            self._show_current()
        return super().eventFilter(watched, event)

    def _show_current(self, *_: object) -> None:
        """Where the title and the list scroll, the list's current row (or its top) is in
        view: the keyboard reaches it, and the arrow keys move along it."""
        row = self.list.currentItem()
        rect = self.list.visualItemRect(row) if row is not None else QRect()
        if rect.isEmpty():
            rect = QRect(0, 0, 1, min(self.list.height(), self.list.sizeHintForRow(0)))
        top = self.list.viewport().mapTo(self.lines.widget(), rect.topLeft())
        self.lines.ensureVisible(top.x(), top.y() + rect.height() // 2, 0, rect.height() // 2)

    def ask(self, title: str, matches: list[Any], words: list[str] = ()) -> None:
        """Show `matches` (ForgetMatch), all ticked; a long one is shown around the first of
        `words` it contains, so the reason it matched is in view."""
        self.setStyleSheet(
            f"#forgetPanel {{ background: {theme.color('#FFF6F4')};"
            f" border-top: 1px solid {theme.color('#F2C6BE')}; }}"
            " #forgetTitle { font-weight: 600; }"
            " QScrollArea, #forgetLines { background: transparent; }"
        )
        self.title.setText(title)
        # two lines at the text size now, where the window is short: the rest scrolls
        self.lines.setMinimumHeight(2 * self.title.fontMetrics().lineSpacing())
        self._words = list(words)
        self.list.blockSignals(True)
        self.list.clear()
        for match in matches:
            if not getattr(match, "consequence", False):
                row = self._row(match)
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                row.setCheckState(Qt.CheckState.Checked)
                self.list.addItem(row)
        self.list.blockSignals(False)
        self._wanted = [match.key for match in self.ticked()]  # what `matches` go along with
        self._draw_consequences([m for m in matches if getattr(m, "consequence", False)])
        # the height stays while ticks remove lines: rows never move under the pointer
        self.list.want(self._height_for(len(self.ticked()), self._lines()))
        self._update()
        self.show()
        self.updateGeometry()  # the title and the rows asked for: the window's layout hears
        self.cancel_button.setFocus()  # the safe choice has the focus

    def ticked(self) -> list[Any]:
        """The ticked matches (rows of what goes along with them are not choices)."""
        rows = (self.list.item(i) for i in range(self.list.count()))
        return [
            row.data(ROLE)
            for row in rows
            if row.flags() & Qt.ItemFlag.ItemIsUserCheckable
            and row.checkState() == Qt.CheckState.Checked
        ]

    def show_consequences(self, ticked: list[Any], found: list[Any]) -> None:
        """`found`: what goes along with the exchanges among `ticked` (ForgetMatch, found in a
        worker). An answer for ticks changed since is dropped: a newer one is on its way."""
        if not self.isHidden() and [m.key for m in ticked] == self._wanted:
            self._draw_consequences(found)

    def _row(self, match: Any) -> QListWidgetItem:
        kind = shown.KIND_TITLES.get(match.kind, match.kind)
        text = shown.one_line_around(match.kind, match.text, self._words, 150)
        row = QListWidgetItem()
        row.setData(ROLE, match)
        if getattr(match, "replaced", False):  # superseded: as the Privacy panel says it
            kind = f"{kind} (replaced)"
            row.setToolTip(f"{match.text}\n\n{status_words(SUPERSEDED, '')[1]}")
            row.setForeground(QColor(theme.color(theme.MUTED)))  # Qt's grey was 2.6:1
        else:
            row.setToolTip(match.text)
        row.setText(f"{kind} · {shown.day(match.date)} — {text}")
        return row

    def _height_for(self, choices: int, lines: int) -> int:
        """The list's height showing `choices` rows to tick (up to 7) and `lines` of what goes
        along (up to 3): the panel stays a strip under the chat."""
        rows = max(1, min(7, choices) + min(3, lines))
        return rows * self.list.sizeHintForRow(0) + 2 * self.list.frameWidth() + 4

    def _lines(self) -> int:
        """How many rows are lines of what goes along (not choices)."""
        rows = (self.list.item(i) for i in range(self.list.count()))
        return sum(1 for row in rows if getattr(row.data(ROLE), "consequence", False))

    @staticmethod
    def _fit_bold(button: QPushButton) -> None:
        """Room for the label in semi-bold (the style sheet once drew a focused default button
        so, after its width was measured, and cut its label); kept as a margin."""
        bold = QFont(button.font())
        bold.setWeight(QFont.Weight.DemiBold)
        extra = QFontMetrics(bold).horizontalAdvance(button.text()) - QFontMetrics(
            button.font()
        ).horizontalAdvance(button.text())
        button.setMinimumWidth(0)
        button.setMinimumWidth(button.sizeHint().width() + max(0, extra) + 2)

    def _draw_consequences(self, found: list[Any]) -> None:
        """The lines of what goes with the ticked exchanges, in place of those shown; the list
        grows (up to its limit) when they would be below the rows it shows."""
        self.list.blockSignals(True)
        for index in reversed(range(self.list.count())):
            if getattr(self.list.item(index).data(ROLE), "consequence", False):
                self.list.takeItem(index)
        for match in found:
            row = self._row(match)
            row.setText(f"↳ also goes with those exchanges: {row.text()}")
            row.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = row.font()
            font.setItalic(True)
            row.setFont(font)
            self.list.addItem(row)
        self.list.blockSignals(False)
        wanted = self._height_for(self.list.count() - self._lines(), self._lines())
        if wanted > self.list.wanted:  # never shrinks: rows move only to show a new line
            self.list.want(wanted)
            self.updateGeometry()

    def _update(self, *_: object) -> None:
        ticked = self.ticked()
        count = len(ticked)
        self.forget_button.setEnabled(count > 0)
        self.forget_button.setText(f"Forget {count} item{'s' if count != 1 else ''}")
        self._fit_bold(self.forget_button)
        keys = [match.key for match in ticked]
        if keys == self._wanted or self.isHidden():
            return
        self._wanted = keys
        if any(match.kind == EXCHANGE for match in ticked):
            self.list.blockSignals(True)
            for index in range(self.list.count()):  # greyed until the new answer comes
                row = self.list.item(index)
                if getattr(row.data(ROLE), "consequence", False):
                    row.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.blockSignals(False)
            self.consequences_wanted.emit(ticked)
        else:
            self._draw_consequences([])  # no exchange ticked: nothing goes along with them

    def _confirm(self) -> None:
        chosen = self.ticked()
        if chosen:
            self.hide()
            self.confirmed.emit(chosen)

    def cancel(self) -> None:
        if self.isVisible():
            self.hide()
            self.cancelled.emit()
