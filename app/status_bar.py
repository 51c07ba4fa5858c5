"""The status line: which model and whether it is loaded, which vault, what consolidation is doing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from app.icons import pixmap
from app.session import FAILED, LOADING, NO_MODEL, READY, UNREACHABLE
from app.theme import pixels

DOTS = {
    READY: "#12B76A",
    LOADING: "#F79009",
    FAILED: "#D92D20",
    UNREACHABLE: "#D92D20",
    NO_MODEL: "#98A2B3",
}
# What to do when the chosen server stops answering, under its message in the tooltip.
UNREACHABLE_TIP = (
    "Start the server again and send your message again, or choose another model "
    "(Tools → Choose a model, Ctrl+M)."
)


def _dot(color: str) -> str:
    return f"<span style='color:{color}; font-size:11pt'>●</span>"


# What the counts are: an answer's "Used N memories" also counts the exchanges just before the
# question ("recent exchanges"), which need not all be in the short-term queue any more.
MEMORY_TIP = (
    "recent: exchanges in the short-term queue, kept word for word until they move to a topic\n"
    "topics: mid-term segments, ranked by heat\n"
    "facts: what Privacy (Ctrl+P) lists: {facts} and {profile}\n"
    "Memory → Inspector (Ctrl+I) shows each tier."
)


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def memory_tip(status: Any) -> str:
    """MEMORY_TIP with the long-term count split as Privacy shows it."""
    return MEMORY_TIP.format(
        facts=_count(status.facts, "fact or note of what the assistant said",
                     "facts and notes of what the assistant said"),
        profile=_count(status.profile, "profile entry", "profile entries"),
    )


def memory_text(status: Any) -> str:
    """'12 recent · 3 topics · 5 facts · consolidating (2 jobs)' from a ConsolidationStatus.
    Work that is no queued job (the short-term queue moving to a topic) shows as plain
    "consolidating": it read "consolidating (0 jobs left)" for as long as it took. "Facts"
    counts the profile entries too, as the Privacy panel lists them (the tooltip splits it):
    it said "2 facts" beside a Privacy list of four."""
    known = status.facts + status.profile
    parts = [
        f"{status.short_term_pages} recent",
        f"{status.segments} topic{'s' if status.segments != 1 else ''}",
        f"{known} fact{'s' if known != 1 else ''}",
    ]
    jobs = f"{status.pending_jobs} job{'s' if status.pending_jobs != 1 else ''}"
    if status.running:
        parts.append(f"consolidating ({jobs})" if status.pending_jobs else "consolidating")
    elif status.pending_jobs:
        parts.append(f"{jobs} queued")
    else:
        parts.append("up to date")
    if status.failed_jobs:
        parts.append(f"{status.failed_jobs} failed")
    return " · ".join(parts)


class StatusLine(QStatusBar):
    """Model (with load progress), vault and memory activity, left to right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self.model = QLabel()
        self.model.setTextFormat(Qt.TextFormat.RichText)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(pixels(120))
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.vault_icon = QLabel()
        self.vault_icon.setPixmap(pixmap("lock", 14, "#6B7280"))
        self.vault = QLabel()
        self.memory = QLabel()
        self.memory.setTextFormat(Qt.TextFormat.RichText)
        self.addWidget(self.model)
        self.addWidget(self.progress)
        self.remote = QLabel()  # shown only while the model is not on this computer
        self.remote.setTextFormat(Qt.TextFormat.RichText)
        self.remote.hide()
        self.addPermanentWidget(self.remote)
        self.addPermanentWidget(self.memory)
        self.addPermanentWidget(self.vault_icon)
        self.addPermanentWidget(self.vault)
        self.set_model(NO_MODEL, "")
        self.vault.setText("Vault locked")
        self.memory.setText("")

    def set_model(self, state: str, text: str) -> None:
        from app.model_choice import short_model_name

        label = {
            READY: short_model_name(text) or "Model ready",  # the whole id is in the tooltip
            LOADING: f"Loading {text}…" if text else "Loading the model…",
            FAILED: "Model not loaded",
            UNREACHABLE: "Server not answering",
            NO_MODEL: "No model",
        }[state]
        self.model.setText(f"{_dot(DOTS[state])}&nbsp; {label}")
        tips = {READY: text, FAILED: text, UNREACHABLE: f"{text}\n{UNREACHABLE_TIP}"}
        self.model.setToolTip(tips.get(state, ""))
        self.progress.setVisible(state == LOADING)
        if state == LOADING:
            self.progress.setRange(0, 0)  # busy until the backend reports a fraction

    def set_remote(self, host: str) -> None:
        from app.outgoing import remote_badge, remote_tooltip

        self.remote.setText(remote_badge(host))
        self.remote.setToolTip(remote_tooltip(host) if host else "")
        self.remote.setVisible(bool(host))

    def set_progress(self, fraction: float, label: str) -> None:
        self.progress.setRange(0, 100)
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(label)

    def set_vault(self, name: str, key_location: str) -> None:
        where = "passphrase" if "passphrase" in key_location else "keyring"
        self.vault.setText(f"{name} · {where}")
        self.vault.setToolTip(f"Encrypted vault; key: {key_location}")

    def set_memory(self, status: Any) -> None:
        """Show a ConsolidationStatus; None (the vault was locked or closed) clears the counts."""
        if status is None:
            self.memory.setText("")
            self.memory.setToolTip("")
            return
        busy = status.running
        self.memory.setText(f"{_dot('#4F5FE8' if busy else '#98A2B3')}&nbsp; {memory_text(status)}")
        tip = memory_tip(status)
        tip += f"\n\nLast error: {status.last_error}" if status.last_error else ""
        self.memory.setToolTip(tip)
