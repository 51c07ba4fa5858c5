"""The model picker's rows: the files on disk, the servers answering, the downloads offered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QStyle, QTreeWidgetItem

from app import theme
from app.errors import describe
from app.model_choice import short_model_name
from app.model_table import (
    DOWNLOADS,
    FILES,
    GROUP_TITLES,
    IN_USE,
    ITEM_PADDING,
    KEY_NEEDED,
    SERVERS,
    SLOW_COLOR,
    WRAP,
    in_use,
    same_server,
)
from app.theme import ERROR_RED, in_red, pixels
from engine.terminal import wording
from models.recommended import suggested, suggestion_reason


def look_around(folders: list[str] | None = None, probe: bool = True) -> Any:
    from models.overview import overview
    from models.probe import chosen_server_url, ports_to_probe

    ports = ports_to_probe(chosen_server_url()) if probe else None
    return overview(folders=folders, probe=probe, ports=ports)


class ModelRowsMixin:
    """Fills the table from a look around (files, servers, downloads) and keeps its columns
    fitted. A mixin of ModelPicker (kept apart so the picker's own module stays small)."""

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
                f"{wording.size(info.size_bytes)} · context {info.context_length or '?'}"
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
            if not (found.needs_key and any(same_server(a.url, found.url) for a in self.added))
        ]  # fmt: skip
        servers += [
            added for added in self.added
            if not any(same_server(added.url, found.url) for found in servers)
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
                    f"paused at {wording.size(part['done'])} of {wording.size(part['size'])} · {verdict}"
                )
            # What a person chooses by comes first; the repository and file are in the tooltip.
            details = " · ".join(
                filter(None, [wording.size(model.size_bytes), model.licence, model.note])
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
        before = [added for added in self.added if same_server(added.url, server.url)]
        self.added = [added for added in self.added if added not in before] + [server]
        group = self.table.topLevelItem(list(GROUP_TITLES).index(SERVERS))
        if group is None:  # still looking around: the table is filled with it
            return
        rows = []
        for row in self.rows(SERVERS):
            data = row.data(0, Qt.ItemDataRole.UserRole)
            if data is None or any(data[1][0] is added for added in before):
                group.removeChild(row)  # the "none answering" note; an older list of it
            elif data[0] == KEY_NEEDED and same_server(data[1][0].url, server.url):
                group.removeChild(row)  # it needed a key: its models replace the row
            elif same_server(data[1][0].url, server.url):
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
