"""Open the person's vault at start: first run, silent keyring unlock, or the passphrase dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from app.errors import describe
from app.settings_lookups import keyring_check
from app.vault_dialogs import (
    FirstRunDialog,
    OpenVault,
    UnlockDialog,
    erased_text,
    keep_centred,
)
from app.workers import WorkerPool


def open_default(path: Path, create: bool, passphrase: str | None) -> Any:
    """The desktop app's vault: the embedder chosen in Settings (in its helper process),
    background consolidation; the chat model is loaded afterwards."""
    from app.embedder_choice import app_embedder
    from app.settings_store import load_settings
    from engine.api import MemoryOS

    return MemoryOS.open(path, create=create, passphrase=passphrase,
                         embedder=app_embedder(load_settings().embedder), background=True)


class VaultOpener(QObject):
    """Drives the dialogs; emits `opened(mem)` once, or `cancelled` if the person quits."""

    opened = Signal(object)
    cancelled = Signal()
    dialog_shown = Signal(object)  # the dialog now on screen (tests drive it)

    def __init__(self, path: Path, open_vault: OpenVault, pool: WorkerPool, window: QWidget) -> None:
        super().__init__(window)
        self.path = Path(path)
        self.open_vault = open_vault
        self.pool = pool
        self.window = window
        self.dialog: QDialog | None = None
        self.first_run = False  # this run made the app's first vault: the model step follows
        # File → Switch memory: the vault name the window had before (cancelling goes back)
        self.switched_from: str | None = None
        # Auto-lock closed that memory while the other one's dialog was up (go_back)
        self.locked_meanwhile = False
        # File → Erase everything removed this memory: the next dialog says so at its top
        self.erased: str | None = None
        # `memoryos --vault NAME` asked for this memory, not the one used last: a new name gets
        # Switch memory's "new memory" dialog; desktop.build's attach remembers it once open
        self.named: str | None = None

    def start(self) -> None:
        self.locked_meanwhile = False
        if self.path.exists():
            self.pool.run(self.open_vault, self.path, False, None,
                          on_result=self.opened.emit, on_error=self._silent_failed)
        else:
            self.pool.run(keyring_check, on_result=self._first_run, on_error=self._fatal)

    def after_lock(self) -> None:
        """Auto-lock closed the vault. A passphrase vault asks for its passphrase at once; a
        keyring vault would reopen silently, so it waits until the person clicks Unlock."""
        from engine.vault import keys

        if self.switched_from is not None:  # Switch memory is opening another one
            self.locked_meanwhile = True  # if it is cancelled, go_back asks for this key
            return
        self.pool.run(keys.stored_key, self.path, on_result=self._locked, on_error=self._fatal)

    def go_back(self) -> None:
        """Switch memory was cancelled and the memory open before is not open: ask for its
        key again, as after any lock when auto-lock closed it meanwhile."""
        if self.locked_meanwhile:
            self.after_lock()
        else:
            self.start()

    def _locked(self, key: str | None) -> None:
        if getattr(self.window, "closing", False):
            return
        if key is None:
            self.start()
            return
        box = QMessageBox(
            QMessageBox.Icon.Information, "MemoryOS is locked",
            "Your memory is locked: it was closed, by Lock now or after a time without use. "
            "Unlock it to go on.",
            QMessageBox.StandardButton.NoButton, self.window,
        )  # fmt: skip
        box.setObjectName("lockedBox")
        # Quit as on the unlock dialog (Ctrl+Q too); an action, not a reject: Esc never quits
        quit_button = box.addButton("Quit", QMessageBox.ButtonRole.ActionRole)
        unlock = box.addButton("Unlock", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(unlock)
        quit_action = getattr(self.window, "quit_action", None)
        if quit_action is not None:
            QShortcut(quit_action.shortcut(), box, quit_button.click)

        def answered(*_: Any) -> None:
            if box.clickedButton() is unlock:
                self.start()
            elif box.clickedButton() is quit_button and quit_action is not None:
                quit_action.trigger()

        box.finished.connect(answered)
        box.open()
        keep_centred(box, self.window)  # over the locked message, not beside it
        self.dialog_shown.emit(box)

    def _first_run(self, keyring: Any) -> None:
        if getattr(self.window, "closing", False):
            return
        settings = getattr(self.window, "settings", None)
        switching = self.switched_from is not None
        # The model step follows only the app's first vault: not one made by Switch memory,
        # nor one made again after an erase once a model was chosen, nor one made while
        # other memories are here (the app has run before).
        self.first_run = (not switching and not getattr(settings, "model_step_done", False)
                          and not self._others())
        if settings is not None and not settings.model_step_due and self.first_run:
            settings.model_step_due = True
            self.window._save_settings()
        asked = switching or self.named is not None  # a name chosen: that one is made
        name = self.path.name.removesuffix(".memoryos") if asked else None
        # No vault by this name, others here (restored from the terminal): offered first
        others = [] if asked else self._other_files()
        self._show(FirstRunDialog(self.path, keyring, self.open_vault, self.pool, self.window,
                                  new_name=name, others=others))

    def _silent_failed(self, error: Exception) -> None:
        from engine.errors import KeyUnavailableError, WrongKeyError

        if getattr(self.window, "closing", False):
            return
        if isinstance(error, (KeyUnavailableError, WrongKeyError)):
            self._show(UnlockDialog(self.path, self.open_vault, self.pool, self.window))
        else:
            self._fatal(error)

    def _show(self, dialog: QDialog) -> None:
        self.dialog = dialog
        if self.erased is not None and hasattr(dialog, "say_erased"):
            dialog.say_erased(self.erased)
            self.erased = None
        button = getattr(dialog, "quit_button", None)
        if self.switched_from is not None and button is not None:
            button.setText("Cancel")  # for Switch memory: back to the memory open before
            button.setToolTip(f"Go back to the memory “{self.switched_from}”")
        other = getattr(dialog, "other_button", None)
        if other is not None and self.switched_from is None and self._others():
            other.show()  # the key of this one is not the person's: open theirs instead
            other.clicked.connect(self._other_memory)
        requested = getattr(dialog, "open_requested", None)
        if requested is not None:  # the first-run dialog's list of memories on this computer
            requested.connect(self._open_other)
        dialog.opened.connect(self.opened)  # type: ignore[attr-defined]
        dialog.rejected.connect(self.cancelled)
        dialog.finished.connect(self._forget)
        dialog.open()
        self.dialog_shown.emit(dialog)

    def _others(self) -> list[str]:
        return [v.name for v in self._other_files()]

    def _other_files(self) -> list:
        from app.vault_switch import vault_files

        here = self.path.name.removesuffix(".memoryos")
        return [v for v in vault_files(self.path.parent) if v.name != here]

    def _other_memory(self) -> None:
        """Other memory… on the unlock or first-run dialog: pick another vault; this dialog
        closes without quitting and the chosen one opens (a new name: the first-run dialog)."""
        from app.vault_switch import SwitchVaultDialog

        here = self.path.name.removesuffix(".memoryos")
        picker = SwitchVaultDialog(here, self.dialog, folder=self.path.parent, locked=True)
        picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        picker.accepted.connect(lambda: self._open_other(picker.chosen()))
        picker.open()
        self.dialog_shown.emit(picker)

    def _open_other(self, name: str) -> None:
        """Open the memory `name` instead of the one asked for: the dialog asking closes
        without quitting; its Cancel comes back to it."""
        asking = self.dialog
        here = self.path.name.removesuffix(".memoryos")
        if asking is not None:
            asking.rejected.disconnect(self.cancelled)
            asking.reject()
        settings = getattr(self.window, "settings", None)
        if settings is not None:
            settings.vault_name = name
            settings.last_conversation = ""  # it was the other memory's
            self.window._save_settings()
        for where in ("_start_conversation", "_resume_conversation"):  # the other's
            if hasattr(self.window, where):
                setattr(self.window, where, None)
        self.path = self.path.parent / f"{name}.memoryos"
        self.switched_from = here
        self.start()

    def _forget(self, _code: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None

    def _fatal(self, error: Exception) -> None:
        erased, self.erased = self.erased, None
        said = f"{erased_text(erased)}\n\n" if erased is not None else ""
        box = QMessageBox(
            QMessageBox.Icon.Critical, "MemoryOS cannot open your memory",
            f"{said}{describe(error)}\n\nVault: {self.path}", QMessageBox.StandardButton.Close,
            self.window,
        )
        box.finished.connect(self.cancelled)
        box.open()
        keep_centred(box, self.window)
        self.dialog_shown.emit(box)
