"""Settings: which embedding model finds memories, and moving the vault to a new one.

The vault's vectors come from one model; another model's vectors cannot be compared with them.
Choosing a new model here offers to re-embed the vault (with a progress bar), and refuses
clearly when the person declines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe
from app.theme import in_red
from app.workers import Worker

BUNDLED_EMBEDDER_LABEL = "Bundled: all-MiniLM-L6-v2 (384 dimensions), offline"


def app_embedder(name: str) -> Any:
    """The app's embedder for a Settings choice ("" = bundled): the model runs in its helper
    process; the folder is checked and its size read here, without loading torch."""
    from app.embedder_process import ProcessEmbedder
    from engine.backends.build import is_default_embedder

    return ProcessEmbedder(None if is_default_embedder(name) else name)


def describe_choice(factory: Callable[[str], Any], name: str) -> str:
    """The chosen model as one line of HTML (runs in a worker: it reads files)."""
    embedder = factory(name)
    return f"<b>{embedder.model_id}</b> · {embedder.dimension} dimensions"


def reembed_and_release(mem: Any, embedder: Any, progress: Any = None) -> str:
    """Re-embed the open memory (in a worker), then stop the model's helper process: the
    reopened memory starts its own."""
    from engine.embedder_switch import reembed_memory

    try:
        return reembed_memory(mem, embedder, progress)
    finally:
        close = getattr(embedder, "close", None)
        if close is not None:
            close()


class EmbedderBox(QGroupBox):
    """Bundled MiniLM or a local sentence-transformers folder; `value()` is "" or the folder."""

    described = Signal()  # the chosen folder was read (or failed to be)

    def __init__(
        self, pool: Any, factory: Callable[[str], Any], parent: QWidget | None = None
    ) -> None:
        super().__init__("Embedding model (how memories are found)", parent)
        self.pool = pool
        self.factory = factory
        self.group = QButtonGroup(self)
        self.bundled = QRadioButton(BUNDLED_EMBEDDER_LABEL)
        self.folder = QRadioButton("A sentence-transformers model folder on this computer")
        self.group.addButton(self.bundled, 0)
        self.group.addButton(self.folder, 1)
        self.path = QLineEdit()
        self.path.setPlaceholderText("/path/to/a/sentence-transformers/model")
        self.path.setAccessibleName("Embedding model folder")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.info = QLabel(objectName="hint")
        self.info.setWordWrap(True)
        self.folder_box = QWidget()
        folder_layout = QVBoxLayout(self.folder_box)
        folder_layout.setContentsMargins(26, 0, 0, 4)
        folder_layout.addLayout(row)
        folder_layout.addWidget(self.info)
        self.vault_note = QLabel(objectName="hint")
        self.vault_note.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(self.vault_note)
        column.addWidget(self.bundled)
        column.addWidget(self.folder)
        column.addWidget(self.folder_box)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(300)
        self._timer.timeout.connect(self._describe)
        self.path.textChanged.connect(lambda: self._timer.start())
        self.group.idToggled.connect(lambda *_: self.folder_box.setVisible(self.folder.isChecked()))

    def set_value(self, name: str) -> None:
        (self.folder if name else self.bundled).setChecked(True)
        self.path.setText(name)
        self.folder_box.setVisible(bool(name))

    def value(self) -> str:
        return self.path.text().strip() if self.folder.isChecked() else ""

    def show_vault(self, model_id: str, dimension: int) -> None:
        self.vault_note.setText(
            f"Your memories are embedded with <b>{model_id}</b> ({dimension} dimensions). "
            "Another model re-embeds them once, here, with a progress bar."
        )

    def browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Choose a sentence-transformers model folder", self.path.text()
        )
        if folder:
            self.path.setText(folder)
            self.folder.setChecked(True)

    def _describe(self) -> None:
        name = self.path.text().strip()
        if not name:
            self.info.setText("")
            return
        self.info.setText("Reading the folder…")
        self.pool.run(
            describe_choice,
            self.factory,
            name,
            on_result=self._described,
            on_error=self._not_a_model,
        )

    def _described(self, html: str) -> None:
        self.info.setText(html)
        self.described.emit()

    def _not_a_model(self, error: Exception) -> None:
        self.info.setText(in_red(describe(error)))
        self.described.emit()


class EmbedderSwitcher:
    """The Save of a new embedder: plan, ask, re-embed behind a progress bar, or refuse.

    `on_done(True)` once the vault uses the new model (the caller reopens the memory),
    `on_done(False)` when it does not (declined, failed: the reason is in `message`)."""

    def __init__(
        self,
        parent: QWidget,
        session: Any,
        factory: Callable[[str], Any],
        on_done: Callable[[bool], None],
    ) -> None:
        self.parent = parent
        self.session = session
        self.factory = factory
        self.on_done = on_done
        self.message = ""
        self.box: QMessageBox | None = None
        self.progress: QProgressDialog | None = None
        self.worker: Worker | None = None

    def start(self, name: str) -> None:
        from engine.embedder_switch import plan_switch

        def plan() -> tuple[Any, Any]:
            embedder = self.factory(name)
            return embedder, plan_switch(self.session.mem, embedder)

        self.session.run(plan, on_result=self._planned, on_error=self._failed)

    def _planned(self, result: tuple[Any, Any]) -> None:
        embedder, switch = result
        if not switch.needed:
            self.on_done(True)
            return
        self.switch = switch
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Re-embed your memories?",
            switch.question(),
            QMessageBox.StandardButton.NoButton,
            self.parent,
        )
        box.setObjectName("reembedQuestion")
        self.reembed_button = box.addButton("Re-embed now", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Keep the current model", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(self.reembed_button)
        box.finished.connect(
            lambda *_: self._answered(box.clickedButton() is self.reembed_button, embedder)
        )
        self.box = box
        box.open()

    def _answered(self, yes: bool, embedder: Any) -> None:
        if not yes:
            self.message = self.switch.refusal()
            self.on_done(False)
            return
        dialog = QProgressDialog(
            f"Re-embedding with {self.switch.new_id}…", "", 0, 1000, self.parent
        )
        dialog.setWindowTitle("Re-embedding")
        dialog.setCancelButton(None)  # stopping half-way leaves the old model in use: resumable
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setValue(0)
        dialog.show()  # at once: loading the model alone can take seconds
        self.progress = dialog
        worker = Worker(reembed_and_release, self.session.mem, embedder, progress=True)
        worker.signals.progress.connect(self._step)
        worker.signals.returned.connect(self._reembedded)
        worker.signals.errored.connect(self._failed)
        self.worker = self.session.pool.start(worker)

    def _step(self, fraction: float, label: str) -> None:
        if self.progress is not None:
            self.progress.setLabelText(label)
            self.progress.setValue(int(1000 * fraction))

    def _reembedded(self, _model_id: object) -> None:
        self._close_progress()
        self.on_done(True)

    def _failed(self, error: Exception) -> None:
        self._close_progress()
        text = describe(error)
        self.message = f"Not switched: {text}" if text else "Not switched."
        self.on_done(False)

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress = None
