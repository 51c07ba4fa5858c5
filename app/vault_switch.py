"""Switch memory (File → Switch memory…): one encrypted vault per person or purpose on this
computer; open another one, or create a new one by name. What one vault learns, the others
never see: each is its own encrypted file. The open vault stays open, its conversation shown,
until the other is unlocked, then closes; a Cancel on the other's dialog comes back to it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.vault_dialogs import _header
from engine import paths
from engine.terminal import wording

SUFFIX = ".memoryos"
# What a name may hold: it becomes the file name, and `memoryos --vault NAME` takes it too.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")


@dataclass(frozen=True)
class VaultFile:
    name: str
    path: Path
    size: int
    modified: float


# SQLite's companions of a vault: its write-ahead log holds what was written since the last
# checkpoint (a vault with a conversation read "4 KB" without it).
COMPANIONS = ("-wal", "-shm")


def vault_files(folder: Path | None = None) -> list[VaultFile]:
    """The vaults in the app's folder, most recently used first; size and last use count the
    vault's -wal and -shm files too."""
    folder = folder or paths.vaults_dir()
    found = []
    for path in folder.glob(f"*{SUFFIX}") if folder.is_dir() else []:
        if not path.is_file():
            continue
        files = [path, *(path.with_name(path.name + end) for end in COMPANIONS)]
        stats = [file.stat() for file in files if file.is_file()]
        size = sum(stat.st_size for stat in stats)
        modified = max(stat.st_mtime for stat in stats)
        found.append(VaultFile(path.name[: -len(SUFFIX)], path, size, modified))
    return sorted(found, key=lambda v: (-v.modified, v.name.lower()))


APP_TITLE = "MemoryOS"  # the application's display name (app/theme.py)


def window_title(name: str | None, folder: Path | None = None) -> str:
    """"work — MemoryOS" while the memory `name` is open: its name is shown unless it is the
    default one and the only one (then there is nothing to tell apart). None: locked.
    It ends with the app's display name: on X11, Wayland and Windows Qt appends that name to
    a title that does not end with it ("MemoryOS — work — MemoryOS"); a title that does is
    shown as it is, there and on macOS alike."""
    if not name:
        return APP_TITLE
    if name == "default" and [v.name for v in vault_files(folder)] in ([], ["default"]):
        return APP_TITLE
    return f"{name} — {APP_TITLE}"


def name_problem(name: str) -> str:
    """Why `name` can't name a new vault ("" when it can)."""
    if not name:
        return ""
    if not _NAME.match(name) or name.strip() != name:
        return ("Use letters, digits, spaces, '-', '_' or '.', up to 40 characters, "
                "starting with a letter or digit.")
    return ""


def _when(moment: float) -> str:
    from app.widgets import when

    return when(moment).replace("Today", "today").replace("Yesterday", "yesterday")


class SwitchVaultDialog(QDialog):
    """Pick a vault, or type a new name. `chosen()` is the name to open after Accept."""

    def __init__(self, current: str, parent: QWidget | None = None,
                 folder: Path | None = None, locked: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Switch memory")
        self.current = current
        self.locked = locked
        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 24, 28, 20)  # as the first-run and unlock dialogs
        layout.setSpacing(12)
        layout.addLayout(_header(
            "memoryos", "Switch memory",
            "Each memory is a separate encrypted vault on this computer: what one learns, the "
            "others never see. The open one closes once the other is open; the other asks for "
            "its key if the system keyring does not hold it.",
        ))
        self.list = QListWidget(objectName="vaultList")
        self.list.setAccessibleName("Memories on this computer")
        for vault in vault_files(folder):
            # From the unlock screen the current one is locked, not open
            here = (" (locked)" if locked else " (open now)") if vault.name == current else ""
            item = QListWidgetItem(
                f"{vault.name}{here}  ·  {wording.size(vault.size)}, last used {_when(vault.modified)}"
            )
            item.setData(Qt.ItemDataRole.UserRole, vault.name)
            item.setToolTip(str(vault.path))
            self.list.addItem(item)
        layout.addWidget(self.list, 1)
        layout.addWidget(QLabel("Or a new memory, named:"))
        self.new_name = QLineEdit(objectName="newVaultName")
        self.new_name.setPlaceholderText("for example: work, Alex")
        self.new_name.setAccessibleName("Name of a new memory")
        self.new_name.setMaxLength(40)
        layout.addWidget(self.new_name)
        self.problem = QLabel(objectName="warnNote")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.list.currentItemChanged.connect(self._picked)
        self.list.itemDoubleClicked.connect(lambda *_: self.accept())
        self.new_name.textChanged.connect(self._typed)
        others = [i for i in range(self.list.count()) if self._name_at(i) != current]
        self.list.setCurrentRow(others[0] if others else 0)
        if self.list.count() <= 1:
            self.new_name.setFocus()  # nothing else to open: a new one is what is wanted
        from app.widgets import fit_window

        fit_window(self, 520, 400, least=(420, 300))
        self._update()

    def _name_at(self, row: int) -> str:
        item = self.list.item(row)
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def _picked(self, item: QListWidgetItem | None, _previous: object = None) -> None:
        if item is not None and self.new_name.text():
            self.new_name.blockSignals(True)
            self.new_name.clear()  # choosing in the list wins over a half-typed name
            self.new_name.blockSignals(False)
        self._update()

    def _typed(self, _text: str) -> None:
        if self.new_name.text():
            self.list.blockSignals(True)
            self.list.clearSelection()
            self.list.setCurrentRow(-1)
            self.list.blockSignals(False)
        self._update()

    def chosen(self) -> str:
        """The vault to open: the typed name, else the one selected in the list."""
        typed = self.new_name.text().strip()
        if typed:  # an existing one typed in another case is that one (one file on macOS)
            same = [n for n in self._existing() if n.lower() == typed.lower()]
            return same[0] if same else typed
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def _update(self) -> None:
        problem = name_problem(self.new_name.text())
        self.problem.setText(problem)
        self.problem.setVisible(bool(problem))
        name = self.chosen()
        open_button = self.buttons.button(QDialogButtonBox.StandardButton.Open)
        open_button.setEnabled(bool(name) and not problem and name != self.current)
        if name == self.current:
            open_button.setToolTip("This memory is the one being unlocked" if self.locked
                                   else "This memory is the one open now")
        elif self.new_name.text() and name not in self._existing():
            open_button.setToolTip(f"Create the memory “{name}”")
        else:
            open_button.setToolTip("")

    def _existing(self) -> set[str]:
        return {self._name_at(i) for i in range(self.list.count())}

    def accept(self) -> None:
        if not self.buttons.button(QDialogButtonBox.StandardButton.Open).isEnabled():
            return  # Enter on a disabled choice (the open vault, a bad name) does nothing
        super().accept()
