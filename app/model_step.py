"""The model step: a dialog around the model table, shown after the first run and from the banner."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.model_picker import Choice, ModelPicker
from app.settings_store import BUNDLED, GGUF
from app.widgets import fit_window
from app.workers import WorkerPool


def keep_text(current: Any) -> str:
    """The button that closes the step without a choice names the model that stays in use."""
    from app.model_choice import short_model_name

    if current is None or current.model_source == BUNDLED:
        return "Keep the demo model for now"
    if current.model_source == GGUF:
        name = short_model_name(current.gguf_path)
    else:
        name = short_model_name(current.server_model)
    return f"Keep {name}" if name else "Keep the current model"


class ModelStepDialog(QDialog):
    """Pick the model to talk to; `chosen(Choice)` then closes. "Keep …" keeps the model in use
    (`current`, the app's settings: its row is marked in the table)."""

    chosen = Signal(object)

    def __init__(
        self, pool: WorkerPool, parent: QWidget | None = None, probe: bool = True,
        current: Any = None,
    ) -> None:  # fmt: skip
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
        self.picker = ModelPicker(pool, probe=probe, current=current)
        self.picker.chosen.connect(self._chosen)
        self.later_button = later = QPushButton(keep_text(current))
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
