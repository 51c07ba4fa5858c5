"""Settings → Models: the same model table as the first-run step, inside the settings dialog."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.model_picker import ModelPicker
from app.model_step import ServerAddress
from app.theme import pixels
from app.widgets import scrolled_column
from app.workers import WorkerPool


class ModelsPage(QWidget):
    """Models on this computer, servers (found or added by address) and downloads; Use fills
    the Model tab. `current`: the AppSettings in use, whose model's row says "in use".
    Where the dialog is too short for it all (the largest text on a 1366x768 screen scaled by
    1.5), the page scrolls, the table a few rows tall: squeezed, its buttons lost their text
    and the table showed only its header."""

    def __init__(
        self, pool: WorkerPool, probe: bool = True, parent: QWidget | None = None,
        current: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.picker = ModelPicker(pool, probe=probe, current=current)
        self.picker.table.setMinimumHeight(pixels(140))
        self.address = ServerAddress(self.picker, pool)
        self.note = QLabel(objectName="hint")
        self.note.setWordWrap(True)
        self.scroll = scrolled_column("models_column", [self.picker, self.note],
                                      stretch=self.picker)
        self.scroll.widget().layout().setContentsMargins(14, 14, 14, 14)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
