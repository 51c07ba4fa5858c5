"""Fixtures for the desktop app's tests: a styled QApplication and a window on a fresh vault."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def styled_app(qapp):
    """The real style sheet and palette, so style problems show up as Qt warnings."""
    from app import theme

    if not qapp.property("memoryos_styled"):
        theme.apply(qapp)
        qapp.setProperty("memoryos_styled", True)
    return qapp


@pytest.fixture
def loads():
    """A chat factory for the settings and model tests: records what it was asked to load
    and returns a FakeChat named for the model's source."""
    from engine.backends.fake import FakeChat

    asked: list = []

    def factory(settings, progress=None):
        asked.append(settings)
        return FakeChat(model_id=f"fake/{settings.model_source}")

    factory.asked = asked
    return factory


@pytest.fixture
def window(qtbot, memory, chat):
    """The main window on the `memory` vault with the FakeChat model; closed after the test."""
    from app.main_window import MainWindow

    win = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def _vault_bytes(path: Path) -> dict[str, str]:
    out = {}
    for file in (Path(path), Path(f"{path}-wal")):
        if file.exists():
            out[file.name] = hashlib.sha256(file.read_bytes()).hexdigest()
    return out


@pytest.fixture
def vault_bytes():
    """Digest of a vault file and its WAL (what 'byte-for-byte unchanged' compares)."""
    return _vault_bytes


@pytest.fixture
def send(qtbot):
    """send(window, text): type, press Enter, wait for the end; returns the Answer or error."""
    from PySide6.QtCore import Qt

    def _send(window, text: str, timeout: int = 10_000):
        window.composer.input.setPlainText(text)
        with qtbot.waitSignal(window.answer_finished, timeout=timeout) as blocker:
            qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        return blocker.args[0]

    return _send
