"""The engine's one facade: the desktop app, the CLI, the MCP server and the evaluation all use it."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine import errors, forgetting, validation
from engine.backends.base import CancelToken, ChatBackend, Embedder
from engine.consolidation import PAGE_ADDED, Consolidator
from engine.files import write_private
from engine.forgetting import ForgetPreview
from engine.memory import when
from engine.memory.long_term import Persona, normalise_text
from engine.memory.mid_term import segment_from_row
from engine.memory.segment_index import SegmentIndex
from engine.memory.vectors import VectorMirror
from engine.network import Transfer, TransferLog
from engine.policy import Policy
from engine.policy import current as current_policy
from engine.prompt import (
    build_messages,
    compact_retrieval,
    fit_memory,
    is_small_model,
    shown_history,
    warm_next_prompt,
)
from engine.records import (
    SHORT_TERM,
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
from engine.remembered import MemoryUsed, memories_used
from engine.retrieval import retrieve as _retrieve
from engine.settings import MemorySettings
from engine.thinking import ThinkingSplitter
from engine.vault import KeyringStatus, Vault, keys
from engine.vault import keyring_status as _keyring_status
from engine.vault.store import page_from_row

__all__ = ["MemoryOS", "ResponseStream", "erase_vault", "keyring_status"]


def keyring_status() -> KeyringStatus:
    """Whether the OS keyring can hold vault keys (else the person sets a passphrase)."""
    return _keyring_status()


def erase_vault(path: str | Path) -> None:
    """Delete a vault for good: the file, its WAL/SHM/backups, and its key in the keyring."""
    path = Path(path)
    for candidate in [
        path,
        Path(f"{path}-wal"),
        Path(f"{path}-shm"),
        *path.parent.glob(f"{path.name}.backup-*"),
    ]:
        if candidate.exists():
            candidate.unlink()
    keys.delete_key(path)


def default_embedder() -> Embedder:
    from engine.backends.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


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
        self.vault = vault
        self.embedder = embedder
        self.chat = chat
        self.settings = settings
        self.dimension = embedder.dimension
        self.page_mirror = VectorMirror(vault, "pages_vec")
        self.fact_mirror = VectorMirror(vault, "facts_vec")
        self.turn_mirror = VectorMirror(vault, "turns_vec")
        self.persona = Persona(vault, embedder, self.fact_mirror, self.dimension)
        self.segment_index = SegmentIndex(vault)
        self._subscribers: list[Callable[[str], None]] = []
        self._visits: Counter[int] = Counter()
        self._visits_lock = threading.Lock()
        # Answers being generated now; background work waits on the condition until it is 0.
        self._answers = 0
        self._answers_done = threading.Condition()
        self._conversation_id = self._new_id()
        self.transfers = TransferLog()  # what was sent to which model, in characters
        self.consolidator = Consolidator(self, self._notify)
        self._closed = False
        if background:
            self.consolidator.start()

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
            settings = MemorySettings.from_dict(json.loads(stored)) if stored else MemorySettings()
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
            self.vault.close()
            # decrypted copies held in RAM go with the vault (auto-lock relies on it)
            for mirror in (self.page_mirror, self.fact_mirror, self.turn_mirror):
                mirror.reset()
            self.segment_index.invalidate()

    def __enter__(self) -> MemoryOS:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.vault.path

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

    def set_chat(self, chat: ChatBackend | None) -> None:
        self.chat = chat

    def policy(self) -> Policy:
        """The administrator's policy in force (engine/policy.py)."""
        return current_policy()

    def remote_consolidation_allowed(self) -> bool:
        """May background consolidation send memories to a model not on this computer?"""
        return self.settings.remote_consolidation and not self.policy().remote_forbidden

    def retention(self) -> tuple[int, bool]:
        """(days, keep facts) in force: the administrator's policy first, else the settings."""
        rules = self.policy()
        days = rules.retention_days
        keep = rules.retention_keeps_facts
        return (
            self.settings.retention_days if days is None else days,
            self.settings.retention_keeps_facts if keep is None else keep,
        )

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

    def continue_conversation(self, conversation_id: str) -> str:
        """New exchanges join this stored conversation (opened from the conversations list)."""
        if not self.vault.page_ids_of_conversation(conversation_id):
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
    ) -> Page:
        """Store one exchange as a page. No LLM call: one embedding and one transaction.

        `meta` is the caller's: it may not set reserved keys (validation.RESERVED_META);
        `source` names where the page came from ("mcp", "import", ...) and is stored as
        meta["source"]; `memories_used`: what the answer's prompt held (saved with the page)."""
        user_input = validation.text(user_input, "user_input")
        agent_response = validation.text(agent_response, "agent_response")
        if not user_input.strip() and not agent_response.strip():
            raise errors.InvalidInputError("an exchange needs some text: both sides are empty")
        now = time.time()
        ts = validation.timestamp(timestamp, now)
        meta = validation.meta(meta)
        if source is not None:
            if not isinstance(source, str) or not validation.SOURCE_PATTERN.match(source):
                raise errors.InvalidInputError("source must be a short lower-case name")
            meta["source"] = source
        meta.update(_program_meta or {})
        conversation = validation.text(conversation_id, "conversation_id") or self._conversation_id
        draft = Page(
            id=0,
            user_input=user_input,
            agent_response=agent_response,
            timestamp=ts,
            conversation_id=conversation,
            tier=SHORT_TERM,
            meta=meta,
        )
        body = draft.text()
        # Relative dates resolved from the page's own time ("yesterday [7 May 2023]"), so a
        # question naming the date finds it; the vectors embed the words as said.
        indexed = when.resolve_relative(body, ts)
        sides = {
            side: text for side, text in ((0, user_input), (1, agent_response)) if text.strip()
        }
        vectors = self.embedder.embed([body, *sides.values()])  # one batch: page and its turns
        vector = vectors[0]
        turn_vectors = dict(zip(sides, vectors[1:], strict=True))
        with self.vault.transaction():
            self.vault.ensure_conversation(
                conversation, now, title=_title(user_input or agent_response)
            )
            page_id = self.vault.insert_page(
                conversation_id=conversation,
                user_input=user_input,
                agent_response=agent_response,
                ts=ts,
                meta=meta,
                body=indexed,
                vector=vector,
                now=now,
                turn_vectors=turn_vectors,
            )
            if memories_used:
                self.vault.insert_page_memories(page_id, memories_used)
            self.vault.enqueue(PAGE_ADDED, {"page_id": page_id}, now)
        self.page_mirror.add(page_id, vector)
        for side, turn in turn_vectors.items():
            self.turn_mirror.add(page_id * 2 + side, turn)
        self.consolidator.wake()
        self._notify("pages")
        return Page(
            id=page_id,
            user_input=user_input,
            agent_response=agent_response,
            timestamp=ts,
            conversation_id=conversation,
            tier=SHORT_TERM,
            meta=meta,
        )

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
            self, query, max_pages=max_pages, now=now, query_vector=query_vector
        )
        if record_visits and visited:
            with self._visits_lock:
                self._visits.update(visited)
            self.consolidator.wake()
        return result

    def flush_visits(self) -> None:
        """Write the visit counts gathered by retrievals (batched: one small transaction)."""
        with self._visits_lock:
            visits, self._visits = dict(self._visits), Counter()
        if visits:
            with self.vault.transaction():
                self.vault.record_visits(visits, time.time())
            self.segment_index.invalidate()

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
        what "last week" means for retrieval and the date the model is told."""
        if self.chat is None:
            raise errors.BackendError("no chat model is configured: choose one in the settings")
        if self.chat_is_remote() and self.policy().remote_forbidden:
            raise errors.PolicyError(
                "models that are not on this computer are turned off by your administrator"
            )
        query = validation.text(query, "query")
        if not query.strip():
            raise errors.InvalidInputError("the question is empty")
        retrieval = self.retrieve(query, record_visits=not temporary, now=now)
        return ResponseStream(
            self, query, retrieval, cancel or CancelToken(), max_tokens, temporary, now=now
        )

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
        one exchange remains. Nothing is replaced when the new answer fails or is empty."""
        if self.chat is None:
            raise errors.BackendError("no chat model is configured: choose one in the settings")
        old = self.page(page_id)
        query = old.user_input if query is None else validation.text(query, "query")
        if not query.strip():
            raise errors.InvalidInputError("the question is empty")
        retrieval = _without_page(self.retrieve(query), old.id)
        stream = ResponseStream(
            self, query, retrieval, cancel or CancelToken(), max_tokens, temporary=False
        )
        stream.replaces = old
        return stream

    def wait_for_foreground(self, timeout: float = 120.0) -> bool:
        """Background work yields to a running answer (one inference at a time per model).
        Woken the moment the last answer ends; False if one was still running at `timeout`."""
        with self._answers_done:
            return self._answers_done.wait_for(lambda: self._answers == 0, timeout)

    def _answer_started(self) -> None:
        with self._answers_done:
            self._answers += 1

    def _answer_ended(self) -> None:
        with self._answers_done:
            self._answers -= 1
            self._answers_done.notify_all()

    def short_term(self) -> list[Page]:
        return [page_from_row(r) for r in self.vault.pages_in_tier(SHORT_TERM)]

    def segments(self, include_archived: bool = False) -> list[Segment]:
        now = time.time()
        items = [
            segment_from_row(r, now, self.settings)
            for r in self.vault.segment_rows(include_archived)
        ]
        return sorted(items, key=lambda s: -s.heat.heat)

    def segment_pages(self, segment_id: int) -> list[Page]:
        return [page_from_row(r) for r in self.vault.segment_page_rows(segment_id)]

    def page(self, page_id: int) -> Page:
        rows = self.vault.page_rows([int(page_id)])
        if not rows:
            raise errors.NotFoundError(f"no page with id {page_id}")
        return page_from_row(rows[0])

    def pages(
        self, conversation_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[Page]:
        return [page_from_row(r) for r in self.vault.list_pages(conversation_id, limit, offset)]

    def memories_used(self, page_ids: list[int]) -> dict[int, list[MemoryUsed]]:
        """What each stored answer remembered, as it reads now (deleted items: forgotten)."""
        from engine.remembered import read_back

        return read_back(self, [int(i) for i in page_ids])

    def conversations(self) -> list[ConversationInfo]:
        return [
            ConversationInfo(id=r[0], title=r[1], first_ts=r[2], last_ts=r[3], pages=r[4])
            for r in self.vault.conversations()
        ]

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

    # ---- editing and forgetting ----------------------------------------------------------

    def add_fact(self, text: str, kind: str = USER_FACT) -> Fact:
        text = validation.text(text, "fact").strip()
        if not text:
            raise errors.InvalidInputError("the fact is empty")
        vector = self.embedder.embed_one(text)
        with self.vault.transaction():
            fact_id = self.persona.remember_fact(
                kind, text, status="active", origin="user", sources=[], vector=vector
            )
        self._notify("facts")
        return self.vault.fact(fact_id)

    def edit_fact(self, fact_id: int, text: str) -> Fact:
        text = validation.text(text, "fact").strip()
        if not text:
            raise errors.InvalidInputError("the fact is empty: delete it instead")
        self.vault.fact(fact_id)  # NotFoundError for unknown ids
        vector = self.embedder.embed_one(text)
        with self.vault.transaction():
            self.vault.update_fact_text(
                fact_id, text, normalise_text(text), vector, "user", time.time()
            )
            self.vault.bump_vector_generation()
        self.fact_mirror.update(fact_id, vector)
        self._notify("facts")
        return self.vault.fact(fact_id)

    def delete_fact(self, fact_id: int) -> None:
        self.delete_facts([fact_id])

    def delete_facts(self, fact_ids: list[int]) -> None:
        ids = [int(i) for i in fact_ids]
        for fact_id in ids:
            self.vault.fact(fact_id)
        with self.vault.transaction():
            self.vault.delete_facts(ids, self.dimension)
            self.vault.bump_vector_generation()
        self.fact_mirror.remove(ids)
        forgetting.scrub(self)
        self._notify("facts")

    def edit_profile_slot(self, slot_id: int, value: str) -> ProfileSlot:
        value = validation.text(value, "value").strip()
        if not value:
            raise errors.InvalidInputError("the value is empty: delete the slot instead")
        self.vault.slot(slot_id)
        with self.vault.transaction():
            self.vault.update_slot_value(slot_id, value, "user", time.time())
        self._notify("facts")
        return self.vault.slot(slot_id)

    def delete_profile_slot(self, slot_id: int) -> None:
        self.vault.slot(slot_id)
        with self.vault.transaction():
            self.vault.delete_slots([int(slot_id)])
        forgetting.scrub(self)
        self._notify("facts")

    # The cascade lives in engine/forgetting.py; these are its entry points. Every forget
    # (page, segment, conversation, retention, MCP, chat) goes through forget_pages.
    def preview_forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """What forgetting these pages would also remove or rewrite. Changes nothing."""
        return forgetting.preview(self, [int(i) for i in page_ids])

    def forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """Forget pages and everything derived from them; returns what was done."""
        done = forgetting.forget(self, [int(i) for i in page_ids])
        for event in ("pages", "segments", "facts"):
            self._notify(event)
        return done

    def _forget_pages(self, page_ids: list[int]) -> None:
        self.forget_pages(page_ids)

    def preview_forget_page(self, page_id: int) -> ForgetPreview:
        self.page(page_id)
        return self.preview_forget_pages([int(page_id)])

    def forget_page(self, page_id: int) -> ForgetPreview:
        self.page(page_id)
        return self.forget_pages([int(page_id)])

    def _segment_page_ids(self, segment_id: int) -> list[int]:
        if not self.vault.segment_rows(include_archived=True, ids=[int(segment_id)]):
            raise errors.NotFoundError(f"no segment with id {segment_id}")
        return self.vault.page_ids_of_segment(int(segment_id))

    def preview_forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.preview_forget_pages(self._segment_page_ids(segment_id))

    def forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.forget_pages(self._segment_page_ids(segment_id))

    def _conversation_page_ids(self, conversation_id: str) -> list[int]:
        ids = self.vault.page_ids_of_conversation(conversation_id)
        if not ids:
            raise errors.NotFoundError(f"no conversation {conversation_id!r}")
        return ids

    def preview_forget_conversation(self, conversation_id: str) -> ForgetPreview:
        return self.preview_forget_pages(self._conversation_page_ids(conversation_id))

    def forget_conversation(self, conversation_id: str) -> ForgetPreview:
        return self.forget_pages(self._conversation_page_ids(conversation_id))

    def forget_everything(self) -> None:
        with self.vault.transaction():
            self.vault.wipe(self.dimension)
            self.vault.purge_staging_all()
            self.vault.bump_vector_generation()
        self.page_mirror.reset()
        self.fact_mirror.reset()
        self.turn_mirror.reset()
        forgetting.scrub(self)
        for event in ("pages", "segments", "facts", "jobs"):
            self._notify(event)

    def export_json(self, path: str | Path | None = None) -> dict:
        """Everything the vault holds about the person, as JSON (written to `path` if given)."""
        rules = self.policy()
        if rules.export_forbidden:
            raise errors.PolicyError(
                f"export is turned off by your administrator ({rules.source})"
            )
        data = {
            "format": "memoryos-export/1",
            "exported_at": time.time(),
            "vault": {k: v for k, v in self.info().__dict__.items() if k != "size_bytes"},
            "settings": self.settings.to_dict(),
        }
        for table in (
            "conversations",
            "pages",
            "segments",
            "facts",
            "fact_sources",
            "profile",
            "profile_evidence",
            "page_memories",
        ):
            data[table] = self.vault.dump_table(table)
        for row in data["pages"] + data["segments"]:
            for key in ("meta", "keywords"):
                if isinstance(row.get(key), str):
                    row[key] = json.loads(row[key])
        for row in data["facts"]:
            row.pop("norm", None)
        if path is not None:
            text = json.dumps(data, ensure_ascii=False, indent=1)
            write_private(Path(path), text.encode("utf-8"))  # 0600, no partial file left
        return data

    # ---- consolidation -------------------------------------------------------------------

    def consolidation_status(self) -> ConsolidationStatus:
        jobs = self.vault.job_counts()
        counts = self.vault.counts()
        return ConsolidationStatus(
            pending_jobs=jobs.get("pending", 0) + jobs.get("running", 0),
            running=self.consolidator.running,
            failed_jobs=jobs.get("failed", 0),
            last_error=self.consolidator.last_error or self.vault.last_job_error(),
            short_term_pages=counts["short"],
            mid_term_pages=counts["mid"] + counts["archived"],
            segments=counts["segments"],
            facts=counts["facts"],
        )

    def run_consolidation(self, max_jobs: int | None = None) -> int:
        """Run pending consolidation jobs now, in this thread. Returns how many ran."""
        self.flush_visits()
        return self.consolidator.run_pending(max_jobs)

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.consolidator.wait_idle(timeout)


def _without_page(retrieval: Retrieval, page_id: int) -> Retrieval:
    """The same retrieval without one page (the exchange being replaced)."""
    from dataclasses import replace

    return replace(
        retrieval,
        short_term=tuple(p for p in retrieval.short_term if p.id != page_id),
        pages=tuple(p for p in retrieval.pages if p.page.id != page_id),
    )


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:59] + "…"


