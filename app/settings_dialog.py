"""Settings: where the model comes from (bundled, GGUF file, server), its performance, the
embedding model, memory."""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.demo_banner import DEMO_MAX_TOKENS
from app.embedder_choice import EmbedderBox, EmbedderSwitcher, app_embedder
from app.errors import describe
from app.memory_form import MemoryForm
from app.outgoing import url_note
from app.policy_lock import lock_memory_form, policy_note
from app.settings_appearance import ConversationPage
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings
from app.workers import WorkerPool
from engine.policy import current as current_policy

MODEL_KEYS = ("model_source", "gguf_path", "server_url", "server_model", "gpu_layers",
              "context_size", "threads", "allow_plain_http")


def gguf_summary(path: str) -> str:
    """The file's metadata as one HTML paragraph (runs in a worker)."""
    from models.catalogue import gguf_info

    info = gguf_info(path)
    size = info.size_bytes / 1e9
    params = f"{info.parameters / 1e9:.2f} B parameters" if info.parameters >= 1e8 else (
        f"{info.parameters / 1e6:.0f} M parameters")
    context = f"{info.context_length:,} tokens context" if info.context_length else "context unknown"
    template = "chat template included" if info.chat_template else "no chat template (a generic one is used)"
    return (f"<b>{info.name or info.architecture}</b><br>{info.architecture} · {params} · "
            f"{info.quantisation} · {size:.2f} GB<br>{context} · {template}")


def added_models() -> list:
    """GGUF files and servers the person added before (the catalogue, minus the bundled model)."""
    from models.catalogue import list_models

    return [entry for entry in list_models() if entry.source != "bundled"]


def remember_model(settings: AppSettings) -> None:
    """Record the chosen GGUF file or server in the catalogue, for the 'added models' list."""
    from models.catalogue import add_endpoint, add_gguf

    if settings.model_source == GGUF:
        add_gguf(settings.gguf_path)
    elif settings.model_source == SERVER:
        add_endpoint(settings.server_url, settings.server_model)


def gpu_support() -> bool:
    from models.machine import gpu_offload_supported

    return bool(gpu_offload_supported())


def save_api_key(url: str, key: str) -> None:
    from engine.api_keys import set_api_key

    set_api_key(url, key)


