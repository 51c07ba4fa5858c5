"""Bring a reference MemoryOS data folder (BAI-LAB/MemoryOS's files) into a vault, all or nothing.

The folder is read and checked first (engine/reference_files.py: a bad file is an error naming
it), then embedded with the vault's embedder, then written in one transaction: an error at any
point leaves the vault as it was. Every fact and profile entry carries the origin "imported
from the reference". The vault remembers what it imported (pages, knowledge, the profile's
date), so importing a folder again, or an older copy of it, adds only what is new: nothing the
person deleted since comes back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.memory import keywords as keyword_tools
from engine.memory import mid_term, short_term, vocabulary
from engine.records import ACTIVE, ASSISTANT_KNOWLEDGE, SHORT_TERM, USER_FACT, Page, turn_id
from engine.reference_files import (
    ReferenceData,
    RefKnowledge,
    RefPage,
    RefSession,
    knowledge_key,
    text_key,
)
from engine.terminal.wording import count
from engine.vault.jobs import LEARN_WORDS

ORIGIN = "imported from the reference"
PROFILE_CATEGORY, PROFILE_NAME = "imported", "profile from the reference MemoryOS"
EMBED_BATCH = 32


@dataclass
class Added:
    """What an import really added: what the vault already held (an earlier import of the same
    folder) is not counted."""

    pages: int = 0
    segments: int = 0
    facts: int = 0
    knowledge: int = 0  # assistant knowledge, in this vault or the assistant's shared vault
    profile: bool = False
    already_pages: int = 0  # pages of the folder the vault held before
    not_found: list[str] = field(default_factory=list)  # the folder's ReferenceData.not_found

    @property
    def nothing(self) -> bool:
        return not (self.pages or self.segments or self.facts or self.knowledge or self.profile)

    def summary(self) -> str:
        """'26 pages in 1 topic, 4 facts, 1 piece of assistant knowledge and the profile'."""
        parts = []
        if self.pages or self.segments:
            topics = f" in {count(self.segments, 'topic')}" if self.segments else ""
            parts.append(f"{count(self.pages, 'page')}{topics}")
        if self.facts:
            parts.append(count(self.facts, "fact"))
        if self.knowledge:
            parts.append(
                count(
                    self.knowledge,
                    "piece of assistant knowledge",
                    "pieces of assistant knowledge",
                )
            )
        if self.profile:
            parts.append("the profile")
        if not parts:
            return "nothing new"
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _topic_title(summary: str) -> str:
    """A conversation's title from its topic's summary: short_term.title's (one line, at most
    60 characters, "…" where cut), cut back to the last whole word."""
    line = " ".join(summary.split())
    title = short_term.title(line)
    if title != line:  # cut by title(): leave out the part of a word before "…"
        head = title[:-1]
        if line[len(head)] != " " and " " in head:
            head = head.rsplit(" ", 1)[0]
        title = head.rstrip() + "…"
    return title or "Imported topic"


def import_steps(
    memory: Any, data: ReferenceData, shared: dict[str, Any] | None = None
) -> Generator[tuple[int, int], None, Added]:
    """Import `data` into `memory` (an open engine.api.MemoryOS), yielding (done, total) while
    embedding; the write at the end is one transaction. What an earlier import of this user
    brought (pages, knowledge, the profile: the vault's record, `ImportRecord`) is skipped,
    whether it is still there or was deleted since, and a profile is not replaced by one the
    reference wrote earlier (an older copy of the folder); the generator returns what was
    really added. `shared` maps assistant ids to their
    engine.shared_knowledge.SharedKnowledge (a compat data folder): those assistants'
    knowledge goes there, shared by all their users, instead of into this user's vault.
    The pages' words join the vocabulary as any new exchange's do, in the background (a
    LEARN_WORDS job queued with the pages)."""
    shared = shared or {}
    record = ImportRecord.read(memory, data.user_id)
    fresh = [k for k in data.knowledge if not record.knows(k)]
    to_shared = {aid: [k for k in fresh if k.source == f"assistant {aid}"] for aid in shared}
    knowledge = [k for k in fresh if all(k not in v for v in to_shared.values())]
    sessions, taken = [], set(record.pages)
    for session in data.sessions:  # a page is taken once, wherever the reference kept it
        sessions.append((session, [p for p in session.pages if _take(p, taken)]))
    short = [p for p in data.short_term if _take(p, taken)]
    pages = [p for _, ps in sessions for p in ps] + short
    every = data.short_term + [p for s in data.sessions for p in s.pages]
    report = Added(already_pages=len({_key(p) for p in every} & record.pages))
    report.not_found = list(data.not_found)
    new_profile = record.takes_profile(memory, data)
    total = len(pages) + len(fresh) + 1
    yield 0, total

    # 1. Embed everything (the slow part), outside any transaction.
    drafts = {id(p): _draft(p) for p in pages}
    page_vectors: dict[int, tuple[np.ndarray, dict[int, np.ndarray]]] = {}
    done = 0
    for start in range(0, len(pages), EMBED_BATCH):
        batch = pages[start : start + EMBED_BATCH]
        embedded = short_term.embed(memory.embedder, [drafts[id(page)] for page in batch])
        for page, vectors in zip(batch, embedded, strict=True):
            page_vectors[id(page)] = vectors
        done += len(batch)
        yield done, total
    fact_vectors = memory.embedder.embed([k.text for k in knowledge]) if knowledge else []
    done += len(fresh)
    yield done, total

    # 2. The assistants' shared vaults (small; undone below if the user's vault fails), then one
    # transaction for everything in the user's vault.
    now = time.time()
    added: list[tuple[int, np.ndarray, dict[int, np.ndarray]]] = []
    shared_added = []
    for aid, store in shared.items():
        items = [(k.text[:2000], k.timestamp, ORIGIN) for k in to_shared[aid]]
        shared_added.append((store, store.add(items)))
        report.knowledge += len(shared_added[-1][1])
    try:
        with memory.vault.transaction():
            held_facts = {f.id for f in memory.vault.facts(None, True)}
            ids: dict[str, int] = {}
            for session, members in sessions:
                if not members:
                    continue
                report.segments += 1
                conversation = f"reference-{data.user_id}-{session.session_id}"[:200]
                memory.vault.ensure_conversation(
                    conversation, session.created, title=_topic_title(session.summary)
                )
                vectors = [page_vectors[id(p)][0] for p in members]
                words = _segment_words(session, members)
                segment_id = memory.vault.insert_segment(
                    session.summary[:1000], words, mid_term.centroid(vectors), now
                )
                memory.vault.set_segment_state(
                    segment_id,
                    created=session.created,
                    last_access=session.last_visit,
                    visits=session.visits,
                    length=session.length,
                )
                for page in members:
                    page_id = _insert(memory, page, conversation, drafts, page_vectors, now, added)
                    ids[page.page_id] = page_id
                    memory.vault.move_page_to_segment(
                        page_id,
                        segment_id,
                        ids.get(page.previous) if page.previous else None,
                        page.meta_info,
                        # our own stemmed keywords: segment matching compares normalised words
                        keyword_tools.extract(drafts[id(page)].text(), 8),
                    )
                    if page.analysed:
                        memory.vault.mark_analysed([page_id])
            if short:
                conversation = f"reference-{data.user_id}-recent"
                memory.vault.ensure_conversation(
                    conversation, short[0].timestamp, "Recent exchanges (reference MemoryOS)"
                )
                for page in short:
                    _insert(memory, page, conversation, drafts, page_vectors, now, added)
            if new_profile and data.profile:
                current = memory.vault.active_slot(PROFILE_CATEGORY, PROFILE_NAME)
                slot_id = memory.persona.set_slot(
                    PROFILE_CATEGORY,
                    PROFILE_NAME,
                    data.profile,
                    origin=ORIGIN,
                    evidence=[],
                    now=data.profile_updated or now,
                )
                report.profile = current is None or slot_id != current.id
            for item, vector in zip(knowledge, fact_vectors, strict=True):
                fact_id = memory.persona.remember_fact(
                    item.kind,
                    item.text[:2000],
                    status=ACTIVE,
                    origin=ORIGIN,
                    sources=[],
                    now=item.timestamp,
                    vector=vector,
                )
                if fact_id not in held_facts:  # not already there, nor merged into another
                    held_facts.add(fact_id)
                    if item.kind == USER_FACT:
                        report.facts += 1
                    else:
                        report.knowledge += 1
            record.pages |= {_key(p) for p in pages}
            record.knowledge |= {knowledge_key(k) for k in data.knowledge}
            if new_profile and data.profile:
                record.profile = {"key": text_key(data.profile), "updated": data.profile_updated}
            record.write(memory)
            if added:  # their words join the vocabulary (query expansion reads it)
                memory.vault.enqueue(LEARN_WORDS, {"upto": max(i for i, _, _ in added)}, now)
                # That job learns every page past the vocabulary's cursor, those of imports
                # made before imports queued one too: vocabulary.catch_up has nothing left to
                # queue (its second job made `memoryos import-reference`'s total grow, 0/1 to 2/2)
                memory.vault.set_meta(vocabulary.CAUGHT_UP, "1")
            short_term.check_overflow(memory.ctx, now)
    except BaseException:
        memory.fact_mirror.reset()  # it saw facts the rollback removed: reload from the file
        for store, ids in shared_added:
            store.remove(ids)
        raise
    for page_id, vector, turns in added:
        memory.page_mirror.add(page_id, vector)
        for side, turn in turns.items():
            memory.turn_mirror.add(turn_id(page_id, side), turn)
    for event in ("pages", "segments", "facts", "jobs"):
        memory._notify(event)
    memory.consolidator.wake()
    report.pages = len(added)
    yield total, total
    return report


def import_reference(
    memory: Any, data: ReferenceData, progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    """Run `import_steps` to the end; returns the vault's counts afterwards."""
    for done, total in import_steps(memory, data):
        if progress is not None:
            progress(done, total)
    return vault_counts(memory)


def vault_counts(memory: Any) -> dict[str, int]:
    """Pages, segments and facts in a vault, for before/after reports."""
    counts = memory.vault.counts()
    return {
        "pages": memory.vault.count_pages(),
        "short_term_pages": counts["short"],
        "mid_term_pages": counts["mid"] + counts["archived"],
        "segments": counts["segments"],
        "user_facts": len(memory.facts(kind=USER_FACT)),
        "assistant_knowledge": len(memory.facts(kind=ASSISTANT_KNOWLEDGE)),
        "profile_slots": len(memory.profile()),
    }


@dataclass
class ImportRecord:
    """What earlier imports of one user brought into a vault (its meta, by key): the pages, the
    knowledge and the profile (its text's key and the reference's date of it). An import
    skips all that, so what the person deleted since stays deleted; the profile is replaced
    only by one the reference wrote later. A record of a version that kept pages only (a
    list) reads with no knowledge and no profile."""

    key: str
    pages: set[str] = field(default_factory=set)
    knowledge: set[str] = field(default_factory=set)
    profile: dict[str, Any] | None = None

    @classmethod
    def read(cls, memory: Any, user_id: str) -> ImportRecord:
        key = f"{vocabulary.IMPORTED_PREFIX}{user_id}"
        stored = json.loads(memory.vault.get_meta(key) or "[]")
        if isinstance(stored, list):
            return cls(key, set(stored))
        pages, knowledge = set(stored.get("pages", [])), set(stored.get("knowledge", []))
        return cls(key, pages, knowledge, stored.get("profile"))

    def write(self, memory: Any) -> None:
        body = {
            "pages": sorted(self.pages),
            "knowledge": sorted(self.knowledge),
            "profile": self.profile,
        }
        memory.vault.set_meta(self.key, json.dumps(body))

    def knows(self, item: RefKnowledge) -> bool:
        """Was `item` imported before: itself, or the list it is one item of (an earlier
        version imported a list as one fact)?"""
        keys = {knowledge_key(item), knowledge_key(replace(item, text=item.whole or item.text))}
        return bool(keys & self.knowledge)

    def takes_profile(self, memory: Any, data: ReferenceData) -> bool:
        """Is `data`'s profile to be imported: not the one imported before (still there or
        deleted since), and not older than it or than the imported profile the vault holds?"""
        if not data.profile:
            return False
        updated = data.profile_updated
        before = self.profile or {}
        if before.get("key") == text_key(data.profile):
            return False
        latest = [before.get("updated")]
        current = memory.vault.active_slot(PROFILE_CATEGORY, PROFILE_NAME)
        if current is not None:  # also when the record is from a version that kept pages only
            latest.append(current.updated)
        known = [moment for moment in latest if moment is not None]
        return updated is None or not known or updated > max(known)


def _take(page: RefPage, taken: set[str]) -> bool:
    """Is `page` new (not imported before, nor met earlier in this import)? Marks it met."""
    key = _key(page)
    if key in taken:
        return False
    taken.add(key)
    return True


def _key(page: RefPage) -> str:
    """The same exchange has the same key wherever the reference keeps it (STM pages have no id,
    and get a new one when they move to mid-term)."""
    return text_key(json.dumps([page.user_input, page.agent_response, round(page.timestamp, 3)]))


def _draft(page: RefPage) -> Page:
    return Page(0, page.user_input, page.agent_response, page.timestamp, "", SHORT_TERM)


def _segment_words(session: RefSession, members: list[RefPage]) -> list[str]:
    text = " ".join([session.summary, *session.keywords, *(p.user_input for p in members)])
    return keyword_tools.extract(text, 12)


def _insert(memory, page: RefPage, conversation: str, drafts, page_vectors, now, added) -> int:
    """One reference page into the vault as any exchange is stored (short_term.insert: its
    relative dates resolved in the searchable text, "yesterday [7 May 2023]")."""
    vector, turns = page_vectors[id(page)]
    meta: dict[str, Any] = {"source": "reference"}
    if page.page_id:
        meta["reference_page_id"] = page.page_id
    draft = replace(drafts[id(page)], conversation_id=conversation, meta=meta)
    page_id = short_term.insert(memory.vault, draft, vector, turns, now)
    added.append((page_id, vector, turns))
    return page_id
