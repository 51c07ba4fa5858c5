"""Restore an export ("memoryos-export/1", engine/export.py) into a vault: `memoryos import`.

What comes back: the conversations (id, title), their exchanges (text, timestamp, metadata,
whether a capable model analysed them), the facts and assistant knowledge and the profile
entries (text, status, origin, when learned and changed, what superseded what, and the exchanges
each came from), what each answer remembered, and, into a new vault, the memory settings.

What is rebuilt rather than copied: the vectors (with this vault's embedder), the full-text
index, the vocabulary (a LEARN_WORDS job), and the topics: every restored exchange joins the
short-term queue and consolidation moves the oldest into topic segments as it does for any
import. So segment summaries written by a model, visit counts (heat) and dialogue-chain
summaries are not restored.

The restored exchanges are not learned from again: the export already holds what was learned
from them, with the person's corrections and deletions, so a deleted fact stays deleted.
Exchanges the vault already holds (same conversation, timestamp and text) are skipped, and facts
and profile entries it already holds are linked rather than copied: restoring twice adds
nothing twice.

What was forgotten in this vault after the export was written (exchanges, facts, profile
entries: the vault records each forget, engine/vault/forgotten.py) is left out, with what was
learned only from those exchanges, and the report says how much: restoring an old export must
not undo a forget without a word. `include_forgotten` (`memoryos import --include-forgotten`)
brings them back when that is what the person wants. The export carries the vault's forget
records (the one-way keys and their times, no text) and the restore adds them to this vault, so
a vault restored from an export made after a forget (a move to a new computer) leaves out, from
any older export restored into it later, what was forgotten before the move. A vault that never
received those records (another computer, restored only from the older export) gets everything.
When it receives them later (the newer export restored after the older one), what it holds that
they name, and the export does not hold, is forgotten then, through the same cascade as `forget
page` and deleting a fact (engine/api.py), and the report says how much: the vault ends with what
the newer export's memory held. Not with `include_forgotten`: that keeps what it brings back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from engine import validation
from engine.errors import InvalidInputError
from engine.export import FORMAT
from engine.forgetting import forget_held
from engine.memory import short_term
from engine.memory.persona_patterns import normalise_text
from engine.records import (
    ACTIVE,
    ASSISTANT_KNOWLEDGE,
    CANDIDATE,
    SUPERSEDED,
    USER_FACT,
    Page,
)
from engine.remembered import EXCHANGE, FACT, KNOWLEDGE, PROFILE, MemoryUsed
from engine.terminal.wording import count
from engine.vault import forgotten as forgotten_keys
from engine.vault.jobs import FORGET_HELD, LEARN_WORDS

FORMAT_NAME = FORMAT.split("/")[0]  # "memoryos-export"
VERSION = int(FORMAT.split("/")[1])
EMBED_BATCH = 256

NOT_RESTORED = (
    "topic summaries, visit counts and chain summaries (topics are rebuilt by consolidation)"
)


def is_export(data: Any) -> bool:
    """Is this JSON a MemoryOS export (of any version)?"""
    return (
        isinstance(data, dict)
        and isinstance(data.get("format"), str)
        and data["format"].split("/")[0] == FORMAT_NAME
    )


def check_format(data: dict) -> None:
    """A clear error for an export this program cannot read (a newer or unknown version)."""
    name = data["format"]
    _, _, version = name.partition("/")
    if not version.isdigit():
        raise InvalidInputError(f"unknown export format {name!r}: expected {FORMAT!r}")
    if int(version) > VERSION:
        raise InvalidInputError(
            f"this export is {name!r}, written by a newer MemoryOS; this one restores "
            f"{FORMAT!r}: update MemoryOS to restore it"
        )
    if int(version) != VERSION:
        raise InvalidInputError(f"unknown export format {name!r}: expected {FORMAT!r}")


@dataclass
class Restored:
    """What a restore did (counts), for the command's report."""

    conversations: int = 0
    exchanges: int = 0
    skipped_exchanges: int = 0
    facts: int = 0
    linked_facts: int = 0
    profile: int = 0
    linked_profile: int = 0
    # of those, how many are replaced by a newer one (the app lists them only on request)
    replaced_facts: int = 0
    linked_replaced_facts: int = 0
    replaced_profile: int = 0
    linked_replaced_profile: int = 0
    settings: bool = False
    forgotten_exchanges: int = 0  # forgotten in this vault after the export was made
    forgotten_facts: int = 0
    forgotten_profile: int = 0
    forgotten_included: bool = False  # restored anyway (include_forgotten)
    # held by this vault, forgotten in the memory the export came from: forgotten here too
    forgot_exchanges: int = 0
    forgot_facts: int = 0
    forgot_profile: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def forgotten(self) -> int:
        """How many items of the export were forgotten in this vault after it was made."""
        return self.forgotten_exchanges + self.forgotten_facts + self.forgotten_profile

    @property
    def added(self) -> bool:
        """Did the restore add anything (exchanges, facts, profile entries, settings)?"""
        return bool(self.exchanges or self.facts or self.profile or self.settings)

    def lines(self) -> list[str]:
        conversations = "conversation" if self.conversations == 1 else "conversations"
        if self.added:
            out = [
                f"Restored {count(self.exchanges, 'exchange')} in {self.conversations} "
                f"{conversations}, {count(self.facts, 'fact')} and knowledge"
                f"{_replaced(self.replaced_facts)}, "
                f"{count(self.profile, 'profile entry', 'profile entries')}"
                f"{_replaced(self.replaced_profile)}"
                + (", and the memory settings" if self.settings else "")
                + "."
            ]
        elif self.forgotten and not self.forgotten_included:
            out = ["Nothing new to restore: this vault already holds the rest of the export."]
        else:
            out = ["Nothing new to restore: this vault already holds everything in the export."]
        already = []
        if self.skipped_exchanges:
            already.append(count(self.skipped_exchanges, "exchange"))
        if self.linked_facts:
            already.append(
                count(self.linked_facts, "fact") + _replaced(self.linked_replaced_facts)
            )
        if self.linked_profile:
            already.append(
                count(self.linked_profile, "profile entry", "profile entries")
                + _replaced(self.linked_replaced_profile)
            )
        if already:
            out.append(f"Already in the vault, not added again: {', '.join(already)}.")
        if self.forgot_exchanges or self.forgot_facts or self.forgot_profile:
            items = _items(self.forgot_exchanges, self.forgot_facts, self.forgot_profile)
            out.append(f"Forgot {items} that were forgotten in the memory this export came from.")
        if self.forgotten:
            items = _items(self.forgotten_exchanges, self.forgotten_facts, self.forgotten_profile)
            if self.forgotten_included:
                out.append(
                    f"Brought back, as asked: {items} forgotten since the export was made."
                )
            else:
                # the forget may have been made in the memory a moved export came from: not "here"
                out.append(f"Left out {items} forgotten since the export was made.")
        if self.added:
            out.append(f"Not restored: {NOT_RESTORED}.")
        return out + self.notes


