"""Settings: where the model comes from (bundled, GGUF file, server), its performance, the
embedding model, memory."""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
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
    QMenu,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.demo_banner import DEMO_MAX_TOKENS
from app.embedder_choice import EmbedderBox, EmbedderSwitcher, app_embedder
from app.errors import describe
from app.memory_form import (
    MemoryForm,
    TallLabel,
    WheelGuard,
    retention_question,
    retention_tightened,
)
from app.outgoing import url_note
from app.policy_lock import lock_memory_form, policy_note
from app.settings_appearance import ConversationPage
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings
from app.theme import pixels
from app.widgets import fit_window, no_default_buttons
from app.workers import WorkerPool
from engine.policy import current as current_policy

REMOVE_TIP = "Take this entry off the list when you Save; its file, if any, stays on disk"
MODEL_KEYS = ("model_source", "gguf_path", "server_url", "server_model", "gpu_layers",
              "context_size", "threads", "allow_plain_http")


def gguf_summary(path: str) -> str:
    """The file's metadata as one HTML paragraph (runs in a worker)."""
    from models.catalogue import gguf_info

    return _summary(gguf_info(path))


def _summary(info: Any) -> str:
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


def forget_models(entry_ids: list[str]) -> None:
    """Take entries off the 'added models' list (no file is touched): on Save."""
    from models.catalogue import remove

    for entry_id in entry_ids:
        remove(entry_id)


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
        texts = [shown(e, detail) if t in clashes else t for e, t in zip(entries, texts, strict=True)]
    tips = [entry.path if entry.source == GGUF else f"{entry.model} @ {entry.url}"
            for entry in entries]
    return [(_elided(text), tip) for text, tip in zip(texts, tips, strict=True)]


