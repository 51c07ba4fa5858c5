"""The privacy panel's size: fields, wrapped lines and buttons kept whole on any screen."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QStyle, QStyleOptionButton

from app.widgets import screen_room


class PanelSizeMixin:
    """How much room the privacy panel needs at the text size and screen it has, and where the
    last change's note goes. A mixin of PrivacyPanel (kept apart so the panel's own module
    stays small)."""

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # the text size changed, a note came
            self._keep_lines_whole()
        return handled

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._keep_lines_whole()

    def _keep_lines_whole(self) -> None:
        """Made as small as it goes at a large text size, the panel squeezed its search field
        and buttons: the style sheet's least heights are those of the normal text size, and a
        window's least height counts no wrapped line. Each field keeps the height its text
        needs, and the panel the height its wrapped lines need at its least width."""
        if not hasattr(self, "_fields"):
            return  # not built yet
        undo = self.undo_button
        widest = max(undo.fontMetrics().horizontalAdvance(text)
                     for text in ("Undo delete", "Undo edit", undo.text())) + 1  # rounded down
        option = QStyleOptionButton()
        undo.initStyleOption(option)
        wide = undo.style().sizeFromContents(
            QStyle.ContentsType.CT_PushButton, option,
            QSize(widest, undo.fontMetrics().height()), undo).width()
        if undo.minimumWidth() != wide:
            undo.setMinimumWidth(wide)
        place = wide + self.note_place.layout().spacing()
        if self.note_place.minimumWidth() != place:
            self.note_place.setMinimumWidth(place)
        for field in self._fields:
            need = field.sizeHint().height()
            if field.minimumHeight() != need:
                field.setMinimumHeight(need)
        room_width, room_height = screen_room(self)
        self._place_note(room_width)
        layout = self.layout()
        margins = layout.contentsMargins()
        inner = layout.contentsRect().width() if self.isVisible() else 0
        # The subtitle and the tabs keep all their least size where the screen has room for
        # it; where it has not, they give up the height it lacks, and scroll
        middle = self.middle.widget()
        wide = min(middle.minimumSizeHint().width(),
                   room_width - margins.left() - margins.right())
        if self.middle.minimumWidth() != wide:
            self.middle.setMinimumWidth(wide)
        width = max(self.minimumWidth(), wide + margins.left() + margins.right())
        need = middle.layout().totalMinimumHeightForWidth(
            max(inner, width - margins.left() - margins.right()))
        # The title, the buttons (the note wrapped at this width) and the spaces between
        inside = max(inner, width - margins.left() - margins.right())
        bottom = self._buttons_row.parent()
        rest = (margins.top() + margins.bottom() + 2 * layout.spacing()
                + self._title.minimumSizeHint().height()
                + (bottom.totalMinimumHeightForWidth(inside) if bottom.hasHeightForWidth()
                   else bottom.totalMinimumSize().height()))
        tall = max(need - max(0, rest + need - room_height), 0)
        if self.middle.minimumHeight() != tall:
            self.middle.setMinimumHeight(tall)
        least = min(rest + tall, room_height)
        if least != self.minimumHeight():
            self.setMinimumHeight(least)
        if self.width() > room_width and self.minimumWidth() <= room_width:
            self.resize(room_width, self.height())  # widened by the note's first place

    def _place_note(self, room_width: int) -> None:
        """The last change's note and Undo beside the buttons, or, where the screen is too
        narrow for them there (at the largest text on a 1366x768 laptop at 1.5x the row was
        996 px wide of 871), on a line of their own above the buttons."""
        row, note = self._buttons_row, self._note_row
        margins = self.layout().contentsMargins()
        place = self.note_place
        buttons = [row.itemAt(i).widget() for i in range(row.count())]
        buttons = [w for w in buttons if w is not None and w is not place]
        # The buttons, the note's place, the space before it and those between them
        beside = (sum(w.minimumSizeHint().width() for w in buttons) + place.minimumWidth()
                  + 12 + row.spacing() * (len(buttons) + 1) + margins.left() + margins.right())
        above = beside > room_width
        if above == (note.indexOf(place) >= 0):
            return
        close = buttons[-1]
        (row if above else note).removeWidget(place)
        if above:
            row.insertStretch(row.indexOf(close), 1)
            note.addWidget(place, 1)
        else:
            row.removeItem(row.itemAt(row.indexOf(close) - 1))  # the stretch
            row.insertWidget(row.indexOf(close), place, 1)

