"""The engine's one facade: the desktop app, the CLI, the MCP server and the evaluation all use it.

MemoryOS checks what callers hand it and says what changed; the work lives in the modules it
names: the tiers in engine/memory/ (short_term, mid_term + heat, long_term), consolidation,
retrieval, answer, forgetting, export. They share a MemoryContext, never this object."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from engine import unanswered
from engine.answer import ResponseStream
from engine.api_conversations import ConversationsMixin
from engine.api_forgetting import (
    ForgettingMixin,
    erase_vault,
    refuse_while_open_elsewhere,
    vault_open_elsewhere,
)
from engine.api_persona import PersonaEditsMixin
from engine.backends.base import ChatBackend, Embedder
from engine.consolidation import Consolidator
from engine.memory.context import MemoryContext
from engine.memory.long_term import Persona
from engine.network import Transfer
from engine.policy import Policy
from engine.records import ConsolidationStatus, VaultInfo, new_conversation_id
from engine.settings import MemorySettings
from engine.vault import Vault, keyring_status  # keyring_status: is a keyring usable?

__all__ = [
    "MemoryOS",
    "ResponseStream",
    "erase_vault",
    "keyring_status",
    "refuse_while_open_elsewhere",
    "vault_open_elsewhere",
]



def default_embedder() -> Embedder:
    from engine.backends.build import make_embedder

    return make_embedder()



# MemoryOS's methods by area: storing, answering and reading in api_conversations.py, editing
# the person's facts and profile in api_persona.py, forgetting and export in api_forgetting.py.
class MemoryOS(ConversationsMixin, PersonaEditsMixin, ForgettingMixin):
    """One person's memory: an open vault plus the models that read and write it."""

    def __init__(
        self,
        vault: Vault,
        embedder: Embedder,
        chat: ChatBackend | None,
        settings: MemorySettings,
        background: bool,
    ) -> None:
        self._subscribers: list[Callable[[str], None]] = []
        self.ctx = MemoryContext.open(vault, embedder, chat, settings, self._notify)
        self.persona = Persona(self.ctx)
        self.consolidator = Consolidator(self.ctx, self.persona)
        self._conversation_id = new_conversation_id()
        self._closed = False
        self._quitting = False
        self._asked: set[str] = set()  # the unanswered records of this object's questions
        if background:
            self.consolidator.start()

    # The context's parts, under the names callers have always used.
    vault = property(lambda self: self.ctx.vault)
    embedder = property(lambda self: self.ctx.embedder)
    dimension = property(lambda self: self.ctx.dimension)
    page_mirror = property(lambda self: self.ctx.page_mirror)
    fact_mirror = property(lambda self: self.ctx.fact_mirror)
    turn_mirror = property(lambda self: self.ctx.turn_mirror)
    word_mirror = property(lambda self: self.ctx.word_mirror)
    segment_index = property(lambda self: self.ctx.segment_index)
    transfers = property(lambda self: self.ctx.transfers)  # what was sent to which model

    @property
    def chat(self) -> ChatBackend | None:
        return self.ctx.chat

    @chat.setter
    def chat(self, chat: ChatBackend | None) -> None:
        self.ctx.chat = chat

    @property
    def settings(self) -> MemorySettings:
        return self.ctx.settings

    @settings.setter
    def settings(self, settings: MemorySettings) -> None:
        self.ctx.settings = settings

    # ---- opening and closing -------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = False,
        passphrase: str | None = None,
        embedder: Embedder | None = None,
        chat: ChatBackend | None = None,
        settings: MemorySettings | None = None,
        background: bool = True,
    ) -> MemoryOS:
        """Open (or create) the vault at `path`, unlocking it with the keyring or a passphrase."""
        embedder = embedder or default_embedder()
        vault = Vault.open(
            Path(path),
            passphrase=passphrase,
            create=create,
            embedder_id=embedder.model_id,
            dimension=embedder.dimension,
        )
        stored = vault.get_meta("settings")
        if settings is None:
            settings = (
                MemorySettings.from_stored(json.loads(stored)) if stored else MemorySettings()
            )
        settings.validate()
        return cls(vault, embedder, chat, settings, background)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.consolidator.stop()
        try:
            self.flush_visits()
        finally:
            try:  # a vault that cannot be written now keeps them for the next start
                self.release_unanswered()
            except Exception:
                pass
            self.vault.close()
            self.ctx.forget_ram()  # decrypted copies held in RAM go with the vault (auto-lock)

    def mark_quitting(self, quitting: bool = True) -> None:
        """The program is quitting (the window closes, Ctrl+Q), or its window closes this vault
        (Lock now, Switch memory): an answer stopped from now on keeps its question for the
        next open (unanswered()) where nothing of it is stored, an edited question included.
        A person's Stop lets such a question go, having seen it stop; quitting is no choice to
        drop it. An answer with words stores them, as a Stop does. False: the vault stays open
        after all (Switch memory cancelled), a Stop is the person's again. No I/O: called on a
        window's thread before it stops the answer."""
        self._quitting = quitting

    def release_unanswered(self) -> None:
        """The answers asked through this object have ended (the vault closes, or a Switch
        memory that stopped one was cancelled): a question still kept (stopped while quitting)
        is offered at the next open, in this program too, as a stopped program's is. Not while
        an answer is under way: its question would be offered with it."""
        asked, self._asked = self._asked, set()
        unanswered.release(self.vault, asked)

    @property
    def quitting(self) -> bool:
        return self._quitting

    def __enter__(self) -> MemoryOS:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.vault.path

    @property
    def key_in_keyring(self) -> bool:
        """Is the vault's key the random one in this computer's keyring (not a passphrase)?"""
        return self.vault.key_location.startswith("keyring")

    def info(self) -> VaultInfo:
        size = sum(os.path.getsize(p) for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return VaultInfo(
            path=str(self.path),
            schema_version=self.vault.schema_version,
            embedder_id=self.vault.get_meta("embedder_id") or "",
            embedder_dimension=self.dimension,
            key_location=self.vault.key_location,
            pages=self.vault.count_pages(),
            size_bytes=size,
        )

    def data_version(self) -> int:
        """Changes when another connection (the MCP server, the CLI) commits to the vault;
        this instance's own writes leave it alone. One cheap PRAGMA (no table is read)."""
        return self.vault.data_version()

    def set_chat(self, chat: ChatBackend | None) -> None:
        self.chat = chat

    def policy(self) -> Policy:
        """The administrator's policy in force (engine/policy.py)."""
        return self.ctx.policy()

    def remote_consolidation_allowed(self) -> bool:
        """May background consolidation send memories to a model not on this computer?"""
        return self.ctx.remote_consolidation_allowed()

    def retention(self) -> tuple[int, bool]:
        """(days, keep facts) in force: the administrator's policy first, else the settings."""
        return self.ctx.retention()

    def chat_is_remote(self) -> bool:
        """True if the chat model is not on this computer (engine.network.is_loopback)."""
        return bool(getattr(self.chat, "remote", False))

    def sent_log(self) -> list[Transfer]:
        """What this process sent to which model (answers and consolidation), oldest first."""
        return self.transfers.items()

    def update_settings(self, settings: MemorySettings) -> None:
        settings.validate()
        with self.vault.transaction():
            self.vault.set_meta("settings", json.dumps(settings.to_dict()))
        self.settings = settings
        self._notify("settings")

    # ---- events --------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[str], None]) -> None:
        """callback(event) is called from any thread: "pages", "segments", "facts", "jobs", "settings"."""
        self._subscribers.append(callback)

    def unsubscribe(self, callback: Callable[[str], None]) -> None:
        if callback in self._subscribers:
            self._subscribers.remove(callback)

    def _notify(self, event: str) -> None:
        if event == "segments":
            self.segment_index.invalidate()
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken listener must not break the memory
                pass

    # ---- consolidation (engine/consolidation.py) ------------------------------------------

    def consolidation_status(self) -> ConsolidationStatus:
        return self.consolidator.status()

    def run_consolidation(self, max_jobs: int | None = None) -> int:
        """Run pending consolidation jobs now, in this thread. Returns how many ran."""
        self.flush_visits()
        return self.consolidator.run_pending(max_jobs)

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.consolidator.wait_idle(timeout)
