"""The Model tab's local model: the GGUF file chosen (read in a worker: its context, its size,
why it cannot be used), the bundled model's limits, GPU support, and what they say under
"Running a local model".

A mixin of ModelTab (kept apart so the tab's own module stays small); it uses the tab's
fields, its worker pool and its signals.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtWidgets import QFileDialog

from app.demo_banner import DEMO_MAX_TOKENS
from app.errors import describe
from app.settings_lookups import gguf_refusal, read_gguf
from app.theme import in_red


class LocalModelMixin:
    """Methods ModelTab gets for the model file it runs and the computer it runs on."""

    def _show_answer_limit(self) -> None:
        """Beside "Longest answer": a model under 1 B parameters stops at SMALL_MAX_TOKENS
        whatever it says (engine/prompt.py), the bundled one and such a GGUF file alike. A
        server's size is not known here."""
        from engine.prompt import SMALL_MAX_TOKENS, SMALL_MODEL_PARAMETERS

        if self.bundled.isChecked():
            small = True
            text = (f"The bundled demo model stops at {DEMO_MAX_TOKENS} tokens whatever this "
                    "says: past that it rambles.")
        else:
            parameters = self._parameters.get(self._model_file(), 0)
            small = 0 < parameters < SMALL_MODEL_PARAMETERS
            text = (f"This model ({parameters / 1e6:,.0f} M parameters) stops at "
                    f"{SMALL_MAX_TOKENS} tokens whatever this says: models under 1 B "
                    "parameters ramble past that.")
        self.demo_limit.setText(text)
        self.demo_limit.setVisible(small)

    def _model_file(self) -> str:
        """The GGUF file the model tab's choice runs ("" for a server, or a file not read)."""
        if self.bundled.isChecked():
            return self._bundled_path
        return self.gguf_path.text().strip() if self.gguf.isChecked() else ""

    def _bundled_read(self, answer: tuple) -> None:
        self._bundled_path, self._context_limits[answer[0]] = answer[0], answer[1]
        self._check_context()
        self.loaded.emit()

    def _check_context(self, *_args: Any) -> None:
        """A context longer than the file was trained on: allowed, but said, with the memory it
        takes and what the Models page would suggest."""
        trained, fitted, per_token = self._context_limits.get(self._model_file(), (0, 0, 0))
        wanted = self.context_size.value()
        over = trained > 0 and wanted > trained
        if over:
            from engine.terminal.wording import size

            cost = (f" At {wanted:,} tokens the context alone takes about "
                    f"{size(per_token * wanted)} of memory." if per_token else "")
            fit = (f" Suggested for this computer: {fitted:,} tokens." if fitted else "")
            self.context_note.setText(
                f"More than the {trained:,} tokens this model was trained on: past those its "
                f"answers get worse, yet the longer context still takes memory.{cost}{fit}")
        self.local_form.setRowVisible(self.context_note, over)

    # --- a GGUF file -------------------------------------------------------------------
    def browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model file",
                                              self.gguf_path.text(),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.gguf_path.setText(path)
            self.gguf.setChecked(True)

    def _path_edited(self) -> None:
        # what was said of the file before is gone at once; the new one is read after a pause
        self.gguf_info.setText("")
        self._info_timer.start()
        self._show_answer_limit()
        self.choice_changed.emit()

    def _read_gguf(self) -> None:
        path = self.gguf_path.text().strip()
        if not path:
            self.gguf_info.setText("")
            return
        self.gguf_info.setText("Reading the file…")
        self.pool.run(read_gguf, path, on_result=self._gguf_read)

    def _gguf_read(self, answer: tuple) -> None:
        path, html, problem, limits, parameters = answer
        if problem:
            self._gguf_failed(path, problem)
            return
        self._gguf_errors.pop(path, None)
        self._context_limits[path] = limits
        self._parameters[path] = parameters
        self._show_answer_limit()
        if path == self.gguf_path.text().strip():
            self.gguf_info.setText(html)
        self._check_context()
        self.loaded.emit()

    def _gguf_failed(self, path: str, problem: str) -> None:
        self._gguf_errors[path] = problem  # Save refuses this file
        if path == self.gguf_path.text().strip():
            self.show_gguf_problem(problem)
        self.loaded.emit()

    def show_gguf_problem(self, problem: str) -> None:
        """Why the file chosen cannot be used, under its field (the one place it is said)."""
        self.gguf_info.setText(in_red(escape(problem)))

    def gguf_problem(self, path: str) -> str:
        """Why the file cannot be loaded ("" when it can, as far as is known): missing, not a
        GGUF (its first bytes, read now), or damaged (what reading its header said)."""
        from engine.errors import ModelLoadError
        from engine.gguf import check_gguf_file

        try:
            check_gguf_file(path)
        except ModelLoadError as error:
            return gguf_refusal(path, error)
        return self._gguf_errors.get(path, "")

    def _gpu_checked(self, supported: bool) -> None:
        self.gpu_layers.setProperty("gpu", supported)
        if supported:
            self.gpu_note.setText("This build of llama.cpp can offload layers to the GPU. "
                                  "More layers on the GPU = faster, until its memory is full.")
        else:
            self.gpu_note.setText("This build of llama.cpp has no GPU support, so the model "
                                  "runs on the CPU. Install a CUDA, Metal or Vulkan build to "
                                  "use a GPU.")
            self.gpu_layers.setValue(0)
        self._source_changed()
        self.loaded.emit()

    def _gpu_unknown(self, error: Exception) -> None:
        self.gpu_note.setText(f"GPU support unknown: {describe(error)}")
        self.loaded.emit()
