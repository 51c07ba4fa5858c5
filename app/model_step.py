"""The model step: a dialog around the model table, shown after the first run and from the
banner; and its "Add a server address…" row, for a server the probe does not reach."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.model_picker import Choice, ModelPicker
from app.settings_added_models import remember_model
from app.settings_dialog import FocusShown
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings
from app.widgets import fit_window, scrolled_column
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


@dataclass
class AddressAnswer:
    """What asking a typed address gave: the server with its models, or what is wrong."""

    typed: str
    server: Any = None  # models.probe.FoundServer, None when there is a problem
    problem: str = ""  # in the person's words
    key_refused: bool = False  # it answered 401/403: a (right) API key is needed
    note: str = ""  # said after the models are listed: the base URL used, the key kept


def intro_text(current: Any) -> str:
    """What the step says first, true for what can be chosen in it: models here keep what is
    said on this computer, a server at an address typed may be another computer, and a model
    in use on another computer is named."""
    from engine.errors import MemoryOSError
    from engine.network import destination, is_loopback

    text = (
        "MemoryOS found these on this computer. A model already on your disk or a local server "
        "works at once; a recommended download takes a few minutes. With a model on this "
        "computer, nothing you say leaves it; a server on another computer (Add a server "
        "address…) is sent your messages and the memories that go with them."
    )
    if current is None or current.model_source != SERVER:
        return text
    try:
        remote = not is_loopback(current.server_url)
        where = destination(current.server_url)
    except (MemoryOSError, ValueError):
        return text
    if remote:
        text += f" The model in use now runs on another computer, {where}: what you say goes there."
    return text


def ask_address(typed: str, api_key: str = "") -> AddressAnswer:
    """Ask the server at the address typed (an endpoint pasted whole is cut back to its base
    URL) for its models, with `api_key`, else the key a model load would use for it. A key
    typed that the server takes is kept in the keyring, as Settings keeps one. Runs in a
    worker: a server elsewhere can take seconds."""
    from urllib.parse import urlsplit

    from engine.errors import MemoryOSError
    from engine.network import check_url, normalise_url
    from models.probe import FoundServer, ask_models, base_url

    try:
        url = normalise_url(base_url(typed))
        check_url(url, allow_plain_http=True)  # the administrator's policy; plain http: on Use
    except MemoryOSError as error:
        text = str(error)
        return AddressAnswer(typed, problem=text[:1].upper() + text[1:])
    key = api_key or _stored_key(url)
    try:
        listing = ask_models(url, key, read_timeout=10.0)  # typed: a busy one may be slow
    except OSError:
        return AddressAnswer(typed, problem=(
            f"Nothing answered at {url} — check the address and that the server is running."
        ))  # fmt: skip
    if listing.key_refused:
        if key:
            given = "this API key" if api_key else "the API key kept for it"
            problem = (f"The server at {url} refused {given} (HTTP {listing.status}): type the "
                       "key it was started or issued with.")
        else:
            problem = (f"The server at {url} needs an API key (it answered HTTP "
                       f"{listing.status}): type the key it was started or issued with.")
        return AddressAnswer(typed, problem=problem, key_refused=True)
    if listing.models is None:
        return AddressAnswer(typed, problem=(
            f"Something answered at {url}, but not as an OpenAI-compatible server (it listed no "
            "models): check the address, which usually ends in /v1."
        ))  # fmt: skip
    if not listing.models:
        return AddressAnswer(typed, problem=(
            f"The server at {url} has no model loaded: load one in it, then add it again."
        ))  # fmt: skip
    notes = []
    if base_url(typed) != typed.strip():  # an endpoint pasted whole
        notes.append(f"Asked at {url}, the base address of what you pasted (MemoryOS adds "
                     "/chat/completions itself).")
    if api_key:
        notes.append(_keep_key(url, api_key))
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    server = FoundServer(url=url, port=port, kind="Added by you", models=listing.models)
    return AddressAnswer(typed, server=server, note=" ".join(notes))


def _stored_key(url: str) -> str:
    """The key a model load would use for `url` ("" when there is none, or no keyring)."""
    from engine.api_keys import ApiKeyError, get_api_key

    try:
        return get_api_key(url) or ""
    except ApiKeyError:
        return ""


def _keep_key(url: str, key: str) -> str:
    """Keep the key the server took, where a model load finds it; says where it is kept."""
    from engine.api_keys import ApiKeyError, keep_for_session, set_api_key

    try:
        set_api_key(url, key)
    except ApiKeyError:  # no keyring: for this session only, as Settings → Model does
        keep_for_session(url, key)
        return ("Its API key is kept for this session only (this computer has no usable system "
                "keyring): you will be asked for it again the next time MemoryOS starts.")
    return "Its API key is kept in the system keyring."


class ServerAddress(QWidget):
    """ "Add a server address…": the person types a server's base URL; its model list is asked
    for in the pool (a few seconds at most) and its models join the table's servers. What went
    wrong is said here; the table and the choice are left as they were. A server that wants an
    API key (HTTP 401/403) gets a key field: the key it takes is kept in the keyring."""

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
        # shown once a server answers that it needs a key: most servers people run want none
        self.key = QLineEdit(placeholderText="The key the server was started or issued with")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setAccessibleName("API key")
        self.key.installEventFilter(self)  # Enter lists with the key; it chooses nothing
        self.key_label = QLabel("API key:")
        rows = QGridLayout()
        rows.setContentsMargins(0, 0, 0, 0)
        rows.addWidget(QLabel("Server address:"), 0, 0)
        # Centred in its row, not filling it: a field's fixed height capped the row's, and at
        # the largest text "List its models" beside it was squeezed (43 px tall of 46).
        rows.addWidget(self.address, 0, 1, Qt.AlignmentFlag.AlignVCenter)
        rows.addWidget(self.busy, 0, 2)
        rows.addWidget(self.ask_button, 0, 3)
        rows.addWidget(self.key_label, 1, 0)
        rows.addWidget(self.key, 1, 1, Qt.AlignmentFlag.AlignVCenter)
        rows.setColumnStretch(1, 1)
        self._show_key(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(rows)
        layout.addWidget(self.message)
        self.hide()
        picker.add_control(self.open_button, self)
        picker.key_wanted.connect(self.ask_key)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Enter in the address or the key lists the models, and goes no further: the dialog
        would take it for "Use this model" on the row selected."""
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if watched in (self.address, self.key) and event.type() == QEvent.Type.KeyPress:
            if event.key() in keys:  # type: ignore[attr-defined]
                self.ask()
                return True
        return super().eventFilter(watched, event)

    def open(self) -> None:
        self.show()
        self.address.setFocus()
        self.address.selectAll()

    def ask_key(self, server: Any) -> None:
        """A server the look-around found wanting an API key was chosen: its address filled
        in, the key field shown and given the focus; Enter lists its models with the key."""
        self.show()
        self.address.setText(server.url)
        self._asked = ""  # an answer still coming for another address is dropped
        self.ask_button.setEnabled(True)
        self.busy.hide()
        self._say(f"The server at {server.url} {server.key_text}. Type the key it was started "
                  "or issued with, then press Enter.")
        self._show_key(True)
        self.key.setFocus()
        self.key.selectAll()

    def ask(self) -> None:
        typed = self.address.text().strip()
        if not typed:
            self._say("Type the server's address, e.g. http://192.168.1.20:5000/v1.", error=True)
            return
        key = "" if self.key.isHidden() else self.key.text().strip()
        self._asked = typed
        self.ask_button.setEnabled(False)
        self.busy.show()
        self._say(f"Asking {typed} for its models…")
        self.pool.run(ask_address, typed, key, on_result=self._answered)

    def _answered(self, answer: AddressAnswer) -> None:
        if answer.typed != self._asked:
            return  # another address was asked for since
        self.ask_button.setEnabled(True)
        self.busy.hide()
        server = answer.server
        if server is None:
            self._say(answer.problem, error=True)
            if answer.key_refused:  # typed here, listed with it (Enter in the field)
                self._show_key(True)
                self.key.setFocus()
                self.key.selectAll()
        else:
            count = len(server.models)
            models = "one model" if count == 1 else f"{count} models"
            text = f"{server.url} has {models}: listed under Servers, the first selected."
            self._say(f"{text} {answer.note}".strip())
            self.key.clear()  # kept in the keyring (or for the session) already
            self._show_key(False)
            self.picker.add_server(server)
        self.answered.emit()

    def _show_key(self, shown: bool) -> None:
        self.key_label.setVisible(shown)
        self.key.setVisible(shown)

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
        self.pool = pool
        self.intro = intro = QLabel(intro_text(current), objectName="hint")
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
        later_note = QLabel("You can change this later in Settings → Models.", objectName="hint")
        later_note.setWordWrap(True)  # on two lines at the largest text on a small screen
        row.addWidget(later_note, 1)  # all the room there is: the button stays on the right
        row.addWidget(later)
        # Where the screen is too short for it all (the largest text on a 1366x768 screen scaled
        # by 1.5) the texts, the table and the server address scroll, rather than being cut or
        # squeezed; the picker's buttons and "Keep …" stay under them, always in view. A field
        # given the keyboard is scrolled to.
        self.picker.layout().removeItem(self.picker.button_rows)
        self.body = scrolled_column("modelStepBody", [title, intro, self.picker],
                                    stretch=self.picker)
        FocusShown(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(self.body, 1)
        layout.addLayout(self.picker.button_rows)
        layout.addLayout(row)

    def _chosen(self, choice: Choice) -> None:
        # listed in Settings → Model → "Models you added", as a model saved there is; a file
        # that cannot be read is reported by the model load, not here
        if choice.values.get("model_source") in (GGUF, SERVER):
            self.pool.run(remember_model, AppSettings(**choice.values))
        self.chosen.emit(choice)
        self.accept()
