"""'Models you added' in Settings: the GGUF files and servers chosen before, to pick again or
take off the list on Save, and the catalogue calls behind it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

from app.settings_store import GGUF, SERVER, AppSettings

REMOVE_TIP = "Take this entry off the list when you Save; its file, if any, stays on disk"
EMPTY_TIP = "A GGUF file or a server you choose and save is listed here, to pick it again later"


def added_models() -> list:
    """GGUF files and servers the person added before (the catalogue, minus the bundled model)."""
    from models.catalogue import list_models

    return [entry for entry in list_models() if entry.source != "bundled"]


def forget_models(entry_ids: list[str]) -> None:
    """Take entries off the 'added models' list (no file is touched): on Save."""
    from models.catalogue import remove

    for entry_id in entry_ids:
        remove(entry_id)


def remember_model(settings: AppSettings) -> None:
    """Record the chosen GGUF file or server in the catalogue, for the 'added models' list."""
    from models.catalogue import add_endpoint, add_gguf

    if settings.model_source == GGUF:
        add_gguf(settings.gguf_path)
    elif settings.model_source == SERVER:
        add_endpoint(settings.server_url, settings.server_model)


def entry_texts(entries: list) -> list[tuple[str, str]]:
    """(what 'Models you added' shows, its tooltip) for each entry: short, and never the same
    twice (two files whose metadata gives one name show their file names; a file path given
    as a server's model id shows its file name and the server's host)."""
    from pathlib import Path
    from urllib.parse import urlsplit

    def shown(entry: Any, detail: int) -> str:
        if entry.source == GGUF:
            file = Path(entry.path)
            where = file.name if detail == 0 else str(Path(file.parent.name, file.name))
            text = f"{entry.label} · {where}" if detail < 2 else str(file)
            return text + ("" if entry.available else " (file missing)")
        model = Path(entry.model).name if entry.model.endswith(".gguf") else entry.model
        host = urlsplit(entry.url).netloc or entry.url
        return f"{model} @ {host if detail == 0 else entry.url}"

    texts = [shown(entry, 0) for entry in entries]
    for detail in (1, 2):
        clashes = {text for text in texts if texts.count(text) > 1}
        texts = [shown(e, detail) if t in clashes else t
                 for e, t in zip(entries, texts, strict=True)]
    tips = [entry.path if entry.source == GGUF else f"{entry.model} @ {entry.url}"
            for entry in entries]
    return [(elided(text), tip) for text, tip in zip(texts, tips, strict=True)]


def elided(text: str, most: int = 72) -> str:
    """At most `most` characters, the middle cut out: a model's file name ends a path."""
    if len(text) <= most:
        return text
    keep = most - 1
    return text[: keep // 3] + "…" + text[len(text) - (keep - keep // 3):]


class _ElidedCombo(QComboBox):
    """A combo box whose shown entry loses its middle, not its end, when it is too long."""

    def paintEvent(self, _event: Any) -> None:  # noqa: N802 - Qt override
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(
            option.currentText, Qt.TextElideMode.ElideMiddle, field.width())
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


class AddedModels(QWidget):
    """The 'Models you added' row: `chosen(entry)` when one is picked, `refused(why)` when the
    one to remove is the model in use. Entries removed are only forgotten on Save (`removed`).

    The row is always there, "None yet" when the list is empty: shown only once the list was
    read (in a worker, after the dialog opened), it pushed the source's radio buttons down
    under the pointer of a person about to click one. Its `removed_note` is placed by the tab,
    below those buttons, for the same reason."""

    chosen = Signal(object)  # a catalogue entry: the Model tab takes its file or server
    refused = Signal(str)  # said in the dialog's error line

    def __init__(self, current: AppSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.current = current  # the settings the dialog opened with: the model in use
        self.added: list = []  # 'Models you added' as last read
        self.removed: set[str] = set()  # entry ids taken off the list: forgotten on Save
        self.recent = _ElidedCombo()
        # a file path given as model id made the whole tab wider than the dialog: the box keeps
        # its own width, entries are shortened (in full in their tooltips)
        self.recent.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.recent.setMinimumContentsLength(16)  # it stretches: this is its least
        self.recent.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.recent.activated.connect(self._recent_chosen)
        self.recent.currentIndexChanged.connect(self._recent_shown)
        # remove an entry: its button, right-click (on the box or in its list), Delete in the list
        self.recent.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.recent.customContextMenuRequested.connect(lambda pos: self._recent_menu(
            self.recent.currentIndex(), self.recent.mapToGlobal(pos)))
        view = self.recent.view()
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(lambda pos: self._recent_menu(
            view.indexAt(pos).row(), view.viewport().mapToGlobal(pos)))
        view.installEventFilter(self)
        self.recent_menu: QMenu | None = None
        self.remove_recent = QPushButton("Remove from this list")
        self.remove_recent.setAutoDefault(False)
        self.remove_recent.setToolTip(REMOVE_TIP)
        self.remove_recent.clicked.connect(lambda: self.remove_added(self.recent.currentIndex()))
        self.remove_recent.setEnabled(False)
        # The label goes above the box where the row is too narrow for all three (the largest
        # text on a 1366x768 screen scaled by 1.5: the row was wider than the page)
        self.label = QLabel("Models you added")
        self.label.setBuddy(self.recent)
        self.label_row = QHBoxLayout()  # the label, when it is above
        self.row = QHBoxLayout()
        self.row.addWidget(self.label)
        self.row.addWidget(self.recent, 1)
        self.row.addWidget(self.remove_recent)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 6)
        rows.addLayout(self.label_row)
        rows.addLayout(self.row)
        self.removed_note = QLabel(objectName="hint")  # what Save will take off the list
        self.removed_note.setWordWrap(True)
        self.removed_note.hide()
        self.show_added([])  # until the list is read
        self.fit_row()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_row()

    def fit_row(self) -> None:
        """The label beside the box where the row is wide enough, else above it; the row's
        least width is that of the narrower arrangement, for the page to be as narrow."""
        spacing = max(0, self.row.spacing())
        box = self.recent.minimumSizeHint().width() + spacing + self.remove_recent.sizeHint().width()
        label = self.label.sizeHint().width()
        if self.minimumWidth() != max(label, box):
            self.setMinimumWidth(max(label, box))
        above = self.width() < label + spacing + box
        if above == (self.label_row.indexOf(self.label) >= 0):
            return
        if above:
            self.row.removeWidget(self.label)
            self.label_row.addWidget(self.label)
        else:
            self.label_row.removeWidget(self.label)
            self.row.insertWidget(0, self.label)

    def show_added(self, entries: list) -> None:
        self.added = entries
        shown = [entry for entry in entries if entry.id not in self.removed]
        self.recent.clear()
        self.recent.addItem("Choose…" if entries else "None yet", None)
        for entry, (text, tip) in zip(shown, entry_texts(shown), strict=True):
            self.recent.addItem(text, entry)
            self.recent.setItemData(self.recent.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.recent.setEnabled(bool(entries))
        self.recent.setToolTip("" if entries else EMPTY_TIP)
        removed = [entry for entry in entries if entry.id in self.removed]
        self.removed_note.setText(self._removed_text(removed))
        self.removed_note.setVisible(bool(removed))

    @staticmethod
    def _removed_text(removed: list) -> str:
        names = ", ".join(text for text, _tip in entry_texts(removed))
        return (f"Taken off “Models you added” when you press Save (Cancel keeps it): "
                f"{names}")

    def _recent_shown(self, index: int) -> None:
        entry = self.recent.itemData(index) if index > 0 else None
        self.recent.setToolTip(self.recent.itemData(index, Qt.ItemDataRole.ToolTipRole) or "")
        self.remove_recent.setEnabled(entry is not None)
        in_use = entry is not None and self._in_use(entry)
        self.remove_recent.setToolTip(
            "This is the model in use: choose another one and Save first" if in_use
            else REMOVE_TIP)

    def _in_use(self, entry: Any) -> bool:
        """Whether `entry` is the model the app runs now (the settings the dialog opened with)."""
        from pathlib import Path

        current = self.current
        if entry.source == GGUF:
            if current.model_source != GGUF or not current.gguf_path:
                return False
            return Path(current.gguf_path).expanduser().resolve() == Path(entry.path).resolve()
        if current.model_source != SERVER or current.server_model != entry.model:
            return False
        from engine.errors import MemoryOSError
        from engine.network import normalise_url

        try:
            return normalise_url(current.server_url) == entry.url
        except MemoryOSError:
            return False

    def _recent_menu(self, index: int, where: QPoint) -> None:
        if index <= 0 or self.recent.itemData(index) is None:
            return
        self.recent_menu = menu = QMenu(self)
        menu.addAction("Remove from this list", lambda: self.remove_added(index))
        menu.popup(where)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if (event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Delete
                and watched is self.recent.view()):
            self.remove_added(self.recent.view().currentIndex().row())
            return True
        return super().eventFilter(watched, event)

    def remove_added(self, index: int) -> None:
        """Take the entry at `index` off 'Models you added' (its file stays); not the one in use."""
        entry = self.recent.itemData(index) if index > 0 else None
        if entry is None:
            return
        if self._in_use(entry):
            self.refused.emit(f"{entry.label} is the model in use, so it stays on the list: "
                              "choose another model and Save, then remove it.")
            return
        self.recent.hidePopup()
        self.removed.add(entry.id)  # Save forgets it; Cancel keeps it
        self.show_added(self.added)

    def _recent_chosen(self, index: int) -> None:
        entry = self.recent.itemData(index)
        if entry is None:
            return
        self.chosen.emit(entry)
