"""A document drawn in one colour scheme, its colours switched to the other's in place."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat

from app import theme

# The colours of the light design the conversation is drawn in (conversation_view, view_memory,
# view_learned, thinking_fold): text, speakers, times, notes, links, and the frames' tints.
DRAWN = (theme.TEXT, theme.MUTED, theme.MUTED_ON_TINT, theme.ACCENT, theme.LEARNED,
         theme.ERROR_RED, "#374151", theme.USER_TINT, theme.LEARNED_TINT, theme.CODE_TINT)


def recolour(document: QTextDocument, was_dark: bool) -> int:
    """Text and frame colours drawn in the scheme `was_dark` said, in the current one's (a
    temporary chat, which cannot be drawn again from the vault, kept the old scheme's: light
    question tints on the dark window). Returns how many runs and frames changed."""
    shift = {QColor(theme.color(light, was_dark)).rgb(): QColor(theme.color(light))
             for light in DRAWN}
    runs = []  # found first, changed after: a change may merge runs under the walk
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            shape = fragment.charFormat()
            new = shift.get(shape.foreground().color().rgb())
            if shape.hasProperty(QTextFormat.Property.ForegroundBrush) and new is not None:
                runs.append((fragment.position(), fragment.position() + fragment.length(), new))
            it += 1
        block = block.next()
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    for start, end, new in runs:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        colour = QTextCharFormat()
        colour.setForeground(QBrush(new))
        cursor.mergeCharFormat(colour)
    changed = len(runs)
    frames = [document.rootFrame()]
    while frames:
        frame = frames.pop()
        frames.extend(frame.childFrames())
        shape = frame.frameFormat()
        new = shift.get(shape.background().color().rgb())
        if shape.hasProperty(QTextFormat.Property.BackgroundBrush) and new is not None:
            shape.setBackground(QBrush(new))
            frame.setFrameFormat(shape)
            changed += 1
    cursor.endEditBlock()
    return changed
