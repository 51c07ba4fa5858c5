"""Export everything to JSON (with progress) and erase everything (with a strong confirmation)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe, show_message
from app.theme import pixels
from app.widgets import fit_to_lines
from app.workers import Worker

ERASE_WORD = "erase"


def write_export(mem: Any, path: str, progress: Any = None) -> tuple[str, str]:
    """Read everything from the vault and write it as JSON readable only by this user: (the
    file, what a damaged vault could not give it, "" for nothing)."""
    from engine.export import check_target, unreadable_text

    target = check_target(path)  # a folder that does not exist: refused, named, nothing made
    if progress:
        progress(0.05, "Reading the vault")
    data = mem.export_json()
    if progress:
        progress(0.6, "Writing the file")
    handle, temp = tempfile.mkstemp(prefix=".export-", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(temp, 0o600)  # it holds everything the assistant knows about the person
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, indent=2, default=str)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if progress:
        progress(1.0, "Done")
    return str(target), unreadable_text(data)


def export_memory(parent: QWidget, session: Any, path: str | None = None) -> Worker | None:
    """Ask where to save, then export in a worker behind a progress dialog."""
    if path is None:
        path, _ = QFileDialog.getSaveFileName(
            parent, "Export everything MemoryOS remembers",
            str(Path.home() / "memoryos-export.json"), "JSON files (*.json)",
        )
        if not path:
            return None
    dialog = QProgressDialog("Exporting your memory…", "", 0, 100, parent)
    dialog.setWindowTitle("Export")
    dialog.setCancelButton(None)  # one read and one write: nothing sensible to cancel midway
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setValue(0)
    worker = Worker(write_export, session.mem, path, progress=True)

    def step(fraction: float, label: str) -> None:
        dialog.setLabelText(f"{label}…")
        dialog.setValue(int(fraction * 100))

    def done(result: tuple[str, str]) -> None:
        written, damaged = result
        dialog.close()
        said = f"{damaged}\n\nWhat could be read" if damaged else "Everything"
        show_message(parent, "Export", f"{said} was exported to\n{written}\n\n"
                     "This copy is not encrypted: only your account can open it, but anyone "
                     "with access to it can read all of it. Delete it when you are done.")  # fmt: skip

    def failed(error: Exception) -> None:
        dialog.close()
        show_message(parent, "Export failed", describe(error), warning=True)

    worker.signals.progress.connect(step)
    worker.signals.returned.connect(done)
    worker.signals.errored.connect(failed)
    return session.pool.start(worker)


class EraseDialog(QDialog):
    """Asks the person to type a word before the vault and its key are deleted for good."""

    def __init__(self, vault_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Erase everything")
        title = QLabel("Erase everything MemoryOS remembers?", objectName="title")
        from engine.policy import current

        # Export off by the administrator's policy: no advice to do what cannot be done.
        copy = ("Export is turned off by your administrator: no copy can be made first."
                if current().export_forbidden else "Export first if you want a copy.")
        text = QLabel(
            f"This deletes the vault <b>{vault_name}</b>: every conversation, topic, fact and "
            f"profile entry, and the encryption key. It cannot be undone. {copy}"
            f"<br><br>Type <b>{ERASE_WORD}</b> to confirm."
        )
        text.setWordWrap(True)
        # the width is the text's, not the dialog's: set on the dialog, it let the dialog be
        # made narrower than its title, which was cut
        text.setMinimumWidth(pixels(392))
        self.word = QLineEdit()
        self.word.setPlaceholderText(ERASE_WORD)
        self.word.setAccessibleName(f"Type {ERASE_WORD} to confirm")  # the label is no buddy
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.erase_button = QPushButton("Erase everything", objectName="dangerSolid")
        self.erase_button.setEnabled(False)
        self.erase_button.setAutoDefault(False)
        buttons.addButton(self.erase_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.word.textChanged.connect(
            lambda value: self.erase_button.setEnabled(value.strip().lower() == ERASE_WORD)
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(12)
        layout.addWidget(title)
        layout.addWidget(text)
        layout.addWidget(self.word)
        layout.addWidget(buttons)
        fit_to_lines(self)


def confirm_erase(parent: QWidget, vault_name: str) -> bool:
    return EraseDialog(vault_name, parent).exec() == QDialog.DialogCode.Accepted


def erase_vault_file(path: Any) -> None:
    """Delete the vault file, its -wal/-shm files and its keyring key (in a worker)."""
    from engine.api import erase_vault

    erase_vault(path)
