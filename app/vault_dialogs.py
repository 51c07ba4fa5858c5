"""First run (create the vault, say honestly where its key lives) and unlock with a passphrase."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe
from app.icons import pixmap
from app.theme import pixels
from app.widgets import fit_to_lines
from app.workers import Worker, WorkerPool
from engine.vault.cipher import MIN_PASSPHRASE  # one minimum everywhere

if TYPE_CHECKING:
    from engine.vault.holders import Holder

OpenVault = Callable[[Path, bool, "str | None"], Any]  # (path, create, passphrase) -> MemoryOS


def erased_text(name: str) -> str:
    """The line that follows File → Erase everything, wherever it is shown."""
    return f"The memory “{name}” was erased: its file and key are gone."


# How each kind of program that holds a memory is stopped, by the command that started it.
STOP_TERMINAL_CHAT = "a terminal chat ends when you type /quit or press Ctrl+D in it"
STOP_MCP_SERVER = (
    "an MCP server stops when the agent that started it is closed or its server is turned off"
)


def _command_word(program: Holder) -> str:
    """"chat" for `memoryos chat --vault work` (or `engine.cli chat`, started as python -m
    engine.cli), "mcp" for the MCP server, "" for any other program."""
    words = program.command
    if not words or words[0] not in ("memoryos", "engine.cli"):
        return ""
    command = next((word for word in words[1:] if not word.startswith("-")), "")
    return command if command in ("chat", "mcp") else ""


def erase_refused_text(name: str, programs: list[Holder]) -> str:
    """Why Erase everything did nothing: `programs` (the MCP server...) have the memory open
    and would go on answering from it and writing into a deleted file; how to stop each kind."""
    kinds = [_command_word(program) for program in programs]
    ways = [way for kind, way in (("chat", STOP_TERMINAL_CHAT), ("mcp", STOP_MCP_SERVER))
            if kind in kinds]  # fmt: skip
    if ways and "" in kinds:
        ways.append("any other: close it")
    one = len(programs) == 1
    if ways:
        stop = f"Stop {'that program' if one else 'those programs'} ({'; '.join(ways)})"
    else:
        stop = f"Close {'that program' if one else 'those programs'}"
    named = ", ".join(program.text for program in programs)
    return (
        f"Nothing was erased: the memory “{name}” is open in another program "
        f"({named}), which would go on answering from it. {stop}, then erase again."
    )


def _header(icon_name: str, title: str, subtitle: str) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setSpacing(14)
    logo = QLabel()
    logo.setPixmap(pixmap(icon_name, 44, "#4F5FE8" if icon_name != "memoryos" else None))
    texts = QVBoxLayout()
    texts.setSpacing(2)
    texts.addWidget(QLabel(title, objectName="title"))
    sub = QLabel(subtitle, objectName="subtitle")
    sub.setWordWrap(len(subtitle) > 70)  # short lines unwrapped: a wrapped label gets a wrong height
    texts.addWidget(sub)
    row.addWidget(logo, 0, Qt.AlignmentFlag.AlignTop)
    row.addLayout(texts, 1)
    return row


def centre_over(dialog: QWidget, window: QWidget | None) -> None:
    """Put `dialog` over the middle of the window's conversation area (its `view`, where the
    locked window's message is), kept on the screen. Without a window manager (or with a tiling
    one) Qt's own placement is used, which counts the sidebar: the message behind showed beside
    the dialog in fragments."""
    if window is None:
        return
    area = getattr(window, "view", None)
    if not isinstance(area, QWidget) or not area.isVisible():
        area = window
    frame = dialog.frameGeometry()
    frame.moveCenter(area.mapToGlobal(area.rect().center()))
    screen = area.screen().availableGeometry() if area.screen() is not None else None
    if screen is not None and screen.isValid():
        frame.moveLeft(max(screen.left(), min(frame.left(), screen.right() + 1 - frame.width())))
        frame.moveTop(max(screen.top(), min(frame.top(), screen.bottom() + 1 - frame.height())))
    dialog.move(frame.topLeft())


class _KeepCentred(QObject):
    """Centres its dialog again whenever the window under it, or its conversation area, is
    resized or moved while it is shown: the area also moves within a window of the same size
    (the toolbar turning to icons, a banner shown or hidden)."""

    def __init__(self, dialog: QWidget, window: QWidget) -> None:
        super().__init__(dialog)
        self.dialog, self.window = dialog, window
        window.installEventFilter(self)
        area = getattr(window, "view", None)
        if isinstance(area, QWidget):
            area.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        moved = event.type() in (QEvent.Type.Resize, QEvent.Type.Move)
        if moved and self.dialog.isVisible():
            centre_over(self.dialog, self.window)
        return False


def keep_centred(dialog: QWidget, window: QWidget | None) -> None:
    """Centre a shown dialog over the window (see centre_over), now and when the window resizes."""
    if window is not None:
        centre_over(dialog, window)
        _KeepCentred(dialog, window)


def password_field(placeholder: str) -> QLineEdit:
    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setPlaceholderText(placeholder)
    # Qt gives a screen reader the placeholder only as a description, and the field has no
    # label of its own: without a name it was read as an unnamed text field
    field.setAccessibleName(placeholder)
    return field


def new_passphrase_problem(first: str, second: str) -> str:
    """Why a new passphrase typed twice cannot be used yet ('' when it can)."""
    if len(first) < MIN_PASSPHRASE:
        return f"The passphrase needs at least {MIN_PASSPHRASE} characters."
    if first != second:
        return "The two passphrases are not the same."
    return ""


class VaultDialog(QDialog):
    """Common parts: a busy bar, an error line, and opening the vault in a worker."""

    opened = Signal(object)  # the open MemoryOS

    def __init__(self, path: Path, open_vault: OpenVault, pool: WorkerPool, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.open_vault = open_vault
        self.pool = pool
        self.worker: Worker | None = None
        self.setModal(True)
        self.setMinimumWidth(pixels(500))
        self.error = QLabel(objectName="error")
        self.error.setWordWrap(True)
        self.error.hide()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.hide()
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(28, 24, 28, 20)
        self.layout_.setSpacing(12)
        if parent is not None:
            _KeepCentred(self, parent)  # the window resized: centred over it again

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        centre_over(self, self.parentWidget())

    def say_erased(self, name: str) -> None:
        """Say at the top that the memory `name` was just erased: this dialog came up at once
        over the window's "Everything was erased", which was only seen for an instant."""
        line = QLabel(erased_text(name), objectName="success")
        line.setTextFormat(Qt.TextFormat.PlainText)  # a name is not markup
        line.setWordWrap(len(line.text()) > 70)  # short lines unwrapped, as in _header
        self.layout_.insertWidget(0, line)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Esc does nothing here while the button is Quit. QDialog takes it as reject(), which
        is Quit at start: one stray key quit the app and threw away the typed passphrase. Quit
        is its button (and closing the dialog's window, which still rejects). Opened by Switch
        memory the button is Cancel (back to the memory open before): Esc is Cancel then, as
        on any dialog, unless the vault is being opened.

        Ctrl+Q (the window's Quit) quits here too, as the window's shortcuts do not reach a
        dialog over it: what the Quit button does; opened by Switch memory, Cancel and then
        the window's Quit. Not while the vault is being opened (the button is greyed)."""
        if self._is_quit_key(event):
            event.accept()
            button = getattr(self, "quit_button", None)
            if button is None or not button.isEnabled():
                return
            quit_action = getattr(self.parentWidget(), "quit_action", None)
            button.click()
            if button.text().replace("&", "") != "Quit" and quit_action is not None:
                quit_action.trigger()
            return
        if event.matches(QKeySequence.StandardKey.Cancel):
            event.accept()
            button = getattr(self, "quit_button", None)
            if (button is not None and button.isEnabled()
                    and button.text().replace("&", "") == "Cancel"):
                button.click()
            return
        super().keyPressEvent(event)

    def _is_quit_key(self, event: QKeyEvent) -> bool:
        action = getattr(self.parentWidget(), "quit_action", None)
        keys = action.shortcut() if action is not None else QKeySequence("Ctrl+Q")
        return not keys.isEmpty() and QKeySequence(event.keyCombination()) == keys

    def _fit(self) -> None:
        """Take the size the contents need, still centred (it grew downwards from its top).
        Not adjustSize(), which stops at two thirds of the screen's height: on a 1024x560
        screen the first run's wrapped lines, its warning among them, were squeezed to half a
        line. Its least height is what its lines need at its width (a window's least height
        counts no wrapped line): made smaller, the fields were squeezed instead."""
        fit_to_lines(self, pixels(500))
        if self.isVisible():
            centre_over(self, self.parentWidget())

    def show_error(self, text: str) -> None:
        grow = bool(text) and not self.error.isVisible()
        self.error.setText(text)
        self.error.setVisible(bool(text))
        if grow:
            self._fit()  # make room for the message instead of squeezing the rest

    def _set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        for widget in self.findChildren(QLineEdit) + self.findChildren(QPushButton):
            widget.setEnabled(not busy)

    def _open(self, create: bool, passphrase: str | None) -> None:
        self.show_error("")
        self._set_busy(True)
        worker = Worker(self.open_vault, self.path, create, passphrase)
        worker.signals.returned.connect(self._opened)
        worker.signals.errored.connect(self._failed)
        self.worker = self.pool.start(worker)

    def _opened(self, mem: Any) -> None:
        self.worker = None
        self._set_busy(False)
        self.opened.emit(mem)
        self.accept()

    def _failed(self, error: Exception) -> None:
        self.worker = None
        self._set_busy(False)
        self.show_error(describe(error))


class FirstRunDialog(VaultDialog):
    """Create the vault: key in the keyring when one is usable, else a passphrase typed twice.
    With `others` (VaultFile: memories already on this computer, restored from a backup or by
    `memoryos import --create`) it offers to open one of them first: `open_requested(name)`;
    a new, empty one stays one button away."""

    open_requested = Signal(str)

    def __init__(
        self, path: Path, keyring: Any, open_vault: OpenVault, pool: WorkerPool,
        parent: QWidget | None = None, new_name: str | None = None, others: list | None = None,
    ) -> None:
        super().__init__(path, open_vault, pool, parent)
        self.keyring_usable = bool(keyring.usable)
        others = [] if new_name else list(others or [])
        # Making a new one was chosen (or is the only thing to do): its passphrase fields show.
        # Before, a person whose restored memory was here typed its passphrase into them.
        self.creating = not others
        if new_name:  # File → Switch memory, a name not used yet
            title = f"New memory “{new_name}”"
            subtitle = ("An empty vault: nothing from your other memories is in it. What it "
                        "learns stays in its own encrypted file on this computer.")
        else:
            title = "Welcome to MemoryOS"
            subtitle = ("A private assistant that remembers you. What it learns stays in one "
                        "encrypted file on this computer, and you can see, correct or erase "
                        "all of it.")
        if others:
            many = "memories are" if len(others) > 1 else "memory is"
            subtitle = (f"{len(others)} {many} already on this computer (restored from a backup "
                        "or an export, or made before). Open yours, or make a new, empty one.")
        self.setWindowTitle(title)
        self.layout_.addLayout(_header("memoryos", title, subtitle))
        self.others_list = self._others_list(others)
        self.open_button = QPushButton("Open", objectName="primary")
        self.open_button.setToolTip("Open the memory selected; it asks for its key if the "
                                    "system keyring does not hold it")
        self.open_button.clicked.connect(self.open_selected)
        if others:
            self.layout_.addWidget(self.others_list)
        start = "Or make a new, empty memory" if others else "Your memory vault will be created"
        where = QLabel(f"{start} at<br><code>{self.path}</code>", objectName="muted")
        where.setWordWrap(True)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_.addWidget(where)
        if self.keyring_usable:
            note = QLabel(
                f"<b>The encryption key goes to your system keyring</b> ({keyring.backend}). "
                "MemoryOS will unlock by itself when you are logged in to this account; anyone "
                "who can use your unlocked session can open it too.", objectName="keyNote")
        else:
            note = QLabel(
                "<b>No system keyring is available here</b>"
                f"{f': {keyring.reason}' if keyring.reason else ''}. Choose a passphrase: "
                "you will type it each time MemoryOS starts. If you forget it, nobody can "
                "recover your memory.", objectName="warnNote")
        note.setWordWrap(True)
        self.layout_.addWidget(note)
        self.key_note = note
        self.use_passphrase = QCheckBox("Protect the vault with a passphrase instead")
        self.use_passphrase.setVisible(self.keyring_usable)
        self.use_passphrase.toggled.connect(self._update)
        self.layout_.addWidget(self.use_passphrase)
        self.passphrase = password_field(f"Passphrase (at least {MIN_PASSPHRASE} characters)")
        self.confirm = password_field("The same passphrase again")
        self.passphrase.textChanged.connect(self._update)
        self.confirm.textChanged.connect(self._update)
        self.confirm.returnPressed.connect(self.create)
        self.layout_.addWidget(self.passphrase)
        self.layout_.addWidget(self.confirm)
        self.layout_.addWidget(self.error)
        self.layout_.addWidget(self.busy)
        buttons = QHBoxLayout()
        # Other memories on this computer (this one was erased, say): the opener shows it
        self.other_button = QPushButton("Other memory…")
        self.other_button.setToolTip("Open another memory on this computer instead")
        self.other_button.hide()
        buttons.addWidget(self.other_button)
        self.quit_button = QPushButton("Quit")
        self.quit_button.clicked.connect(self.reject)
        self.create_button = QPushButton("Create my vault", objectName="primary")
        self.create_button.setDefault(True)
        self.create_button.clicked.connect(self.create)
        buttons.addStretch(1)
        buttons.addWidget(self.quit_button)
        buttons.addWidget(self.create_button)
        if others:  # opening one is what is offered first
            self.create_button.setObjectName("")
            self.create_button.setDefault(False)
            buttons.addWidget(self.open_button)
            self.open_button.setDefault(True)
            self.others_list.setFocus()
        else:
            self.open_button.hide()
        self.layout_.addLayout(buttons)
        self._update()

    def _others_list(self, others: list) -> QListWidget:
        """The memories on this computer, most recently used first, the first one selected."""
        from app.widgets import when

        found = QListWidget(objectName="vaultList")
        found.setAccessibleName("Memories on this computer")
        for vault in others:
            used = when(vault.modified).replace("Today", "today").replace("Yesterday", "yesterday")
            item = QListWidgetItem(f"{vault.name}  ·  last used {used}")
            item.setData(Qt.ItemDataRole.UserRole, vault.name)
            item.setToolTip(str(vault.path))
            found.addItem(item)
        found.setCurrentRow(0)
        found.setMaximumHeight(found.sizeHintForRow(0) * min(max(len(others), 1), 5)
                               + 2 * found.frameWidth() + 4)
        found.itemActivated.connect(lambda *_: self.open_selected())  # Enter, double-click
        return found

    def open_selected(self) -> None:
        item = self.others_list.currentItem()
        if item is not None and self.worker is None:
            self.open_requested.emit(str(item.data(Qt.ItemDataRole.UserRole)))

    @property
    def needs_passphrase(self) -> bool:
        return not self.keyring_usable or self.use_passphrase.isChecked()

    def problem(self) -> str:
        """Why the passphrase cannot be used yet ('' when it can)."""
        if not self.needs_passphrase or not self.creating:
            return ""
        return new_passphrase_problem(self.passphrase.text(), self.confirm.text())

    def _update(self) -> None:
        fields = self.needs_passphrase and self.creating
        self.passphrase.setVisible(fields)
        self.confirm.setVisible(fields)
        self.use_passphrase.setVisible(self.keyring_usable and self.creating)
        self.key_note.setVisible(self.creating or self.keyring_usable)
        if not self.creating:  # one press: made at once, or its passphrase fields shown
            self.create_button.setText("New memory…" if self.needs_passphrase
                                       else "Create a new memory")
        else:
            self.create_button.setText("Create my vault")
        # The passphrase's messages come and go as it is typed: their line keeps its room,
        # so the dialog does not grow, shrink and move under the typing.
        policy = self.error.sizePolicy()
        policy.setRetainSizeWhenHidden(fields)
        self.error.setSizePolicy(policy)
        self.error.ensurePolished()  # the style sheet's font: the line's height in it
        line = self.error.fontMetrics().boundingRect(
            0, 0, 1 << 16, 1 << 16, Qt.TextFlag.TextWordWrap, "X").height()
        self.error.setMinimumHeight(line if fields else 0)
        problem = self.problem()
        self.create_button.setEnabled(not problem)
        typed = bool(self.confirm.text())
        self.show_error(problem if problem and typed else "")
        self._fit()

    def create(self) -> None:
        if not self.creating and self.worker is None:
            self.creating = True
            if self.needs_passphrase:  # a passphrase to choose first
                self.create_button.setDefault(True)
                self._update()
                self.passphrase.setFocus()
                return
        if self.problem() or self.worker is not None:
            return
        self._open(True, self.passphrase.text() if self.needs_passphrase else None)

    def _set_busy(self, busy: bool) -> None:
        super()._set_busy(busy)
        self.use_passphrase.setEnabled(not busy)
        if not busy:
            self._update()


class UnlockDialog(VaultDialog):
    """Ask for the passphrase; a wrong one shows a message and lets the person retry."""

    def __init__(
        self, path: Path, open_vault: OpenVault, pool: WorkerPool, parent: QWidget | None = None,
    ) -> None:
        super().__init__(path, open_vault, pool, parent)
        self.attempts = 0
        self.setWindowTitle("Unlock MemoryOS")
        self.layout_.addLayout(_header(
            "lock", "Unlock your memory",
            f"The vault <b>{self.path.stem}</b> is protected by a passphrase.",
        ))
        self.passphrase = password_field("Passphrase")
        self.passphrase.returnPressed.connect(self.unlock)
        self.layout_.addWidget(self.passphrase)
        self.layout_.addWidget(self.error)
        self.layout_.addWidget(self.busy)
        buttons = QHBoxLayout()
        # Another memory on this computer (someone else's): shown by the opener when one exists
        self.other_button = QPushButton("Other memory…")
        self.other_button.setToolTip("Open or create another memory instead (Switch memory)")
        self.other_button.hide()
        buttons.addWidget(self.other_button)
        self.quit_button = QPushButton("Quit")
        self.quit_button.clicked.connect(self.reject)
        self.unlock_button = QPushButton("Unlock", objectName="primary")
        self.unlock_button.setDefault(True)
        self.unlock_button.clicked.connect(self.unlock)
        buttons.addStretch(1)
        buttons.addWidget(self.quit_button)
        buttons.addWidget(self.unlock_button)
        self.layout_.addLayout(buttons)

    def unlock(self) -> None:
        if not self.passphrase.text() or self.worker is not None:
            return
        self.attempts += 1
        self._open(False, self.passphrase.text())

    def _failed(self, error: Exception) -> None:
        super()._failed(error)
        from engine.errors import WrongKeyError

        if isinstance(error, WrongKeyError):
            from engine.vault.connection import journal_hint

            text = "That passphrase does not unlock this vault. Nothing was changed; try again."
            hint = journal_hint(self.path)
            self.show_error(f"{text} {hint}" if hint else text)
        self.passphrase.selectAll()
        self.passphrase.setFocus()
