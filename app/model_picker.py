"""One table of every model a person can use: files on disk, local servers, downloads."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.errors import describe
from app.model_choice import short_model_name
from app.settings_store import BUNDLED, GGUF, SERVER
from app.theme import ERROR_RED, in_red, pixels
from app.workers import WorkerPool
from models.machine import size_text
from models.recommended import suggested, suggestion_reason

FILES, SERVERS, DOWNLOADS = "files", "servers", "downloads"
KEY_NEEDED = "key needed"  # a server's row when it refused the probe for want of an API key
ITEM_PADDING = 8  # resources/style.qss: QTreeView::item { padding: 4px 4px; }
WRAP = int(Qt.TextFlag.TextWordWrap)
IN_USE = "in use"  # first in the verdict of the model being talked to now
# "slow": dark on the light scheme, as "no: ..." (theme.ERROR_RED); theme.color() makes it
# light enough to read on the dark one.
SLOW_COLOR = "#B54708"
GROUP_TITLES = {
    FILES: "On this computer",
    SERVERS: "Servers (OpenAI-compatible)",
    DOWNLOADS: "Recommended downloads",
}


@dataclass
class Choice:
    """What the person picked, as app settings values (keys of AppSettings)."""

    label: str
    values: dict[str, Any] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # why GPU layers/context/threads


# -- work done in pool threads (no widgets here) ------------------------------------------


def look_around(folders: list[str] | None = None, probe: bool = True) -> Any:
    from models.overview import overview
    from models.probe import chosen_server_url, ports_to_probe

    ports = ports_to_probe(chosen_server_url()) if probe else None
    return overview(folders=folders, probe=probe, ports=ports)


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


class DownloadSignals(QObject):
    progressed = Signal(object)  # models.download.Progress, from the download's thread


def discard_download(model: Any) -> None:
    from models.download import discard_partial, downloads_dir

    discard_partial(downloads_dir() / model.file)


def run_download(model: Any, signals: DownloadSignals, holder: dict) -> Any:
    """Download a recommended model into MemoryOS's models folder (pool thread)."""
    from models.download import Download, downloads_dir

    download = Download(model.url, downloads_dir() / model.file, sha256=model.sha256)
    holder["download"] = download
    return download.run(signals.progressed.emit)


# -- the widget ----------------------------------------------------------------------------


class WrappingDelegate(QStyledItemDelegate):
    """Row heights for the text wrapped at its column's width: QTreeView asks the height of an
    unwrapped line, and a wrapped cell then lost its last lines."""

    def __init__(self, table: QTreeWidget) -> None:
        super().__init__(table)
        self.table = table

    def sizeHint(self, option: QStyleOptionViewItem, index: Any) -> QSize:  # noqa: N802 - Qt
        table = self.table
        if table.isFirstColumnSpanned(index.row(), index.parent()):
            width = table.viewport().width()
        else:
            width = table.columnWidth(index.column())
        if index.column() == 0:
            width -= table.indentation()
        option = QStyleOptionViewItem(option)
        # the style sheet's item padding (4 px each side) is not counted by the style's size
        option.rect = QRect(0, 0, max(1, width - ITEM_PADDING), 1 << 16)
        return super().sizeHint(option, index)


def usable_row(item: QTreeWidgetItem | None) -> bool:
    """A row that can be selected: a model, not a heading, a note or a file that cannot load."""
    wanted = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
    return item is not None and item.flags() & wanted == wanted


