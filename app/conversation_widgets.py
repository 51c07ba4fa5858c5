"""The conversation's two faces: its text (a browser that rings the link with the keyboard)
and what an empty conversation shows instead."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen, QTextCursor
from PySide6.QtWidgets import (
    QAbstractSlider,
    QLabel,
    QSizePolicy,
    QSpacerItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app import theme

FIXED_HEIGHT = (QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)  # a vertical gap


class ConversationBrowser(QTextBrowser):
    """The conversation's text, with the link that has the keyboard (Tab) in a 2 px ring of
    the accent, in either scheme: Qt marks it only with a dotted 1 px box in the text colour,
    hard to see, and faint on the dark scheme."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The ring reaches past the link, where Qt repaints when the mark moves: drawn whole
        self.selectionChanged.connect(self.viewport().update)
        self.cursorPositionChanged.connect(self.viewport().update)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """Ctrl+Home and Ctrl+End (and Home and End) go to the conversation's top and end: Qt
        scrolls for Home and End alone, and did nothing with Ctrl."""
        ends = {Qt.Key.Key_Home: QAbstractSlider.SliderAction.SliderToMinimum,
                Qt.Key.Key_End: QAbstractSlider.SliderAction.SliderToMaximum}
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        plain_or_ctrl = modifiers in (Qt.KeyboardModifier.NoModifier,
                                      Qt.KeyboardModifier.ControlModifier)
        if event.key() in ends and plain_or_ctrl:
            event.accept()
            self.verticalScrollBar().triggerAction(ends[event.key()])
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt override
        """Tab and Shift+Tab from link to link: Qt moves the mark without selectionChanged and
        repaints only the links' own text, which left the old ring in part and drew the new
        one without its top and bottom."""
        moved = super().focusNextPrevChild(next)
        self.viewport().update()
        return moved

    def focusInEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().focusInEvent(event)
        self.viewport().update()

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().focusOutEvent(event)
        self.viewport().update()

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        cursor = self.textCursor()
        # the link's own format, at its end: Shift+Tab leaves the cursor at its start, where
        # charFormat() is the text's before it (no ring was drawn)
        end = QTextCursor(cursor)
        end.setPosition(cursor.selectionEnd())
        if not self.hasFocus() or not cursor.hasSelection() or not end.charFormat().isAnchor():
            return
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(theme.color(theme.ACCENT)), 2))
        for line in self._lines_of(cursor):
            painter.drawRoundedRect(QRectF(line).adjusted(-5, -2, 5, 2), 3, 3)
        painter.end()

    def _lines_of(self, cursor: QTextCursor) -> list[QRect]:
        """The rectangles, one a line, that the selected text takes in the viewport."""
        lines: list[QRect] = []
        at = QTextCursor(cursor)
        for position in range(cursor.selectionStart(), cursor.selectionEnd() + 1):
            at.setPosition(position)
            spot = self.cursorRect(at)
            if lines and lines[-1].top() == spot.top() and position > cursor.selectionStart():
                lines[-1] = lines[-1].united(spot)
            else:
                lines.append(spot)
        return [line for line in lines if line.width() > 2]


class EmptyState(QWidget):
    """What an empty conversation shows: what the app does and where to look.

    Its text wraps to the width it gets; where the height is short (the smallest window, the
    demo banner above, the largest text) the logo goes first, then the tips, then the title
    (the hint says more), so that what stays is whole: it asks for no room of its own, the
    banner and the message box come first.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        from app.icons import pixmap

        self.logo = logo = QLabel()
        logo.setPixmap(pixmap("memoryos", 64, ratio=2.0))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel(objectName="emptyTitle", alignment=Qt.AlignmentFlag.AlignCenter)
        self.hint = QLabel(objectName="emptyHint", alignment=Qt.AlignmentFlag.AlignCenter)
        self.tips = QLabel(objectName="emptyTips", alignment=Qt.AlignmentFlag.AlignCenter)
        self.tips.setTextFormat(Qt.TextFormat.RichText)
        for label in (self.title, self.hint, self.tips):
            label.setWordWrap(True)
        self._wanted = (True, False)  # the logo, the tips: shown when there is room
        self.layout_ = layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 0, 16, 0)  # the stretches give it air where there is room
        # Each part with the gap that goes with it, gone with it (see _fit).
        self._gaps = [
            (part, size, QSpacerItem(0, size, *FIXED_HEIGHT))
            for part, size in ((logo, 12), (self.title, 4), (self.tips, 18))
        ]
        gap = {part: item for part, _size, item in self._gaps}
        layout.addStretch(3)
        layout.addWidget(logo)
        layout.addSpacerItem(gap[logo])
        layout.addWidget(self.title)
        layout.addSpacerItem(gap[self.title])
        layout.addWidget(self.hint)
        layout.addSpacerItem(gap[self.tips])
        # Centred, as wide as its text on one line or as the room there is (see _fit).
        layout.addWidget(self.tips, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(4)

    def show_text(self, title: str, hint: str, tips: str, locked: bool = False) -> None:
        """`locked`: the vault dialogs sit centred over this; no logo, and the text centred
        exactly, so that they cover it whole instead of leaving fragments around them."""
        self.title.setText(title)
        self.hint.setText(hint)
        self.tips.setText(tips)
        self._wanted = (not locked, bool(tips))
        self.layout_.setStretch(0, 1 if locked else 3)
        self.layout_.setStretch(self.layout_.count() - 1, 1 if locked else 4)
        self._fit(self.size())

    # Its size is what the view is given: none asked for, none passed on to the window.
    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return False

    def heightForWidth(self, _width: int) -> int:  # noqa: N802 - Qt override
        return -1

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self._fit(event.size())
        super().resizeEvent(event)

    def changeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new text size: once all of it is in
            QTimer.singleShot(0, self, lambda: self._fit(self.size()))

    def _fit(self, size: Any) -> None:
        """Show what fits in `size`, in the order above; the tips wrap within the width."""
        layout = self.layout_
        margins = layout.contentsMargins()
        room = size.width() - margins.left() - margins.right()
        # A fixed width: at the width of its size hint the tips wrapped into more lines than
        # the height the layout gave them (the height at its full width).
        self.tips.setWordWrap(False)
        self.tips.setFixedWidth(max(1, min(self.tips.sizeHint().width(), room)))
        self.tips.setWordWrap(True)
        logo, tips = self._wanted
        title = not self.hint.text()  # with no hint the title stays
        for shown in ((logo, tips, True), (False, tips, True), (False, False, True),
                      (False, False, title)):
            for part, visible in zip((self.logo, self.tips, self.title), shown, strict=True):
                part.setVisible(visible)
            for part, height, gap in self._gaps:
                gap.changeSize(0, height if part.isVisibleTo(self) else 0, *FIXED_HEIGHT)
            layout.invalidate()
            if layout.totalHeightForWidth(size.width()) <= size.height():
                break
        layout.activate()  # laid out now, at this size (a request posted was not always seen)
