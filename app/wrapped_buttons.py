"""Radio buttons and check boxes whose text goes onto more lines where their page is narrower
than the text: Qt draws a button's text on one line and will not make the button narrower."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QStyle,
    QStyleOptionButton,
    QStyleOptionFocusRect,
    QStylePainter,
)

# A button's text as Qt aligns it (its & marks a shortcut's letter), onto more lines
WRAP = (Qt.AlignmentFlag.AlignLeft.value | Qt.AlignmentFlag.AlignVCenter.value
        | Qt.TextFlag.TextShowMnemonic.value | Qt.TextFlag.TextWordWrap.value)


class WrappedButtons(QObject):
    """Watches its buttons: each may be as narrow as its longest word, and is as tall as its
    text needs at its width (its least height follows its width, as a wrapped label's does);
    while narrower than its text, it draws the text on as many lines as that takes. As wide as
    its text (at the normal text size, always), it is drawn as any other."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.buttons: list[QAbstractButton] = []

    def watch(self, *buttons: QAbstractButton) -> None:
        for button in buttons:
            self.buttons.append(button)
            button.installEventFilter(self)
            self._fit(button)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind in (QEvent.Type.Resize, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit(watched)
        elif kind == QEvent.Type.Paint and self._narrow(watched):
            self._paint(watched)
            return True
        return False

    @staticmethod
    def _parts(button: QAbstractButton) -> tuple[QStyleOptionButton, QRect, int]:
        """Its style option, where its text goes, and the width of the rest (box, spacing)."""
        option = QStyleOptionButton()
        button.initStyleOption(option)
        contents = (QStyle.SubElement.SE_CheckBoxContents if isinstance(button, QCheckBox)
                    else QStyle.SubElement.SE_RadioButtonContents)
        text = button.style().subElementRect(contents, option, button)
        return option, text, button.width() - text.width()

    def _narrow(self, button: QAbstractButton) -> bool:
        return button.width() < button.sizeHint().width()

    def _fit(self, button: QAbstractButton) -> None:
        """Its least width the longest word's, its least height that of its lines at its width
        (a minimum set wins over Qt's hint, which is the whole text on one line)."""
        metrics = button.fontMetrics()
        _, text, rest = self._parts(button)
        word = max((metrics.horizontalAdvance(w) for w in button.text().split()), default=0)
        button.setMinimumWidth(min(button.sizeHint().width(), rest + word + 2))
        one_line = button.sizeHint().height()
        height = one_line
        if self._narrow(button) and text.width() > 0:
            lines = metrics.boundingRect(QRect(0, 0, text.width(), 100_000), WRAP, button.text())
            height = max(one_line, lines.height() + one_line - metrics.height())
        if button.minimumHeight() != height:
            button.setMinimumHeight(height)

    def _paint(self, button: QAbstractButton) -> None:
        option, text, _ = self._parts(button)
        painter = QStylePainter(button)
        words = option.text
        focused = option.state & QStyle.StateFlag.State_HasFocus
        option.text = ""  # the box alone; the text below, on its lines
        option.state &= ~QStyle.StateFlag.State_HasFocus
        painter.drawControl(QStyle.ControlElement.CE_CheckBox if isinstance(button, QCheckBox)
                            else QStyle.ControlElement.CE_RadioButton, option)
        button.style().drawItemText(painter, text, WRAP, option.palette,
                                    button.isEnabled(), words, QPalette.ColorRole.WindowText)
        if focused:  # the keyboard's ring around the whole button, as the style draws it
            ring = QStyleOptionFocusRect()
            ring.initFrom(button)
            ring.rect = button.rect()
            painter.drawPrimitive(QStyle.PrimitiveElement.PE_FrameFocusRect, ring)
