"""The Model tab of Settings: where the model comes from (bundled, a GGUF file it checks, a
server it asks for its models), how a local model runs, the embedding model, the idle lock."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.auto_lock import minutes_text
from app.demo_banner import DEMO_MAX_TOKENS
from app.embedder_choice import EmbedderBox, app_embedder
from app.settings_added_models import AddedModels, added_models
from app.settings_local_model import LocalModelMixin
from app.settings_lookups import (
    bundled_limits,
    gpu_support,
    keyring_check,
)
from app.settings_server import ServerMixin
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings
from app.theme import pixels
from app.widgets import TallLabel
from app.workers import WorkerPool, while_open
from app.wrapped_buttons import WrappedButtons
from engine.api_keys import API_KEY_ENV

# Read only at a model load, never shown: a key in the environment is the person's own setting.
KEY_TIP = (f"The key the server asks for, if any. With none given here, MemoryOS uses the key in "
           f"the {API_KEY_ENV} environment variable when it is set.")


class FieldNote(TallLabel):
    """A wrapped note under a field of "Running a local model": 460 px wide at the normal text
    size, more with larger text, as far as the page allows, and 240 at least (460 at least kept
    the page wider than a 1366x768 screen scaled by 1.5 at the largest text, its ends cut off).
    """

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.setWordWrap(True)
        self.setMinimumWidth(pixels(240))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        width = max(super().sizeHint().width(), pixels(460))
        return QSize(width, self.heightForWidth(width))


class FormNote(QLabel):
    """A wrapped note in a form's field column, as tall as its text at its width: a form layout
    gave such a note the height of its text wrapped narrow (three lines for one, a gap under the
    address and under the API key)."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        height = self.heightForWidth(self.width()) if self.width() > 0 else -1
        return hint if height < 0 else QSize(hint.width(), height)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        width, before = event.size().width(), event.oldSize().width()
        if self.heightForWidth(width) != self.heightForWidth(before):
            self.updateGeometry()  # the form asks the height again, for this width


