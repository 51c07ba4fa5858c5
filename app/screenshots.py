"""Write PNG screenshots of the main window, inspector, privacy panel and settings (offscreen).

Run: python -m app.screenshots [--bundled] [output folder]   (default: resources/screenshots/)
Uses a temporary vault, an in-memory keyring and the fake backends (scripted replies), so it
needs no model; --bundled redraws the memory-at-work shots (remembered, learned, forget-panel,
sidebar-search, dark) with the bundled SmolLM2 and MiniLM models instead.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CONVERSATION = [
    ("Hi! I'm Tom. I work as a data scientist at a climate startup in San Francisco.",
     "Nice to meet you, Tom! Climate data science sounds rewarding. What are you working on?"),
    ("Mostly forecasting solar output. I love hiking on weekends, usually in Marin.",
     "Solar forecasting and Marin trails: a good balance. Any favourite hike?"),
    ("The Dipsea trail. My sister Anna is getting married in Lisbon in June.",
     "Congratulations to Anna! Lisbon in June will be lovely."),
    ("I'm learning Portuguese for the wedding, 20 minutes a day.",
     "Great plan. I can quiz you on wedding vocabulary whenever you like."),
    ("I'm allergic to peanuts, so I worry about the food at the reception.",
     "Worth telling the caterer early; I'll remind you to ask about peanut-free dishes."),
    ("My favourite food is spicy ramen, by the way.",
     "Noted: spicy ramen. There are good ramen places in Lisbon too."),
]
QUESTION = "What should I remember to do before the wedding?"
ANSWER = (
    "Here is what I have from our conversations:\n\n"
    "- **Tell the caterer about your peanut allergy** and ask for peanut-free dishes.\n"
    "- Keep up your Portuguese practice, 20 minutes a day.\n"
    "- Book Lisbon travel for June; Anna's wedding is the reason for the trip.\n\n"
    "Want me to quiz you on some Portuguese wedding vocabulary?"
)


def _keyring() -> None:
    """Vault keys go to a keyring that lives in this process only."""
    import keyring
    import keyring.backend

    class MemoryKeyring(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]
        secrets: dict = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.secrets.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.secrets[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.secrets.pop((service, username), None)

    keyring.set_keyring(MemoryKeyring())


def wait_for(signal: Any, timeout_ms: int = 10_000) -> None:
    """Run the event loop until `signal` fires (or the timeout passes)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()


def settle(ms: int = 150) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def build_memory(folder: Path, embedder: Any = None) -> tuple[Any, Any]:
    """A vault holding a short life story, consolidated, with the fake backends (or the given
    embedder)."""
    from engine.api import MemoryOS
    from engine.backends.fake import FakeChat, HashEmbedder
    from engine.records import ASSISTANT_KNOWLEDGE
    from engine.settings import MemorySettings

    chat = FakeChat(model_id="demo (scripted replies)", extraction_capable=False, chunk_delay=0.005)
    settings = MemorySettings(stm_capacity=4, stm_evict_batch=2, heat_threshold=2.5)
    mem = MemoryOS.open(folder / "default.memoryos", create=True, embedder=embedder or HashEmbedder(),
                        chat=chat, settings=settings, background=False)
    start = time.time() - 3 * 86400
    for index, (said, answered) in enumerate(CONVERSATION):
        mem.add_memory(said, answered, timestamp=start + index * 3600)
    mem.new_conversation()
    for _ in range(3):
        mem.retrieve("wedding in Lisbon peanut allergy")
    mem.run_consolidation()
    mem.add_fact("Promised to remind Tom to ask the caterer about peanut-free dishes",
                 kind=ASSISTANT_KNOWLEDGE)
    mem.run_consolidation()
    return mem, chat


def memory_at_work(window: Any, mem: Any, chat: Any, save: Any, first: str = "",
                   timeout_ms: int = 10_000) -> None:
    """An answer with its Remembered list, a Learned notice, the /forget panel, a search in
    the sidebar and the dark scheme. `chat` replays scripted replies if it can (FakeChat)."""
    scripted = hasattr(chat, "queue")
    if scripted:
        chat.queue(ANSWER)
    window.composer.send_requested.emit(QUESTION)
    wait_for(window.answer_finished, timeout_ms)
    window.sidebar.refresh()
    wait_for(window.sidebar.refreshed, 5000)
    if first:
        save(window, first)
    answer = [m for m in window.view.messages if m.role == "assistant"][-1]
    window.view.toggle_remembered(answer)
    settle(200)
    window.view.scroll_to(window.view.messages[window.view.messages.index(answer) - 1])
    save(window, "remembered")
    window.view.toggle_remembered(answer)

    if scripted:
        chat.queue("I'll keep that in mind.")
    window.composer.send_requested.emit("I am vegetarian since last spring.")
    wait_for(window.answer_finished, timeout_ms)
    mem.run_consolidation()
    wait_for(window.learned_notices.checked, 5000)
    window.view._scroll_to_end()
    save(window, "learned")

    window.composer.send_requested.emit("/forget peanuts")
    wait_for(window.chat_actions.done, 5000)
    save(window, "forget-panel")
    window.forget_panel.cancel()

    window.sidebar.refresh()
    wait_for(window.sidebar.refreshed, 5000)
    window.search_conversations()
    window.sidebar.search.setText("peanut")
    wait_for(window.sidebar.searched, 5000)
    save(window, "sidebar-search")
    window.sidebar.search.clear()

    window.settings.color_scheme = "dark"
    window._apply_look()
    wait_for(window.conversation_shown, 5000)
    save(window, "dark")
    window.settings.color_scheme = "light"
    window._apply_look()
    wait_for(window.conversation_shown, 5000)


