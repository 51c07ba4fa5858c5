"""Settings → Models: the same model table as the first-run step, inside the settings dialog."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.model_picker import ModelPicker
from app.model_step import ServerAddress
from app.workers import WorkerPool


class ModelsPage(QWidget):
    """Models on this computer, servers (found or added by address) and downloads; Use fills
    the Model tab. `current`: the AppSettings in use, whose model's row says "in use"."""

    def __init__(
        self, pool: WorkerPool, probe: bool = True, parent: QWidget | None = None,
        current: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.picker = ModelPicker(pool, probe=probe, current=current)
        self.address = ServerAddress(self.picker, pool)
        self.note = QLabel(objectName="hint")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.addWidget(self.picker, 1)
        layout.addWidget(self.note)
