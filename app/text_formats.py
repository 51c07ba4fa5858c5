"""Character formats for the conversation document, in the current scheme's colours and size."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor, QFont, QTextCharFormat

from app import theme


def char_format(
    color: str, *, bold: bool = False, italic: bool = False, size: float = 0
) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QBrush(QColor(theme.color(color))))  # colours of the light design, mapped
    if bold:
        fmt.setFontWeight(QFont.Weight.DemiBold)
    fmt.setFontItalic(italic)
    if size:
        fmt.setFontPointSize(theme.points(size))
    return fmt


def link_format(href: str, color: str = theme.ACCENT, size: float = 9) -> QTextCharFormat:
    fmt = char_format(color, size=size)
    fmt.setAnchor(True)
    fmt.setAnchorHref(href)
    return fmt