def _items(exchanges: int, facts: int, profile: int) -> str:
    return _joined(
        [
            count(n, one, many)
            for n, one, many in (
                (exchanges, "exchange", ""),
                (facts, "fact", ""),
                (profile, "profile entry", "profile entries"),
            )
            if n
        ]
    )


def _replaced(n: int) -> str:
    return f" ({n} of them replaced by a newer one)" if n else ""


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


# ---- reading and checking ---------------------------------------------------------------


def _rows(data: dict, table: str) -> list[dict]:
    rows = data.get(table, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise InvalidInputError(f"the export's {table!r} must be a list of JSON objects")
    return rows


def _int(row: dict, key: str, where: str, optional: bool = False) -> int | None:
    value = row.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{where}: {key!r} must be a whole number")
    return value


def _number(row: dict, key: str, where: str) -> float:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{where}: {key!r} must be a number")
    return validation.timestamp(float(value), 0.0)


def _str(row: dict, key: str, where: str, allow_empty: bool = True) -> str:
    value = row.get(key, "")
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: {key!r} must be text")
    value = validation.text(value, f"{where}: {key}")
    if not allow_empty and not value.strip():
        raise InvalidInputError(f"{where}: {key!r} is empty")
    return value


def _links(data: dict, table: str, key: str, where: str) -> dict[int, list[int]]:
    """A link table (a fact's source pages, a profile entry's evidence) as item -> page ids."""
    links: dict[int, list[int]] = {}
    for row in _rows(data, table):
        item = _int(row, key, where)
        links.setdefault(item, []).append(_int(row, "page_id", where))
    return links


@dataclass
class Export:
    conversations: dict[str, tuple[str, float]]  # id -> (title, created)
    pages: list[tuple[int, Page, bool]]  # (exported id, draft, analysed)
    facts: list[dict]
    sources: dict[int, list[int]]  # exported fact id -> exported page ids
    profile: list[dict]
    evidence: dict[int, list[int]]
    memories: dict[int, list[dict]]  # exported page id -> page_memories rows in order
    settings: Any
    exported_at: float | None = None  # None: unknown, anything forgotten counts as since
    forgotten: list[tuple[str, str, float]] = field(default_factory=list)  # (kind, key, at)


def read_export(data: dict) -> Export:
    """Every row checked before anything is written: an error names the first bad one."""
    check_format(data)
    exported_at = None
    if data.get("exported_at") is not None:
        exported_at = _number(data, "exported_at", "the export")
    conversations: dict[str, tuple[str, float]] = {}
    for n, row in enumerate(_rows(data, "conversations")):
        where = f"conversation {n}"
        conversations[_str(row, "id", where, False)] = (
            _str(row, "title", where),
            _number(row, "created", where),
        )
    pages = []
    for n, row in enumerate(_rows(data, "pages")):
        where = f"exchange {row.get('id', n)}"
        meta = row.get("meta") or {}
        if not isinstance(meta, dict):
            raise InvalidInputError(f"{where}: 'meta' must be a JSON object")
        own = {k: v for k, v in meta.items() if k in validation.RESERVED_META}
        try:
            draft = validation.exchange(
                row.get("user_input"),
                row.get("agent_response"),
                _number(row, "ts", where),
                {k: v for k, v in meta.items() if k not in own},
                conversation_id=_str(row, "conversation_id", where, False),
                source=None,
                program_meta=own,
                now=0.0,
            )
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from None
        pages.append((_int(row, "id", where), draft, bool(row.get("analysed"))))
    facts = []
    for row in _rows(data, "facts"):
        where = f"fact {row.get('id')}"
        _int(row, "id", where)
        _int(row, "superseded_by", where, optional=True)
        if row.get("kind") not in (USER_FACT, ASSISTANT_KNOWLEDGE):
            raise InvalidInputError(f"{where}: unknown kind {row.get('kind')!r}")
        if row.get("status") not in (ACTIVE, CANDIDATE, SUPERSEDED):
            raise InvalidInputError(f"{where}: unknown status {row.get('status')!r}")
        _str(row, "text", where, False), _str(row, "origin", where)
        _number(row, "created", where), _number(row, "updated", where)
        facts.append(row)
    profile = []
    for row in _rows(data, "profile"):
        where = f"profile entry {row.get('id')}"
        _int(row, "id", where)
        _int(row, "superseded_by", where, optional=True)
        if row.get("status") not in (ACTIVE, SUPERSEDED):
            raise InvalidInputError(f"{where}: unknown status {row.get('status')!r}")
        for key in ("category", "name", "value"):
            _str(row, key, where, False)
        _str(row, "origin", where)
        _number(row, "created", where), _number(row, "updated", where)
        profile.append(row)
    sources = _links(data, "fact_sources", "fact_id", "fact source")
    evidence = _links(data, "profile_evidence", "slot_id", "profile evidence")
    memories: dict[int, list[dict]] = {}
    for row in _rows(data, "page_memories"):
        where = "page memory"
        _int(row, "item_id", where), _int(row, "position", where), _str(row, "kind", where)
        _number(row, "item_date", where)
        memories.setdefault(_int(row, "page_id", where), []).append(row)
    for rows in memories.values():
        rows.sort(key=lambda r: r["position"])
    forgotten = []
    for n, row in enumerate(_rows(data, "forgotten")):  # absent from exports before they had it
        where = f"forget record {n}"
        kind, key = _str(row, "kind", where), _str(row, "key", where)
        if kind not in forgotten_keys.KINDS:
            raise InvalidInputError(f"{where}: unknown kind {kind!r}")
        if not re.fullmatch(r"[0-9a-f]{32}", key):
            raise InvalidInputError(f"{where}: 'key' is not 32 hexadecimal characters")
        forgotten.append((kind, key, _number(row, "at", where)))
    settings = data.get("settings")
    if settings is not None:
        from engine.settings import MemorySettings

        if not isinstance(settings, dict):
            raise InvalidInputError("the export's 'settings' must be a JSON object")
        settings = MemorySettings.from_stored(settings)
        settings.validate()
    return Export(
        conversations, pages, facts, sources, profile, evidence, memories, settings, exported_at,
        forgotten,
    )  # fmt: skip


# ---- writing ----------------------------------------------------------------------------


def _page_key(page: Page) -> tuple:
    return (page.conversation_id, round(page.timestamp, 3), page.user_input, page.agent_response)


def restore(
    memory: Any,
    data: dict | Export,
    progress: Callable[[int, int], None] | None = None,
    include_forgotten: bool = False,
) -> Restored:
    """Restore an export (its JSON, or `read_export`'s result) into `memory` (an open
    engine.api.MemoryOS). Everything is checked and embedded first, then written in one
    transaction: an error leaves the vault as it was. `progress(done, total)` while embedding
    the exchanges. What this vault forgot after the export was made is left out (and counted
    in the report) unless `include_forgotten`."""
    export = data if isinstance(data, Export) else read_export(data)
    vault, ctx = memory.vault, memory.ctx
    report = Restored(forgotten_included=include_forgotten)
    # the forget records this vault does not hold yet, less what the export itself holds (a
    # memory that brought something back on purpose exports it with its record)
    news: set[tuple[str, str]] = set()
    if export.forgotten and not include_forgotten:
        known = {(r["kind"], r["key"]): r["at"] for r in vault.forgotten_records()}
        news = {(k, key) for k, key, at in export.forgotten if at > known.get((k, key), -1.0)}
        news -= _keys_held(export)
    was_empty = vault.count_pages() == 0 and not vault.facts(None, True) and not vault.slots(True)

    # Exchanges the vault already holds map to its own pages; the others are new.
    page_map: dict[int, int] = {}
    new_pages: list[tuple[int, Page, bool]] = []
    held: dict[str, dict[tuple, int]] = {}
    for old_id, draft, analysed in export.pages:
        conversation = draft.conversation_id
        if conversation not in held:
            ids = vault.page_ids_of_conversation(conversation)
            held[conversation] = {_page_key(p): p.id for p in vault.pages(ids)}
        existing = held[conversation].get(_page_key(draft))
        if existing is not None:
            page_map[old_id] = existing
            report.skipped_exchanges += 1
        else:
            new_pages.append((old_id, draft, analysed))
    # What this vault forgot after the export was made stays out, unless asked for.
    left_out = _forgotten_since(vault, export, new_pages)
    report.forgotten_exchanges = len(left_out["pages"])
    if not include_forgotten:
        new_pages = [page for page in new_pages if page[0] not in left_out["pages"]]

    # 1. Embed (the slow part), outside any transaction.
    embedded: list[tuple[Any, dict[int, Any]]] = []
    for start in range(0, len(new_pages), EMBED_BATCH):
        chunk = [draft for _, draft, _ in new_pages[start : start + EMBED_BATCH]]
        embedded += short_term.embed(memory.embedder, chunk)
        if progress is not None:
            progress(len(embedded), len(new_pages))

    known_facts: dict[tuple, int] = {}
    for fact in vault.facts(None, True):
        key = (fact.kind, normalise_text(fact.text), fact.status == SUPERSEDED)
        known_facts.setdefault(key, fact.id)
    fresh_facts = [
        row
        for row in export.facts
        if (row["kind"], normalise_text(row["text"]), row["status"] == SUPERSEDED)
        not in known_facts
    ]
    held_texts = {(kind, text) for kind, text, _ in known_facts}
    held_values = {key[:3] for key in _slot_keys(vault)}
    gone_facts = {
        row["id"]
        for row in fresh_facts
        if (row["kind"], normalise_text(row["text"])) not in held_texts
        and _left_out(row, export.sources, left_out["facts"], left_out["pages"])
    }
    gone_slots = {
        row["id"]
        for row in export.profile
        if (row["category"], row["name"], normalise_text(row["value"])) not in held_values
        and _left_out(row, export.evidence, left_out["slots"], left_out["pages"])
    }
    report.forgotten_facts, report.forgotten_profile = len(gone_facts), len(gone_slots)
    if not include_forgotten:
        fresh_facts = [row for row in fresh_facts if row["id"] not in gone_facts]
        export = replace(
            export,
            facts=[row for row in export.facts if row["id"] not in gone_facts],
            profile=[row for row in export.profile if row["id"] not in gone_slots],
        )
    fact_vectors = memory.embedder.embed([r["text"] for r in fresh_facts]) if fresh_facts else []
    vectors_of = {id(row): v for row, v in zip(fresh_facts, fact_vectors, strict=True)}
    known_slots: dict[tuple, int] = {}
    current_slots: dict[tuple[str, str], Any] = {}
    for slot in vault.slots(True):
        key = (slot.category, slot.name, normalise_text(slot.value), slot.status == SUPERSEDED)
        known_slots.setdefault(key, slot.id)
        if slot.status == ACTIVE:
            current_slots[(slot.category, slot.name)] = slot

    # 2. One transaction. A new vault takes the export's settings first: the queue overflows
    # into topics at the restored capacity.
    now = ctx.clock()
    settings = export.settings if was_empty else None
    previous = memory.settings
    try:
        with vault.transaction():
            if settings is not None:
                memory.settings = settings
                vault.set_meta("settings", json.dumps(settings.to_dict()))
                report.settings = True
            report.conversations = _write_pages(memory, export, new_pages, embedded, page_map, now)
            report.exchanges = len(new_pages)
            fact_map = _write_facts(memory, export, known_facts, vectors_of, page_map, report)
            slot_map = _write_profile(
                memory, export, known_slots, current_slots, page_map, report, now
            )
            for old_id, _, _ in new_pages:
                rows = export.memories.get(old_id)
                if rows:
                    vault.insert_page_memories(
                        page_map[old_id], _memories(rows, page_map, fact_map, slot_map)
                    )
            # what the vault the export came from forgot is forgotten here too, for later
            # restores of older exports (included or not in this one)
            vault.add_forgotten_records(export.forgotten)
            # what it forgot that this vault holds is forgotten after the commit (the forget
            # scrubs the journal), by a job claimed now: a crash before it runs leaves the job
            # to the next start's consolidation, not the items in the vault
            forget_job = None
            if news:
                forget_job = vault.enqueue(FORGET_HELD, {"keys": sorted(news)}, now)
                vault.claim_jobs([forget_job], now)
            if new_pages:
                upto = max(page_map[old_id] for old_id, _, _ in new_pages)
                vault.enqueue(LEARN_WORDS, {"upto": upto}, now)
                short_term.check_overflow(ctx, now)
    except BaseException:
        memory.settings = previous
        raise
    finally:
        # the in-RAM copies reload from the file on their next search (also after a rollback)
        for mirror in (memory.page_mirror, memory.turn_mirror, memory.fact_mirror):
            mirror.reset()
    if settings is None and export.settings is not None and (
        export.settings.to_dict() != memory.settings.to_dict()
    ):
        report.notes.append(
            "The export's memory settings were not applied: this vault already held memories "
            "(change them in the app's Settings)."
        )
    for event in ("settings", "pages", "segments", "facts", "jobs"):
        memory._notify(event)
    if forget_job is not None:
        done = forget_held(ctx, memory.persona, news)
        report.forgot_exchanges, report.forgot_facts, report.forgot_profile = done
        with vault.transaction():
            vault.finish_job(forget_job)
        for event in ("pages", "segments", "facts"):
            memory._notify(event)
    memory.consolidator.wake()
    return report


def _keys_held(export: Export) -> set[tuple[str, str]]:
    """The one-way keys (engine/vault/forgotten.py) of every item the export holds."""
    return {
        (kind, key)
        for kind, keys in _item_keys(export, export.pages).items()
        for key in keys.values()
    }


def _item_keys(export: Export, pages) -> dict[str, dict[int, str]]:
    """The one-way keys of `pages` (the export's, or some of them) and of every fact and
    profile entry of the export, by kind and then by exported id."""
    return {
        forgotten_keys.EXCHANGE: {
            old_id: forgotten_keys.exchange_key(
                draft.conversation_id, draft.timestamp, draft.user_input, draft.agent_response
            )
            for old_id, draft, _ in pages
        },
        forgotten_keys.FACT: {
            row["id"]: forgotten_keys.fact_key(row["kind"], row["created"], row["text"])
            for row in export.facts
        },
        forgotten_keys.PROFILE: {
            row["id"]: forgotten_keys.profile_key(
                row["category"], row["name"], row["value"], row["created"]
            )
            for row in export.profile
        },
    }


def _slot_keys(vault) -> list[tuple]:
    return [
        (slot.category, slot.name, normalise_text(slot.value), slot.status == SUPERSEDED)
        for slot in vault.slots(True)
    ]


def _forgotten_since(vault, export: Export, new_pages) -> dict[str, set]:
    """The export's exchanges (of `new_pages`), facts and profile entries (by exported id) that
    this vault forgot after the export was made."""
    since = export.exported_at if export.exported_at is not None else 0.0
    keys = _item_keys(export, new_pages)
    out = {}
    for name, kind in (
        ("pages", forgotten_keys.EXCHANGE),
        ("facts", forgotten_keys.FACT),
        ("slots", forgotten_keys.PROFILE),
    ):
        wanted = keys[kind]
        gone = vault.forgotten_since(kind, wanted.values(), since)
        out[name] = {item for item, key in wanted.items() if key in gone}
    return out


def _left_out(row: dict, links: dict[int, list[int]], forgotten: set, pages: set) -> bool:
    """Was this fact or profile entry forgotten since the export, or learned only from
    exchanges that were (a forget takes what was learned only from them too)?"""
    sources = links.get(row["id"], [])
    return row["id"] in forgotten or bool(sources) and all(p in pages for p in sources)


def _write_pages(memory, export: Export, new_pages, embedded, page_map, now: float) -> int:
    vault = memory.vault
    conversations = set()
    for (old_id, draft, analysed), (vector, turns) in zip(new_pages, embedded, strict=True):
        title, created = export.conversations.get(
            draft.conversation_id,
            (short_term.title(draft.user_input or draft.agent_response), draft.timestamp),
        )
        vault.ensure_conversation(draft.conversation_id, created, title=title)
        conversations.add(draft.conversation_id)
        page_id = short_term.insert(vault, draft, vector, turns, now)
        if analysed:  # a capable model read it already: not analysed (and learned from) again
            vault.mark_analysed([page_id])
        page_map[old_id] = page_id
    return len(conversations)


def _write_facts(memory, export: Export, known, vectors_of, page_map, report) -> dict[int, int]:
    vault = memory.vault
    fact_map: dict[int, int] = {}
    inserted: list[dict] = []
    held = set(known.values())
    for row in sorted(export.facts, key=lambda r: r["id"]):
        sources = [page_map[p] for p in export.sources.get(row["id"], []) if p in page_map]
        key = (row["kind"], normalise_text(row["text"]), row["status"] == SUPERSEDED)
        if key in known:
            fact_map[row["id"]] = known[key]
            vault.add_fact_sources(known[key], sources)
            report.linked_facts += known[key] in held
            report.linked_replaced_facts += known[key] in held and key[2]
            continue
        fact_map[row["id"]] = known[key] = vault.insert_fact(
            kind=row["kind"],
            text=row["text"],
            norm=key[1],
            status=row["status"],
            origin=row["origin"],
            vector=vectors_of[id(row)],
            sources=sources,
            now=float(row["created"]),
        )
        inserted.append(row)
        report.facts += 1
        report.replaced_facts += key[2]
    for row in inserted:  # what superseded what, once every fact has its new id
        new_id = fact_map[row["id"]]
        if row["status"] == SUPERSEDED:
            vault.supersede_fact(new_id, fact_map.get(row.get("superseded_by")), row["updated"])
        vault.touch_fact(new_id, float(row["updated"]))
    return fact_map


def _write_profile(memory, export, known, current, page_map, report, now) -> dict[int, int]:
    vault = memory.vault
    slot_map: dict[int, int] = {}
    inserted: list[dict] = []
    held_ids = set(known.values())
    for row in sorted(export.profile, key=lambda r: r["id"]):
        evidence = [page_map[p] for p in export.evidence.get(row["id"], []) if p in page_map]
        superseded = row["status"] == SUPERSEDED
        key = (row["category"], row["name"], normalise_text(row["value"]), superseded)
        if key in known:
            slot_map[row["id"]] = known[key]
            vault.add_slot_evidence(known[key], evidence)
            report.linked_profile += known[key] in held_ids
            report.linked_replaced_profile += known[key] in held_ids and superseded
            continue
        slot_map[row["id"]] = known[key] = vault.insert_slot(
            row["category"], row["name"], row["value"], row["origin"], evidence,
            float(row["created"]),
        )  # fmt: skip
        inserted.append(row)
        report.profile += 1
    for row in inserted:
        new_id = slot_map[row["id"]]
        updated = float(row["updated"])
        if row["status"] == SUPERSEDED:
            vault.supersede_slot(new_id, slot_map.get(row.get("superseded_by")), updated)
            report.replaced_profile += 1
        else:
            # The vault already had another value for this entry: the newer one stays.
            held = current.get((row["category"], row["name"]))
            if held is not None:
                if updated >= held.updated:
                    vault.supersede_slot(held.id, new_id, now)
                else:
                    vault.supersede_slot(new_id, held.id, updated)
                    report.replaced_profile += 1
        vault.touch_slot(new_id, updated)
    return slot_map


def _memories(rows: list[dict], page_map, fact_map, slot_map) -> list[MemoryUsed]:
    """What an answer remembered, with the restored ids; an item missing from the export was
    forgotten before it was made, and keeps reading as forgotten (id 0 names nothing)."""
    maps = {EXCHANGE: page_map, FACT: fact_map, KNOWLEDGE: fact_map, PROFILE: slot_map}
    out = []
    for row in rows:
        item_id = maps.get(row["kind"], {}).get(row["item_id"], 0)
        score = row.get("score")
        score = float(score) if isinstance(score, (int, float)) else None
        out.append(
            MemoryUsed(row["kind"], item_id, str(row.get("tier", "")), "", row["item_date"], score)
        )
    return out

