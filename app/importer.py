"""Import conversation transcripts (JSON) into memory, in a worker with progress and Cancel."""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QProgressDialog, QWidget

from app.errors import describe, show_message
from app.workers import Worker


@dataclass(frozen=True)
class TranscriptImported:
    """What a transcript import found: exchanges the memory already held (not added again) and
    what the retention setting will forget of the rest ("" for nothing)."""

    already: int = 0
    note: str = ""


def import_exchanges(
    mem: Any, path: str, progress: Any = None
) -> Iterator[tuple[int, int, int]]:
    """Add every exchange of the transcript the memory does not hold yet (the same question,
    answer and time: engine.transcripts.held), a batch at a time; yields (done, total,
    conversations stored into) after each batch so the worker reports progress, and Stop keeps
    the batches stored.

    Each transcript conversation gets its own id, so the conversation on screen is untouched;
    one an earlier import stopped part-way is continued.
    A MemoryOS export ("Export everything", `memoryos export`) is restored instead, all or
    nothing, reporting through `progress(fraction, label)`; it returns the restore's report.
    A transcript returns a TranscriptImported.
    """
    from engine import forgetting, restore, transcripts

    data = transcripts.load(path)
    if restore.is_export(data):
        def embedded(done: int, total: int) -> None:
            if progress is not None:
                progress(done / max(1, total), f"Restoring the export: {done} of {total} exchanges…")

        return restore.restore(mem, data, progress=embedded)
    # imported before (a run stopped part-way): skipped, and their conversations continued
    exchanges, already, ids = transcripts.held(mem, transcripts.exchanges_of(data))
    note = forgetting.retention_note(
        mem.retention()[0], [e.timestamp for e in exchanges], time.time()
    )
    into: set = set()
    for done in transcripts.store(mem, exchanges, ids, into=into):
        yield done, len(exchanges), len(into)
    return TranscriptImported(already, note)


def _progress_dialog(parent: QWidget, label: str, cancel: str) -> QProgressDialog:
    """A window-modal import progress dialog, shown at once at 0%."""
    dialog = QProgressDialog(label, cancel, 0, 100, parent)
    dialog.setWindowTitle("Import")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setValue(0)
    return dialog


def import_transcript(parent: QWidget, session: Any, path: str | None = None) -> Worker | None:
    """Ask for a file, then import it behind a progress dialog that can cancel between exchanges."""
    if path is None:
        path, _ = QFileDialog.getOpenFileName(
            parent, "Import conversations", str(Path.home()),
            "JSON transcripts or a MemoryOS export (*.json);;All files (*)"
        )
        if not path:
            return None
    dialog = _progress_dialog(parent, "Importing conversations…", "Stop")
    worker = Worker(import_exchanges, session.mem, path, progress=True)
    state = {"done": 0, "conversations": 0}

    def step(progress: tuple[int, int, int]) -> None:
        state["done"], total, state["conversations"] = progress
        dialog.setLabelText(f"Imported {state['done']} of {total} exchanges…")
        dialog.setValue(int(100 * state["done"] / max(1, total)))

    def restoring(fraction: float, label: str) -> None:
        dialog.setCancelButton(None)  # a restore is all or nothing: it cannot stop half way
        dialog.setLabelText(label)
        dialog.setValue(int(100 * fraction))

    def finished(result: object) -> None:
        # Read before closing: closing a QProgressDialog emits `canceled`, as Stop does.
        stopped = " (stopped)" if worker.cancelled else ""
        dialog.close()
        if hasattr(result, "lines"):  # an export restored
            hint = _forgotten_hint(result, path, session.mem.path)
            show_message(parent, "Restore", "\n".join(result.lines() + hint))
            return
        found = result if isinstance(result, TranscriptImported) else TranscriptImported()
        note = found.note  # what retention will forget
        show_message(parent, "Import", _transcript_report(state["done"], found.already, stopped,
                                                           state["conversations"])
                     + (f"\n\n{note}" if note else ""), warning=bool(note))  # fmt: skip

    def failed(error: Exception) -> None:
        dialog.close()
        text = describe(error)
        done = state["done"]  # the file is read and checked first: usually nothing went in
        after = (
            "Nothing was imported."
            if done == 0
            else f"{done} exchanges were imported before the problem."
        )
        show_message(parent, "Import failed", f"{text[:1].upper()}{text[1:]}\n\n{after}",
                     warning=True)  # fmt: skip

    dialog.canceled.connect(worker.cancel)
    worker.signals.yielded.connect(step)
    worker.signals.progress.connect(restoring)
    worker.signals.returned.connect(finished)
    worker.signals.errored.connect(failed)
    return session.pool.start(worker)


def _forgotten_hint(report: Any, path: str, vault: Any) -> list[str]:
    """How to bring back what a restore left out because it was forgotten after the export
    (the app restores without it: a forget is not undone by a click on an old file)."""
    if not report.forgotten or report.forgotten_included:
        return []
    return [
        "",
        "To bring those back too, restore the file in a terminal with: memoryos import "
        f"{shlex.quote(str(path))} --vault-path {shlex.quote(str(vault))} --include-forgotten",
    ]


def _transcript_report(done: int, already: int, stopped: str, conversations: int = 1) -> str:
    """'Imported 2 exchanges. 3 exchanges were already in this memory …', 'Imported 40
    exchanges in 3 conversations.', in words."""
    from engine.terminal.wording import count
    from engine.transcripts import in_conversations

    if already and not done and not stopped:
        return (f"Everything in this file is already in this memory: nothing new was added "
                f"({count(already, 'exchange')}).")  # fmt: skip
    text = f"Imported {count(done, 'exchange')}{in_conversations(conversations)}{stopped}."
    if already:
        verb = "was" if already == 1 else "were"
        text += f" {count(already, 'exchange')} {verb} already in this memory, not added again."
    return f"{text} Consolidation continues in the background."