class ModelTable(QTreeWidget):
    """The model table, whose keys and clicks go from model row to model row. Moving the
    current row back from inside the current-row signal (as before) left the keyboard's focus
    on a row that was not selected ("Use this model" greyed, Enter doing nothing): the move is
    corrected before Qt makes it, so the row with the focus is the row selected."""

    Move = QTreeWidget.CursorAction
    FORWARD = (Move.MoveDown, Move.MoveNext, Move.MovePageDown, Move.MoveHome)
    BACKWARD = (Move.MoveUp, Move.MovePrevious, Move.MovePageUp, Move.MoveEnd)

    def moveCursor(self, action: Any, modifiers: Any) -> Any:  # noqa: N802 - Qt override
        index = super().moveCursor(action, modifiers)
        item = self.itemFromIndex(index)
        if not index.isValid() or usable_row(item):
            return index
        here = self.currentIndex()
        if action in self.FORWARD or action in self.BACKWARD:
            steps = [self.itemBelow, self.itemAbove]
            if action in self.BACKWARD:
                steps.reverse()
            if action in (self.Move.MoveDown, self.Move.MoveUp, self.Move.MoveNext,
                          self.Move.MovePrevious) and here.isValid():
                steps = steps[:1]  # no model row that way: the focus stays where it is
            for step in steps:
                found = step(item)
                while found is not None and not usable_row(found):
                    found = step(found)
                if found is not None:
                    return self.indexFromItem(found, index.column())
        return here  # Left to a heading, or no model row at all: stay

    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """A click on a heading or a note leaves the selected row as it was."""
        item = self.itemAt(event.position().toPoint())
        if item is not None and not usable_row(item):
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """A double-click on a heading uses nothing (the row selected is not the one clicked)."""
        item = self.itemAt(event.position().toPoint())
        if item is not None and not usable_row(item):
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyboardSearch(self, search: str) -> None:  # noqa: N802 - Qt override
        """Typing a name goes to a model row, never to the heading whose title matches."""
        before = self.currentItem()
        super().keyboardSearch(search)
        if not usable_row(self.currentItem()) and usable_row(before):
            self.setCurrentItem(before)


