"""Character formats for the conversation document; the Markdown of an answer streaming in."""

from __future__ import annotations

import re

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


_LIST_ITEM = re.compile(r"([-+*]|\d{1,9}[.)])(\s|$)")


def _opened_fence(line: str) -> str:
    """The fence a line opens (``` or ~~~, as long as written), or ''."""
    stripped = line.lstrip()
    for char in "`~":
        if stripped.startswith(char * 3):
            return char * (len(stripped) - len(stripped.lstrip(char)))
    return ""


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


def finished_end(markdown: str, start: int = 0) -> int:
    """How much of a growing Markdown text (an answer streaming in) is finished blocks, which
    what comes next cannot change: up to the last blank line, outside code fences, that the
    first line of a new block follows. Not before a list item or an indented line: those may
    still belong to a list above. `start`: an earlier end (it only moves on)."""
    lines = markdown[start:].split("\n")[:-1]  # the last line is still being written
    end = offset = start
    fence = ""
    blank = False
    for line in lines:
        if fence:
            fence = "" if _closes(line, fence) else fence
        else:
            if blank and line.strip() and not line[0].isspace() and not _LIST_ITEM.match(line):
                end = offset
            fence = _opened_fence(line)
            blank = not line.strip()
        offset += len(line) + 1
    return end


def unfinished_markdown(markdown: str) -> str:
    """The end of a growing Markdown text as it is shown while it grows: a code fence still
    open is closed, so the code shows as a code block in progress; bold or code begun on the
    last lines is closed too, or left out while nothing follows it yet (no stray ** or `)."""
    lines = markdown.split("\n")
    fence = ""
    for line in lines:
        fence = ("" if _closes(line, fence) else fence) if fence else _opened_fence(line)
    last = lines[-1].strip()
    if last and len(last) < 3 and not last.strip("`~"):  # a fence being written
        lines = lines[:-1]
    text = "\n".join(lines)
    if fence:
        return f"{text}\n{fence}"
    head, gap, paragraph = text.rpartition("\n\n")
    if paragraph.count("`") % 2:
        paragraph = _close(paragraph, "`")
    outside_code = re.sub(r"`[^`]*`", "", paragraph)
    if outside_code.count("*") % 2 and re.search(r"[^*]\*$", paragraph):  # half of a **
        paragraph = paragraph[:-1]
        outside_code = outside_code[:-1]
    if outside_code.count("**") % 2:
        paragraph = _close(paragraph, "**")
    return head + gap + paragraph


def _close(paragraph: str, mark: str) -> str:
    """`mark` closed at the end of the paragraph, or taken away if nothing follows it yet."""
    before, _, after = paragraph.rpartition(mark)
    if not after.strip():
        return before.rstrip()
    return paragraph.rstrip() + mark
