"""The confirmation panel under the conversation: what a /forget (or a Forget action) would
delete, each item ticked, with Forget and Cancel. Cancel deletes nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import remembered as shown
from app import theme

ROLE = Qt.ItemDataRole.UserRole


class ForgetPanel(QFrame):
    """Shows matches; `confirmed(list of ForgetMatch)` when the person presses Forget."""

    confirmed = Signal(list)
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("forgetPanel")
        self.setAccessibleName("Forget confirmation")
        self.title = QLabel(objectName="forgetTitle")
        self.title.setWordWrap(True)
        self.hint = QLabel(
            "Exchanges go with the facts and profile entries learned only from them. "
            "Untick what should stay.",
            objectName="hint",
        )
        self.hint.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Items to forget")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.itemChanged.connect(self._update)
        self.forget_button = QPushButton("Forget", objectName="danger")
        self.forget_button.setAccessibleName("Forget the ticked items")
        self.forget_button.clicked.connect(self._confirm)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel: forget nothing")
        self.cancel_button.clicked.connect(self.cancel)
        QShortcut(
            QKeySequence(Qt.Key.Key_Escape),
            self,
            self.cancel,
            context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
        )
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.forget_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 10, 20, 10)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        self.hide()

    def ask(self, title: str, matches: list[Any], words: list[str] = ()) -> None:
        """Show `matches` (ForgetMatch), all ticked; a long one is shown around the first of
        `words` it contains, so the reason it matched is in view."""
        self.setStyleSheet(
            f"#forgetPanel {{ background: {theme.color('#FFF6F4')};"
            f" border-top: 1px solid {theme.color('#F2C6BE')}; }}"
            " #forgetTitle { font-weight: 600; }"
        )
        self.title.setText(title)
        self.list.blockSignals(True)
        self.list.clear()
        for match in matches:
            kind = shown.KIND_TITLES.get(match.kind, match.kind)
            text = shown.one_line_around(match.kind, match.text, list(words), 150)
            row = QListWidgetItem(f"{kind} · {shown.day(match.date)} — {text}")
            row.setToolTip(match.text)
            row.setData(ROLE, match)
            if getattr(match, "consequence", False):  # goes with the ticked exchanges
                row.setText(f"↳ also goes with those exchanges: {row.text()}")
                row.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = row.font()
                font.setItalic(True)
                row.setFont(font)
            else:
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                row.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(row)
        self.list.blockSignals(False)
        rows = max(1, min(7, len(matches)))
        self.list.setFixedHeight(
            rows * self.list.sizeHintForRow(0) + 2 * self.list.frameWidth() + 4
        )
        self._update()
        self.show()
        self.cancel_button.setFocus()  # the safe choice has the focus

    def ticked(self) -> list[Any]:
        """The ticked matches (rows of what goes along with them are not choices)."""
        rows = (self.list.item(i) for i in range(self.list.count()))
        return [
            row.data(ROLE)
            for row in rows
            if row.flags() & Qt.ItemFlag.ItemIsUserCheckable
            and row.checkState() == Qt.CheckState.Checked
        ]

    def _update(self, *_: object) -> None:
        count = len(self.ticked())
        self.forget_button.setEnabled(count > 0)
        self.forget_button.setText(f"Forget {count} item{'s' if count != 1 else ''}")

    def _confirm(self) -> None:
        chosen = self.ticked()
        if chosen:
            self.hide()
            self.confirmed.emit(chosen)

    def cancel(self) -> None:
        if self.isVisible():
            self.hide()
            self.cancelled.emit()
