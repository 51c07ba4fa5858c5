"""The model step: a dialog around the model table, shown after the first run and from the
banner; and its "Add a server address…" row, for a server the probe does not reach."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.model_picker import Choice, ModelPicker
from app.settings_store import BUNDLED, GGUF
from app.widgets import fit_window
from app.workers import WorkerPool


def keep_text(current: Any) -> str:
    """The button that closes the step without a choice names the model that stays in use."""
    from app.model_choice import short_model_name

    if current is None or current.model_source == BUNDLED:
        return "Keep the demo model for now"
    if current.model_source == GGUF:
        name = short_model_name(current.gguf_path)
    else:
        name = short_model_name(current.server_model)
    return f"Keep {name}" if name else "Keep the current model"


def ask_address(typed: str) -> tuple[str, Any, str]:
    """(typed, the FoundServer at that base URL with its models, "") or (typed, None, what is
    wrong, in the person's words). Runs in a worker: a server elsewhere can take seconds."""
    from urllib.parse import urlsplit

    from engine.errors import MemoryOSError
    from engine.network import check_url, normalise_url
    from models.probe import FoundServer, server_models

    try:
        url = normalise_url(typed)
        check_url(url, allow_plain_http=True)  # the administrator's policy; plain http: on Use
    except MemoryOSError as error:
        text = str(error)
        return typed, None, text[:1].upper() + text[1:]
    try:
        models = server_models(url, read_timeout=10.0)  # typed on purpose: a busy one may be slow
    except OSError:
        return typed, None, (
            f"Nothing answered at {url} — check the address and that the server is running."
        )
    if models is None:
        return typed, None, (
            f"Something answered at {url}, but not as an OpenAI-compatible server (it listed no "
            "models): check the address, which usually ends in /v1. A server that needs an API "
            "key is set up in Settings → Model."
        )
    if not models:
        return typed, None, (
            f"The server at {url} has no model loaded: load one in it, then add it again."
        )
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return typed, FoundServer(url=url, port=port, kind="Added by you", models=models), ""


class ServerAddress(QWidget):
    """ "Add a server address…": the person types a server's base URL; its model list is asked
    for in the pool (a few seconds at most) and its models join the table's servers. What went
    wrong is said here; the table and the choice are left as they were."""

    answered = Signal()  # the server was listed, or what went wrong is shown

    def __init__(self, picker: ModelPicker, pool: WorkerPool) -> None:
        super().__init__()
        self.picker = picker
        self.pool = pool
        self._asked = ""  # the address asked last: an older answer is dropped
        self.open_button = QPushButton("Add a server address…")
        self.open_button.setToolTip(
            "A server on another port or another computer (OpenAI-compatible, e.g. "
            "http://192.168.1.20:5000/v1)"
        )
        self.open_button.clicked.connect(self.open)
        self.address = QLineEdit(placeholderText="http://192.168.1.20:5000/v1")
        self.address.setAccessibleName("Server address")
        self.address.setClearButtonEnabled(True)
        self.address.installEventFilter(self)  # Enter lists; it chooses nothing
        self.ask_button = QPushButton("List its models")
        self.ask_button.setAutoDefault(False)
        self.ask_button.clicked.connect(self.ask)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(90)
        self.busy.hide()
        self.message = QLabel(objectName="hint")
        self.message.setWordWrap(True)
        self.message.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Server address:"))
        row.addWidget(self.address, 1)
        row.addWidget(self.busy)
        row.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(row)
        layout.addWidget(self.message)
        self.hide()
        picker.add_control(self.open_button, self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Enter in the address lists its models, and goes no further: the dialog would take it
        for "Use this model" on the row selected."""
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if watched is self.address and event.type() == QEvent.Type.KeyPress:
            if event.key() in keys:  # type: ignore[attr-defined]
                self.ask()
                return True
        return super().eventFilter(watched, event)

    def open(self) -> None:
        self.show()
        self.address.setFocus()
        self.address.selectAll()

    def ask(self) -> None:
        typed = self.address.text().strip()
        if not typed:
            self._say("Type the server's address, e.g. http://192.168.1.20:5000/v1.", error=True)
            return
        self._asked = typed
        self.ask_button.setEnabled(False)
        self.busy.show()
        self._say(f"Asking {typed} for its models…")
        self.pool.run(ask_address, typed, on_result=self._answered)

    def _answered(self, answer: tuple[str, Any, str]) -> None:
        typed, server, problem = answer
        if typed != self._asked:
            return  # another address was asked for since
        self.ask_button.setEnabled(True)
        self.busy.hide()
        if server is None:
            self._say(problem, error=True)
        else:
            count = len(server.models)
            models = "one model" if count == 1 else f"{count} models"
            self._say(f"{server.url} has {models}: listed under Servers, the first selected.")
            self.picker.add_server(server)
        self.answered.emit()

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setObjectName("error" if error else "hint")
        self.message.style().unpolish(self.message)
        self.message.style().polish(self.message)
        self.message.setText(text)
        self.message.show()


class ModelStepDialog(QDialog):
    """Pick the model to talk to; `chosen(Choice)` then closes. "Keep …" keeps the model in use
    (`current`, the app's settings: its row is marked in the table)."""

    chosen = Signal(object)

    def __init__(
        self, pool: WorkerPool, parent: QWidget | None = None, probe: bool = True,
        current: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle("Choose your model")
        # Wider and taller where the screen allows: the table's columns are read whole.
        fit_window(self, 1120, 760, least=(940, 620))
        title = QLabel("<h2>Choose the model you will talk to</h2>")
        intro = QLabel(
            "MemoryOS found these on this computer. A model already on your disk or a local "
            "server works at once; a recommended download takes a few minutes. Everything runs "
            "here: nothing you say leaves this computer.", objectName="hint",
        )  # fmt: skip
        intro.setWordWrap(True)
        self.picker = ModelPicker(pool, probe=probe, current=current)
        self.picker.chosen.connect(self._chosen)
        # A row selected once the table is filled: Enter and "Use this model" work at once.
        self.picker.listed.connect(self.picker.select_usable)
        self.address = ServerAddress(self.picker, pool)
        self.later_button = later = QPushButton(keep_text(current))
        later.setAutoDefault(False)  # focus landing here (a disabled Download) is not a choice
        later.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("You can change this later in Settings → Models.", objectName="hint"))
        row.addStretch(1)
        row.addWidget(later)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.picker, 1)
        layout.addLayout(row)

    def _chosen(self, choice: Choice) -> None:
        self.chosen.emit(choice)
        self.accept()
