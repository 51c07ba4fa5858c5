"""Small helpers shared by engine tests."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Made by tests/data/make_reference_data.py: the reference package (MemoryOS-BaiJia 0.1.1) run
# against a llama.cpp server with the bundled SmolLM2, on invented exchanges.
REFERENCE_MEMORY = ROOT / "tests" / "data" / "reference_memory"
# Made by tests/data/make_chroma_reference_data.py: the memoryos-chromadb variant's folder.
REFERENCE_CHROMA = ROOT / "tests" / "data" / "reference_chroma"


def raw_bytes(vault_path: Path) -> bytes:
    """The bytes of the vault file and its -wal/-shm companions, as they are on disk."""
    data = b""
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(f"{vault_path}{suffix}")
        if candidate.exists():
            data += candidate.read_bytes()
    return data


def run_cli(*args: str, home: Path, passphrase: str | None = "correct horse battery", stdin: str | bytes | None = None,
            timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m engine.cli ...` in a child process with its own home and passphrase."""
    env = dict(os.environ, MEMORYOS_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               **(env or {}))
    if passphrase is not None:
        env["MEMORYOS_PASSPHRASE"] = passphrase
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], input=data, capture_output=True,
                          env=env, cwd=ROOT, timeout=timeout)


def decrypted_bytes(path: Path, *, hexkey: str | None = None, passphrase: str | None = None,
                    scratch: Path) -> bytes:
    """The plaintext bytes of an encrypted vault (with its -wal merged in), read from a
    decrypted copy, so a test can search deleted-but-not-erased text inside pages."""
    import shutil

    import apsw

    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / f"{Path(path).name}.plain"
    for suffix in ("", "-wal"):
        source = Path(f"{path}{suffix}")
        target = Path(f"{copy}{suffix}")
        target.unlink(missing_ok=True)
        if source.exists():
            shutil.copyfile(source, target)
    from engine.vault import cipher

    conn = apsw.Connection(str(copy))
    # the same pinned cipher the vault uses: a passphrase is stretched more than a random key
    cipher.pin(conn, cipher.LEGACY_KDF_ITER if passphrase is None else cipher.PASSPHRASE_KDF_ITER)
    conn.execute(f"PRAGMA hexkey='{hexkey or cipher.as_hex(passphrase)}'")
    conn.execute("PRAGMA journal_mode=DELETE").fetchall()  # merges the WAL; rekey needs it
    conn.execute("PRAGMA rekey=''")  # an empty key decrypts the file in place
    conn.close()
    data = copy.read_bytes()
    assert data.startswith(b"SQLite format 3\x00"), "the copy was not decrypted"
    return data


def reference_copy(tmp_path: Path, name: str = "reference",
                   source: Path = REFERENCE_MEMORY) -> Path:
    """A copy of the reference MemoryOS's data folder (`source`: REFERENCE_MEMORY, or
    REFERENCE_CHROMA) at tmp_path/`name`, for a test to change or damage."""
    import shutil

    target = tmp_path / name
    shutil.copytree(source, target)
    return target


def steps_to_end(steps, progress: list | None = None):
    """Run an import's steps (a generator of (done, total) reports, as import_steps and the
    app's import_reference_steps are) to the end and return what they added; every report
    goes in `progress` when one is given."""
    while True:
        try:
            report = next(steps)
        except StopIteration as finished:
            return finished.value
        if progress is not None:
            progress.append(report)


def prompt_ids(retrieval) -> list[tuple[str, int]]:
    """The ids in a Retrieval, in the prompt's order, read straight from its fields."""
    recent = {p.id for p in retrieval.short_term}
    return (
        [("profile", s.id) for s in retrieval.profile]
        + [("fact", f.fact.id) for f in retrieval.facts]
        + [("knowledge", f.fact.id) for f in retrieval.knowledge]
        + [("exchange", p.page.id) for p in retrieval.pages if p.page.id not in recent]
        + [("exchange", p.id) for p in reversed(retrieval.short_term)]
    )


@asynccontextmanager
async def slow_loading_mcp(home: Path, tmp_path: Path):
    """`memoryos mcp` itself on a new vault, with an embedder whose load ends when the test
    makes the file `loaded` in tmp_path/model (tests/slow_loading_mcp_server.py): a client
    session, initialized while the model has not loaded, and that folder."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from tests.test_mcp_server import make_vault, server_env

    vault = make_vault(home)
    signals = tmp_path / "model"
    signals.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "tests" / "slow_loading_mcp_server.py"), str(vault), str(signals)],
        env=server_env(home),
        cwd=ROOT,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client, signals


def learn_from_import(memory, exchanges: list[tuple[str, str]]) -> list[int]:
    """Store (what the person said, when) as a transcript import does, then consolidate; the
    ids of the exchanges stored."""
    pages = [memory.add_memory(text, "Noted.", when, source="import") for text, when in exchanges]
    memory.run_consolidation()
    return [page.id for page in pages]


def current_facts(memory) -> list[str]:
    """The texts of the person's facts as they stand (those replaced left out)."""
    from engine.records import USER_FACT

    return [f.text for f in memory.facts(USER_FACT)]