class ModelTab(LocalModelMixin, ServerMixin, QScrollArea):
    """The model's source and running values; `set_values` and `values` carry the AppSettings
    fields it shows. A server's or a file's fields make the page taller than the dialog: it
    scrolls rather than squeeze the rows into each other."""

    loaded = Signal()  # a background look-up (GPU support, file metadata) has answered
    models_listed = Signal()  # the server at the URL typed answered (or not) with its models
    choice_changed = Signal()  # the source, the file or the server: a refusal of it is old

    def __init__(self, settings: AppSettings, pool: WorkerPool, session: Any, policy: Any,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pool = pool
        self.session = session
        self.policy = policy  # the administrator's: the idle lock's longest
        self._info_timer = QTimer(self)
        self._info_timer.setSingleShot(True)
        self._info_timer.setInterval(300)
        self._info_timer.timeout.connect(self._read_gguf)
        self._gguf_errors: dict[str, str] = {}  # path -> why reading its header failed
        self._context_limits: dict[str, tuple[int, int, int]] = {}  # path -> context_limits
        self._parameters: dict[str, int] = {}  # path -> parameters, from its GGUF header
        self._bundled_path = ""
        self.keyring_usable: bool | None = None  # None until asked (in a worker)
        self._listed_url = ""  # the URL last asked for its models
        self.recent_row = AddedModels(settings)
        self.recent_row.chosen.connect(self._recent_chosen)
        source = self._source_group()
        local = self._local_group()
        locking = self._locking_group()
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.setSpacing(12)
        layout.addWidget(source)
        layout.addWidget(local)
        layout.addWidget(self._embedder_group())
        layout.addWidget(locking)
        layout.addStretch(1)
        # At the largest text on a small screen (1366x768 scaled by 1.5) the choices were wider
        # than the page, their ends cut off: there they go onto two lines
        self.wrapped = WrappedButtons(self)
        self.wrapped.watch(self.bundled, self.gguf, self.server, self.allow_plain_http,
                           self.embedder_box.bundled, self.embedder_box.folder)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        # No Tab stop of its own: the page showed no focus mark there, a keyboard user was
        # nowhere to be seen. Tab to a field inside scrolls the page to it.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # sideways only past the screen's width (the largest text on a 1024 px screen): cut
        # off at the right, what did not fit could not be reached
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(page)

    def _source_group(self) -> QGroupBox:
        source = QGroupBox("Where the model comes from")
        column = QVBoxLayout(source)
        self.source_group = QButtonGroup(self)
        self.bundled = QRadioButton("Bundled: SmolLM2-135M-Instruct, offline")
        self.gguf = QRadioButton("A GGUF model file on this computer (llama.cpp)")
        self.server = QRadioButton(
            "An OpenAI-compatible server (Ollama, LM Studio, vLLM, a cloud API)")
        for index, button in enumerate((self.bundled, self.gguf, self.server)):
            self.source_group.addButton(button, index)
        bundled_note = QLabel("Tiny and fast: enough to try MemoryOS end to end, not for good "
                              "answers. Pick a bigger GGUF file or a server for real use.",
                              objectName="hint")
        bundled_note.setWordWrap(True)
        self.gguf_path = QLineEdit()
        self.gguf_path.setPlaceholderText("/path/to/model.gguf")
        self.gguf_path.setAccessibleName("GGUF model file")
        self.gguf_path.textChanged.connect(self._path_edited)
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
        self.server_models_note = FormNote(objectName="hint")
        self.server_models_note.setWordWrap(True)
        self.server_models_note.hide()
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self._key_placeholder = "Leave empty for local servers without a key"
        self.api_key.setPlaceholderText(self._key_placeholder)
        self.api_key.setToolTip(KEY_TIP)
        self.server_box = QWidget()
        server_form = QFormLayout(self.server_box)
        server_form.setContentsMargins(26, 0, 0, 4)
        self.url_note = FormNote(objectName="hint")  # "on this computer" or "remote: host"
        self.url_note.setWordWrap(True)
        self.server_url.textChanged.connect(self._show_url_note)
        self.allow_plain_http = QCheckBox(
            "Allow plain http:// to a server that is not this computer")
        self.allow_plain_http.setToolTip(
            "Off: a remote server must use https://, so memories never cross the network "
            "unencrypted."
        )
        if self.policy.remote_forbidden:  # only this computer's servers: nothing to allow
            self.allow_plain_http.setEnabled(False)
            self.allow_plain_http.setToolTip(
                "Models that are not on this computer are turned off by your administrator "
                f"({self.policy.source}): a server on this computer needs no https://.")
        server_form.addRow("Base URL", self.server_url)
        server_form.addRow("", self.url_note)
        server_form.addRow("", self.allow_plain_http)
        server_form.addRow("Model name", self.server_model_box)
        server_form.addRow("", self.server_models_note)
        server_form.addRow("API key", self.api_key)
        # a 401 or 403 from the server, said next to the key (the list asked, or Save)
        self.key_problem = FormNote(objectName="error")
        self.key_problem.setWordWrap(True)
        server_form.addRow("", self.key_problem)
        self.server_form = server_form
        server_form.setRowVisible(self.key_problem, False)
        for field in (self.server_url, self.api_key):
            field.textChanged.connect(lambda *_: self.show_key_problem(""))
        self.server_url.editingFinished.connect(self.list_server_models)
        for field in (self.server_url, self.server_model):
            field.textChanged.connect(self.choice_changed)
        self.allow_plain_http.toggled.connect(self.choice_changed)
        self.allow_plain_http.toggled.connect(self._show_url_note)
        # a server that wants a key lists nothing without it: ask again once it is typed
        self.api_key.editingFinished.connect(lambda: self.list_server_models(again=True))
        # a key already in use for the address, and where it comes from (never the key): the
        # field stays empty, and empty keeps it
        self.key_source = FormNote(objectName="hint")
        self.key_source.setWordWrap(True)
        server_form.addRow("", self.key_source)
        server_form.setRowVisible(self.key_source, False)
        self.server_url.textChanged.connect(lambda *_: self._show_key_source(None))
        self.key_note = FormNote("The key is stored in the system keyring, never in a "
                                 "settings file.", objectName="hint")
        self.key_note.setWordWrap(True)
        server_form.addRow("", self.key_note)
        column.addWidget(self.recent_row)
        column.addWidget(self.bundled)
        bundled_note.setContentsMargins(26, 0, 0, 4)
        column.addWidget(bundled_note)
        column.addWidget(self.gguf)
        column.addWidget(self.gguf_box)
        column.addWidget(self.server)
        column.addWidget(self.server_box)
        # below the choices: shown when an entry is removed, it moves none of them
        column.addWidget(self.recent_row.removed_note)
        self.source_group.idToggled.connect(self._source_changed)
        self.source_group.idToggled.connect(self.choice_changed)
        return source

    def _local_group(self) -> QGroupBox:
        local = QGroupBox("Running a local model")
        form = QFormLayout(local)
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(0, 999)
        self.gpu_layers.setSpecialValueText("0 (CPU only)")
        self.gpu_note = FieldNote("Checking GPU support…", objectName="hint")
        self.context_size = QSpinBox()
        self.context_size.setRange(512, 262_144)
        self.context_size.setSingleStep(512)
        self.context_size.setSuffix(" tokens")
        self.context_size.valueChanged.connect(self._check_context)
        # past what the file was trained on: allowed, but said (it takes GBs more memory)
        self.context_note = FieldNote(objectName="warnNote")
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
        self.fit_note = FieldNote(objectName="hint")  # why the values were chosen (Models page)
        self.fit_note.hide()
        form.addRow("", self.fit_note)
        return local

    def _locking_group(self) -> QGroupBox:
        # Locking has nothing to do with running a model: its own group, where it is looked for
        self.auto_lock = QSpinBox()
        self.auto_lock.setRange(0, 24 * 60)
        self.auto_lock.setSuffix(" min")
        self.auto_lock.setSpecialValueText("Never")
        self.auto_lock.setToolTip("Close the vault after this long without input; it asks for "
                                  "the key again. 0: never.")
        if self.policy.auto_lock_minutes is not None:
            self.auto_lock.setMaximum(max(1, self.policy.auto_lock_minutes))
            self.auto_lock.setMinimum(1 if self.policy.auto_lock_minutes else 0)
            if self.auto_lock.minimum():  # Never is not allowed: the least is real minutes
                self.auto_lock.setSpecialValueText("")
            self.auto_lock.setToolTip(f"At most {minutes_text(self.policy.auto_lock_minutes)}: "
                                      f"set by your administrator ({self.policy.source}).")
        locking = QGroupBox("When you step away")
        lock_form = QFormLayout(locking)
        lock_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.auto_lock.setFixedWidth(pixels(180))
        lock_form.addRow("Lock when idle for", self.auto_lock)
        return locking

    def _embedder_group(self) -> QWidget:
        # tests give the session a fake factory; the app runs the model in its helper process
        self.embedder_factory = getattr(self.session, "embedder_factory", None) or app_embedder
        self.embedder_box = EmbedderBox(self.pool, self.embedder_factory)
        if self.session is None:
            self.embedder_box.setEnabled(False)
            self.embedder_box.vault_note.setText("Open your memory to change its embedding model.")
        else:
            self.session.run(self.session.mem.info, on_result=while_open(self, lambda info: (
                self.embedder_box.show_vault(info.embedder_id, info.embedder_dimension))))
        return self.embedder_box

    def look_up(self) -> None:
        """Ask, in workers, what the tab says once known: GPU support, the models added before,
        the bundled model's context, whether the keyring can keep an API key."""
        self.pool.run(gpu_support, on_result=self._gpu_checked, on_error=self._gpu_unknown)
        self.pool.run(added_models, on_result=self.recent_row.show_added)
        self.pool.run(bundled_limits, on_result=self._bundled_read)
        self.pool.run(keyring_check, on_result=self._keyring_checked)

    # --- values ------------------------------------------------------------------------
    def set_values(self, settings: AppSettings) -> None:
        button = {BUNDLED: self.bundled, GGUF: self.gguf, SERVER: self.server}[
            settings.model_source]
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
        self._source_changed()
        self.ask_key_source()

    def values(self) -> dict[str, Any]:
        """The AppSettings fields this tab shows, as they are now."""
        source = (BUNDLED, GGUF, SERVER)[max(0, self.source_group.checkedId())]
        return dict(
            model_source=source, gguf_path=self.gguf_path.text().strip(),
            server_url=self.server_url.text().strip(),
            server_model=self.server_model.text().strip(),
            gpu_layers=self.gpu_layers.value(), context_size=self.context_size.value(),
            threads=self.threads.value(), max_tokens=self.max_tokens.value(),
            allow_plain_http=self.allow_plain_http.isChecked(),
            auto_lock_minutes=self.auto_lock.value(), embedder=self.embedder_box.value(),
        )

    def _source_changed(self, *_args: Any) -> None:
        self.gguf_box.setVisible(self.gguf.isChecked())
        self.server_box.setVisible(self.server.isChecked())
        self.gpu_layers.setEnabled(not self.server.isChecked()
                                   and self.gpu_layers.property("gpu") is not False)
        self.context_size.setEnabled(not self.server.isChecked())
        self.threads.setEnabled(not self.server.isChecked())
        self._show_answer_limit()
        self._check_context()

    def _recent_chosen(self, entry: Any) -> None:
        if entry.source == "gguf":
            self.gguf_path.setText(entry.path)
            self.gguf.setChecked(True)
        else:
            self.server_url.setText(entry.url)
            self.server_model.setText(entry.model)
            self.server.setChecked(True)