def _elided(text: str, most: int = 72) -> str:
    """At most `most` characters, the middle cut out: a model's file name ends a path."""
    if len(text) <= most:
        return text
    keep = most - 1
    return text[: keep // 3] + "…" + text[len(text) - (keep - keep // 3):]


def read_gguf(path: str) -> tuple[str, str, Exception | None, Any]:
    """(path, gguf_summary's HTML, None, context_limits), or (path, "", why it cannot be read,
    None) (a worker: the answer names its file, so a late one for a file no longer chosen is
    told apart)."""
    from models.catalogue import gguf_info

    try:
        html = _summary(gguf_info(path))
    except Exception as error:  # reported to the person, like the pool's errors
        return path, "", error, None
    return path, html, None, context_limits(path)


def context_limits(path: str) -> tuple[int, int, int]:
    """(the context the file was trained for, the context fitted to this computer, KV cache
    bytes per token of context), 0 where unknown (a worker: it reads the machine)."""
    from app.model_picker import fit_file
    from models.fit import shape_of

    try:
        shape = shape_of(path)
    except Exception:  # the summary said what is wrong with the file
        return 0, 0, 0
    try:
        fit = fit_file(path)
        fitted = fit.n_ctx if fit.fits else 0
    except Exception:  # the warning still says what the file was trained for
        fitted = 0
    return shape.trained_context, fitted, shape.kv_bytes_per_token


def bundled_limits() -> tuple[str, tuple[int, int, int]]:
    """(the bundled model's file, its context_limits)."""
    from models.catalogue import bundled_gguf_path

    path = str(bundled_gguf_path())
    return path, context_limits(path)


def keyring_check() -> Any:
    from engine.api import keyring_status

    return keyring_status()


def ask_server(url: str, api_key: str = "") -> tuple[str, list[str] | None, Exception | None]:
    """(url, the model ids the server there lists, None); ids None when it answered without a
    list; (url, None, OSError) when nothing answers there. Runs in a worker."""
    from models.probe import server_models

    try:
        return url, server_models(url, api_key), None
    except Exception as error:
        return url, None, error


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


class SettingsDialog(QDialog):
    """Model and memory settings; `applied(settings, model_changed)` when the person saves."""

    applied = Signal(object, bool)
    reopen_needed = Signal()  # a re-embedding stopped half-way: the memory must be opened again
    loaded = Signal()  # the background look-ups (GPU support, file metadata) have answered
    models_listed = Signal()  # the server at the URL typed answered (or not) with its models

    def __init__(self, settings: AppSettings, session: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = settings
        self.session = session
        self.pool: WorkerPool = session.pool if session is not None else WorkerPool(parent=self)
        self.setWindowTitle("Settings")
        fit_window(self, 800, 620, least=(800, 620))
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
        # Enter saves, wherever the focus is in the pages: no button there becomes the default
        # by being clicked (Reset did, and Enter then reset again)
        buttons.button(QDialogButtonBox.StandardButton.Save).setDefault(True)
        no_default_buttons(self.tabs)
        self.tabs.currentChanged.connect(lambda *_: no_default_buttons(self.tabs))
        self.wheel_guard = WheelGuard(self)  # the wheel scrolls the page, not the field under it
        self.wheel_guard.guard(self.tabs)
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
        self._gguf_errors: dict[str, str] = {}  # path -> why reading its header failed
        self._context_limits: dict[str, tuple[int, int, int]] = {}  # path -> context_limits
        self._bundled_path = ""
        self.keyring_usable: bool | None = None  # None until asked (in a worker)
        self._added: list = []  # 'Models you added' as last read
        self._removed: set[str] = set()  # entry ids taken off the list: forgotten on Save
        self.set_values(settings)
        self.pool.run(gpu_support, on_result=self._gpu_checked, on_error=self._gpu_unknown)
        self.pool.run(added_models, on_result=self._show_added)
        self.pool.run(bundled_limits, on_result=self._bundled_read)
        self.pool.run(keyring_check, on_result=self._keyring_checked)

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
        self.gguf_path.textChanged.connect(self._check_context)
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
        # the model name: typed, or picked from what the server lists (asked once the URL is in)
        self.server_model_box = QComboBox()
        self.server_model_box.setEditable(True)
        self.server_model_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.server_model_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.server_model_box.setMinimumContentsLength(24)
        self.server_model = self.server_model_box.lineEdit()
        self.server_model.setPlaceholderText("e.g. llama3.1:8b")
        self.server_models_note = QLabel(objectName="hint")
        self.server_models_note.setWordWrap(True)
        self.server_models_note.hide()
        self._listed_url = ""  # the URL last asked for its models
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
        server_form.addRow("Model name", self.server_model_box)
        server_form.addRow("", self.server_models_note)
        server_form.addRow("API key", self.api_key)
        self.server_url.editingFinished.connect(self.list_server_models)
        # a server that wants a key lists nothing without it: ask again once it is typed
        self.api_key.editingFinished.connect(lambda: self.list_server_models(again=True))
        self.key_note = QLabel("The key is stored in the system keyring, never in a settings "
                               "file.", objectName="hint")
        self.key_note.setWordWrap(True)
        server_form.addRow("", self.key_note)
        self.recent = _ElidedCombo()
        # a file path given as model id made the whole tab wider than the dialog: the box keeps
        # its own width, entries are shortened (in full in their tooltips)
        self.recent.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.recent.setMinimumContentsLength(24)
        self.recent.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.recent.activated.connect(self._recent_chosen)
        self.recent.currentIndexChanged.connect(self._recent_shown)
        # remove an entry: its button, right-click (on the box or in its list), Delete in the list
        self.recent.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.recent.customContextMenuRequested.connect(
            lambda pos: self._recent_menu(self.recent.currentIndex(), self.recent.mapToGlobal(pos)))
        view = self.recent.view()
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(lambda pos: self._recent_menu(
            view.indexAt(pos).row(), view.viewport().mapToGlobal(pos)))
        view.installEventFilter(self)
        self.recent_menu: QMenu | None = None
        self.silent_box: QMessageBox | None = None  # "the server does not answer: use it?"
        self.retention_box: QMessageBox | None = None  # "N exchanges will be forgotten?"
        self.remove_recent = QPushButton("Remove from this list")
        self.remove_recent.setAutoDefault(False)
        self.remove_recent.setToolTip(REMOVE_TIP)
        self.remove_recent.clicked.connect(lambda: self.remove_added(self.recent.currentIndex()))
        self.remove_recent.setEnabled(False)
        self.recent_row = QWidget()
        recent_column = QVBoxLayout(self.recent_row)
        recent_column.setContentsMargins(0, 0, 0, 6)
        recent_layout = QHBoxLayout()
        recent_layout.addWidget(QLabel("Models you added"))
        recent_layout.addWidget(self.recent, 1)
        recent_layout.addWidget(self.remove_recent)
        recent_column.addLayout(recent_layout)
        self.removed_note = QLabel(objectName="hint")  # what Save will take off the list
        self.removed_note.setWordWrap(True)
        self.removed_note.hide()
        recent_column.addWidget(self.removed_note)
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
        self.gpu_note = TallLabel("Checking GPU support…", objectName="hint")
        self.gpu_note.setWordWrap(True)
        self.gpu_note.setMinimumWidth(pixels(460))
        self.context_size = QSpinBox()
        self.context_size.setRange(512, 262_144)
        self.context_size.setSingleStep(512)
        self.context_size.setSuffix(" tokens")
        self.context_size.valueChanged.connect(self._check_context)
        # past what the file was trained on: allowed, but said (it takes GBs more memory)
        self.context_note = TallLabel(objectName="warnNote")
        self.context_note.setWordWrap(True)
        self.context_note.setMinimumWidth(pixels(460))
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText("Automatic")
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(16, 32_768)
        self.max_tokens.setSingleStep(64)
        self.max_tokens.setSuffix(" tokens")
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        for spin in (self.gpu_layers, self.context_size, self.threads, self.max_tokens):
            spin.setFixedWidth(pixels(180))
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow("", self.gpu_note)
        form.addRow("Context size", self.context_size)
        form.addRow("", self.context_note)
        self.local_form = form
        form.setRowVisible(self.context_note, False)
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
        self.fit_note = TallLabel(objectName="hint")  # why the values were chosen (Models page)
        self.fit_note.setWordWrap(True)
        self.fit_note.setMinimumWidth(pixels(460))
        self.fit_note.hide()
        form.addRow("", self.fit_note)
        # Locking has nothing to do with running a model: its own group, where it is looked for
        locking = QGroupBox("When you step away")
        lock_form = QFormLayout(locking)
        lock_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.auto_lock.setFixedWidth(pixels(180))
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
        self.reset_button = reset = QPushButton("Reset to the paper's defaults")
        reset.setToolTip("Your retention choice (Forget exchanges after) stays as it is")
        reset.setMinimumWidth(reset.sizeHint().width())  # its label never cut
        reset.clicked.connect(self.reset_memory)
        self.reset_note = QLabel(objectName="hint")  # what the reset kept
        self.reset_note.setWordWrap(True)
        self.reset_note.hide()
        note = QLabel("Defaults follow the MemoryOS paper (Kang et al., EMNLP 2025). Changes apply "
                      "to new exchanges and the next consolidation.", objectName="hint")
        note.setWordWrap(True)
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(14, 14, 14, 14)
        column.addWidget(note)
        column.addWidget(self.memory_form)
        row = QHBoxLayout()
        row.addWidget(self.reset_note, 1)
        row.addWidget(reset, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(row)
        self.memory_scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        if self.session is not None:
            self.memory_form.set_settings(self.session.mem.settings)
        else:
            self.memory_form.set_settings(self.memory_form.settings_class())
            scroll.setEnabled(False)
        self.locked = lock_memory_form(self.memory_form, self.policy)
        return scroll

    def reset_memory(self) -> None:
        """The paper's defaults, but for retention (a privacy choice): said beside the button."""
        refused = any(label.text() for label in self.memory_form.problems.values())
        kept = self.memory_form.reset()
        self.memory_form.show_problems({})
        if refused:  # the defaults contradict nothing: the refusal no longer holds
            self.error.hide()
        self.reset_note.setText(f"Back to the paper's defaults. Your retention choice is kept: "
                                f"{kept}.")
        self.reset_note.show()

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
        self._check_context()

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
            from models.machine import size_text

            cost = (f" At {wanted:,} tokens the context alone takes about "
                    f"{size_text(per_token * wanted)} of memory." if per_token else "")
            fit = (f" Suggested for this computer: {fitted:,} tokens." if fitted else "")
            self.context_note.setText(
                f"More than the {trained:,} tokens this model was trained on: past those its "
                f"answers get worse, yet the longer context still takes memory.{cost}{fit}")
        self.local_form.setRowVisible(self.context_note, over)

    def _keyring_checked(self, status: Any) -> None:
        self.keyring_usable = bool(status.usable)
        if status.usable:
            return
        # said before the key is typed: Save could only fail to keep it
        self.key_note.setObjectName("error")
        self.key_note.setText("This computer has no usable system keyring, so an API key cannot "
                              "be kept. Install and unlock one (GNOME Keyring, KWallet) to use a "
                              "server that needs a key.")
        self.key_note.style().unpolish(self.key_note)
        self.key_note.style().polish(self.key_note)
        self.api_key.setEnabled(False)
        self.api_key.setPlaceholderText("No system keyring: a key cannot be kept")

    def _show_added(self, entries: list) -> None:
        self._added = entries
        shown = [entry for entry in entries if entry.id not in self._removed]
        self.recent.clear()
        self.recent.addItem("Choose…", None)
        for entry, (text, tip) in zip(shown, entry_texts(shown), strict=True):
            self.recent.addItem(text, entry)
            self.recent.setItemData(self.recent.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        removed = [entry for entry in entries if entry.id in self._removed]
        self.removed_note.setText(self._removed_text(removed))
        self.removed_note.setVisible(bool(removed))
        self.recent_row.setVisible(bool(entries))

    @staticmethod
    def _removed_text(removed: list) -> str:
        names = ", ".join(text for text, _tip in entry_texts(removed))
        return f"Taken off the list when you press Save (Cancel keeps it): {names}"

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

        current = self.original
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
            self.error.setText(f"{entry.label} is the model in use, so it stays on the list: "
                               "choose another model and Save, then remove it.")
            self.error.show()
            return
        self.recent.hidePopup()
        self._removed.add(entry.id)  # Save forgets it; Cancel keeps it
        self._show_added(self._added)

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

    def list_server_models(self, again: bool = False) -> None:
        """Ask the server at the URL typed for its models (in a worker, a short timeout): the
        model-name box offers them, and takes the only one when there is one."""
        from engine.errors import MemoryOSError
        from engine.network import check_url

        url = self.server_url.text().strip()
        if not url or (url == self._listed_url and not again):
            return
        try:  # a URL that would be refused at Save is not asked either
            check_url(url, allow_plain_http=self.allow_plain_http.isChecked())
        except MemoryOSError:
            return
        self._listed_url = url
        self.server_models_note.setText("Asking the server which models it has…")
        self.server_models_note.show()
        self.pool.run(ask_server, url, self.api_key.text().strip(),
                      on_result=self._server_listed)

    def _server_listed(self, answer: tuple) -> None:
        url, ids, error = answer
        if url != self.server_url.text().strip():
            return  # the URL changed while the server was asked
        typed = self.server_model.text().strip()
        self.server_model_box.clear()
        if ids:
            self.server_model_box.addItems(ids)
            for index, model in enumerate(ids):
                self.server_model_box.setItemData(index, model, Qt.ItemDataRole.ToolTipRole)
        self.server_model_box.setCurrentIndex(-1)
        # a name this server does not have (the last server's) is replaced by its only model
        missing = bool(ids) and bool(typed) and typed not in ids
        self.server_model.setText(ids[0] if ids and len(ids) == 1 and (missing or not typed)
                                  else typed)
        if missing and len(ids) == 1:
            note = (f"The server has one model, {_elided(ids[0], 60)}: it replaces "
                    f"{_elided(typed, 60)}, which this server does not have.")
        elif missing:
            note = (f"This server has no model named {_elided(typed, 60)}: pick one of its "
                    f"{len(ids)} models from the list.")
        elif isinstance(error, OSError):
            note = f"The server at {url} does not answer: is it running?"
        elif error is not None:
            note = describe(error)
        elif ids is None:
            note = ("The server answered but did not list its models (it may need the API "
                    "key): type the model name it knows.")
        elif not ids:
            note = "The server lists no models: load one in it, then type its name here."
        elif len(ids) == 1:
            note = f"The server has one model: {_elided(ids[0], 60)}."
        else:
            note = f"The server has {len(ids)} models: pick one from the list."
        self.server_models_note.setObjectName("error" if missing and len(ids) > 1 else "hint")
        self.server_models_note.style().unpolish(self.server_models_note)
        self.server_models_note.style().polish(self.server_models_note)
        self.server_models_note.setText(note)
        self.models_listed.emit()

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
        self.pool.run(read_gguf, path, on_result=self._gguf_read)

    def _gguf_read(self, answer: tuple) -> None:
        path, html, error, limits = answer
        if error is not None:
            self._gguf_failed(path, error)
            return
        self._gguf_errors.pop(path, None)
        self._context_limits[path] = limits
        if path == self.gguf_path.text().strip():
            self.gguf_info.setText(html)
        self._check_context()
        self.loaded.emit()

    def _gguf_failed(self, path: str, error: Exception) -> None:
        self._gguf_errors[path] = describe(error)  # Save refuses this file
        if path == self.gguf_path.text().strip():
            self.gguf_info.setText(f"<span style='color:#B42318'>{describe(error)}</span>")
        self.loaded.emit()

    def _gguf_problem(self, path: str) -> str:
        """Why the file cannot be loaded ("" when it can, as far as is known): missing, not a
        GGUF (its first bytes, read now), or damaged (what reading its header said)."""
        from engine.errors import ModelLoadError
        from engine.gguf import check_gguf_file

        try:
            check_gguf_file(path)
        except ModelLoadError as error:
            return describe(error)
        return self._gguf_errors.get(path, "")

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
        if memory is not None:  # said under each field; nothing typed is lost
            conflicts = memory.conflicts()
            first = self.memory_form.show_problems(conflicts)
            if first is not None and not problem:
                problem = ("Not saved: some memory settings contradict each other. The Memory "
                           "tab says which, under the field.")
                self.tabs.setCurrentWidget(self.memory_scroll)
                self.memory_scroll.ensureWidgetVisible(first)
                first.setFocus()
        changed = self._model_changed(settings)
        if not problem and changed and settings.model_source == GGUF:
            # a file known not to load is not saved: the model in use is kept
            problem = self._gguf_problem(settings.gguf_path)
            if problem:
                self.gguf_info.setText(f"<span style='color:#B42318'>{problem}</span>")
                self.tabs.setCurrentIndex(0)
                self.gguf_path.setFocus()
        if problem:
            self.error.setText(problem)
            self.error.show()
            return
        self.error.hide()
        if (memory is not None and "retention_days" not in self.locked
                and retention_tightened(self.session.mem.settings, memory)):
            # what it would forget now is counted in the vault before anything is saved
            self.setEnabled(False)
            self.session.run(self.session.mem.preview_retention, memory.retention_days,
                             memory.retention_keeps_facts, on_error=self._failed,
                             on_result=lambda found: self._retention_counted(
                                 found, settings, memory, changed))
            return
        self._check_server(settings, memory, changed)

    def _retention_counted(self, found: Any, settings: AppSettings, memory: Any,
                           changed: bool) -> None:
        self.setEnabled(True)
        if not found.pages:
            self._check_server(settings, memory, changed)
            return
        box = retention_question(self, found, memory)
        forget = next(button for button in box.buttons()
                      if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole)
        box.finished.connect(lambda *_: self._retention_answered(
            box.clickedButton() is forget, settings, memory, changed))
        self.retention_box = box
        box.open()

    def _retention_answered(self, forget: bool, settings: AppSettings, memory: Any,
                            changed: bool) -> None:
        if forget:
            self._check_server(settings, memory, changed)
            return
        before = self.session.mem.settings
        days = self.memory_form.inputs["retention_days"]
        days.setValue(before.retention_days)
        self.memory_form.inputs["retention_keeps_facts"].setChecked(before.retention_keeps_facts)
        self.error.setText(f"Not saved, and your exchanges are kept: “Forget exchanges after” is "
                           f"back to {days.text()}. Save again to keep your other changes.")
        self.error.show()
        self.tabs.setCurrentWidget(self.memory_scroll)

    def _check_server(self, settings: AppSettings, memory: Any, changed: bool) -> None:
        if changed and settings.model_source == SERVER:
            # does anything answer there? (a worker: a remote server can take seconds)
            self.setEnabled(False)
            self.pool.run(ask_server, settings.server_url, self.api_key.text().strip(),
                          on_result=lambda answer: self._server_checked(answer, settings, memory))
            return
        self._proceed(settings, memory)

    def _model_changed(self, settings: AppSettings) -> bool:
        return any(getattr(settings, k) != getattr(self.original, k) for k in MODEL_KEYS)

    def _server_checked(self, answer: tuple, settings: AppSettings, memory: Any) -> None:
        error = answer[2]
        self.setEnabled(True)
        if not isinstance(error, OSError):
            self._proceed(settings, memory)  # the model load says what is wrong
            return
        url = settings.server_url
        box = QMessageBox(QMessageBox.Icon.Question, "The server does not answer",
                          f"The server at {url} does not answer. Use it anyway?",
                          QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("serverSilent")
        use = box.addButton("Use it anyway", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda *_: self._silent_answered(box.clickedButton() is use,
                                                              settings, memory))
        self.silent_box = box
        box.open()

    def _silent_answered(self, use: bool, settings: AppSettings, memory: Any) -> None:
        if use:
            self._proceed(settings, memory)
            return
        self.error.setText(f"Not saved: the server at {settings.server_url} does not answer, "
                           "so the model in use is kept.")
        self.error.show()
        self.server_url.setFocus()

    def _proceed(self, settings: AppSettings, memory: Any) -> None:
        self.setEnabled(True)
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
        changed = self._model_changed(settings)
        if changed and settings.model_source != BUNDLED:
            self.pool.run(remember_model, settings)  # a bad file is reported by the model load
        if self._removed:  # taken off 'Models you added' in the dialog
            self.pool.run(forget_models, sorted(self._removed), on_error=self._failed)
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
