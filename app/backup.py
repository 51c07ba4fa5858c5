"""File → Back up memory…: an encrypted copy of the whole vault, written in a worker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from app.errors import describe, show_message
from app.workers import Worker


def backup_memory(
    parent: QWidget, session: Any, path: str | None = None, *, force: bool = False
) -> Worker | None:
    """Ask where to save, then copy the vault in a worker behind a busy dialog. The save
    dialog has asked before replacing a file, so a file chosen there is replaced."""
    if path is None:
        suggested = f"{session.memory_name}-backup-{time.strftime('%Y-%m-%d')}.memoryos"
        path, _ = QFileDialog.getSaveFileName(
            parent, "Back up memory", str(Path.home() / suggested),
            "MemoryOS vault (*.memoryos)",
        )  # fmt: skip
        if not path:
            return None
        force = True
    dialog = QProgressDialog("Backing up your memory…", "", 0, 0, parent)  # 0, 0: busy
    dialog.setWindowTitle("Back up memory")
    dialog.setCancelButton(None)  # one copy of the file: nothing sensible to cancel midway
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    worker = Worker(session.mem.backup, path, force=force)

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
