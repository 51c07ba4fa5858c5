"""File → Back up memory…: an encrypted copy of the whole vault, written in a worker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QProgressDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe, show_message
from app.theme import pixels
from app.vault_dialogs import new_passphrase_problem, password_field
from app.workers import Worker
from engine.vault.cipher import MIN_PASSPHRASE  # one minimum everywhere


class CopyKeyDialog(QDialog):
    """For a memory whose key is in this computer's keyring: should the copy open on another
    computer too? If so, a passphrase for the copy, typed twice (the memory keeps its key)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Back up memory")
        text = QLabel(
            "This memory's key is in this computer's keyring, so a backup opens only on this "
            "computer, unless you give the copy a passphrase of its own. The memory keeps its "
            "key either way."
        )
        text.setWordWrap(True)
        text.setMinimumWidth(pixels(392))
        self.elsewhere = QCheckBox("Open it on another computer")
        self.elsewhere.setToolTip("Protect the copy with a passphrase of its own")
        self.passphrase = password_field(
            f"Passphrase for the copy (at least {MIN_PASSPHRASE} characters)"
        )
        self.confirm = password_field("The same passphrase again")
        self.error = QLabel(objectName="error")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.backup_button = QPushButton("Back up", objectName="primary")
        self.backup_button.setDefault(True)
        buttons.addButton(self.backup_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.elsewhere.toggled.connect(self._toggled)
        self.passphrase.textChanged.connect(self._update)
        self.confirm.textChanged.connect(self._update)
        self.confirm.returnPressed.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(12)
        for widget in (text, self.elsewhere, self.passphrase, self.confirm, self.error, buttons):
            layout.addWidget(widget)
        self._toggled(False)

    def problem(self) -> str:
        """Why the copy's passphrase cannot be used yet ('' when it can, or none is wanted)."""
        if not self.elsewhere.isChecked():
            return ""
        return new_passphrase_problem(self.passphrase.text(), self.confirm.text())

    def new_passphrase(self) -> str | None:
        """The copy's own passphrase, or None for a copy with the memory's key."""
        return self.passphrase.text() if self.elsewhere.isChecked() else None

    def accept(self) -> None:
        if not self.problem():  # Enter in a field with a short passphrase does nothing
            super().accept()

    def _toggled(self, wanted: bool) -> None:
        self.passphrase.setVisible(wanted)
        self.confirm.setVisible(wanted)
        # the error line keeps its room while the fields show: the dialog does not move
        # under the typing as its messages come and go
        policy = self.error.sizePolicy()
        policy.setRetainSizeWhenHidden(wanted)
        self.error.setSizePolicy(policy)
        self._update()
        if wanted:
            self.passphrase.setFocus()
        self.adjustSize()

    def _update(self) -> None:
        problem = self.problem()
        self.backup_button.setEnabled(not problem)
        shown = problem if problem and self.confirm.text() else ""  # said once both are typed
        self.error.setText(shown)
        self.error.setVisible(bool(shown))


def backup_memory(
    parent: QWidget, session: Any, path: str | None = None, *, force: bool = False
) -> Worker | CopyKeyDialog | None:
    """Ask where to save, then copy the vault in a worker behind a busy dialog. The save
    dialog has asked before replacing a file, so a file chosen there is replaced. A memory
    whose key is in the keyring is asked first whether the copy should open on another
    computer (CopyKeyDialog, returned; the copy starts when it is accepted)."""
    if path is None:
        suggested = f"{session.memory_name}-backup-{time.strftime('%Y-%m-%d')}.memoryos"
        path, _ = QFileDialog.getSaveFileName(
            parent, "Back up memory", str(Path.home() / suggested),
            "MemoryOS vault (*.memoryos)",
        )  # fmt: skip
        if not path:
            return None
        force = True
    if not session.mem.key_in_keyring:
        return _start(parent, session, path, force, None)
    from engine import errors
    from engine.vault.backup import check_target

    try:  # refused before a passphrase is typed: a missing folder, the vault itself, a file
        check_target(path, session.mem.path, force=force)
    except errors.InvalidInputError as exc:
        show_message(parent, "Backup failed", describe(exc), warning=True)
        return None
    dialog = CopyKeyDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.accepted.connect(lambda: _start(parent, session, path, force, dialog.new_passphrase()))
    dialog.open()
    return dialog


def _start(parent: QWidget, session: Any, path: str, force: bool, passphrase: str | None) -> Worker:
    dialog = QProgressDialog("Backing up your memory…", "", 0, 0, parent)  # 0, 0: busy
    dialog.setWindowTitle("Back up memory")
    dialog.setCancelButton(None)  # one copy of the file: nothing sensible to cancel midway
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    worker = Worker(session.mem.backup, path, force=force, passphrase=passphrase)

    def done(backup: Any) -> None:
        dialog.close()
        show_message(parent, "Back up memory", f"Your memory was backed up to\n{backup.path}\n\n"
                     f"{backup.how_to_open()}")  # fmt: skip

    def failed(error: Exception) -> None:
        dialog.close()
        show_message(parent, "Backup failed", describe(error), warning=True)

    worker.signals.returned.connect(done)
    worker.signals.errored.connect(failed)
    return session.pool.start(worker)