class ResponseStream(Iterator[str]):
    """The chunks of one answer. Iterating drives the generation; the end stores the exchange."""

    def __init__(
        self,
        memory: MemoryOS,
        query: str,
        retrieval: Retrieval,
        cancel: CancelToken,
        max_tokens: int,
        temporary: bool,
        now: float | None = None,
    ) -> None:
        self.memory = memory
        self.query = query
        self._compact = compact = is_small_model(memory.chat)
        if compact:  # a small model is shown less: the prompt and the memories list alike
            retrieval = compact_retrieval(retrieval)
        self._shown = shown_history(memory)  # the conversation as the model saw it (cache)
        retrieval = fit_memory(retrieval, query, memory.chat, compact, self._shown)
        self.retrieval = retrieval
        self.messages = build_messages(
            retrieval, query, now=now, compact=compact, history=self._shown
        )
        # From the same Retrieval the prompt was built from: exactly what the prompt holds.
        self.memories: list[MemoryUsed] = memories_used(retrieval)
        self.temporary = temporary
        self.replaces: Page | None = None  # an exchange this answer replaces (regenerate, edit)
        self.raw = ""  # everything the model wrote, thinking included (what is yielded)
        self.text = ""  # the answer alone: stored, consolidated, scored
        self.thinking = ""  # a reasoning model's <think> part: shown folded, never stored
        self._splitter = ThinkingSplitter()
        self.page: Page | None = None
        self.cancelled = False
        self.error: BaseException | None = None
        self.transfer: Transfer | None = None  # what this answer sent where, once it ran
        self._cancel = cancel
        self._chunks = self._generate(max_tokens)

    def cancel(self) -> None:
        self._cancel.cancel()

    def __iter__(self) -> ResponseStream:
        return self

    def __next__(self) -> str:
        return next(self._chunks)

    def _generate(self, max_tokens: int) -> Iterator[str]:
        memory = self.memory
        memory._answer_started()
        try:
            for chunk in memory.chat.stream(
                self.messages, max_tokens=max_tokens, cancel=self._cancel
            ):
                self.raw += chunk
                self._splitter.feed(chunk)
                self.text, self.thinking = self._splitter.answer, self._splitter.thinking
                yield chunk
        except errors.GenerationCancelled:
            self.cancelled = True
        except BaseException as exc:
            self.error = exc
            raise  # nothing is stored: an error text is never memory
        finally:
            memory._answer_ended()
            self._splitter.finish()
            self.text, self.thinking = self._splitter.answer, self._splitter.thinking
            self.transfer = memory.transfers.record(memory.chat, "answer", self.messages, self.text)
        answer = self.text.strip()  # a reasoning model's <think> part is not memory
        if self.temporary or (not answer and (self.cancelled or self.thinking)):
            return
        meta = {"stopped": True} if self.cancelled else {}
        conversation = self.replaces.conversation_id if self.replaces else None
        self.page = memory.add_memory(
            self.query,
            answer,
            memories_used=self.memories,
            conversation_id=conversation,
            _program_meta=meta,
        )
        self._shown.remember(self.page.id, self.messages)
        warm_next_prompt(
            memory.chat, self.retrieval, memory.short_term, self._compact, self._shown
        )
        if self.replaces is not None:  # stored first: a crash here leaves two, never none
            memory.forget_page(self.replaces.id)

    def collect(self) -> str:
        """Run the whole generation and return the answer text."""
        for _ in self:
            pass
        return self.text
