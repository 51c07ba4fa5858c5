"""The main window's panels and dialogs: Privacy, the memory inspector, Settings, the model
step, export, backup and import, erasing the memory, About and the keyboard shortcuts.

A mixin of MainWindow (kept apart so the window's own module stays small); it uses the
window's session, settings, panels, worker pool, banners and its lock screen.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe, show_message
from app.settings_store import AppSettings
from app.widgets import fit_window


class PanelsWindowMixin:
    """Opens the window's panels and dialogs and applies what they decide."""

    def _panel(self, name: str, make: Any) -> QWidget | None:
        if self.session is None:
            return None
        panel = self.panels.get(name)
        if panel is None:
            panel = make(self.session, self)
            panel.destroyed.connect(lambda *_: self.panels.pop(name, None))
            self.panels[name] = panel
            panel.show()
        elif QGuiApplication.platformName() != "offscreen":  # offscreen warns on raise()
            panel.raise_()
        # The panel takes the keyboard, so Esc closes it (QDialog's reject) and its keys work:
        # without a window manager that activates new windows (or with one that prevents focus
        # stealing) the keys, Esc included, went on to the window behind.
        panel.activateWindow()
        return panel

    def open_inspector(self) -> QWidget | None:
        from app.inspector import MemoryInspector

        return self._panel("inspector", MemoryInspector)

    def open_privacy(self) -> QWidget | None:
        from app.privacy import PrivacyPanel

        fresh = "privacy" not in self.panels
        panel = self._panel("privacy", PrivacyPanel)
        if panel is not None and fresh:
            panel.erase_requested.connect(self.erase_everything)
            # A "Learned" notice whose item was deleted there says so at once (not at its Undo)
            panel.changed.connect(self.learned_notices.check)
        return panel

    def open_settings(self) -> Any:
        from app.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self.session, self)
        dialog.applied.connect(self._settings_applied)
        dialog.reopen_needed.connect(self.reopen_memory)
        dialog.open()
        self.panels["settings"] = dialog
        dialog.finished.connect(lambda *_: self.panels.pop("settings", None))
        return dialog

    def open_model_step(self) -> Any:
        """The model table as a dialog (first run, the demo banner); a choice is applied at once."""
        from app.model_step import ModelStepDialog

        if "model_step" in self.panels:
            return self.panels["model_step"]
        dialog = ModelStepDialog(self.pool, self, current=self.settings)
        dialog.chosen.connect(self._model_chosen)
        dialog.finished.connect(lambda *_: self.panels.pop("model_step", None))
        self.panels["model_step"] = dialog
        dialog.open()
        return dialog

    def _model_chosen(self, choice: Any) -> None:
        import dataclasses

        self._settings_applied(dataclasses.replace(self.settings, **choice.values), True)

    def reopen_memory(self) -> None:
        """Close the vault and open it again with the embedder in the settings."""
        self.detach()
        self.reopen_requested.emit()

    def _settings_applied(self, settings: AppSettings, model_changed: bool) -> None:
        embedder_changed = settings.embedder != self.settings.embedder
        self.settings = settings
        if self.session is not None:
            self.demo_banner.show_for(settings)
        self._save_settings()
        self._apply_look()
        self.show_remote()
        if self.session is not None:
            self._apply_policy()  # the idle minutes may have changed
        if self.session is not None and embedder_changed:
            self.reopen_memory()  # the vault now holds the new model's vectors
        elif self.session is not None:
            self.session.settings = settings
            if model_changed:
                self.stop()
                self.session.load_model(settings)

    def export_memory(self) -> None:
        """File → Export memory… (Ctrl+E). Turned off by the policy, its entry is greyed and
        its shortcut comes here (window_session._apply_policy) to say why, not silently."""
        from app.export import export_memory
        from app.policy_lock import export_refused_text
        from engine.errors import MemoryOSError
        from engine.policy import current

        if self.session is None:
            return
        try:
            policy = current()
        except MemoryOSError:  # the file broke meanwhile: the vault closes, saying why
            self._apply_policy()
            return
        if policy.export_forbidden:
            box = show_message(self, "Export is turned off", export_refused_text(policy),
                               warning=True)
            box.setObjectName("exportOffBox")  # type: ignore[attr-defined]
            return
        export_memory(self, self.session)

    def backup_memory(self) -> None:
        from app.backup import backup_memory

        if self.session is not None:
            backup_memory(self, self.session)

    def import_conversations(self) -> None:
        from app.importer import import_transcript

        if self.session is not None:
            import_transcript(self, self.session)

    def import_reference(self) -> None:
        from app.importer import import_reference_folder

        if self.session is not None:
            import_reference_folder(self, self.session)

    def erase_everything(self, confirmed: bool = False) -> None:
        """Delete the vault file and its key after the person typed the confirmation word."""
        from app.export import confirm_erase, erase_vault_file

        if self.session is None or self._erase_refused():
            return
        if not confirmed and not confirm_erase(self, self.settings.vault_name):
            return
        if self.session is None or self._erase_refused():  # started while the word was typed
            return
        path = self.session.mem.path
        self.detach()
        self._show_locked("Erasing…", "Removing the vault file and its key.")
        self.pool.run(erase_vault_file, path, on_result=self._erased, on_error=self._erase_failed)

    def _erase_refused(self) -> bool:
        """Another program (an MCP server) has the vault open: say so, erase nothing."""
        from app.vault_dialogs import erase_refused_text
        from engine.api import vault_open_elsewhere

        assert self.session is not None
        others = vault_open_elsewhere(self.session.mem.path)
        if others:
            show_message(self, "MemoryOS", erase_refused_text(self.settings.vault_name, others),
                         warning=True)
        return bool(others)

    def _erase_failed(self, error: Exception) -> None:
        """The vault is closed but still there (a program this system cannot list had it
        open, say): say so, and have the key asked for again."""
        from engine.errors import VaultLockedError

        self._show_locked("Nothing was erased", "Unlock the memory to go on.")
        self.locked.emit()
        text = describe(error)
        if isinstance(error, VaultLockedError):  # the engine's words name the program
            text = f"{str(error)[:1].upper()}{str(error)[1:]}."
        show_message(self, "MemoryOS", text, warning=True)

    def _erased(self, _result: object) -> None:
        name = self.settings.vault_name  # the launcher names another one only after this
        self._show_locked("Everything was erased",
                          f"The file and key of the memory “{name}” are gone.")
        self.vault_erased.emit()

    def about(self) -> None:
        QMessageBox.about(self, "About MemoryOS", self.about_text())

    def show_shortcuts(self) -> QDialog:
        """The list in a window of its own that scrolls: as a message box it grew taller than
        the screen at large text sizes, its OK button out of reach."""
        dialog = QDialog(self)
        dialog.setWindowTitle("Keyboard shortcuts and commands")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        text = QTextBrowser(objectName="shortcuts")
        text.setAccessibleName("Keyboard shortcuts and commands")
        text.setHtml(self.shortcuts_text())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(dialog.accept)
        layout = QVBoxLayout(dialog)
        layout.addWidget(text)
        layout.addWidget(buttons)
        fit_window(dialog, 520, 640)
        dialog.open()
        return dialog

    def shortcuts_text(self) -> str:
        """Every menu and toolbar shortcut (read from the actions, so the list stays true), the
        composer's keys and the commands typed in a message."""
        from html import escape

        from engine.chat_commands import HELP_LINES

        keys: dict[str, str] = {}
        for action in self.findChildren(QAction):
            key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            name = action.text().replace("&", "").rstrip("…").strip()
            if key and name:
                keys.setdefault(name, key)
        keys.update({"Send the message": "Enter", "New line in the message": "Shift+Enter",
                     "Stop the answer": "Esc",
                     "Scroll the conversation (in the message box)": "Page Up, Page Down"})
        # Keys of the lists and panels, not of a menu entry (each tried in tests/gui)
        keys.update({
            "Rename the selected conversation (in the list)": "F2",
            "A conversation's menu: Open, Rename, Forget (in the list)": "Menu",
            "Edit the selected item (Privacy)": "F2",
            "Delete the selected items, after asking (Privacy)": "Delete",
            "Undo the last delete or edit (Privacy)": "Ctrl+Z",
            "Show a row in full (Memory inspector)": "Enter",
            "Next tab (Privacy, Settings, Memory inspector)": "Ctrl+Tab",
            "Previous tab": "Ctrl+Shift+Tab",
        })
        rows = "".join(f"<tr><td>{escape(name)}</td><td><b>{escape(key)}</b></td></tr>"
                       for name, key in keys.items())
        commands = "".join(f"<tr><td><b>{escape(usage)}</b></td><td>{escape(what)}</td></tr>"
                           for usage, what in HELP_LINES)
        return (f"<table cellspacing='6'>{rows}</table><p>Typed in a message:</p>"
                f"<table cellspacing='6'>{commands}</table>")

    def about_text(self) -> str:
        """What it is, its version, and where this person's encrypted file is."""
        from html import escape

        from engine import __version__

        where = (
            f"<br><br>Your memory: <code>{escape(str(self.session.mem.path))}</code>"
            if self.session is not None
            else ""
        )
        return (
            f"<b>MemoryOS Desktop {__version__}</b><br>A private assistant that remembers you, "
            "following the MemoryOS memory architecture (Kang et al., EMNLP 2025): short-term "
            "pages, mid-term topics ranked by heat and a long-term persona, all in one encrypted "
            f"file.{where}"
        )
