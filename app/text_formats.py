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


_FIXED: list[str] = []


def fixed_family() -> str:
    """A family that really is fixed-pitch, for code. The system's fixed font is often only
    named 'monospace', which fontconfig may resolve to a family that is not (Noto Sans Mono
    here, offscreen); then the first installed family that is fixed-pitch is used."""
    if not _FIXED:
        from PySide6.QtGui import QFontDatabase, QFontInfo

        system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        if QFontInfo(system).fixedPitch():
            _FIXED.append(system.family())
        else:
            known = ("DejaVu Sans Mono", "Noto Mono", "Liberation Mono", "Menlo", "Consolas",
                     "Courier New")  # fmt: skip
            found = [f for f in known if QFontDatabase.hasFamily(f)]
            found += QFontDatabase.families()
            _FIXED.append(
                next((f for f in found if QFontDatabase.isFixedPitch(f)), system.family())
            )
    return _FIXED[0]


_FENCES = ("```", "~~~")


def keep_line_breaks(markdown: str) -> str:
    """A model's single line breaks as written (a poem, an address, steps on lines of their
    own): Markdown joins such lines into one paragraph, so each gets a hard break (two spaces),
    outside code blocks and tables. The answer streamed line by line, then read as one line."""
    lines = markdown.split("\n")
    out: list[str] = []
    fenced = False
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(_FENCES):
            fenced = not fenced
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        joined = line.strip() and following and not following.startswith(_FENCES)
        if joined and not fenced and not stripped.startswith(("|", "```", "~~~")):
            line = line.rstrip() + "  "
        out.append(line)
    return "\n".join(out)