def import_reference_steps(mem: Any, folder: str, user_id: str | None) -> Iterator[tuple[int, int]]:
    """Read and import a reference MemoryOS data folder; yields (done, total) and returns what
    was really added (engine.reference_import.Added). Stopping before the end writes nothing:
    the vault is written in one transaction after the last step."""
    from engine.reference_files import read_reference
    from engine.reference_import import import_steps

    data = read_reference(folder, user_id)
    steps = import_steps(mem, data)
    while True:
        try:
            done, total = next(steps)
        except StopIteration as finished:
            return finished.value
        if done < total:  # the last step is the write: after it there is nothing to cancel
            yield done, total


def reference_report(added: Any) -> str:
    """What a reference import added, in words: what the memory already held is not counted;
    the reference's parts that were not in the folder are named after it."""
    from engine.reference_files import not_found_note
    from engine.terminal.wording import count

    note = not_found_note(added.not_found)
    if added.nothing:
        text = ("Everything in this folder is already in this memory: nothing new was added "
                "from the reference MemoryOS.")  # fmt: skip
    else:
        text = f"Imported {added.summary()} from the reference MemoryOS."
        if added.already_pages:
            verb = "was" if added.already_pages == 1 else "were"
            text += f" {count(added.already_pages, 'page')} {verb} already in this memory."
    return f"{text}\n\n{note}" if note else text


FOLDER_TITLE = "Choose the reference MemoryOS folder"
FOLDER_HELP = (
    "Choose the folder where the reference MemoryOS (BAI-LAB) keeps its memory: the one that "
    "holds users/, or chroma_storage/ for its ChromaDB version."
)


def reference_folder_dialog(parent: QWidget) -> QFileDialog:
    """The folder chooser: a short title (a long one is cut in the middle), and what to choose
    said in the dialog itself. Qt's own dialog: a system one has no room for that line."""
    dialog = QFileDialog(parent, FOLDER_TITLE, str(Path.home()))
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOptions(QFileDialog.Option.ShowDirsOnly | QFileDialog.Option.DontUseNativeDialog)
    dialog.setLabelText(QFileDialog.DialogLabel.Accept, "Import")
    help_label = QLabel(FOLDER_HELP, dialog)
    help_label.setObjectName("reference_folder_help")
    help_label.setWordWrap(True)
    layout = dialog.layout()  # Qt's dialog lays itself out on a grid: a row under it
    layout.addWidget(help_label, layout.rowCount(), 0, 1, layout.columnCount())
    return dialog


def user_picker(parent: QWidget, folder: str, users: list[str]) -> QInputDialog:
    """Whose memory to import, when the folder holds several: a short title, the question in
    the dialog, wide enough that the title is not cut."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle("Whose memory?")
    dialog.setLabelText(f"The folder “{Path(folder).name}” holds the memory of {len(users)} "
                        "people. Choose whose memory to import:")  # fmt: skip
    dialog.setComboBoxItems(users)
    dialog.setComboBoxEditable(False)
    dialog.setOkButtonText("Import")
    for label in dialog.findChildren(QLabel):  # the dialog's own size follows its layout's
        label.setWordWrap(True)
        label.setMinimumWidth(400)
    return dialog


def import_reference_folder(parent: QWidget, session: Any, folder: str | None = None,
                            user_id: str | None = None) -> Worker | None:
    """Ask for the reference's data folder (and the user when it holds several), then import it
    behind a progress dialog; all or nothing."""
    from engine.errors import InvalidInputError
    from engine.reference_files import find_users

    if folder is None:
        chooser = reference_folder_dialog(parent)
        chosen = chooser.selectedFiles() if chooser.exec() else []
        chooser.deleteLater()
        if not chosen:
            return None
        folder = chosen[0]
    if user_id is None:
        try:
            users = find_users(folder)
        except InvalidInputError as exc:
            show_message(parent, "Import failed", str(exc), warning=True)
            return None
        if not users:
            show_message(parent, "Import", f"{folder} holds no user's memory: there is nothing "
                         "to import.")  # fmt: skip
            return None
        if len(users) > 1:
            picker = user_picker(parent, folder, users)
            ok = picker.exec()
            user_id = picker.textValue()
            picker.deleteLater()
            if not ok:
                return None
    dialog = _progress_dialog(parent, "Reading the reference memory…", "Cancel")
    worker = Worker(import_reference_steps, session.mem, folder, user_id)

    def step(progress: tuple[int, int]) -> None:
        done, total = progress
        dialog.setLabelText(f"Importing the reference memory: {done} of {total} items…")
        dialog.setValue(int(100 * done / max(1, total)))

    def finished(added: object) -> None:
        dialog.close()
        if added is None:  # stopped before the write
            show_message(parent, "Import", "Import cancelled: nothing was written.")
            return
        show_message(parent, "Import", reference_report(added))

    def failed(error: Exception) -> None:
        dialog.close()
        # the importer's own messages may already say so: said once, as its own sentence
        text = describe(error).removesuffix("; nothing was imported")
        show_message(parent, "Import failed", f"{text}\n\nNothing was imported.", warning=True)

    dialog.canceled.connect(worker.cancel)
    worker.signals.yielded.connect(step)
    worker.signals.returned.connect(finished)
    worker.signals.errored.connect(failed)
    return session.pool.start(worker)
