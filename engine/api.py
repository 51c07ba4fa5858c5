"""The engine's one facade: the desktop app, the CLI, the MCP server and the evaluation all use it.

MemoryOS checks what callers hand it and says what changed; the work lives in the modules it
names: the tiers in engine/memory/ (short_term, mid_term + heat, long_term), consolidation,
retrieval, answer, forgetting, export. They share a MemoryContext, never this object."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from engine import answer, errors, forgetting, unanswered, validation
from engine.answer import ResponseStream
from engine.backends.base import CancelToken, ChatBackend, Embedder
from engine.consolidation import Consolidator
from engine.export import export_json
from engine.forgetting import ForgetPreview
from engine.memory import mid_term, short_term
from engine.memory.context import MemoryContext
from engine.memory.long_term import Persona
from engine.network import Transfer
from engine.policy import Policy
from engine.records import (
    USER_FACT,
    ConsolidationStatus,
    ConversationInfo,
    Fact,
    Page,
    ProfileSlot,
    Retrieval,
    Segment,
    VaultInfo,
)
from engine.remembered import MemoryUsed
from engine.retrieval import retrieve as _retrieve
from engine.settings import MemorySettings
from engine.unanswered import Unanswered
from engine.vault import Vault, keyring_status, keys  # keyring_status: is a keyring usable?
from engine.vault.holders import Holder

__all__ = [
    "MemoryOS",
    "ResponseStream",
    "erase_vault",
    "keyring_status",
    "refuse_while_open_elsewhere",
    "vault_open_elsewhere",
]


def vault_open_elsewhere(path: str | Path) -> list[Holder]:
    """The other programs (the MCP server, another window) that have the vault at `path` open,
    each with its process and command so a person can find and stop it; empty if none is
    known."""
    from engine.vault.holders import open_elsewhere

    return open_elsewhere(path)


def refuse_while_open_elsewhere(
    path: str | Path, refused: str, then: str, *, closed_here: bool = False, also: str = ""
) -> None:
    """VaultLockedError, "<refused>: the vault 'work' is open in another program (`memoryos mcp
    --vault work` (process 1234))... then <then>", while another program has the vault open:
    for what that program would undo or lose (it goes on with what it holds in memory).
    `closed_here`: as open_elsewhere takes it; `also`: a last sentence (what works meanwhile)."""
    from engine.vault.holders import open_elsewhere

    path = Path(path)
    others = open_elsewhere(path, closed_here=closed_here)
    if others:
        raise errors.VaultLockedError(
            f"{refused}: the vault {path.stem!r} is open in another program "
            f"({', '.join(map(str, others))}). Stop it (an MCP server stops when the agent that "
            f"started it is closed or its server is turned off), then {then}"
            + (f". {also}" if also else "")
        )


def erase_vault(path: str | Path) -> None:
    """Delete a vault for good: the file, its WAL/SHM/backups, and its key in the keyring.
    Call it once this process has closed the vault. Refused (VaultLockedError, nothing
    deleted) while another program has it open: that program would go on answering from the
    memories and writing into a deleted file, where what it wrote is lost."""
    path = Path(path)
    refuse_while_open_elsewhere(path, "nothing was erased", "erase again", closed_here=True)
    try:
        path.unlink(missing_ok=True)  # first: on Windows a file open elsewhere cannot go
    except PermissionError:
        if os.name != "nt":  # elsewhere an open file can be deleted: this is the folder's rights
            raise
        raise errors.VaultLockedError(
            f"nothing was erased: the vault {path.stem!r} is open in another program (the app "
            "or `memoryos mcp`). Stop it, then erase again"
        ) from None
    for candidate in [
        Path(f"{path}-wal"),
        Path(f"{path}-shm"),
        *path.parent.glob(f"{path.name}.backup-*"),
    ]:
        if candidate.exists():
            candidate.unlink()
    keys.delete_key(path)


# What a person can do while another program has the vault open (forget everything refused).
EVERYTHING_ALSO = (
    "Forgetting a conversation or a page works meanwhile (`memoryos forget conversation ID`, "
    "`memoryos forget page ID`)"
)


def default_embedder() -> Embedder:
    from engine.backends.build import make_embedder

    return make_embedder()


class MemoryOS:
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
        self._conversation_id = self._new_id()
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

    # ---- writing -------------------------------------------------------------------------

    @staticmethod
    def _new_id() -> str:
        return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]

    def new_conversation(self) -> str:
        self._conversation_id = self._new_id()
        return self._conversation_id

    def continue_conversation(self, conversation_id: str, *, check: bool = True) -> str:
        """New exchanges join this stored conversation (opened from the conversations list).
        check=False: the caller has just read its pages, so the vault is not read again (a
        window sets it on its own thread, in order with New chat and Send)."""
        if check and not self.vault.page_ids_of_conversation(conversation_id):
            raise errors.NotFoundError(f"no conversation {conversation_id!r}")
        self._conversation_id = conversation_id
        return conversation_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    def add_memory(
        self,
        user_input: str,
        agent_response: str,
        timestamp: Any = None,
        meta: dict | None = None,
        *,
        conversation_id: str | None = None,
        source: str | None = None,
        memories_used: list[MemoryUsed] | None = None,
        _program_meta: dict | None = None,
        _unanswered: str | None = None,
        _also: Callable[[], None] | None = None,
    ) -> Page:
        """Store one exchange as a page. No LLM call: one embedding and one transaction.

        `meta` is the caller's: it may not set reserved keys (validation.RESERVED_META);
        `source` names where the page came from ("mcp", "import", ...) and is stored as
        meta["source"]; `memories_used`: what the answer's prompt held (saved with the page);
        `_also` runs in the page's transaction, the embedding done: raising rolls it back."""
        conversation = validation.text(conversation_id, "conversation_id") or self._conversation_id
        draft = validation.exchange(
            user_input, agent_response, timestamp, meta, conversation_id=conversation,
            source=source, program_meta=_program_meta, now=time.time(),
        )  # fmt: skip

        def also() -> None:
            # The question's record (engine/unanswered.py) goes in the page's own transaction.
            if _unanswered is not None:
                unanswered.drop(self.vault, _unanswered)
            if _also is not None:
                _also()

        page = short_term.write(self.ctx, draft, memories_used, also=also)
        self.consolidator.wake()  # PAGE_ADDED is queued: the persona learns from it
        self._notify("pages")
        return page

    def add_memories(
        self,
        exchanges: Iterable[Any],
        *,
        conversation_id: str | None = None,
        source: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[int]:
        """Many exchanges at once, in order, each stored as add_memory stores one but embedded
        and written a batch at a time; returns their page ids. Every exchange is checked first:
        nothing is stored if one is invalid. `progress(done, total)` after each batch."""
        conversation = validation.text(conversation_id, "conversation_id") or self._conversation_id
        drafts = validation.exchanges(
            exchanges, conversation_id=conversation, source=source, now=time.time()
        )
        pages = short_term.write_many(self.ctx, drafts, progress=progress)
        if pages:
            self.consolidator.wake()  # PAGE_ADDED is queued for each
            self._notify("pages")
        return [page.id for page in pages]

    # ---- reading -------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        *,
        max_pages: int | None = None,
        record_visits: bool = True,
        now: float | None = None,
        query_vector=None,
    ) -> Retrieval:
        """Pages, segments, profile, facts and knowledge relevant to `query`. Writes nothing."""
        query = validation.text(query, "query")
        result, visited = _retrieve(
            self.ctx, query, max_pages=max_pages, now=now, query_vector=query_vector
        )
        self.ctx.keyword_index.start_building()  # a large vault's, after its first question
        if record_visits and visited:
            self.ctx.visits.add(visited)  # heat: written in a batch by the worker
            self.consolidator.wake()
        return result

    def flush_visits(self) -> None:
        """Write the visit counts gathered by retrievals (batched: one small transaction)."""
        self.ctx.flush_visits()

    def get_response(
        self,
        query: str,
        *,
        cancel: CancelToken | None = None,
        max_tokens: int = 512,
        temporary: bool = False,
        now: float | None = None,
    ) -> ResponseStream:
        """Answer `query` with exactly one streamed generation, then store the exchange.

        `now` (epoch seconds, default the clock) is the moment the question is asked: it sets
        what "last week" means for retrieval and the date the model is told. Unless
        `temporary`, the question is kept in the vault until its exchange is stored: a program
        killed meanwhile loses nothing (see unanswered())."""
        return self._kept(answer.ask(self, query, cancel, max_tokens, temporary, now))

    def _kept(self, stream: ResponseStream) -> ResponseStream:
        if stream.unanswered is not None:  # released when the vault closes (close())
            self._asked.add(stream.unanswered)
        return stream

    def unanswered(self) -> Unanswered | None:
        """The last question asked in a program that stopped (killed, crashed, the computer
        turned off), or in a MemoryOS closed meanwhile (a window's Lock now), before its answer
        was stored: its text, conversation and when it was asked; None if there is none. Meant
        to be offered back to the person, never sent by itself. A question a running program is
        answering is not one. Reading it leaves it there: take_unanswered() is the read of a
        program that puts it back before the person."""
        return unanswered.last(self.vault)

    def take_unanswered(self) -> Unanswered | None:
        """unanswered(), handed over: from now on it is the person's, in their message box
        like anything they typed, and not offered again at the next open (deleted from the
        box, it would otherwise come back every time)."""
        found = unanswered.last(self.vault)
        if found is not None:
            unanswered.drop(self.vault, found.id)
        return found

    def replace_response(
        self,
        page_id: int,
        query: str | None = None,
        *,
        cancel: CancelToken | None = None,
        max_tokens: int = 512,
    ) -> ResponseStream:
        """Answer a stored exchange's question again (or `query`, an edited question): the old
        exchange is kept out of the prompt and forgotten once the new one is stored, so exactly
        one exchange remains. Nothing is replaced when the new answer fails, is empty or is
        stopped (the old answer was whole; the new one would be a part). An edited `query` is
        kept in the vault until then, as get_response keeps a question (unanswered(): its
        `replaces` is `page_id`)."""
        return self._kept(answer.ask_again(self, page_id, query, cancel, max_tokens))

    def wait_for_foreground(self, timeout: float = 120.0) -> bool:
        """Background work yields to a running answer (one inference at a time per model).
        Woken the moment the last answer ends; False if one was still running at `timeout`."""
        return self.ctx.foreground.wait(timeout)

    def short_term(self) -> list[Page]:
        return short_term.pages(self.ctx)

    def segments(self, include_archived: bool = False) -> list[Segment]:
        return mid_term.segments(self.ctx, include_archived)

    def segment_pages(self, segment_id: int) -> list[Page]:
        return self.vault.pages_of_segment(segment_id)

    def page(self, page_id: int) -> Page:
        found = self.vault.pages([int(page_id)])
        if not found:
            raise errors.NotFoundError(f"no page with id {page_id}")
        return found[0]

    def stored_pages(self, page_ids: list[int]) -> set[int]:
        """Which of `page_ids` are still stored (one read, however many)."""
        return {page.id for page in self.vault.pages([int(i) for i in page_ids])}

    def pages(
        self,
        conversation_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        newest: bool = False,
    ) -> list[Page]:
        """Stored exchanges, oldest first: the first `limit`, or with `newest` the most recent
        `limit` (what a conversation shown on screen ends with)."""
        return self.vault.list_pages(conversation_id, limit, offset, newest)

    def conversation_length(self, conversation_id: str, from_page: int | None = None) -> int:
        """How many exchanges the conversation holds; with `from_page`, how many are that
        exchange or later (0 if it is not in the conversation)."""
        return self.vault.count_conversation_pages(conversation_id, from_page)

    def memories_used(self, page_ids: list[int]) -> dict[int, list[MemoryUsed]]:
        """What each stored answer remembered, as it reads now (deleted items: forgotten)."""
        from engine.remembered import read_back

        return read_back(self.ctx, [int(i) for i in page_ids])

    def conversations(self) -> list[ConversationInfo]:
        return self.vault.conversations()

    def facts(
        self, kind: str | None = None, include_superseded: bool = False, search: str | None = None
    ) -> list[Fact]:
        items = self.vault.facts(kind, include_superseded)
        if search:
            needle = search.lower()
            items = [f for f in items if needle in f.text.lower()]
        return items

    def fact(self, fact_id: int) -> Fact:
        return self.vault.fact(int(fact_id))

    def profile(self, include_superseded: bool = False) -> list[ProfileSlot]:
        return self.vault.slots(include_superseded)

    # ---- editing the persona (engine/memory/long_term.py) ---------------------------------

    def add_fact(self, text: str, kind: str = USER_FACT) -> Fact:
        fact = self.persona.add_fact(text, kind)
        self._notify("facts")
        return fact

    def edit_fact(self, fact_id: int, text: str) -> Fact:
        fact = self.persona.edit_fact(fact_id, text)
        self._notify("facts")
        return fact

    def delete_fact(self, fact_id: int) -> None:
        self.delete_facts([fact_id])

    def delete_facts(self, fact_ids: list[int]) -> None:
        self.persona.delete_facts([int(i) for i in fact_ids])
        forgetting.scrub(self.ctx)
        self._notify("facts")

    def edit_profile_slot(self, slot_id: int, value: str) -> ProfileSlot:
        slot = self.persona.edit_slot(slot_id, value)
        self._notify("facts")
        return slot

    def delete_profile_slot(self, slot_id: int) -> None:
        self.persona.delete_slot(slot_id)
        forgetting.scrub(self.ctx)
        self._notify("facts")

    def restore_deleted(
        self,
        facts: Iterable[Fact],
        slots: Iterable[ProfileSlot] = (),
        replaced: Iterable[Fact | ProfileSlot] = (),
    ) -> None:
        """Undo a delete: facts and profile entries as read just before it come back, and the
        entries they had replaced (`replaced`, read then too) are replaced by them again."""
        self.persona.restore(list(facts), list(slots), list(replaced))
        self._notify("facts")

    def restore_edited(self, before: Fact | ProfileSlot) -> Fact | ProfileSlot:
        """Undo an edit: the fact or profile entry as read just before it (text, dates, origin)."""
        entry = self.persona.restore_edit(before)
        self._notify("facts")
        return entry

    # ---- forgetting (engine/forgetting.py) -------------------------------------------------
    # Every forget (page, segment, conversation, retention, MCP, chat) goes through forget_pages.

    def preview_forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """What forgetting these pages would also remove or rewrite. Changes nothing."""
        return forgetting.preview(self.ctx, [int(i) for i in page_ids])

    def forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """Forget pages and everything derived from them; returns what was done."""
        done = forgetting.forget(self.ctx, [int(i) for i in page_ids])
        for event in ("pages", "segments", "facts"):
            self._notify(event)
        return done

    def _forget_pages(self, page_ids: list[int]) -> None:
        self.forget_pages(page_ids)

    def preview_forget_page(self, page_id: int) -> ForgetPreview:
        return self.preview_forget_pages([self.page(page_id).id])

    def forget_page(self, page_id: int) -> ForgetPreview:
        return self.forget_pages([self.page(page_id).id])

    def preview_forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.preview_forget_pages(forgetting.pages_of_segment(self.ctx, segment_id))

    def forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.forget_pages(forgetting.pages_of_segment(self.ctx, segment_id))

    def preview_forget_conversation(self, conversation_id: str) -> ForgetPreview:
        return self.preview_forget_pages(
            forgetting.pages_of_conversation(self.ctx, conversation_id)
        )

    def forget_conversation(self, conversation_id: str) -> ForgetPreview:
        done = self.forget_pages(forgetting.pages_of_conversation(self.ctx, conversation_id))
        unanswered.drop_where(self.vault, conversation_id)  # a question it never got answered
        return done

    def preview_retention(self, days: int, keep_facts: bool) -> ForgetPreview:
        """What a retention of `days` would forget at the next consolidation. Changes nothing."""
        return forgetting.retention_preview(self.ctx, int(days), bool(keep_facts), time.time())

    def forget_everything(self) -> None:
        """Delete every memory (the vault, its schema and key stay). Refused (VaultLockedError,
        nothing deleted) while another program has the vault open: it goes on with what it
        holds and can store again what was said before (an answer under way, an agent's
        conversation). A page or conversation forgotten is seen by it at once."""
        refuse_while_open_elsewhere(
            self.path, "nothing was forgotten", "forget everything again", also=EVERYTHING_ALSO
        )
        forgetting.everything(self.ctx)
        unanswered.drop_where(self.vault)  # questions never answered are memories too
        for event in ("pages", "segments", "facts", "jobs"):
            self._notify(event)

    def export_json(self, path: str | Path | None = None) -> dict:
        """Everything the vault holds about the person, as JSON (written to `path` if given)."""
        return export_json(self.ctx, self.info(), path)

    def backup(self, path: str | Path, *, force: bool = False, passphrase: str | None = None):
        """A consistent, encrypted copy of the whole vault at `path`, made while it is open here
        and elsewhere (engine/vault/backup.py); an existing file is replaced only with `force`.
        With `passphrase` the copy opens with it, on any computer; the vault keeps its key.
        Returns a vault.backup.Backup: where it went and what opens it."""
        from engine.vault.backup import backup

        self.flush_visits()  # what was read so far is in the copy too
        return backup(self.vault, path, force=force, passphrase=passphrase)

    # ---- consolidation (engine/consolidation.py) ------------------------------------------

    def consolidation_status(self) -> ConsolidationStatus:
        return self.consolidator.status()

    def run_consolidation(self, max_jobs: int | None = None) -> int:
        """Run pending consolidation jobs now, in this thread. Returns how many ran."""
        self.flush_visits()
        return self.consolidator.run_pending(max_jobs)

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.consolidator.wait_idle(timeout)
