"""What leaves the computer, shown: the remote marker texts and the inspector's "Sent" tab."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtWidgets import QLabel, QTreeWidgetItem, QVBoxLayout, QWidget

from app import theme
from app.widgets import WithPlaceholder, make_tree, when

# Colours of the light design; theme.color() gives them as the current scheme shows them (the
# amber as it was, 3.0:1 on the dark window, was too dark to read there).
REMOTE_COLOR = "#B54708"
LOCAL_COLOR = "#067647"
TEMPORARY_TEXT = (
    "Temporary chat: nothing from this conversation is saved, and MemoryOS won't learn "
    "from it. It can still use what it already remembers."
)


def remote_badge(host: str) -> str:
    """Rich text for the status bar: empty when the model is on this computer."""
    if not host:
        return ""
    shade = theme.color(REMOTE_COLOR)
    return f"<span style='color:{shade}'>▲ Remote model: {escape(host)}</span>"


def remote_tooltip(host: str) -> str:
    return (
        f"The model runs on {host}, not on this computer: each question and the memories "
        "used to answer it are sent there. Background memory work is sent only if allowed "
        "in Settings › Memory."
    )


def temporary_text(host: str) -> str:
    """The temporary-chat banner: says where the question goes when the model is remote."""
    if not host:
        return TEMPORARY_TEXT
    return (
        f"{TEMPORARY_TEXT} Remote model: your question and the memories used to answer it "
        f"are sent to {host}, which is not on this computer."
    )


def url_note(url: str) -> str:
    """Under the server URL in Settings: whether it is this computer."""
    from engine.network import destination, is_loopback

    if not url.strip():
        return ""
    if is_loopback(url):
        return (f"<span style='color:{theme.color(LOCAL_COLOR)}'>● On this computer: nothing "
                "leaves it.</span>")
    return (
        f"<span style='color:{theme.color(REMOTE_COLOR)}'>▲ Remote: {escape(destination(url))} "
        "is not this computer. Questions and the memories used to answer them are sent there; "
        "background memory work only if allowed in the Memory tab.</span>"
    )


class SentTab(QWidget):
    """Per answer (and per background call): what was sent where, in characters."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        hint = QLabel(
            "Every request to a model, newest first: where it went and how many characters "
            "were sent and received. Requests to “this computer” never left it.",
            objectName="hint",
        )
        hint.setWordWrap(True)
        self.tree = make_tree(["When", "For", "Sent to", "Characters sent", "Received"], stretch=2)
        self.box = WithPlaceholder(self.tree, "Nothing was sent to a model yet in this session.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.setSpacing(10)
        layout.addWidget(hint)
        layout.addWidget(self.box, 1)

    def draw(self, transfers: list[Any]) -> None:
        self.tree.clear()
        for item in reversed(transfers):
            where = f"{item.destination} (remote)" if item.remote else item.destination
            row = QTreeWidgetItem(
                [
                    when(item.when),
                    item.purpose,
                    where,
                    f"{item.characters_sent:,}",
                    f"{item.characters_received:,}",
                ]
            )
            self.tree.addTopLevelItem(row)
        self.box.set_empty(not transfers)
