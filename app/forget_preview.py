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
    """(page ids, ForgetPreview): runs in a worker, reads only. A conversation counts as
    renamed only when its title will change (the forget retitles every conversation that
    keeps exchanges, from its first remaining question: often the title it already has)."""
    from dataclasses import replace

    pages = page_ids(mem, method, ids)
    result = mem.preview_forget_pages(pages)
    if result.conversations_retitled:
        titles = {c.id: c.title for c in mem.conversations()}
        retitled = [c for c in result.conversations_retitled
                    if _retitled(mem, c, titles.get(c), pages)]  # fmt: skip
        result = replace(result, conversations_retitled=retitled)
    return pages, result


def _retitled(mem: Any, conversation_id: str, old: str | None, forgotten: list[int]) -> bool:
    """Will forgetting `forgotten` change this conversation's title? As the forget names it:
    from the first exchange that stays (engine/forgetting.py, vault.retitle_conversation)."""
    from engine.forgetting import title_of

    gone = set(forgotten)
    kept = (p for p in mem.pages(conversation_id=conversation_id, limit=1_000_000)
            if p.id not in gone)  # fmt: skip
    first = next(kept, None)
    if first is None:
        return False
    return old != title_of(first.user_input or first.agent_response)


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
    them = "it" if len(result.pages) == 1 else "them"  # the exchanges
    learned = f"<p>Learned only from {them}, and removed too:</p><ul>{items}</ul>" if items else ""
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