class ModelPicker(QWidget):
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.machine)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.why)
        layout.addWidget(self.plain_http)
        layout.addWidget(self.download_box)
        layout.addLayout(buttons)
        self.signals = DownloadSignals(self)
        self.signals.progressed.connect(self._download_progress)
        self._update_buttons()
        self.refresh()

    # --- listing -----------------------------------------------------------------------
    def refresh(self) -> None:
        self.machine.setText("Looking for models on this computer and local servers…")
        self.refresh_button.setEnabled(False)
        self.pool.run(look_around, None, self.probe, on_result=self._listed, on_error=self._failed)

    def _listed(self, overview: Any) -> None:
        self.overview = overview
        self.refresh_button.setEnabled(True)
        text = f"This computer: {' · '.join(overview.machine.described(overview.gpu_offload))}."
        pick = suggested(overview.recommended)
        if pick is not None:
            reason = suggestion_reason(pick[1])
            text += f"<br>Suggested download for it: <b>{pick[0].name}</b> ({reason})."
        self.machine.setText(text)
        self.table.clear()
        groups = {}
        for key, title in GROUP_TITLES.items():
            group = QTreeWidgetItem(self.table, [title])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            groups[key] = group
        bundled = QTreeWidgetItem(groups[FILES], [
            "SmolLM2-135M Instruct (bundled demo)", "Built in",
            "llama · 135M parameters · Q4_1 · offline", "yes (tiny: for trying the app)",
        ])  # fmt: skip
        bundled.setData(0, Qt.ItemDataRole.UserRole, ("bundled", None))
        bundled.setToolTip(0, bundled.text(0))
        self._mark_in_use(bundled)
        for model in overview.files:
            info = model.info
            details = (
                f"{info.architecture} · {_parameters(info.parameters)} · {info.quantisation} · "
                f"{size_text(info.size_bytes)} · context {info.context_length or '?'}"
                f" · {'chat template' if info.chat_template else 'no chat template'}"
                if info else model.error or "cannot be read"
            )  # fmt: skip
            fit = overview.file_fits.get(model.path)
            verdict = "" if fit is None else fit.verdict()
            if info is None:  # missing weights, damaged, unreadable: llama.cpp cannot load it
                verdict = "no: cannot be loaded"
            row = QTreeWidgetItem(groups[FILES], [model.name, model.tool, details, verdict])
            row.setToolTip(0, f"{model.name}\n{model.path}")
            row.setToolTip(2, details)
            _mark_speed(row, fit)
            row.setData(0, Qt.ItemDataRole.UserRole, ("file", model))
            if info is None:
                row.setForeground(3, QColor(theme.color(ERROR_RED)))
                row.setToolTip(3, details)
                row.setDisabled(True)
            self._mark_in_use(row)
        # a server that refused the probe for want of a key, but was given one here (kept for
        # the session where no keyring is usable): listed as added, with its models
        servers = [
            found for found in overview.servers
            if not (found.needs_key and any(_same_server(a.url, found.url) for a in self.added))
        ]  # fmt: skip
        servers += [
            added for added in self.added
            if not any(_same_server(added.url, found.url) for found in servers)
        ]  # fmt: skip
        for server in servers:
            self._server_rows(groups[SERVERS], server)
        if not servers:
            note = QTreeWidgetItem(groups[SERVERS], [
                "None answering on 127.0.0.1: start Ollama, LM Studio's server, llama.cpp's "
                "server, vLLM or Jan, then Look again; a server elsewhere: Add a server address"
            ])  # fmt: skip
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            note.setFirstColumnSpanned(True)  # the hint is read whole, not cut into columns
        paused = {Path(item["dest"]).name: item for item in overview.paused}
        for model, fit in overview.recommended:
            verdict = fit.verdict()
            if model.file in paused:  # a download paused earlier (maybe before a restart)
                part = paused[model.file]
                verdict = (
                    f"paused at {size_text(part['done'])} of {size_text(part['size'])} · {verdict}"
                )
            # What a person chooses by comes first; the repository and file are in the tooltip.
            details = " · ".join(
                filter(None, [size_text(model.size_bytes), model.licence, model.note])
            )
            row = QTreeWidgetItem(groups[DOWNLOADS], [model.name, "Download", details, verdict])
            row.setToolTip(0, model.name)
            row.setToolTip(1, f"Download from Hugging Face ({model.repo}) · {model.licence}")
            row.setToolTip(2, f"{details}\n{model.repo} · {model.file}\n{model.url}")
            row.setData(0, Qt.ItemDataRole.UserRole, ("download", (model, fit)))
            _mark_speed(row, fit)
            if pick is not None and model is pick[0]:
                font = row.font(0)
                font.setBold(True)
                row.setFont(0, font)
                row.setToolTip(0, f"Suggested for this computer: {suggestion_reason(fit)}")
        for group in groups.values():
            group.setExpanded(True)
        self._fit_columns()
        self._update_buttons()
        self.listed.emit()

    def _server_rows(self, group: QTreeWidgetItem, server: Any) -> list[QTreeWidgetItem]:
        """One row per model the server lists; a server added by address says where it is."""
        from engine.network import destination

        where = f"{server.kind.split(' /')[0]} · port {server.port}"
        if server in self.added:
            where = destination(server.url)
        if getattr(server, "needs_key", False):  # no models until it has its key
            row = QTreeWidgetItem(group, [
                "(needs an API key)", where, server.url, server.key_text,
            ])  # fmt: skip
            tip = f"The server at {server.url} {server.key_text}. Choose it to type the key."
            for column in range(4):
                row.setToolTip(column, tip)
            row.setData(0, Qt.ItemDataRole.UserRole, (KEY_NEEDED, (server, "")))
            return [row]
        rows = []
        for name in server.models or ["(no models loaded)"]:
            # llama.cpp's server names its model by the GGUF's path: the file's name is shown,
            # the whole path is in the tooltip (and what is sent to the server)
            shown = short_model_name(name) or name
            row = QTreeWidgetItem(group, [shown, where, server.url, "runs in the server"])
            row.setToolTip(0, name if shown == name else f"{shown}\n{name}")
            row.setToolTip(1, server.url)
            row.setData(0, Qt.ItemDataRole.UserRole, ("server", (server, name)))
            self._mark_in_use(row)
            rows.append(row)
        return rows

    def add_server(self, server: Any) -> None:
        """A server at an address the person typed (a FoundServer): its models join the
        servers in the table (again after Look again), and the first of them is selected."""
        before = [added for added in self.added if _same_server(added.url, server.url)]
        self.added = [added for added in self.added if added not in before] + [server]
        group = self.table.topLevelItem(list(GROUP_TITLES).index(SERVERS))
        if group is None:  # still looking around: the table is filled with it
            return
        rows = []
        for row in self.rows(SERVERS):
            data = row.data(0, Qt.ItemDataRole.UserRole)
            if data is None or any(data[1][0] is added for added in before):
                group.removeChild(row)  # the "none answering" note; an older list of it
            elif data[0] == KEY_NEEDED and _same_server(data[1][0].url, server.url):
                group.removeChild(row)  # it needed a key: its models replace the row
            elif _same_server(data[1][0].url, server.url):
                rows.append(row)  # found by the probe already: its rows stay
        rows = rows or self._server_rows(group, server)
        group.setExpanded(True)
        self._fit_columns()
        self.table.setCurrentItem(rows[0])
        self.table.scrollToItem(rows[0])

    def _mark_in_use(self, row: QTreeWidgetItem) -> None:
        """The model being talked to now says so first in its verdict (in bold)."""
        kind, data = row.data(0, Qt.ItemDataRole.UserRole)
        if not in_use(self.current, kind, data):
            return
        row.setText(3, f"{IN_USE} · {row.text(3)}" if row.text(3) else IN_USE)
        font = row.font(3)
        font.setBold(True)
        row.setFont(3, font)
        why = row.toolTip(3)
        row.setToolTip(3, "The model you are talking to now." + (f"\n{why}" if why else ""))

    def _fit_columns(self) -> None:
        """Each column as wide as its longest entry where the table has room; where it has not,
        the names keep theirs (up to half the table), the verdict and the details share the
        rest and wrap onto more lines, then Where and at last the names wrap too: nothing is
        cut (no column narrower than its longest word or its header)."""
        rows = [row for group in GROUP_TITLES for row in self.rows(group)]
        rows = [row for row in rows if not row.isFirstColumnSpanned()]
        header = self.table.header()
        style = self.table.style()
        # the style sheet's padding and the style's text margins, as the cells are painted
        margins = ITEM_PADDING + 2 * (style.pixelMetric(
            QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.table) + 1) + 2
        wanted, least = [], []
        for column in range(4):
            metrics = [QFontMetrics(row.font(column)) for row in rows]
            texts = [row.text(column) for row in rows]
            extra = margins + (self.table.indentation() if column == 0 else 0)
            whole = max(map(QFontMetrics.horizontalAdvance, metrics, texts), default=0)
            # the longest piece the text cannot be wrapped within, as the cells wrap it
            word = max((font.boundingRect(QRect(0, 0, 1, 1 << 20), WRAP, text).width()
                        for font, text in zip(metrics, texts, strict=True)), default=0)
            wanted.append(max(header.sectionSizeHint(column), whole + extra))
            least.append(max(header.sectionSizeHint(column), word + extra))
        room = self.table.viewport().width()
        model = min(wanted[0], max(pixels(160), room // 2))
        where = min(wanted[1], max(pixels(80), room // 4))
        rest = room - model - where
        details, verdict = wanted[2], wanted[3]
        if details + verdict > rest:  # both wrap, the verdict less: it is what one decides by
            verdict = min(verdict, max(rest // 2, rest - details))
        widths = [model, where, max(least[2], rest - verdict), max(least[3], verdict)]
        # still too wide (a server's address, the largest text): Where gives way, then the
        # names, before the verdict is pushed out of sight
        for column, floor in ((1, least[1]), (0, least[0])):
            over = sum(widths) - room
            if over > 0:
                widths[column] = max(min(widths[column], floor), widths[column] - over)
        widths[2] += max(0, room - sum(widths))
        if widths != [self.table.columnWidth(column) for column in range(4)]:
            for column, width in enumerate(widths):
                self.table.setColumnWidth(column, width)
            self.table.doItemsLayout()  # the rows' heights for the new widths

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _failed(self, error: Exception) -> None:
        self.refresh_button.setEnabled(True)
        self.machine.setText(in_red(describe(error)))
        self.listed.emit()

    def rows(self, group: str) -> list[QTreeWidgetItem]:
        """The rows under one of FILES, SERVERS, DOWNLOADS (tests and screenshots)."""
        index = list(GROUP_TITLES).index(group)
        top = self.table.topLevelItem(index)
        if top is None:
            return []
        return [top.child(i) for i in range(top.childCount())]

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

    # --- downloading -------------------------------------------------------------------
    def start_download(self) -> None:
        picked = self.selected()
        if not picked or picked[0] != "download" or self._download:
            return
        model, fit = picked[1]
        self._download = {"model": model, "fit": fit}
        self._paused = None
        self.download_box.show()
        self.progress.show()
        self.pause_button.show()
        self.cancel_button.show()
        self.cancel_button.setText("Cancel download")
        self.cancel_button.setToolTip("")
        self.progress.setRange(0, 0)
        self.progress_text.setText(f"Asking the hub for {model.file}…")
        self.pause_button.setText("Pause")
        self.pause_button.clicked.disconnect()
        self.pause_button.clicked.connect(self.pause_download)
        self._update_buttons()
        self.pool.run(
            run_download,
            model,
            self.signals,
            self._download,
            on_result=self._downloaded,
            on_error=self._download_failed,
        )

    def _download_progress(self, progress: Any) -> None:
        if progress.total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * progress.done / progress.total))
        left = f" · {_duration(progress.eta)} left" if progress.eta is not None else ""
        verb = "Checking" if progress.stage == "verifying" else "Downloaded"
        self.progress_text.setText(
            f"{verb} {size_text(progress.done)} of {size_text(progress.total)} · "
            f"{progress.speed / 1e6:.1f} MB/s{left}"
        )

    def pause_download(self) -> None:
        download = self._download.get("download")
        if download is not None:
            download.pause()

    def cancel_download(self) -> None:
        download = self._download.get("download")
        if download is not None:
            download.cancel()
        elif self._paused is not None:  # paused or failed: drop the partial file too
            model, self._paused = self._paused, None
            self.download_box.hide()
            self.pool.run(discard_download, model, on_result=lambda _r: self.refresh())

    def _downloaded(self, result: Any) -> None:
        model, fit = self._download["model"], self._download["fit"]
        self._download = {}
        self.progress.setRange(0, 1000)
        self.progress.setValue(1000)
        self.progress_text.setText(
            f"{model.file} downloaded and verified (SHA-256 {result.sha256[:12]}…)."
            if result.verified
            else f"{model.file} downloaded (no published hash to check)."
        )
        self.pause_button.hide()
        self.cancel_button.hide()
        self.download_finished.emit(result)
        self.chosen.emit(self._file_choice(model.name, str(result.path), fit))
        self.refresh()

    def _download_failed(self, error: Exception) -> None:
        from models.download import DownloadStopped

        model, holder = self._download.get("model"), self._download
        self._download = {}
        stopped = isinstance(error, DownloadStopped)
        self.progress.setRange(0, 1000)
        if stopped and error.cancelled:
            self.download_box.hide()
        else:
            self.progress_text.setText(describe(error) if not stopped else str(error))
            download = holder.get("download")
            # Resume (and Discard) only when part of the file is kept; else (offline before a
            # byte came) there is nothing to resume: the table's Download tries again.
            kept = download is not None and (download.part.exists() or download.sidecar.exists())
            self._paused = model if kept else None
            self.progress.setVisible(kept)
            self.pause_button.setVisible(kept)
            self.cancel_button.setVisible(kept)
            self.cancel_button.setText("Discard download")
            self.cancel_button.setToolTip("Delete the part downloaded so far")
            self.pause_button.setText("Resume")
            self.pause_button.clicked.disconnect()
            self.pause_button.clicked.connect(self._resume)
        self._update_buttons()
        self.download_finished.emit(error)

    def _resume(self) -> None:
        for row in self.rows(DOWNLOADS):
            if row.data(0, Qt.ItemDataRole.UserRole)[1][0] == self._paused:
                self.table.setCurrentItem(row)
        self.start_download()


def in_use(current: Any, kind: str, data: Any) -> bool:
    """Is this row (kind and data as the table stores them) the model `current` settings use?"""
    if current is None:
        return False
    if kind == "bundled":
        return current.model_source == BUNDLED
    if kind == "file":
        return current.model_source == GGUF and _same_file(current.gguf_path, data.path)
    if kind == "server":
        server, name = data
        return (
            current.model_source == SERVER
            and name == current.server_model
            and _same_server(current.server_url, server.url)
        )
    return False


def _same_file(chosen: str, found: str) -> bool:
    """One file, whichever link or spelling leads to it (LM Studio's folders hold links)."""
    if not chosen:
        return False
    try:
        return Path(chosen).expanduser().resolve() == Path(found).resolve()
    except (OSError, RuntimeError):
        return chosen == found


def _same_server(chosen: str, found: str) -> bool:
    """One server: the same URL, or this computer's same port (localhost is 127.0.0.1)."""
    from urllib.parse import urlsplit

    from engine.errors import ServerError
    from engine.network import is_loopback, normalise_url

    try:
        chosen, found = normalise_url(chosen), normalise_url(found)
        if chosen == found:
            return True
        a, b = urlsplit(chosen), urlsplit(found)
        same_port = a.port == b.port and a.path.rstrip("/") == b.path.rstrip("/")
    except (ServerError, ValueError):
        return False
    return same_port and is_loopback(chosen) and is_loopback(found)


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


def _mark_speed(row: QTreeWidgetItem, fit: Any) -> None:
    """The verdict in red when the model does not fit, amber when it would be slow here; its
    tooltip says why."""
    if fit is None:
        return
    if not fit.fits:
        row.setForeground(3, QColor(theme.color(ERROR_RED)))
    elif fit.slow:
        row.setForeground(3, QColor(theme.color(SLOW_COLOR)))
    row.setToolTip(3, fit.reasons.get("speed") or fit.reasons.get("context", ""))


def _parameters(count: int) -> str:
    return f"{count / 1e9:.1f}B parameters" if count >= 1e9 else f"{count / 1e6:.0f}M parameters"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


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
