"""What a forget will also remove, gathered in a worker and shown before the person confirms."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

SHOWN_ITEMS = 8  # facts and profile entries listed by name in the dialog; the rest counted


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
    """(page ids, ForgetPreview): runs in a worker, reads only."""
    pages = page_ids(mem, method, ids)
    return pages, mem.preview_forget_pages(pages)


def forget(mem: Any, pages: list[int]) -> Any:
    """The forget itself, on exactly the pages the person saw in the preview."""
    return mem.forget_pages(pages)


def preview_html(question: str, result: Any) -> str:
    lines = "".join(f"<li>{escape(line)}</li>" for line in result.lines())
    named = [*result.fact_texts, *result.slot_texts]
    items = "".join(f"<li>{escape(text)}</li>" for text in named[:SHOWN_ITEMS])
    more = len(named) - SHOWN_ITEMS
    if more > 0:
        items += f"<li>… and {more} more</li>"
    learned = f"<p>Learned only from them, and removed too:</p><ul>{items}</ul>" if items else ""
    return (
        f"<p><b>{escape(question)}?</b></p><p>This will:</p><ul>{lines}</ul>{learned}"
        "<p>Nothing of it stays on this computer. This cannot be undone.</p>"
    )


def confirm(parent: QWidget, question: str, result: Any) -> bool:
    """The confirm dialog with the preview; True if the person chose Forget."""
    box = QMessageBox(
        QMessageBox.Icon.Question, "Forget", "", QMessageBox.StandardButton.Cancel, parent
    )
    box.setObjectName("forgetPreview")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(preview_html(question, result))
    box.addButton("Forget", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return clicked is not None and box.buttonRole(clicked) == QMessageBox.ButtonRole.DestructiveRole
