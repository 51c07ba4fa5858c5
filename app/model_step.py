"""The model step: a dialog around the model table, shown after the first run and from the banner."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.model_picker import Choice, ModelPicker
from app.widgets import fit_window
from app.workers import WorkerPool


class ModelStepDialog(QDialog):
    """Pick the model to talk to; `chosen(Choice)` then closes. "Later" keeps the demo model."""

    chosen = Signal(object)

    def __init__(self, pool: WorkerPool, parent: QWidget | None = None, probe: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle("Choose your model")
        # Wider and taller where the screen allows: the table's columns are read whole.
        fit_window(self, 1120, 760, least=(940, 620))
        title = QLabel("<h2>Choose the model you will talk to</h2>")
        intro = QLabel(
            "MemoryOS found these on this computer. A model already on your disk or a local "
            "server works at once; a recommended download takes a few minutes. Everything runs "
            "here: nothing you say leaves this computer.", objectName="hint",
        )  # fmt: skip
        intro.setWordWrap(True)
        self.picker = ModelPicker(pool, probe=probe)
        self.picker.chosen.connect(self._chosen)
        self.later_button = later = QPushButton("Keep the demo model for now")
        later.setAutoDefault(False)  # focus landing here (a disabled Download) is not a choice
        later.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("You can change this later in Settings → Models.", objectName="hint"))
        row.addStretch(1)
        row.addWidget(later)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.picker, 1)
        layout.addLayout(row)

    def _chosen(self, choice: Choice) -> None:
        self.chosen.emit(choice)
        self.accept()
