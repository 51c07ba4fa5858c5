"""The model picker's download of a recommended model: progress, pause, resume, cancel."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from app.errors import describe
from app.model_table import DOWNLOADS
from engine.terminal import wording


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


class DownloadsMixin:
    """Downloads the recommended model selected, one at a time. A mixin of ModelPicker (kept
    apart so the picker's own module stays small)."""

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
            f"{verb} {wording.size(progress.done)} of {wording.size(progress.total)} · "
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


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
