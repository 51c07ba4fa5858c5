"""One table of every model a person can use: files on disk, local servers, downloads."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe
from app.model_downloads import DownloadSignals, DownloadsMixin
from app.model_rows import ModelRowsMixin
from app.model_table import (
    DOWNLOADS,  # noqa: F401  (tests import it from here)
    FILES,
    GROUP_TITLES,  # noqa: F401  (tests import it from here)
    KEY_NEEDED,
    SERVERS,
    SLOW_COLOR,  # noqa: F401  (tests import it from here)
    ModelTable,
    WrappingDelegate,
    in_use,
)
from app.settings_store import BUNDLED, GGUF, SERVER
from app.theme import in_red
from app.workers import WorkerPool


@dataclass
class Choice:
    """What the person picked, as app settings values (keys of AppSettings)."""

    label: str
    values: dict[str, Any] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # why GPU layers/context/threads


# -- work done in pool threads (no widgets here) ------------------------------------------


def fit_file(path: str) -> Any:
    """The suggested settings for a GGUF file on this machine."""
    from models.fit import fit_model, shape_of
    from models.machine import this_machine
    from models.overview import gpu_offload

    return fit_model(shape_of(path), this_machine(), gpu_offload())


def remember_folder(folder: str) -> list[str]:
    from models.overview import add_folder

    return add_folder(folder)


def start_folder() -> str:
    """Where "Add a folder…" opens: the folder added last while it exists, else the home folder
    (never the folder the app happened to be started from)."""
    from models.overview import picked_folders

    for folder in reversed(picked_folders()):
        if Path(folder).is_dir():
            return folder
    return str(Path.home())


# -- the widget ----------------------------------------------------------------------------


class ModelPicker(ModelRowsMixin, DownloadsMixin, QWidget):
    """The table, an Add-folder button, download progress; `chosen(Choice)` on Use."""

    chosen = Signal(object)
    listed = Signal()  # the look-around finished and the table is filled
    fitted = Signal()  # the suggested settings for the selected row are shown
    download_finished = Signal(object)  # Downloaded, or the exception
    key_wanted = Signal(object)  # Use on a server that needs an API key: the FoundServer

    def __init__(
        self, pool: WorkerPool, probe: bool = True, parent: QWidget | None = None,
        current: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.pool = pool
        self.probe = probe
        self.current = current  # the AppSettings in use: that model's row says "in use"
        self.overview: Any = None
        self.fit: Any = None
        self._download: dict = {}
        self._paused: Any = None  # the recommended model whose download is paused or failed
        # Servers at addresses the person typed (FoundServer): listed again after Look again
        self.added: list[Any] = []
        self.machine = QLabel("Looking at this computer…", objectName="hint")
        self.machine.setWordWrap(True)
        self.table = ModelTable()
        self.table.setObjectName("modelTable")
        self.table.setAccessibleName("Models")
        self.table.setColumnCount(4)
        self.table.setHeaderLabels(["Model", "Where", "Details", "Fits this computer"])
        self.table.setRootIsDecorated(False)
        # a cell too narrow for its text shows it on more lines (the row grows), never cut:
        # Settings → Models is narrower than the first-run step, at the largest text even more
        self.table.setWordWrap(True)
        self.table.setUniformRowHeights(False)
        self.table.setItemDelegate(WrappingDelegate(self.table))
        # a file name too long for the column loses its middle, not its quantisation
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setAlternatingRowColors(True)
        header = self.table.header()
        # the widths are _fit_columns', on every resize: no column pushes another out of sight
        header.setStretchLastSection(False)
        for column in range(4):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(0, 215)  # until the list is there: then _fit_columns
        self.table.setColumnWidth(1, 130)
        self.table.viewport().installEventFilter(self)  # resized: the columns fitted again
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda *_: self.use())
        self.why = QLabel(objectName="hint")
        self.why.setWordWrap(True)
        self.why.setTextFormat(Qt.TextFormat.RichText)
        # A server on another computer over plain http: its row is used only once this is ticked
        self.plain_http = QCheckBox("Send my messages to it unencrypted anyway")
        self.plain_http.hide()
        self.plain_http.toggled.connect(self._update_buttons)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress_text = QLabel(objectName="hint")
        self.progress_text.setWordWrap(True)  # an error says what to do: all of it is read
        self.pause_button = QPushButton("Pause")
        self.pause_button.clicked.connect(self.pause_download)
        self.cancel_button = QPushButton("Cancel download")
        self.cancel_button.clicked.connect(self.cancel_download)
        download_row = QHBoxLayout()
        download_row.addWidget(self.progress, 1)
        download_row.addWidget(self.progress_text, 2)
        download_row.addWidget(self.pause_button)
        download_row.addWidget(self.cancel_button)
        self.download_box = QWidget()
        self.download_box.setLayout(download_row)
        self.download_box.hide()
        self.add_folder_button = QPushButton("Add a folder…")
        self.add_folder_button.setToolTip("Also look for .gguf files in a folder you choose")
        self.add_folder_button.clicked.connect(self.pick_folder)
        self.refresh_button = QPushButton("Look again")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.clicked.connect(self.refresh)
        self.download_button = QPushButton("Download")
        self.download_button.clicked.connect(self.start_download)
        self.use_button = QPushButton("Use this model", objectName="primary")
        self.use_button.clicked.connect(self.use)
        for button in (self.pause_button, self.cancel_button, self.add_folder_button,
                       self.refresh_button, self.download_button):  # fmt: skip
            button.setAutoDefault(False)  # Enter means "use this model", never one of these
        self.buttons = buttons = QHBoxLayout()
        buttons.addWidget(self.add_folder_button)
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.use_button)
        # Download and Use this model go on a row of their own where one row is too wide for
        # them all (the largest text on a small screen): squeezed, the buttons lost their text.
        self.choose_buttons = QHBoxLayout()
        self.choose_buttons.addStretch(1)
        self.button_rows = button_rows = QVBoxLayout()  # the model step keeps them in view
        button_rows.addLayout(buttons)
        button_rows.addLayout(self.choose_buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.machine)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.why)
        layout.addWidget(self.plain_http)
        layout.addWidget(self.download_box)
        layout.addLayout(button_rows)
        self.signals = DownloadSignals(self)
        self.signals.progressed.connect(self._download_progress)
        self._update_buttons()
        self.refresh()

    # --- more models: a folder, a server address ---------------------------------------
    def pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "A folder with .gguf model files", start_folder()
        )
        if folder:
            self.add_folder(folder)

    def add_control(self, button: QPushButton, row: QWidget) -> None:
        """Another way to add models (the server address): its button after Add a folder…, its
        row above the buttons."""
        button.setAutoDefault(False)
        self.buttons.insertWidget(1, button)
        layout = self.layout()
        layout.insertWidget(layout.count() - 1, row)
        # Tab as they are read: added last, they came last (after Use this model)
        fields = [widget for widget in row.findChildren(QWidget)
                  if widget.focusPolicy() & Qt.FocusPolicy.TabFocus and not widget.focusProxy()]
        order = [self.cancel_button, *fields, self.add_folder_button, button,
                 self.refresh_button, self.download_button, self.use_button]
        for first, second in pairwise(order):
            QWidget.setTabOrder(first, second)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_buttons()

    def _fit_buttons(self) -> None:
        """All the buttons on one row where it is wide enough, else Download and Use this model
        on a second row, each button at its full size either way."""
        row = [self.buttons.itemAt(i).widget() for i in range(self.buttons.count())]
        shown = [b for b in dict.fromkeys(row + [self.download_button, self.use_button])
                 if b is not None and not b.isHidden()]
        spacing = max(0, self.buttons.spacing())
        need = sum(b.sizeHint().width() for b in shown) + spacing * len(shown)
        two_rows = need > self.width()
        if two_rows == (self.choose_buttons.indexOf(self.use_button) >= 0):
            return
        source, target = (
            (self.buttons, self.choose_buttons) if two_rows else (self.choose_buttons, self.buttons)
        )
        for button in (self.download_button, self.use_button):
            source.removeWidget(button)
            target.addWidget(button)

    def add_folder(self, folder: str) -> None:
        self.pool.run(
            remember_folder, folder, on_result=lambda _f: self.refresh(), on_error=self._failed
        )

    # --- the selected row --------------------------------------------------------------
    def selected(self) -> tuple[str, Any] | None:
        items = self.table.selectedItems()
        return items[0].data(0, Qt.ItemDataRole.UserRole) if items else None

    def _selected(self) -> None:
        self.fit = None
        self.plain_http.setChecked(False)  # asked again for each server it would be sent to
        picked = self.selected()
        self._update_buttons()
        if not picked:
            self.why.setText("")
            return
        kind, data = picked
        if kind == "file":
            self.why.setText("Working out the best settings for this computer…")
            path = data.path
            self.pool.run(
                fit_file, path,
                on_result=lambda fit: self._file_fitted(path, fit),
                on_error=lambda error: self._file_fitted(path, error),
            )  # fmt: skip
        elif kind == "download":
            self._show_fit(data[1], data[0])
        elif kind == "server":
            self.why.setText(_server_why(data[0].url, self._needs_plain_http(kind, data)))
            self.fitted.emit()
        elif kind == KEY_NEEDED:
            self.why.setText(
                f"The server at {data[0].url} {data[0].key_text}. Type the key it was started "
                "with (llama.cpp's --api-key) and its models are listed here."
            )
            self.fitted.emit()
        else:
            self.why.setText(
                "The bundled demo model: small enough to run anywhere, too small "
                "for good answers. Its answers are kept short."
            )
            self.fitted.emit()

    def _show_fit(self, fit: Any, model: Any = None) -> None:
        self.fit = fit
        lines = [
            f"<b>GPU layers</b> {fit.reasons.get('gpu_layers', '')}",
            f"<b>Context</b> {fit.reasons.get('context', '')}",
            f"<b>Threads</b> {fit.reasons.get('threads', '')}",
        ]
        if fit.reasons.get("speed"):
            lines.append(f"<b>Speed</b> {fit.reasons['speed']}")
        if model is not None:
            lines.append(
                f"<b>Licence</b> {model.licence}. SHA-256 checked against the hub's "
                "published hash before the model is offered."
            )
        self.why.setText("<br>".join(lines))
        self._update_buttons()
        self.fitted.emit()

    def _file_fitted(self, path: str, fit: Any) -> None:
        """The settings worked out for the file at `path` (or why not), shown while its row is
        still the selected one; another row selected since keeps its own. The picker closed
        meanwhile (its table gone): nothing to show it in."""
        from shiboken6 import isValid

        if not isValid(self.table):
            return
        picked = self.selected()
        if not picked or picked[0] != "file" or picked[1].path != path:
            return
        if isinstance(fit, Exception):
            self._fit_failed(fit)
        else:
            self._show_fit(fit)

    def select_usable(self) -> None:
        """Select a row "Use this model" takes at once, where none is selected: the model in use
        (unless it is the demo: the step is there to offer a better one), else a server
        answering now, else a file on this computer that fits and is not a copy of the demo (a
        walkthrough's "smollm2-chat", the demo's file under another name, was offered as the
        better model), else the demo."""
        if self.selected() is not None or self.overview is None:
            return
        files, servers, bundled, current = [], [], [], []
        for row in self.rows(FILES) + self.rows(SERVERS):
            data = row.data(0, Qt.ItemDataRole.UserRole)
            if data is None or row.isDisabled():
                continue
            kind, value = data
            fit = self.overview.file_fits.get(value.path) if kind == "file" else None
            if kind == "bundled":
                bundled.insert(0, row)
            elif kind == "file" and _copy_of_demo(value):
                bundled.append(row)
            elif in_use(self.current, kind, value):
                current.append(row)
            elif kind == "server" and value[1] in value[0].models:
                if not self._needs_plain_http(kind, value):
                    servers.append(row)
            elif kind == "file" and value.info is not None and (fit is None or fit.fits):
                files.append(row)
        for row in (current + servers + files + bundled)[:1]:
            self.table.setCurrentItem(row)
            self.table.scrollToItem(row)

    def _fit_failed(self, error: Exception) -> None:
        self.why.setText(in_red(describe(error)))
        self.fitted.emit()

    def _needs_plain_http(self, kind: str, data: Any) -> bool:
        """A server on another computer at a plain http:// address, not yet allowed in the
        settings: what is sent would cross the network unencrypted (the engine refuses it)."""
        from urllib.parse import urlsplit

        from engine.network import is_loopback

        if kind != "server" or getattr(self.current, "allow_plain_http", False):
            return False
        url = data[0].url
        return urlsplit(url).scheme == "http" and not is_loopback(url)

    def _update_buttons(self) -> None:
        picked = self.selected()
        kind = picked[0] if picked else ""
        plain_http = bool(picked) and self._needs_plain_http(*picked)
        if not plain_http:
            self.plain_http.setChecked(False)
        self.plain_http.setVisible(plain_http)
        downloading = bool(self._download)
        # The model downloading or paused has its Pause/Resume in the download row: no second
        # button for it here.
        current = self._download.get("model") or self._paused
        in_row = kind == "download" and current is not None and picked[1][0] == current
        self.download_button.setVisible(kind == "download" and not in_row)
        paused = kind == "download" and "paused at" in self.table.selectedItems()[0].text(3)
        self.download_button.setText("Resume download" if paused else "Download")
        self.download_button.setEnabled(kind == "download" and not downloading)
        # a server that needs a key: Use asks for the key (its models are listed with it)
        self.use_button.setText("Type its API key…" if kind == KEY_NEEDED else "Use this model")
        self.use_button.setEnabled(
            kind in ("bundled", KEY_NEEDED)
            or (kind == "server" and (not plain_http or self.plain_http.isChecked()))
            or (kind == "file" and self.fit is not None)
        )

    # --- choosing ----------------------------------------------------------------------
    def choice(self) -> Choice | None:
        """The selected row as settings values (None when nothing usable is selected)."""
        picked = self.selected()
        if not picked:
            return None
        kind, data = picked
        if kind == "bundled":
            return Choice("SmolLM2-135M (bundled)", {"model_source": BUNDLED})
        if kind == "server":
            server, name = data
            values = {"model_source": SERVER, "server_url": server.url, "server_model": name}
            if self._needs_plain_http(kind, data):
                if not self.plain_http.isChecked():
                    return None
                values["allow_plain_http"] = True  # the person ticked it for this server
            return Choice(f"{name} on {server.url}", values)
        if kind == "file" and self.fit is not None:
            return self._file_choice(data.name, data.path, self.fit)
        return None

    def _file_choice(self, label: str, path: str, fit: Any) -> Choice:
        return Choice(label, {
            "model_source": GGUF, "gguf_path": path, "gpu_layers": fit.n_gpu_layers,
            "context_size": fit.n_ctx, "threads": fit.n_threads,
        }, dict(fit.reasons))  # fmt: skip

    def use(self) -> None:
        picked = self.selected()
        if picked and picked[0] == KEY_NEEDED:
            self.key_wanted.emit(picked[1][0])
            return
        choice = self.choice()
        if choice is not None:
            self.chosen.emit(choice)


def _server_why(url: str, plain_http: bool) -> str:
    """What choosing a server means for what the person says."""
    from engine.network import destination, is_loopback

    if is_loopback(url):
        return (
            "The server runs the model with its own settings; MemoryOS only sends the "
            "conversation to it, on this computer."
        )
    text = (
        f"The server runs on another computer, {destination(url)}: your messages and the "
        "memories that go with them are sent there."
    )
    if plain_http:
        text += (
            " Its address is plain http, so they would cross the network unencrypted; use an "
            "https:// address if the server has one."
        )
    return text


def _copy_of_demo(found) -> bool:
    """Whether the file `found` is the bundled demo model under another name or folder: the
    same size and the same model name in its metadata."""
    from engine.bundled import bundled_gguf_path
    from engine.gguf import gguf_info

    try:
        demo = bundled_gguf_path()
        if os.path.samefile(found.path, demo):
            return True
        return (
            found.info is not None
            and os.path.getsize(found.path) == demo.stat().st_size
            and found.info.name == gguf_info(demo).name
        )
    except (OSError, ValueError):
        return False
