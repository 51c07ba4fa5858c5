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


@pytest.fixture(autouse=True)
def widgets_deleted(qapp):
    """The widgets a test closed are deleted before the next test starts. pytest-qt only
    deleteLater()s them, so an event loop of the next test deleted them, and a dialog whose
    workers were still busy (Settings' model look-ups) held that test's window still until
    they finished: seconds, in which a streamed answer arrived all at once."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


@pytest.fixture(autouse=True)
def looks_stopped():
    """A test's keep_looking (tests/gui_steps.py) stops when the test ends, found or not: one
    left running after a test that expected no box answered a box of the next test."""
    yield
    from tests.gui_steps import stop_looking

    stop_looking()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    """While pytest-qt closes a test's windows (its own teardown runs after this one's start):
    a window whose message box holds a message the full disk kept out asks before it closes
    (app/main_window.py _may_lose_box), and nobody is here to answer; a test that failed
    before emptying its box would hang the whole run. Such a question is answered Quit anyway,
    as a person leaving would."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.objectName() == "notSavedQuitBox":
            role = QMessageBox.ButtonRole.DestructiveRole
            next(b for b in box.buttons() if box.buttonRole(b) == role).click()

    timer = QTimer()
    timer.timeout.connect(answer)
    timer.start(100)
    try:
        yield
    finally:
        timer.stop()


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
    from tests.gui_steps import shown_window

    win = shown_window(qtbot, memory, chat)
    yield win
    win.close()


@pytest.fixture
def desktop(qtbot):
    """desktop(path=None, settings=None): the desktop app as it starts (app.desktop.build: the
    window and its vault opener) with the fast fake models of open_fast, on default settings
    unless `settings` are given, shown; its opener opens the vault file at `path` when one is
    given (the default memory's otherwise); `vault`: as `memoryos --vault NAME` asks for it.
    Returns (window, opener); every window it made is closed after the test."""
    from app.desktop import build
    from app.settings_store import AppSettings
    from tests.helpers import open_fast

    made = []

    def _desktop(path: Path | None = None, settings=None, vault: Path | None = None):
        window, opener = build(open_fast, settings=AppSettings() if settings is None else settings,
                               vault=vault)
        qtbot.addWidget(window)
        made.append(window)
        if path is not None:
            opener.path = path
        window.show()
        qtbot.waitExposed(window)
        return window, opener

    yield _desktop
    for window in made:
        window.close()


@pytest.fixture
def elsewhere(memory, embedder):
    """elsewhere(): another program's handle on the `memory` vault's file, as the MCP server
    or `memoryos import` holds it: its own connection and its own commits, which a window on
    `memory` sees only as writes from outside. Open it in a `with` block, which closes it."""
    from engine.api import MemoryOS

    def _open():
        return MemoryOS.open(memory.path, embedder=embedder, background=False)

    return _open


@pytest.fixture
def quick_outside_checks(monkeypatch):
    """Look for outside writes every 50 ms instead of every few seconds."""
    from app import session

    monkeypatch.setattr(session, "OUTSIDE_CHECK_MS", 50)


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


def _cell_cut(table, item, column: int, one_line: bool = False) -> str:
    """Why the text of `item` in `column` is not all on screen ("" when it is): a word wider
    than the room the style leaves for text, more lines than the row is tall, or (`one_line`)
    any wrapping at all. The room is the style's own (padding and margins), as it paints."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    index = table.indexFromItem(item, column)
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.rect = table.visualRect(index)
    if item.isFirstColumnSpanned():
        option.rect.setRight(table.viewport().width())
    table.itemDelegate().initStyleOption(option, index)
    option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
    style = table.style()
    room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table)
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    width = room.width() - 2 * margin
    text = item.text(column)
    metrics = QFontMetrics(item.font(column))
    if one_line:
        wide = metrics.horizontalAdvance(text)
        return "" if wide <= width else f"{text!r}: {wide} px in {width} px"
    flags = int(Qt.TextFlag.TextWordWrap)
    needed = metrics.boundingRect(QRect(0, 0, width, 1 << 20), flags, text)
    if needed.width() > width or needed.height() > room.height():
        return f"{text!r}: {needed.width()}x{needed.height()} px in {width}x{room.height()} px"
    return ""


@pytest.fixture
def cell_cut():
    """cell_cut(table, item, column, one_line=False): why that cell's text is cut, or ""."""
    return _cell_cut


@pytest.fixture
def laptop_screen(monkeypatch):
    """Windows sized for a 1366x768 laptop's screen. The offscreen screen is 800x800, narrower
    than some designs (the model step's 940 px): there a window takes the screen's width and its
    table gives way, as it must (tests/gui/test_gui_scaled_screen.py); what a design promises
    where the screen holds it is checked on this one."""
    from app import widgets

    monkeypatch.setattr(widgets, "screen_room", lambda window: (1366 - 40, 768 - 60))


@pytest.fixture
def person(tmp_path, monkeypatch):
    """A home with LM Studio's folder holding the bundled GGUF, and a live local server: what
    the Models table and the model step find on a person's computer."""
    import os

    # the vault package imported first, as the app does before Settings opens: two workers
    # importing it at once (the look-around, the keyring check) can fail on its import cycle
    import engine.api  # noqa: F401
    from models.catalogue import bundled_gguf_path
    from tests.local_servers import ChatServer

    home = tmp_path / "person"
    target = (
        home
        / ".lmstudio/models/lmstudio-community/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct-Q4_1.gguf"
    )
    target.parent.mkdir(parents=True)
    os.symlink(bundled_gguf_path(), target)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "HF_HOME", "HF_HUB_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    with ChatServer(models=["smollm2-135m"], reply=["Hello", " there"]) as server:
        monkeypatch.setattr("models.probe.DEFAULT_PORTS", {server.port: "llama.cpp server"})
        yield {"gguf": str(target), "server": server, "home": home}


@pytest.fixture
def look_back(qapp):
    """Whatever a test chose, the next one starts light and at the normal size."""
    yield
    from app import theme

    theme.apply_look(qapp, "light", theme.BASE_SIZE)
