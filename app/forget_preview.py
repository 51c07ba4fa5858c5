"""What a forget will also remove, gathered in a worker and shown before the person confirms."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget

from app.theme import pixels
from app.widgets import one_line, screen_room
from engine.forgetting import ForgetPreview

SHOWN_ITEMS = 8  # facts and profile entries listed by name in the dialog; the rest counted
QUOTED_CHARS = 80  # of the question of the one exchange forgotten, quoted in the dialog


@dataclass(frozen=True)
class Preview(ForgetPreview):
    """The engine's preview, with the question of the exchange it forgets when it is one:
    the dialog quotes it, as the chat's forget shows what goes."""

    said: str = ""


def page_ids(mem: Any, method: str, ids: list) -> list[int]:
    """The pages a forget_conversation / forget_segment / forget_page of `ids` reaches."""
    found: list[int] = []
    for item in ids:
        if method == "forget_conversation":
            found += [p.id for p in mem.pages(conversation_id=item, limit=1_000_000)]
        elif method == "forget_segment":
            found += [p.id for p in mem.segment_pages(int(item))]
        else:
            found.append(int(item))
    return sorted(set(found))


def preview(mem: Any, method: str, ids: list) -> tuple[list[int], Any]:
    """(page ids, ForgetPreview): runs in a worker, reads only. A conversation counts as
    renamed only when its title will change (engine/forgetting.py new_title: a title the
    person chose stays; one made from a forgotten first question is made again)."""
    pages = page_ids(mem, method, ids)
    found = mem.preview_forget_pages(pages)
    said = mem.page(pages[0]).user_input if len(pages) == 1 else ""
    return pages, Preview(**vars(found), said=one_line(said, QUOTED_CHARS))


def forget(mem: Any, pages: list[int]) -> Any:
    """The forget itself, on exactly the pages the person saw in the preview."""
    return mem.forget_pages(pages)


def preview_html(question: str, result: Any, shown: int = SHOWN_ITEMS) -> str:
    """The dialog's text; `shown`: how many facts and profile entries it names, the rest
    counted (none: the lines above count them)."""
    named = [*result.fact_texts, *result.slot_texts]
    counted = result.lines()
    if named and shown:  # the list below names them: their count lines would say it twice
        counted = [line for line in counted
                   if " learned only from " not in line and "profile entr" not in line]
    lines = "".join(f"<li>{escape(line)}</li>" for line in counted)
    items = "".join(f"<li>{escape(text)}</li>" for text in named[:shown])
    more = len(named) - shown
    if more > 0 and shown:
        items += f"<li>… and {more} more</li>"
    them = "it" if len(result.pages) == 1 else "them"  # the exchanges
    learned = f"<p>Learned only from {them}, and removed too:</p><ul>{items}</ul>" if items else ""
    said = getattr(result, "said", "")
    quote = f" “{said}”" if said else ""
    return (
        f"<p><b>{escape(question + quote)}?</b></p><p>This will:</p><ul>{lines}</ul>{learned}"
        "<p>Nothing of it stays in this memory; backups made before keep it. This cannot be "
        "undone.</p>"
    )


class PreviewBox(QMessageBox):
    """The confirm dialog with the preview. A message box takes the height of all its text and
    can be neither resized nor scrolled: at a large text size on a short screen the list went
    past the screen's bottom, Forget and Cancel with it. It uses the screen's width before its
    height, then names fewer items (the rest counted) until it fits."""

    def __init__(self, parent: QWidget, question: str, result: Any) -> None:
        super().__init__(QMessageBox.Icon.Question, "Forget", "",
                         QMessageBox.StandardButton.Cancel, parent)
        self.question, self.result = question, result
        self.shown = SHOWN_ITEMS  # the items named now
        self.setObjectName("forgetPreview")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText(preview_html(question, result))
        self.addButton("Forget", QMessageBox.ButtonRole.DestructiveRole)
        self.setDefaultButton(QMessageBox.StandardButton.Cancel)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)  # the box takes the size of its text here
        room, tallest = self.screen().availableGeometry(), screen_room(self)[1]
        centre = self.frameGeometry().center()  # where Qt put it, over its window
        label = self.findChild(QLabel, "qt_msgbox_label")  # Qt's name for the box's text
        if self.height() > tallest and label is not None:
            # at most 500 px wide whatever the text size, it wraps every line at large text;
            # as wide as Qt lets a box be on this screen (less the icon and margins) it wraps less
            widest = room.width() if room.width() <= 1024 else min(room.width() - 480, 1000)
            label.setMinimumWidth(min(pixels(440), widest - (self.width() - label.width())))
            self._size_again()
        while self.height() > tallest and self.shown > 0:
            self.shown -= 1
            self.setText(preview_html(self.question, self.result, self.shown))
            self._size_again()
        frame = self.frameGeometry()  # still centred there, and on the screen
        frame.moveCenter(centre)
        frame.moveLeft(max(room.left(), min(frame.left(), room.right() + 1 - frame.width())))
        frame.moveTop(max(room.top(), min(frame.top(), room.bottom() + 1 - frame.height())))
        self.move(frame.topLeft())

    def _size_again(self) -> None:
        """A message box sizes itself on a layout request; sent, it does so at once."""
        QApplication.sendEvent(self, QEvent(QEvent.Type.LayoutRequest))


def confirm(parent: QWidget, question: str, result: Any) -> bool:
    """The confirm dialog with the preview; True if the person chose Forget."""
    box = PreviewBox(parent, question, result)
    box.exec()
    clicked = box.clickedButton()
    return clicked is not None and box.buttonRole(clicked) == QMessageBox.ButtonRole.DestructiveRole
