"""Writing a restore's exchanges, facts and profile entries into the vault (restore.py)."""

from __future__ import annotations

from engine.memory import short_term
from engine.memory.persona_patterns import normalise_text
from engine.records import SUPERSEDED
from engine.restore_reading import Export


def write_pages(memory, export: Export, new_pages, embedded, page_map, now: float) -> int:
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


def write_facts(memory, export: Export, known, vectors_of, page_map, report) -> dict[int, int]:
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


def write_profile(memory, export, known, current, page_map, report, now) -> dict[int, int]:
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
