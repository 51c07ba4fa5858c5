"""Auto-lock: after N minutes without input the window closes the vault and asks for the key.

Closing the vault drops everything decrypted that the program holds (the engine's vector
mirrors and caches, the window's conversation, open panels); unlocking opens it afresh.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication

INPUT_EVENTS = {
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseMove,
    QEvent.Type.Wheel,
    QEvent.Type.TouchBegin,
}


def minutes_text(minutes: int) -> str:
    """'one minute', '10 minutes': how long the idle lock waits, in a sentence."""
    return "one minute" if minutes == 1 else f"{minutes} minutes"


def effective_minutes(chosen: int, policy_minutes: int | None) -> int:
    """The person's choice, capped by the administrator's (0: never, unless the policy says)."""
    if policy_minutes is None:
        return max(0, chosen)
    if chosen <= 0:
        return policy_minutes
    return min(chosen, policy_minutes) if policy_minutes > 0 else chosen


class AutoLock(QObject):
    """Emits `idle` once no key, mouse or touch input reached the app for `minutes`."""

    idle = Signal()

    def __init__(self, minutes: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.idle)
        self.set_minutes(minutes)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def set_minutes(self, minutes: int) -> None:
        self.minutes = max(0, int(minutes))
        self.timer.setInterval(self.minutes * 60_000)
        self.restart()

    def restart(self) -> None:
        if self.minutes > 0:
            self.timer.start()
        else:
            self.timer.stop()

    def stop(self) -> None:
        self.timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in INPUT_EVENTS and self.timer.isActive():
            self.timer.start()  # input: the idle time starts again
        return False