def user_fact(memory, text: str):
    """The one fact about the person that reads `text`, replaced or not."""
    from engine.records import USER_FACT

    [found] = [f for f in memory.facts(USER_FACT, include_superseded=True) if f.text == text]
    return found


def open_fast(path, create: bool, passphrase: str | None, *, chat: bool = True):
    """What the app's vault opener does, with the fast fake models and no background thread
    (the GUI tests' `open_vault`): the real encrypted vault file, a HashEmbedder, a FakeChat."""
    from engine.api import MemoryOS
    from engine.backends.fake import FakeChat, HashEmbedder

    mem = MemoryOS.open(path, create=create, passphrase=passphrase, embedder=HashEmbedder(),
                        background=False)  # fmt: skip
    if chat:
        mem.set_chat(FakeChat())
    return mem


def pausing_chat():
    """A FakeChat whose stream stops after `pause_after` (a piece of its reply) until the test
    sets `go_on`, so a GUI test can look at an answer half written (`paused` is set then)."""
    import threading
    from dataclasses import dataclass, field

    from engine.backends.fake import FakeChat

    @dataclass
    class PausingChat(FakeChat):
        pause_after: str = ""
        paused: threading.Event = field(default_factory=threading.Event)
        go_on: threading.Event = field(default_factory=threading.Event)

        def _stream(self, messages, *, max_tokens, temperature):
            said = ""
            for chunk in super()._stream(messages, max_tokens=max_tokens,
                                         temperature=temperature):
                yield chunk
                said += chunk
                if self.pause_after and self.pause_after in said and not self.paused.is_set():
                    self.paused.set()
                    self.go_on.wait(10)

    return PausingChat()


def shown_dialog(qtbot, opener, start):
    """The dialog a VaultOpener shows when `start()` runs (unlock, first run, other memory)."""
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        start()
    return shown.args[0]


def unlock(qtbot, window, dialog, passphrase: str) -> None:
    """Type `passphrase` into an unlock dialog and press Enter; wait for the vault to open in
    `window` (deriving the key takes seconds on a busy machine: pytest-qt's 5 s was missed)."""
    from PySide6.QtCore import Qt

    dialog.passphrase.clear()
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.keyClicks(dialog.passphrase, passphrase)
        qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)


def window_with_settings(qtbot, memory, chat):
    """The main window on `memory` and `chat` with the settings file as saved, as the app
    starts, shown and exposed."""
    from app.main_window import MainWindow
    from app.settings_store import load_settings

    window = MainWindow.for_memory(memory, chat, settings=load_settings())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def restarted_window(qtbot, memory, chat):
    """A new window on the same vault and settings file, as after quitting and starting again
    (closing the first window closed the vault)."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    mem = MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
    return window_with_settings(qtbot, mem, chat)


def shown_settings(qtbot, settings):
    """The Settings dialog on `settings`, shown and exposed."""
    from app.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def privacy_row(panel, needle: str):
    """The privacy panel's row whose "What it knows" holds `needle` (None when none does), as
    read from the vault: a row whose text was typed over and not yet drawn again does not count
    (its text and the item it holds disagree until the list is read back)."""
    from app.privacy import ROLE

    for index in range(panel.tree.topLevelItemCount()):
        row = panel.tree.topLevelItem(index)
        if needle in row.text(1) and row.text(1) == row.data(0, ROLE).shown:
            return row
    return None


def delete_in_privacy(qtbot, panel, needle: str) -> dict:
    """Select the privacy panel's row holding `needle` alone, click Delete and answer the
    question with Delete; the question's texts and buttons (as answer_box keeps them)."""
    from PySide6.QtCore import Qt

    panel.tree.clearSelection()
    privacy_row(panel, needle).setSelected(True)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert seen["texts"], "the delete was not asked"
    return seen


def privacy_with_two_exchanges(qtbot, window, memory, job: str, food: str):
    """The privacy panel over two exchanges of one conversation (`job`, then `food`), each with
    what was learned from it."""
    memory.add_memory(job, "Nice, data science is a great field.")
    memory.add_memory(food, "Noted!")
    memory.run_consolidation()
    privacy = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(privacy, "data scientist") is not None)
    return privacy


def last_answer(window):
    """The last answer in the window's conversation (its message on screen)."""
    return [m for m in window.view.messages if m.role == "assistant"][-1]


