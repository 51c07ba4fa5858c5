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
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.export import FORMAT
from engine.forgetting import forget_held
from engine.memory import short_term
from engine.memory.persona_patterns import normalise_text
from engine.records import ACTIVE, SUPERSEDED, Page
from engine.remembered import EXCHANGE, FACT, KNOWLEDGE, PROFILE, MemoryUsed
from engine.restore_reading import Export, is_export, read_export
from engine.restore_report import Restored
from engine.restore_writing import write_facts, write_pages, write_profile
from engine.vault import forgotten as forgotten_keys
from engine.vault.jobs import FORGET_HELD, LEARN_WORDS

# Reading the export is in restore_reading.py, the report in restore_report.py, writing the
# exchanges, facts and profile entries in restore_writing.py; callers use them from here.
__all__ = [
    "FORMAT",
    "Export",
    "Restored",
    "is_export",
    "read_export",
    "restore",
]

EMBED_BATCH = 256


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
            report.conversations = write_pages(memory, export, new_pages, embedded, page_map, now)
            report.exchanges = len(new_pages)
            fact_map = write_facts(memory, export, known_facts, vectors_of, page_map, report)
            slot_map = write_profile(
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