class _Note(QLabel):
    """A wrapped hint that keeps the height its text needs: a form layout short of room would
    otherwise squeeze it into the row above."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().minimumSizeHint()
        width = max(self.width(), self.minimumWidth())
        return QSize(hint.width(), max(hint.height(), self.heightForWidth(width)))


class SettingsDialog(QDialog):
    """Model and memory settings; `applied(settings, model_changed)` when the person saves."""

    applied = Signal(object, bool)
    reopen_needed = Signal()  # a re-embedding stopped half-way: the memory must be opened again
    loaded = Signal()  # the background look-ups (GPU support, file metadata) have answered

    def __init__(self, settings: AppSettings, session: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = settings
        self.session = session
        self.pool: WorkerPool = session.pool if session is not None else WorkerPool(parent=self)
        self.setWindowTitle("Settings")
        self.setMinimumSize(800, 620)
        self.policy = current_policy()  # the administrator's: its settings are shown locked
        self.tabs = QTabWidget()
        self.tabs.addTab(self._model_tab(), "Model")
        self.tabs.addTab(self._models_page(), "Models")
        self.tabs.addTab(self._memory_tab(), "Memory")
        self.conversation_page = ConversationPage()
        self.tabs.addTab(self.conversation_page, "Conversation")
        self.error = QLabel(objectName="error")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(12)
        note = policy_note(self.policy)
        if note is not None:
            layout.addWidget(note)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self._info_timer = QTimer(self)
        self._info_timer.setSingleShot(True)
        self._info_timer.setInterval(300)
        self._info_timer.timeout.connect(self._read_gguf)
        self.set_values(settings)
        self.pool.run(gpu_support, on_result=self._gpu_checked, on_error=self._gpu_unknown)
        self.pool.run(added_models, on_result=self._show_added)

    # --- model tab ---------------------------------------------------------------------
    def _model_tab(self) -> QWidget:
        source = QGroupBox("Where the model comes from")
        column = QVBoxLayout(source)
        self.source_group = QButtonGroup(self)
        self.bundled = QRadioButton("Bundled: SmolLM2-135M-Instruct, offline")
        self.gguf = QRadioButton("A GGUF model file on this computer (llama.cpp)")
        self.server = QRadioButton("An OpenAI-compatible server (Ollama, LM Studio, vLLM, a cloud API)")
        for index, button in enumerate((self.bundled, self.gguf, self.server)):
            self.source_group.addButton(button, index)
        bundled_note = QLabel("Tiny and fast: enough to try MemoryOS end to end, not for good "
                              "answers. Pick a bigger GGUF file or a server for real use.",
                              objectName="hint")
        bundled_note.setWordWrap(True)
        self.gguf_path = QLineEdit()
        self.gguf_path.setPlaceholderText("/path/to/model.gguf")
        self.gguf_path.textChanged.connect(lambda: self._info_timer.start())
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.gguf_path, 1)
        path_row.addWidget(browse)
        self.gguf_info = QLabel(objectName="hint")
        self.gguf_info.setWordWrap(True)
        self.gguf_box = QWidget()
        gguf_layout = QVBoxLayout(self.gguf_box)
        gguf_layout.setContentsMargins(26, 0, 0, 4)
        gguf_layout.addLayout(path_row)
        gguf_layout.addWidget(self.gguf_info)
        self.server_url = QLineEdit()
        self.server_url.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.server_model = QLineEdit()
        self.server_model.setPlaceholderText("e.g. llama3.1:8b")
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("Leave empty for local servers without a key")
        self.server_box = QWidget()
        server_form = QFormLayout(self.server_box)
        server_form.setContentsMargins(26, 0, 0, 4)
        self.url_note = QLabel(objectName="hint")  # "on this computer" or "remote: host"
        self.url_note.setWordWrap(True)
        self.server_url.textChanged.connect(lambda url: self.url_note.setText(url_note(url)))
        self.allow_plain_http = QCheckBox("Allow plain http:// to a server that is not this computer")
        self.allow_plain_http.setToolTip(
            "Off: a remote server must use https://, so memories never cross the network "
            "unencrypted."
        )
        server_form.addRow("Base URL", self.server_url)
        server_form.addRow("", self.url_note)
        server_form.addRow("", self.allow_plain_http)
        server_form.addRow("Model name", self.server_model)
        server_form.addRow("API key", self.api_key)
        key_note = QLabel("The key is stored in the system keyring, never in a settings file.",
                          objectName="hint")
        server_form.addRow("", key_note)
        self.recent = QComboBox()
        self.recent.activated.connect(self._recent_chosen)
        self.recent_row = QWidget()
        recent_layout = QHBoxLayout(self.recent_row)
        recent_layout.setContentsMargins(0, 0, 0, 6)
        recent_layout.addWidget(QLabel("Models you added"))
        recent_layout.addWidget(self.recent, 1)
        self.recent_row.hide()
        column.addWidget(self.recent_row)
        column.addWidget(self.bundled)
        bundled_note.setContentsMargins(26, 0, 0, 4)
        column.addWidget(bundled_note)
        column.addWidget(self.gguf)
        column.addWidget(self.gguf_box)
        column.addWidget(self.server)
        column.addWidget(self.server_box)
        self.source_group.idToggled.connect(self._source_changed)

        local = QGroupBox("Running a local model")
        form = QFormLayout(local)
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(0, 999)
        self.gpu_layers.setSpecialValueText("0 (CPU only)")
        self.gpu_note = _Note("Checking GPU support…", objectName="hint")
        self.gpu_note.setWordWrap(True)
        self.gpu_note.setMinimumWidth(460)
        self.context_size = QSpinBox()
        self.context_size.setRange(512, 262_144)
        self.context_size.setSingleStep(512)
        self.context_size.setSuffix(" tokens")
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText("Automatic")
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(16, 32_768)
        self.max_tokens.setSingleStep(64)
        self.max_tokens.setSuffix(" tokens")
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        for spin in (self.gpu_layers, self.context_size, self.threads, self.max_tokens):
            spin.setFixedWidth(180)
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow("", self.gpu_note)
        form.addRow("Context size", self.context_size)
        form.addRow("CPU threads", self.threads)
        form.addRow("Longest answer", self.max_tokens)
        self.demo_limit = QLabel(
            f"The bundled demo model stops at {DEMO_MAX_TOKENS} tokens whatever this says: "
            "past that it rambles.",
            objectName="hint",
        )
        self.demo_limit.setWordWrap(True)
        form.addRow("", self.demo_limit)
        self.auto_lock = QSpinBox()
        self.auto_lock.setRange(0, 24 * 60)
        self.auto_lock.setSuffix(" min")
        self.auto_lock.setSpecialValueText("Never")
        self.auto_lock.setToolTip("Close the vault after this long without input; it asks for "
                                  "the key again. 0: never.")
        if self.policy.auto_lock_minutes is not None:
            self.auto_lock.setMaximum(max(1, self.policy.auto_lock_minutes))
            self.auto_lock.setMinimum(1 if self.policy.auto_lock_minutes else 0)
            self.auto_lock.setToolTip(f"At most {self.policy.auto_lock_minutes} minutes: set by "
                                      f"your administrator ({self.policy.source}).")
        self.fit_note = _Note(objectName="hint")  # why the values were chosen (Models page)
        self.fit_note.setWordWrap(True)
        self.fit_note.setMinimumWidth(460)
        self.fit_note.hide()
        form.addRow("", self.fit_note)
        # Locking has nothing to do with running a model: its own group, where it is looked for
        locking = QGroupBox("When you step away")
        lock_form = QFormLayout(locking)
        lock_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.auto_lock.setFixedWidth(180)
        lock_form.addRow("Lock when idle for", self.auto_lock)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.setSpacing(12)
        layout.addWidget(source)
        layout.addWidget(local)
        layout.addWidget(self._embedder_group())
        layout.addWidget(locking)
        layout.addStretch(1)
        # a server's or a file's fields make the page taller than the dialog: scroll rather
        # than squeeze the rows into each other
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(page)
        return scroll

    def _embedder_group(self) -> QWidget:
        # tests give the session a fake factory; the app runs the model in its helper process
        self.embedder_factory = getattr(self.session, "embedder_factory", None) or app_embedder
        self.embedder_box = EmbedderBox(self.pool, self.embedder_factory)
        if self.session is None:
            self.embedder_box.setEnabled(False)
            self.embedder_box.vault_note.setText("Open your memory to change its embedding model.")
        else:
            self.session.run(self.session.mem.info, on_result=lambda info: self.embedder_box.show_vault(
                info.embedder_id, info.embedder_dimension))
        return self.embedder_box

    def _models_page(self) -> QWidget:
        from app.models_page import ModelsPage

        self.models_page = ModelsPage(self.pool)
        self.models_page.picker.chosen.connect(self.use_choice)
        return self.models_page

    def use_choice(self, choice: Any) -> None:
        """A model picked on the Models page fills the Model tab; Save applies it."""
        self.set_values(dataclasses.replace(self.values(), **choice.values))
        lines = [f"<b>{name}</b> {choice.reasons[key]}" for key, name in (
            ("gpu_layers", "GPU layers"), ("context", "Context"), ("threads", "Threads"))
            if key in choice.reasons]
        self.fit_note.setText("Suggested for this computer:<br>" + "<br>".join(lines))
        self.fit_note.setVisible(bool(lines))
        self.models_page.note.setText(f"Chosen: {choice.label}. Press Save to switch to it.")
        self.tabs.setCurrentIndex(0)

    def _memory_tab(self) -> QWidget:
        self.memory_form = MemoryForm()
        reset = QPushButton("Reset to the paper's defaults")
        reset.clicked.connect(self.memory_form.reset)
        note = QLabel("Defaults follow the MemoryOS paper (Kang et al., EMNLP 2025). Changes apply "
                      "to new exchanges and the next consolidation.", objectName="hint")
        note.setWordWrap(True)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(14, 14, 14, 14)
        column.addWidget(note)
        column.addWidget(self.memory_form)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(reset)
        column.addLayout(row)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        if self.session is not None:
            self.memory_form.set_settings(self.session.mem.settings)
        else:
            self.memory_form.reset()
            scroll.setEnabled(False)
        self.locked = lock_memory_form(self.memory_form, self.policy)
        return scroll

    # --- values ------------------------------------------------------------------------
    def set_values(self, settings: AppSettings) -> None:
        button = {BUNDLED: self.bundled, GGUF: self.gguf, SERVER: self.server}[settings.model_source]
        button.setChecked(True)
        self.gguf_path.setText(settings.gguf_path)
        self.server_url.setText(settings.server_url)
        self.server_model.setText(settings.server_model)
        self.allow_plain_http.setChecked(settings.allow_plain_http)
        self.gpu_layers.setValue(settings.gpu_layers)
        self.context_size.setValue(settings.context_size)
        self.threads.setValue(settings.threads)
        self.max_tokens.setValue(settings.max_tokens)
        self.auto_lock.setValue(settings.auto_lock_minutes)
        self.embedder_box.set_value(settings.embedder)
        self.conversation_page.set_values(settings)
        self._source_changed()

    def values(self) -> AppSettings:
        source = (BUNDLED, GGUF, SERVER)[max(0, self.source_group.checkedId())]
        return dataclasses.replace(
            self.original, model_source=source, gguf_path=self.gguf_path.text().strip(),
            server_url=self.server_url.text().strip(), server_model=self.server_model.text().strip(),
            gpu_layers=self.gpu_layers.value(), context_size=self.context_size.value(),
            threads=self.threads.value(), max_tokens=self.max_tokens.value(),
            allow_plain_http=self.allow_plain_http.isChecked(),
            auto_lock_minutes=self.auto_lock.value(), embedder=self.embedder_box.value(),
            **self.conversation_page.values(),
        )

    def _source_changed(self, *_args: Any) -> None:
        self.gguf_box.setVisible(self.gguf.isChecked())
        self.server_box.setVisible(self.server.isChecked())
        self.gpu_layers.setEnabled(not self.server.isChecked() and self.gpu_layers.property("gpu") is not False)
        self.context_size.setEnabled(not self.server.isChecked())
        self.threads.setEnabled(not self.server.isChecked())
        self.demo_limit.setVisible(self.bundled.isChecked())

    def _show_added(self, entries: list) -> None:
        self.recent.clear()
        self.recent.addItem("Choose…", None)
        for entry in entries:
            self.recent.addItem(entry.label + ("" if entry.available else " (file missing)"), entry)
        self.recent_row.setVisible(bool(entries))

    def _recent_chosen(self, index: int) -> None:
        entry = self.recent.itemData(index)
        if entry is None:
            return
        if entry.source == "gguf":
            self.gguf_path.setText(entry.path)
            self.gguf.setChecked(True)
        else:
            self.server_url.setText(entry.url)
            self.server_model.setText(entry.model)
            self.server.setChecked(True)

    def browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model file", self.gguf_path.text(),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.gguf_path.setText(path)
            self.gguf.setChecked(True)

    def _read_gguf(self) -> None:
        path = self.gguf_path.text().strip()
        if not path:
            self.gguf_info.setText("")
            return
        self.gguf_info.setText("Reading the file…")
        self.pool.run(gguf_summary, path, on_result=self._gguf_read, on_error=self._gguf_failed)

    def _gguf_read(self, html: str) -> None:
        self.gguf_info.setText(html)
        self.loaded.emit()

    def _gguf_failed(self, error: Exception) -> None:
        self.gguf_info.setText(f"<span style='color:#B42318'>{describe(error)}</span>")
        self.loaded.emit()

    def _gpu_checked(self, supported: bool) -> None:
        self.gpu_layers.setProperty("gpu", supported)
        if supported:
            self.gpu_note.setText("This build of llama.cpp can offload layers to the GPU. "
                                  "More layers on the GPU = faster, until its memory is full.")
        else:
            self.gpu_note.setText("This build of llama.cpp has no GPU support, so the model runs "
                                  "on the CPU. Install a CUDA, Metal or Vulkan build to use a GPU.")
            self.gpu_layers.setValue(0)
        self._source_changed()
        self.loaded.emit()

    def _gpu_unknown(self, error: Exception) -> None:
        self.gpu_note.setText(f"GPU support unknown: {describe(error)}")
        self.loaded.emit()

    # --- saving ------------------------------------------------------------------------
    def save(self) -> None:
        """Check, then apply: memory settings to the vault, model settings to the app."""
        settings = self.values()
        problem = self._problem(settings)
        if self.embedder_box.folder.isChecked() and not settings.embedder:
            problem = "Choose the embedding model's folder, or pick the bundled model."
        memory = self.memory_form.settings() if self.session is not None else None
        if not problem and memory is not None:
            try:
                memory.validate()
            except ValueError as error:
                problem = str(error)
        if problem:
            self.error.setText(problem)
            self.error.show()
            return
        if settings.embedder != self.original.embedder and self.session is not None:
            # the vault must move to the new model first; the rest is saved once it has
            self.switcher = EmbedderSwitcher(self, self.session, self.embedder_factory,
                                             lambda ok: self._embedder_switched(ok, settings, memory))
            self.switcher.start(settings.embedder)
            return
        self._apply(settings, memory)

    def _embedder_switched(self, ok: bool, settings: AppSettings, memory: Any) -> None:
        if ok:
            self._apply(settings, memory)
            return
        self.error.setText(self.switcher.message)
        self.error.show()
        if self.switcher.worker is not None:  # stopped half-way: resumable, the old model stays
            self.reopen_needed.emit()

    def _apply(self, settings: AppSettings, memory: Any) -> None:
        if memory is not None and memory != self.session.mem.settings:
            self.session.run(self.session.mem.update_settings, memory, on_error=self._failed)
        changed = any(getattr(settings, k) != getattr(self.original, k) for k in MODEL_KEYS)
        if changed and settings.model_source != BUNDLED:
            self.pool.run(remember_model, settings)  # a bad file is reported by the model load
        self._pending = settings
        if settings.model_source == SERVER and self.api_key.text():
            # The key must be in the keyring before the model is loaded with it.
            self.setEnabled(False)
            self.pool.run(save_api_key, settings.server_url, self.api_key.text(),
                          on_result=self._key_saved, on_error=self._failed)
            return
        self.applied.emit(settings, changed)
        self.accept()

    def _key_saved(self, _result: object) -> None:
        self.applied.emit(self._pending, True)
        self.accept()

    def _failed(self, error: Exception) -> None:
        self.setEnabled(True)
        self.error.setText(describe(error))
        self.error.show()

    @staticmethod
    def _problem(settings: AppSettings) -> str:
        if settings.model_source == GGUF and not settings.gguf_path:
            return "Choose a GGUF file, or pick another model source."
        if settings.model_source == SERVER and not (settings.server_url and settings.server_model):
            return "A server needs both a base URL and a model name."
        if settings.model_source == SERVER:
            from engine.errors import MemoryOSError
            from engine.network import check_url

            try:
                check_url(settings.server_url, allow_plain_http=settings.allow_plain_http)
            except MemoryOSError as error:
                return str(error)[:1].upper() + str(error)[1:] + "."
        return ""