def used_list(window) -> str:
    """The conversation's text with the last answer's list ("Used N memories") open."""
    message = last_answer(window)
    if not message.expanded:
        window.view.toggle_remembered(message)
    return window.view.plain_text()


def click_text(qtbot, view, text: str, after: str = "") -> None:
    """Click the first occurrence of `text` in the conversation (a link), after `after`."""
    from PySide6.QtCore import Qt

    document = view.browser.document()
    cursor = document.find(text, document.find(after)) if after else document.find(text)
    assert not cursor.isNull(), text
    cursor.setPosition(cursor.selectionStart() + 1)
    point = view.browser.cursorRect(cursor).center()
    qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)


def answer_box(parent, title: str, choice: str, seen: dict) -> None:
    """When the modal message box with this title (or object name) opens under `parent`, keep
    its text and buttons in `seen` and press the button labelled `choice` (Cancel if there is
    none, so the test fails, not hangs)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    def look() -> None:
        boxes = [b for b in parent.findChildren(QMessageBox)
                 if title in (b.windowTitle(), b.objectName()) and b.isVisible()]  # fmt: skip
        if not boxes:
            QTimer.singleShot(20, look)
            return
        box = boxes[-1]
        seen.setdefault("texts", []).append(box.text())
        seen.setdefault("buttons", []).append([b.text() for b in box.buttons()])
        button = next((b for b in box.buttons() if b.text() == choice), None)
        if button is None:
            box.reject()
        else:
            button.click()

    QTimer.singleShot(0, look)


def create_vault(qtbot, window, dialog, passphrase: str | None) -> None:
    """Fill the welcome (create) dialog, with `passphrase` or for the keyring, and create."""
    from PySide6.QtCore import Qt

    if passphrase:
        qtbot.keyClicks(dialog.passphrase, passphrase)
        qtbot.keyClicks(dialog.confirm, passphrase)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)


def choose_in_menu(qtbot, button, entry: str, seen: dict | None = None) -> None:
    """Click `button` and, in the menu it opens, choose the entry labelled `entry` with the
    keyboard (the menu closes if there is none or it is greyed out, so the test fails, not
    hangs). The entries shown, each with whether it was enabled, go in `seen["entries"]`."""
    from PySide6.QtCore import Qt, QTimer

    def look() -> None:
        menu = button.menu()
        if not menu.isVisible():
            QTimer.singleShot(20, look)
            return
        actions = [action for action in menu.actions() if action.isVisible()]
        if seen is not None:
            seen["entries"] = [(action.text(), action.isEnabled()) for action in actions]
        chosen = next((a for a in actions if a.text() == entry and a.isEnabled()), None)
        if chosen is None:
            menu.close()
            return
        menu.setActiveAction(chosen)
        qtbot.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(0, look)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def press_key(qtbot, key, modifier=None) -> None:
    """A key pressed on the keyboard: it goes to the widget that has the keyboard."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    target = QApplication.focusWidget() or QApplication.activeWindow()
    assert target is not None, "no window has the keyboard"
    qtbot.keyClick(target, key, Qt.KeyboardModifier.NoModifier if modifier is None else modifier)


def switch_dialog(qtbot, window):
    """File → Switch memory: its dialog, once it is the modal one."""
    from PySide6.QtWidgets import QApplication

    from app.vault_switch import SwitchVaultDialog

    window.switch_action.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), SwitchVaultDialog))
    return QApplication.activeModalWidget()


def switch_open_button(dialog):
    """The Switch memory dialog's Open button."""
    from PySide6.QtWidgets import QDialogButtonBox

    return dialog.buttons.button(QDialogButtonBox.StandardButton.Open)


def focus_by_tab(qtbot, widget) -> None:
    """`widget` gets the keyboard as Tab gives it, its window in front (as on a desktop)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    widget.window().activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget.window())
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(widget.hasFocus)


def settle() -> None:
    """The layouts' pending requests handled (each may post the next)."""
    from PySide6.QtWidgets import QApplication

    for _ in range(6):
        QApplication.sendPostedEvents(None, 0)  # 0: every kind of posted event
        QApplication.processEvents()


def cut_rows(tree) -> list[str]:
    """The rows of `tree` a person sees only in part: cut by the list's own edge, or by the
    edge of the scrolled page it is on."""
    seen = tree.viewport().visibleRegion()
    cut = []
    for index in range(tree.topLevelItemCount()):
        rect = tree.visualItemRect(tree.topLevelItem(index))
        shown = seen.intersected(rect).boundingRect()
        if not shown.isEmpty() and shown.height() < rect.height():
            cut.append(f"row {index}: {shown.height()} px of {rect.height()}")
    return cut
