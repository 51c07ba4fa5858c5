"""The banner shown when the open memory's file is damaged: what is wrong and what to do.

A damaged page is found only when something reads it, and opening a vault reads a few pages,
so the app checks every page in the background each time a vault opens (about 0.1 s for
10,000 exchanges; engine/vault/damage.py) and says so here, above the conversation.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.workers import while_open
from engine import paths


def damage_text() -> str:
    """What the banner says, in two lines on a laptop screen (seven pushed the conversation
    down on a 768 px one): the damage, and what to do first; the steps are in its tooltip."""
    return (
        "This memory's file is damaged: part of it cannot be read, and what is written to it "
        "now may be lost. Back it up first, as it is; then open an older backup or export what "
        "can still be read (What to do… gives the steps)."
    )


def damage_steps() -> str:
    """The banner's tooltip: the menus that keep, restore or save the memory, step by step.
    No sentence ends on a menu's name: "Back up memory…." read as a typo."""
    return (
        "1. Keep a copy of the file as it is: File → Back up memory… (the button beside this "
        "line).\n"
        "2. To go back to a backup made before the damage, put it in "
        f"{paths.vaults_dir()} under a new name ending in .memoryos, and open it with "
        "File → Switch memory… under that name.\n"
        "3. Or save what can still be read with File → Export memory…, then import it into a "
        "new memory: File → Switch memory… with a new name, then File → Import conversations… "
        "in it."
    )


def check_health(mem: Any) -> Any:
    """Read every page of `mem`'s vault (in a worker: it reads the whole file)."""
    return mem.vault.health()


class DamageBanner(QFrame):
    """Hidden until the check of the open vault finds damage; hidden again when another vault
    opens or this one closes."""

    backup_requested = Signal()
    checked = Signal(bool)  # the open vault's check has finished: damaged or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="notice")  # the look of a problem (style.qss)
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 8, 20, 8)
        self.text = QLabel(objectName="damageText")
        self.text.setWordWrap(True)
        self.backup_button = QPushButton("Back up memory…")
        self.backup_button.clicked.connect(self.backup_requested)
        # The steps, also from the keyboard (a tooltip is not: only a pointer shows it)
        self.steps_button = QPushButton("What to do…")
        self.steps_button.clicked.connect(self.show_steps)
        row.addWidget(self.text, 1)
        row.addWidget(self.steps_button)
        row.addWidget(self.backup_button)
        self.setAccessibleName("The memory's file is damaged")
        self._session: Any = None
        self.hide()

    def show_steps(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, "The memory's file is damaged",
                          damage_steps(), QMessageBox.StandardButton.Close, self)  # fmt: skip
        box.setObjectName("damageSteps")
        box.setDetailedText(self.text.toolTip())
        box.open()

    def watch(self, session: Any) -> None:
        """Check `session`'s vault in the background; the banner shows if it is damaged."""
        self.hide()
        self._session = session
        # The session may outlive the banner (the window deleted first at quit)
        session.destroyed.connect(while_open(self, lambda *_: self._closed(session)))
        checked = while_open(self, lambda health: self._checked(session, health))
        session.run(check_health, session.mem, on_result=checked)

    def _checked(self, session: Any, health: Any) -> None:
        if session is not self._session:
            return  # another vault opened meanwhile: its own check decides
        if health.damaged:
            self.text.setText(damage_text())
            found = health.summary()
            self.text.setToolTip(f"{damage_steps()}\n\n{found[:1].upper()}{found[1:]}.")
            self.show()
        self.checked.emit(health.damaged)

    def _closed(self, session: Any) -> None:
        if session is self._session:
            self._session = None
            self.hide()