# The memory-at-work pictures: made with the bundled models, never with scripted replies.
BUNDLED_SHOTS = {"remembered", "learned", "forget-panel", "sidebar-search", "dark"}


def shoot_bundled(out: Path) -> list[Path]:
    """The memory-at-work screenshots with the bundled models: SmolLM2-135M answers (its
    answers are poor: it is tiny), all-MiniLM-L6-v2 embeds; the earlier conversation is
    stored from a script."""
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.main_window import MainWindow
    from engine.api import default_embedder
    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig

    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply(app)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    mem, _ = build_memory(Path(os.environ["MEMORYOS_HOME"]), embedder=default_embedder())
    chat = make_chat(ModelConfig(source="bundled"))

    def save(widget: Any, name: str) -> None:
        settle()
        path = out / f"{name}.png"
        widget.grab().save(str(path))
        written.append(path)

    window = MainWindow.for_memory(mem, chat)
    window.resize(1000, 720)
    window.show()
    settle(300)
    memory_at_work(window, mem, chat, save, timeout_ms=180_000)
    window.close()
    return written


def shoot(out: Path) -> list[Path]:
    """Build the scene and write the PNGs; returns their paths."""
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.main_window import MainWindow
    from app.settings_store import SERVER, AppSettings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply(app)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    mem, chat = build_memory(Path(os.environ["MEMORYOS_HOME"]))
    # The scripted replies stand in for a capable model on a local server, so the window
    # looks as it does with one (no demo-model banner, no 160-token cap).
    settings = AppSettings(
        model_source=SERVER, server_url="http://127.0.0.1:11434/v1", server_model="scripted"
    )

    def save(widget: Any, name: str) -> None:
        settle()
        if name in BUNDLED_SHOTS:  # those are taken with the real models (--bundled)
            return
        path = out / f"{name}.png"
        widget.grab().save(str(path))
        written.append(path)

    window = MainWindow.for_memory(mem, chat, settings=settings)
    window.resize(1000, 720)
    window.show()
    settle(300)
    memory_at_work(window, mem, chat, save, "main-window")
    inspector = window.open_inspector()
    inspector.resize(1000, 640)
    wait_for(inspector.refreshed)
    inspector.tabs.setCurrentIndex(1)
    settle(300)
    save(inspector, "inspector")
    inspector.tabs.setCurrentIndex(2)
    save(inspector, "inspector-long-term")
    inspector.close()

    privacy = window.open_privacy()
    privacy.resize(1000, 680)
    wait_for(privacy.refreshed)
    for index in range(privacy.tree.topLevelItemCount()):
        row = privacy.tree.topLevelItem(index)
        if "peanuts" in row.text(1):
            row.setSelected(True)
            break
    settle(300)
    save(privacy, "privacy")
    privacy.close()

    dialog = window.open_settings()
    dialog.resize(760, 640)
    wait_for(dialog.loaded, 5000)
    save(dialog, "settings")
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    dialog.tabs.setCurrentIndex(tabs.index("Memory"))
    save(dialog, "settings-memory")
    dialog.reject()

    from app.vault_dialogs import FirstRunDialog
    from engine.api import keyring_status

    first = FirstRunDialog(Path(os.environ["MEMORYOS_HOME"]) / "vaults/default.memoryos",
                           keyring_status(), lambda *a: None, window.pool)
    first.show()
    save(first, "first-run")
    first.close()
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from engine.paths import resources_dir

    bundled = "--bundled" in args
    args = [a for a in args if a != "--bundled"]
    out = Path(args[0]) if args else resources_dir() / "screenshots"
    with tempfile.TemporaryDirectory(prefix="memoryos-shots-") as home:
        os.environ["MEMORYOS_HOME"] = home
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        _keyring()
        for path in (shoot_bundled(out) if bundled else shoot(out)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
