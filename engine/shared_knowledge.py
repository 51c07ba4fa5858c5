"""Assistant knowledge shared by every user of one `assistant_id`, as the reference shares it.

The reference keeps one ``assistants/<assistant_id>/long_term_assistant.json`` that every user of
that assistant reads and writes. Here it is one encrypted vault per assistant,
``<data_storage_path>/assistants/<assistant_id>/vault.memoryos`` (key from the keyring, or the same
passphrase as the user's vault), holding only assistant knowledge. Each user's vault keeps a copy
of it, so retrieval, the prompt and every listing see it with no change to the engine; `sync`
brings the two together both ways:
- knowledge a user's vault learned (consolidation, an import, `add_fact`) goes to the assistant's;
- knowledge the assistant's vault has and the user's lacks comes into the user's;
- knowledge deleted on either side is deleted on the other (and so, at their next sync, in every
  other user's vault): forgetting one piece, or the whole assistant, reaches everyone.
Which shared entry each local copy stands for is kept in the user's vault (meta key below),
together with the shared vault's own id, so a deleted and re-created assistant vault is never
confused with the old one.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from pathlib import Path
from typing import Any

from engine import errors
from engine.memory.long_term import normalise_text
from engine.records import ACTIVE, ASSISTANT_KNOWLEDGE

VAULT_FILE = "vault.memoryos"
STORE_ID_KEY = "assistant_store_id"
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")


def check_id(value: Any, what: str) -> str:
    """`value` if it can name a folder (a user or assistant id), else a clear error."""
    if not isinstance(value, str) or not _SAFE_ID.fullmatch(value) or ".." in value:
        raise errors.InvalidInputError(
            f"{what} {value!r} cannot name a folder: use letters, digits and . _ @ + - "
            "(at most 128 characters)"
        )
    return value


def assistant_vault_path(data_storage_path: str | Path, assistant_id: str) -> Path:
    """Where the shared knowledge of `assistant_id` lives under a data folder."""
    check_id(assistant_id, "assistant_id")
    folder = Path(data_storage_path).expanduser().resolve()
    return folder / "assistants" / assistant_id / VAULT_FILE


def link_key(assistant_id: str) -> str:
    return f"shared_knowledge:{assistant_id}"


class SharedKnowledge:
    """The encrypted vault of one assistant's knowledge, and its sync with users' vaults."""

    def __init__(self, vault: Any, assistant_id: str, embedder: Any) -> None:
        self.vault = vault
        self.assistant_id = assistant_id
        self.embedder = embedder
        self._lock = threading.RLock()
        self._busy = threading.local()  # a sync's own "facts" events must not start another
        store_id = vault.get_meta(STORE_ID_KEY)
        if store_id is None:
            store_id = uuid.uuid4().hex
            with vault.transaction():
                vault.set_meta(STORE_ID_KEY, store_id)
        self.store_id = store_id

    @classmethod
    def open(
        cls,
        data_storage_path: str | Path,
        assistant_id: str,
        embedder: Any,
        passphrase: str | None = None,
    ) -> SharedKnowledge:
        """Open (or create) the assistant's vault: with `passphrase` when given, else the keyring."""
        from engine.vault import Vault

        path = assistant_vault_path(data_storage_path, assistant_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            vault = Vault.open(
                path,
                passphrase=passphrase,
                create=True,
                embedder_id=embedder.model_id,
                dimension=embedder.dimension,
            )
        except errors.KeyUnavailableError as exc:
            raise errors.KeyUnavailableError(
                f"the shared knowledge of assistant {assistant_id!r} ({path}) cannot be unlocked: "
                f"{exc}. Pass passphrase= (or set $MEMORYOS_PASSPHRASE): the assistant's vault "
                "uses the same passphrase as its users' vaults"
            ) from None
        return cls(vault, assistant_id, embedder)

    def close(self) -> None:
        self.vault.close()

    # ---- reading and deleting ---------------------------------------------------------------

    def entries(self) -> list[Any]:
        """The assistant's knowledge (engine.records.Fact), newest first."""
        return self.vault.facts(ASSISTANT_KNOWLEDGE, include_superseded=False)

    def delete(self, texts: list[str] | None = None) -> int:
        """Delete the entries with these texts (all of them when None); returns how many.
        Users' copies go at their next sync."""
        wanted = None if texts is None else {normalise_text(t) for t in texts}
        ids = [f.id for f in self.entries() if wanted is None or normalise_text(f.text) in wanted]
        if ids:
            with self._lock, self.vault.transaction():
                self.vault.delete_facts(ids, self.embedder.dimension)
        return len(ids)

    def add(self, items: list[tuple[str, float, str]]) -> list[int]:
        """Add (text, timestamp, origin) entries; one already there (same text) is not repeated.
        Returns the ids of the entries actually added (to undo them)."""
        vectors = self.embedder.embed([text for text, _, _ in items]) if items else []
        added = []
        with self._lock, self.vault.transaction():
            for (text, created, origin), vector in zip(items, vectors, strict=True):
                norm = normalise_text(text)
                if self.vault.find_fact(ASSISTANT_KNOWLEDGE, norm) is None:
                    added.append(self._insert(text, norm, created, origin, vector))
        return added

    def remove(self, ids: list[int]) -> None:
        """Undo `add` (an import that failed later)."""
        if ids:
            with self._lock, self.vault.transaction():
                self.vault.delete_facts(ids, self.embedder.dimension)

    def _insert(self, text: str, norm: str, created: float, origin: str, vector: Any) -> int:
        return self.vault.insert_fact(
            kind=ASSISTANT_KNOWLEDGE,
            text=text,
            norm=norm,
            status=ACTIVE,
            origin=origin,
            vector=vector,
            sources=[],
            now=created,
        )

    # ---- the sync ----------------------------------------------------------------------------

    def on_event(self, memory: Any) -> Any:
        """A MemoryOS.subscribe callback: new knowledge in the user's vault is shared at once
        (e.g. what background consolidation just learned)."""

        def callback(event: str) -> None:
            if event == "facts" and not getattr(self._busy, "on", False):
                self.sync(memory)

        return callback

    def sync(self, memory: Any) -> None:
        """Bring the user's vault (an open engine.api.MemoryOS) and the assistant's together."""
        with self._lock:
            self._busy.on = True
            try:
                self._sync(memory)
            finally:
                self._busy.on = False

    def _sync(self, memory: Any) -> None:
        key = link_key(self.assistant_id)
        state = json.loads(memory.vault.get_meta(key) or "{}")
        old = [(int(s), int(loc)) for s, loc in state.get("links", [])]
        same_store = state.get("store") == self.store_id
        local = {f.id: f for f in memory.vault.facts(ASSISTANT_KNOWLEDGE, include_superseded=False)}
        shared = {f.id: f for f in self.entries()}
        links: dict[int, int] = {}
        drop_local: set[int] = set()
        drop_shared: list[int] = []
        for sid, lid in old:
            if not same_store or sid not in shared:
                if lid in local:
                    drop_local.add(lid)  # deleted from the assistant's vault (or it was replaced)
            elif lid not in local:
                drop_shared.append(sid)  # forgotten in this user's vault: forget it everywhere
            else:
                links[sid] = lid
        linked = set(links.values())
        push = [f for lid, f in local.items() if lid not in linked and lid not in drop_local]
        if push or drop_shared:
            vectors = self.embedder.embed([f.text for f in push]) if push else []
            with self.vault.transaction():
                if drop_shared:
                    self.vault.delete_facts(drop_shared, self.embedder.dimension)
                for fact, vector in zip(push, vectors, strict=True):
                    norm = normalise_text(fact.text)
                    sid = self.vault.find_fact(ASSISTANT_KNOWLEDGE, norm)
                    if sid is None:
                        sid = self._insert(fact.text, norm, fact.created, fact.origin, vector)
                    links[sid] = fact.id
            shared = {f.id: f for f in self.entries()}
        if drop_local:
            memory.delete_facts(sorted(drop_local))
        pull = [f for sid, f in shared.items() if sid not in links]
        if not pull and same_store and sorted(links.items()) == sorted(old):
            return  # nothing changed: a read costs no write
        vectors = memory.embedder.embed([f.text for f in pull]) if pull else []
        with memory.vault.transaction():
            for fact, vector in zip(pull, vectors, strict=True):
                links[fact.id] = memory.persona.remember_fact(
                    ASSISTANT_KNOWLEDGE,
                    fact.text,
                    status=ACTIVE,
                    origin=fact.origin,
                    sources=[],
                    now=fact.created,
                    vector=vector,
                )
            state = {"store": self.store_id, "links": sorted(links.items())}
            memory.vault.set_meta(key, json.dumps(state))
        if pull:
            memory._notify("facts")
