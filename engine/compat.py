"""`Memoryos`: the reference MemoryOS's Python API (BAI-LAB/MemoryOS) on top of our encrypted vault.

Import it as ``from engine.compat import Memoryos``. It is deliberately *not* a top-level
``memoryos`` module: the reference installs a package called ``memoryos`` (PyPI
``MemoryOS-BaiJia`` / ``memoryos-pro``), so a module of ours with that name would shadow it or be
shadowed by it depending on install order, and a person moving over could not keep both
installed to compare or to import their old data. Changing one import line is the whole switch.

Semantics follow the reference's ``memoryos-pypi/memoryos.py``; where ours differ, it is said here:
- Storage: one encrypted vault per ``user_id`` at ``<data_storage_path>/users/<user_id>/vault.memoryos``
  beside the reference's JSON files. When that vault is created and the reference's memory of the
  user is there (its JSON files, else its chromadb variant's ``chroma_storage/``; no chromadb
  install is needed to read it), it is imported (pages, topics, profile, knowledge, and the
  assistant's knowledge; one line on stderr says what), and left as it was. An existing vault
  gets it too while it holds no memory of its own and has never had it imported; a vault that
  holds memories never does unasked (one line on stderr gives the ``memoryos import-reference``
  command), nor does one imported before. A damaged file raises the importer's error and leaves
  no vault (an existing one as it was). The key comes from the OS keyring, else ``passphrase=``
  or ``$MEMORYOS_PASSPHRASE``, else a terminal prompt.
- Models: ``openai_base_url`` (+ ``openai_api_key``, ``llm_model``) selects an OpenAI-compatible
  server as in the reference; an API key without a URL means OpenAI's API, as in the reference;
  neither means the bundled local model (nothing leaves the machine). Plain http:// to another
  computer is refused unless ``allow_plain_http=True`` (the memories would cross the network
  unencrypted; this computer's own servers are always allowed). ``embedding_model_name`` is
  the bundled all-MiniLM-L6-v2, a local sentence-transformers folder, or a model already in the
  Hugging Face cache; anything else falls back to the bundled model with a printed notice
  (nothing is downloaded). ``embedding_model_kwargs`` are not applied (printed notice).
- ``add_memory`` makes no model call (the reference makes several): the page is written at once,
  and consolidation (segments, chains, profile, facts) runs in the background. ``meta_data`` is
  kept with the page (under ``meta_data`` in its metadata). Timestamps may be any format
  ``engine.timestamps`` reads ("2025-05-01 12:00:00", ISO 8601, "1:56 pm on 8 May, 2023").
- ``get_response`` makes exactly one generation and returns the answer text (a reasoning model's
  ``<think>`` part removed); ``relationship_with_user``, ``style_hint`` and
  ``user_conversation_meta_data`` go into the system prompt. A failing model raises
  ``engine.errors.BackendError`` instead of returning (and storing) an error text.
- ``long_term_knowledge_capacity`` is accepted but is no FIFO cap: facts are never dropped by
  age; contradicted ones are superseded and kept.
- Assistant knowledge is shared per ``assistant_id`` across users, as in the reference: it lives in
  ``<data_storage_path>/assistants/<assistant_id>/vault.memoryos`` (encrypted, same key handling;
  ``engine.shared_knowledge``) and each user's vault keeps a synced copy, so answers, retrieval and
  ``get_assistant_knowledge_summary`` of every user of that assistant see it.
  ``forget_assistant_knowledge`` deletes it for everyone. Users sharing an assistant use one
  embedder (the assistant's vault records it, as the reference's JSON keeps its vectors).
- ``short_term_memory.get_all()``, ``retriever.retrieve_context(query, user_id)`` and
  ``user_long_term_memory`` / ``assistant_long_term_memory`` (``get_raw_user_profile``,
  ``get_user_knowledge``, ``get_assistant_knowledge``) are read-only views, enough for code that
  reaches into them as the reference's MCP server does; writing goes through the methods.
- ``get_user_profile_summary`` renders the profile slots as text ("None" when empty, as the
  reference): an imported reference profile as its own text, others one "name: value" line each;
  ``get_assistant_knowledge_summary`` returns ``[{"knowledge", "timestamp"}]`` (embeddings stay
  in the vault).
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from engine import unlock
from engine.compat_models import make_reference_chat, make_reference_embedder, notice
from engine.compat_reference import reference_for, reference_of, run_import
from engine.compat_views import ReferenceReadsMixin, reference_time
from engine.prompt import with_conversation_style
from engine.records import ASSISTANT_KNOWLEDGE
from engine.settings import MemorySettings, plain_threshold, topical_threshold
from engine.shared_knowledge import SharedKnowledge, assistant_vault_path, check_id
from engine.thinking import strip_thinking
from engine.vault import keyring_status

DEFAULT_ASSISTANT_ID = "default_assistant_profile"
VAULT_FILE = "vault.memoryos"


def vault_path(data_storage_path: str | os.PathLike, user_id: str) -> Path:
    """Where the vault of `user_id` lives under a reference-style data folder."""
    check_id(user_id, "user_id")
    return Path(data_storage_path).expanduser().resolve() / "users" / user_id / VAULT_FILE


def _erase(path: Path) -> None:
    """Delete a vault this constructor created (file, companions, keyring key)."""
    from engine.api import erase_vault

    erase_vault(path)


# The models its arguments name are chosen in compat_models.py, the reference's memory to
# import is found in compat_reference.py, the reference-shaped reads are in compat_views.py.
class Memoryos(ReferenceReadsMixin):
    """The reference's `Memoryos` class, backed by one encrypted MemoryOS Desktop vault per user."""

    def __init__(
        self,
        user_id: str,
        openai_api_key: str,
        data_storage_path: str,
        openai_base_url: str | None = None,
        assistant_id: str = DEFAULT_ASSISTANT_ID,
        short_term_capacity: int = 10,
        mid_term_capacity: int = 2000,
        long_term_knowledge_capacity: int = 100,
        retrieval_queue_capacity: int = 7,
        mid_term_heat_threshold: float = 5.0,
        mid_term_similarity_threshold: float = 0.6,
        llm_model: str = "gpt-4o-mini",
        embedding_model_name: str = "all-MiniLM-L6-v2",
        embedding_model_kwargs: dict | None = None,
        *,
        passphrase: str | None = None,
        chat: Any = None,
        embedder: Any = None,
        background: bool = True,
        allow_plain_http: bool = False,
    ) -> None:
        self.user_id = user_id
        self.assistant_id = assistant_id
        self.data_storage_path = os.path.abspath(data_storage_path)
        self.llm_model = llm_model
        self.mid_term_heat_threshold = float(mid_term_heat_threshold)
        self.mid_term_similarity_threshold = float(mid_term_similarity_threshold)
        self.long_term_knowledge_capacity = int(long_term_knowledge_capacity)
        self.embedding_model_name = embedding_model_name
        self.embedding_model_kwargs = dict(embedding_model_kwargs or {})
        path = vault_path(data_storage_path, user_id)
        check_id(assistant_id, "assistant_id")
        is_new = not (path.exists() and path.stat().st_size > 0)
        # read and checked before anything is created: a damaged file leaves no vault behind
        reference = reference_of(self.data_storage_path, user_id, assistant_id) if is_new else None
        settings = MemorySettings(
            stm_capacity=int(short_term_capacity),
            mtm_capacity=int(mid_term_capacity),
            top_pages=int(retrieval_queue_capacity),
            heat_threshold=float(mid_term_heat_threshold),
            # the reference's threshold is on plain cos + Jaccard (engine/settings.py)
            segment_threshold=topical_threshold(float(mid_term_similarity_threshold)),
        )
        settings.stm_evict_batch = min(settings.stm_evict_batch, settings.stm_capacity)
        settings.validate()
        if chat is None:
            chat = make_reference_chat(
                openai_api_key, openai_base_url, llm_model, allow_plain_http
            )
        if embedder is None:
            embedder = make_reference_embedder(embedding_model_name, embedding_model_kwargs)
        path.parent.mkdir(parents=True, exist_ok=True)
        if passphrase is None:
            # read once (it is removed from the environment): the assistant's vault needs it too
            passphrase = unlock.env_passphrase()
        if passphrase is None and not keyring_status().usable:
            # no keyring: one passphrase typed once unlocks the user's and the assistant's vaults
            passphrase = (
                unlock.ask_new_passphrase() if is_new else unlock._ask(f"Passphrase for {path}: ")
            )
        if passphrase is not None:
            from engine.api import MemoryOS

            memory = MemoryOS.open(
                path,
                create=True,
                passphrase=passphrase,
                embedder=embedder,
                chat=chat,
                settings=settings,
                background=background,
            )
        else:
            memory = unlock.open_memory(
                path, create=True, embedder=embedder, chat=chat, background=background
            )
            memory.settings = settings  # this session's parameters; the vault's stay as saved
        shared_path = assistant_vault_path(self.data_storage_path, assistant_id)
        shared_is_new = not (shared_path.exists() and shared_path.stat().st_size > 0)
        try:
            shared = SharedKnowledge.open(
                self.data_storage_path, assistant_id, embedder, passphrase
            )
        except BaseException:
            memory.close()
            if is_new:
                _erase(path)
            raise
        try:
            if not is_new:  # before the first sync adds the assistant's knowledge to it
                reference = reference_for(memory, self.data_storage_path, user_id, assistant_id)
            if reference is not None:
                added = run_import(memory, reference, {assistant_id: shared})
        except BaseException:
            memory.close()
            shared.close()
            if is_new:
                _erase(path)  # no half-made vault: the next open tries again
            if shared_is_new:
                _erase(shared_path)
            raise  # an existing vault is as it was (the import is all or nothing)
        if reference is not None:
            kept = (
                "its JSON files are left as they were"
                if reference.folder == Path(self.data_storage_path)
                else "its store is left as it was"
            )
            notice(
                f"imported the reference MemoryOS memory of user {user_id!r} from "
                f"{reference.folder}: {added.summary()} ({kept})"
            )
        self._attach(memory, shared)

    @classmethod
    def from_memory(
        cls, memory: Any, user_id: str = "default", assistant_id: str = DEFAULT_ASSISTANT_ID
    ) -> Memoryos:
        """The reference API over an already open engine.api.MemoryOS (e.g. the MCP server's)."""
        self = cls.__new__(cls)
        self.user_id = user_id
        self.assistant_id = assistant_id
        self.data_storage_path = str(Path(memory.path).parent)
        self.llm_model = getattr(memory.chat, "model_id", "") if memory.chat else ""
        self.mid_term_heat_threshold = memory.settings.heat_threshold
        self.mid_term_similarity_threshold = plain_threshold(memory.settings.segment_threshold)
        self.long_term_knowledge_capacity = 100
        self.embedding_model_name = memory.embedder.model_id
        self.embedding_model_kwargs = {}
        self._memory = memory
        self._lock = threading.RLock()
        self._shared = None  # one vault, no data folder: its assistant knowledge stays in it
        self._finalizer = None
        return self

    def _attach(self, memory: Any, shared: SharedKnowledge) -> None:
        self._memory = memory
        self._lock = threading.RLock()
        self._shared = shared
        shared.sync(memory)
        listener = shared.on_event(memory)
        memory.subscribe(listener)
        # The reference has no close(): the vaults are closed cleanly when this object goes away
        # or the interpreter exits.
        self._finalizer = weakref.finalize(self, _close_both, memory, shared, listener)

    # ---- the reference's API ---------------------------------------------------------------

    def add_memory(
        self,
        user_input: str,
        agent_response: str,
        timestamp: str | None = None,
        meta_data: dict | None = None,
    ) -> None:
        """Store one exchange; no model call. `timestamp` defaults to now."""
        meta = {"meta_data": meta_data} if meta_data else None
        with self._lock:
            self._memory.add_memory(user_input, agent_response, timestamp or None, meta)

    def get_response(
        self,
        query: str,
        relationship_with_user: str = "friend",
        style_hint: str = "",
        user_conversation_meta_data: dict | None = None,
    ) -> str:
        """Answer `query` from memory with one generation, store the exchange, return the text."""
        with self._lock:
            self._sync()
            stream = self._memory.get_response(query, max_tokens=1500)
            stream.messages = with_conversation_style(
                stream.messages, relationship_with_user, style_hint, user_conversation_meta_data
            )
            return strip_thinking(stream.collect()).strip()

    def get_user_profile_summary(self) -> str:
        """The user profile as text: a profile imported from the reference as the reference
        returns it (its own text), then one line per other slot as the app shows it
        ("location: Reno", "likes hiking", "cat: Miso"); "None" when empty."""
        from engine.reference_import import PROFILE_CATEGORY, PROFILE_NAME

        slots = self._memory.profile()
        if not slots:
            return "None"
        imported = [s for s in slots if (s.category, s.name) == (PROFILE_CATEGORY, PROFILE_NAME)]
        learned = [slot.text for slot in slots if slot not in imported]
        return "\n".join([slot.value for slot in imported] + learned)

    def get_assistant_knowledge_summary(self) -> list[dict]:
        """What the assistant did or promised: [{"knowledge": text, "timestamp": date}], shared by
        every user of this assistant_id."""
        self._sync()
        return [
            {"knowledge": f.text, "timestamp": reference_time(f.created)}
            for f in self._memory.facts(kind=ASSISTANT_KNOWLEDGE)
        ]

    def force_mid_term_analysis(self) -> None:
        """Analyse the hottest mid-term segment that has unanalysed pages now, whatever its heat."""
        memory = self._memory
        with self._lock:
            memory.run_consolidation()  # pages waiting to leave short-term memory go first
            for segment in memory.segments():  # hottest first
                if memory.vault.unanalysed_page_ids(segment.id):
                    _queue_analysis(memory, segment.id)
                    break
            memory.run_consolidation()
            self._sync()

    def get_memory_stats(self) -> dict:
        """Counts per tier, as the reference's get_memory_stats."""
        status = self._memory.consolidation_status()
        profile = self.get_user_profile_summary()
        return {
            "user_id": self.user_id,
            "short_term_count": status.short_term_pages,
            "mid_term_sessions_count": status.segments,
            "has_user_profile": profile != "None",
            "assistant_knowledge_count": len(self.get_assistant_knowledge_summary()),
        }

    # ---- ours ------------------------------------------------------------------------------

    def forget_assistant_knowledge(self, knowledge: list[str] | None = None) -> int:
        """Delete these pieces of assistant knowledge (all when None) for every user of this
        assistant_id; returns how many. Other users' copies go at their next call."""
        if self._shared is None:
            facts = self._memory.facts(kind=ASSISTANT_KNOWLEDGE)
            wanted = None if knowledge is None else set(knowledge)
            ids = [f.id for f in facts if wanted is None or f.text in wanted]
            self._memory.delete_facts(ids)
            return len(ids)
        with self._lock:
            count = self._shared.delete(knowledge)
            self._sync()
            return count

    def _sync(self) -> None:
        if self._shared is not None:
            self._shared.sync(self._memory)

    @property
    def memory(self) -> Any:
        """The engine.api.MemoryOS underneath, for everything the reference cannot express."""
        return self._memory

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        else:
            self._memory.close()

    def __enter__(self) -> Memoryos:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<Memoryos user_id='{self.user_id}' assistant_id='{self.assistant_id}' "
            f"data_path='{self.data_storage_path}'>"
        )


def _close_both(memory: Any, shared: SharedKnowledge, listener: Any) -> None:
    memory.unsubscribe(listener)
    try:
        memory.close()
    finally:
        shared.close()


def _queue_analysis(memory: Any, segment_id: int) -> None:
    """A durable analysis job for one segment (the same job a hot segment gets)."""
    from engine.consolidation import ANALYSE_SEGMENT

    payload = {"segment_id": segment_id}
    with memory.vault.transaction():
        if not memory.vault.has_pending(ANALYSE_SEGMENT, payload):
            memory.vault.enqueue(ANALYSE_SEGMENT, payload, time.time())


