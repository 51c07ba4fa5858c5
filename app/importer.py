"""Import conversation transcripts (JSON) into memory, in a worker with progress and Cancel."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from app.errors import describe, show_message
from app.workers import Worker


def import_exchanges(mem: Any, path: str) -> Iterator[tuple[int, int]]:
    """Add every exchange of the transcript; yields (done, total) so the worker reports progress.

    Each transcript conversation gets its own id, so the conversation on screen is untouched.
    """
    from engine import transcripts

    exchanges = transcripts.read(path)
    ids: dict[str | None, str] = {}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for done, exchange in enumerate(exchanges, start=1):
        if exchange.conversation not in ids:
            ids[exchange.conversation] = f"import-{stamp}-{uuid.uuid4().hex[:6]}"
        mem.add_memory(exchange.user_input, exchange.agent_response, exchange.timestamp,
                       exchange.meta, conversation_id=ids[exchange.conversation], source="import")
        yield done, len(exchanges)
    return len(exchanges)


def import_transcript(parent: QWidget, session: Any, path: str | None = None) -> Worker | None:
    """Ask for a file, then import it behind a progress dialog that can cancel between exchanges."""
    if path is None:
        path, _ = QFileDialog.getOpenFileName(
            parent, "Import conversations", str(Path.home()), "JSON transcripts (*.json);;All files (*)"
        )
        if not path:
            return None
    dialog = QProgressDialog("Importing conversations…", "Stop", 0, 100, parent)
    dialog.setWindowTitle("Import")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setValue(0)
    worker = Worker(import_exchanges, session.mem, path)
    state = {"done": 0}

    def step(progress: tuple[int, int]) -> None:
        state["done"], total = progress
        dialog.setLabelText(f"Imported {state['done']} of {total} exchanges…")
        dialog.setValue(int(100 * state["done"] / max(1, total)))

    def finished(_count: object) -> None:
        dialog.close()
        stopped = " (stopped)" if worker.cancelled else ""
        show_message(parent, "Import", f"Imported {state['done']} exchanges{stopped}. "
                     "Consolidation continues in the background.")

    def failed(error: Exception) -> None:
        dialog.close()
        show_message(parent, "Import failed", f"{describe(error)}\n\n{state['done']} exchanges "
                     "were imported before the problem.", warning=True)

    dialog.canceled.connect(worker.cancel)
    worker.signals.yielded.connect(step)
    worker.signals.returned.connect(finished)
    worker.signals.errored.connect(failed)
    return session.pool.start(worker)
