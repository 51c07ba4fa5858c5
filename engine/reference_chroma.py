"""Read the reference MemoryOS's chromadb variant (BAI-LAB/MemoryOS `memoryos-chromadb`) without chromadb.

That variant keeps, under ``<data_storage_path>/chroma_storage/``:
    chroma.sqlite3            Chroma's own SQLite file: collections ``mid_term_memory_user_<uid>``
                              (pages and session summaries), ``user_knowledge_<uid>`` and
                              ``assistant_knowledge_<aid>``; every text is in the rows' metadata
                              (tables collections -> segments -> embeddings -> embedding_metadata)
    <uuid>/                   the HNSW vector index (not needed: we embed again with our embedder)
    metadata_<uid>_<aid>.json short-term queue, mid-term sessions with a backup of their pages and
                              heat counters, user profiles (written when the reference exits)
The SQLite file is opened read-only with the standard library, so no chromadb install is needed,
and the result is the same `ReferenceData` the JSON variant gives: the importer, its dry run,
provenance and all-or-nothing write are shared.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT

CHROMA_FILE = "chroma.sqlite3"
STORE_FOLDER = "chroma_storage"
PAGES, USER_KNOW, ASSIST_KNOW = "mid_term_memory_user_", "user_knowledge_", "assistant_knowledge_"


def store_folder(folder: str | Path) -> Path | None:
    """The chroma store in `folder` (the data_storage_path or chroma_storage itself), or None."""
    folder = Path(folder).expanduser()
    for candidate in (folder, folder / STORE_FOLDER):
        if (candidate / CHROMA_FILE).is_file():
            return candidate
    return None


def _collections(store: Path) -> dict[str, list[dict[str, Any]]]:
    """Every collection's rows (id and metadata), read-only, from chroma.sqlite3."""
    path = store / CHROMA_FILE
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InvalidInputError(f"cannot open {path}: {exc}; nothing was imported") from None
    try:
        names = dict(conn.execute("SELECT id, name FROM collections").fetchall())
        rows = conn.execute(
            "SELECT s.collection, e.id, e.embedding_id, m.key, m.string_value, m.int_value, "
            "m.float_value FROM segments s JOIN embeddings e ON e.segment_id = s.id "
            "LEFT JOIN embedding_metadata m ON m.id = e.id "
            "WHERE s.scope = 'METADATA' ORDER BY e.id"
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise InvalidInputError(
            f"{path} is not a readable Chroma database ({exc}); nothing was imported"
        ) from None
    finally:
        conn.close()
    out: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in names.values()}
    for collection, row_id, embedding_id, key, text, number, real in rows:
        name = names.get(collection)
        if name is None:
            continue
        item = out[name].setdefault(row_id, {"id": embedding_id})
        if key is not None and not key.startswith("chroma:"):
            item[key] = text if text is not None else number if number is not None else real
    return {name: list(items.values()) for name, items in out.items()}


def find_chroma_users(folder: str | Path) -> list[str]:
    """The user ids of a chromadb-variant store."""
    store = store_folder(folder)
    if store is None:
        raise InvalidInputError(f"{folder} holds no {CHROMA_FILE}")
    names = _collections(store)
    users = {n[len(PAGES) :] for n in names if n.startswith(PAGES)}
    users |= {n[len(USER_KNOW) :] for n in names if n.startswith(USER_KNOW)}
    return sorted(users)


def read_user(folder: str | Path, user_id: str, assistant_id: str):
    """`user_id`'s memory in the chromadb variant's store of a data folder, with the knowledge
    of `assistant_id` when the store has it (engine.compat's import on opening); None when
    the folder holds no store or the store does not know this user."""
    store = store_folder(folder)
    if store is None:
        return None
    names = _collections(store)
    if f"{PAGES}{user_id}" not in names and f"{USER_KNOW}{user_id}" not in names:
        return None
    assistants = [assistant_id] if f"{ASSIST_KNOW}{assistant_id}" in names else []
    return read_chroma(store, user_id, assistants)


def read_chroma(folder: str | Path, user_id: str | None, assistant_ids: list[str] | None):
    """One user's chromadb-variant memory as a reference_files.ReferenceData (nothing written)."""
    from engine.reference_files import (
        ReferenceData,
        _knowledge,
        _load,
        _page,
        _session,
        _text,
        _time,
        choose_user,
        one_page_per_id,
    )

    store = store_folder(folder)
    if store is None:
        raise InvalidInputError(f"{folder} holds no {CHROMA_FILE}")
    collections = _collections(store)
    users = sorted(
        {n[len(PAGES) :] for n in collections if n.startswith(PAGES)}
        | {n[len(USER_KNOW) :] for n in collections if n.startswith(USER_KNOW)}
    )
    user_id = choose_user(store, users, user_id)
    found = sorted(n[len(ASSIST_KNOW) :] for n in collections if n.startswith(ASSIST_KNOW))
    wanted = found if assistant_ids is None else assistant_ids
    for assistant in wanted:
        if assistant not in found:
            raise InvalidInputError(f"{store} has no assistant {assistant!r}")

    # The JSON the reference writes beside it: the only place of short-term pages, heat and profile.
    metadata_files = [store / f"metadata_{user_id}_{a}.json" for a in found]
    present = [p for p in metadata_files if p.exists()]
    if not present:
        expected = (
            metadata_files[0].name if metadata_files else f"metadata_{user_id}_<assistant>.json"
        )
        raise InvalidInputError(
            f"{store / expected} is missing: the reference writes it when it exits, so this "
            "store is incomplete (was the reference still running, or stopped abruptly?); "
            "nothing was imported"
        )
    data = ReferenceData(Path(folder).expanduser(), user_id, [], [], None, None, [], [])
    seen_sessions: set[str] = set()
    backed_up: set[str] = set()
    short_seen: set[tuple] = set()
    for path in present:
        meta = _load(path, dict, {})  # present: checked above
        for index, item in enumerate(meta.get("short_term_memory") or []):
            page = _page(item, f"{path}: short_term_memory item {index}", "")
            if page is None:
                data.skipped_empty += 1
            elif (key := (page.user_input, page.agent_response, page.timestamp)) not in short_seen:
                short_seen.add(key)
                data.short_term.append(page)
        sessions = meta.get("mid_term_sessions") or {}
        if not isinstance(sessions, dict):
            raise InvalidInputError(f"{path}: 'mid_term_sessions' must be a JSON object")
        for session_id, session in sessions.items():
            if session_id in seen_sessions:
                continue
            seen_sessions.add(session_id)
            where = f"{path}: session {session_id!r}"
            if not isinstance(session, dict):
                raise InvalidInputError(f"{where} must be a JSON object")
            details = session.get("pages_backup", [])
            if isinstance(details, list):
                backed_up |= {str(p.get("page_id")) for p in details if isinstance(p, dict)}
            data.sessions.append(_session(session_id, {**session, "details": details}, where, data))
        profiles = meta.get("user_profiles") or {}
        if not isinstance(profiles, dict):
            raise InvalidInputError(f"{path}: 'user_profiles' must be a JSON object")
        if data.profile is None and profiles.get(user_id):
            data.profile = _profile_text(profiles[user_id], f"{path}: profile", _text)
            updated = (meta.get("update_times") or {}).get("profile")
            data.profile_updated = _time(updated, f"{path}: update_times") if updated else None

    sqlite_path = store / CHROMA_FILE
    rows = [_knowledge_row(r) for r in collections.get(f"{USER_KNOW}{user_id}", [])]
    data.knowledge += _knowledge(
        {"user_knowledge": rows}, "user_knowledge", USER_FACT, "user", sqlite_path,
        data.knowledge_entries,
    )
    for assistant in wanted:
        rows = [_knowledge_row(r) for r in collections[f"{ASSIST_KNOW}{assistant}"]]
        data.knowledge += _knowledge(
            {"assistant_knowledge": rows},
            "assistant_knowledge",
            ASSISTANT_KNOWLEDGE,
            f"assistant {assistant}",
            sqlite_path,
            data.knowledge_entries,
        )
        data.assistants.append(assistant)
    _merge_index_pages(data, backed_up, collections.get(f"{PAGES}{user_id}", []), sqlite_path)
    one_page_per_id(data)
    return data


def _knowledge_row(row: dict[str, Any]) -> dict[str, Any]:
    return {"knowledge": row.get("text"), "timestamp": row.get("timestamp")}


def _profile_text(profile: Any, where: str, text_of) -> str | None:
    """The variant stores the model's JSON profile (or {"raw_text_profile": text})."""
    if isinstance(profile, dict):
        if set(profile) == {"raw_text_profile"}:
            return text_of(profile["raw_text_profile"], where).strip() or None
        lines = [
            f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
            for key, value in profile.items()
        ]
        return "\n".join(lines) or None
    return text_of(profile, where).strip() or None


def _merge_index_pages(data, backed_up: set[str], rows: list[dict[str, Any]], where: Path) -> None:
    """Pages Chroma indexed but the JSON backup lacks are imported too (from their metadata).
    The reference loses them itself: when it merges new pages into an existing session it
    rewrites the backup without some earlier ones, while Chroma keeps them."""
    from engine.reference_files import RefSession, _page, _time

    sessions = {s.session_id: s for s in data.sessions}
    summaries = {str(r.get("session_id")): r for r in rows if r.get("type") == "session_summary"}
    for row in rows:
        if row.get("type") != "page" or str(row.get("page_id")) in backed_up:
            continue
        session_id = str(row.get("session_id"))
        page = _page(row, f"{where}: page {row.get('page_id')!r}", str(row.get("page_id")))
        if page is None:
            continue
        session = sessions.get(session_id)
        if session is None:
            summary = summaries.get(session_id, {})
            created = _time(summary.get("timestamp") or row.get("timestamp"), f"{where}: session")
            session = RefSession(
                session_id, str(summary.get("summary") or ""), [], created, created, 0, 0, []
            )
            sessions[session_id] = session
            data.sessions.append(session)
        session.pages.append(page)
        session.pages.sort(key=lambda p: p.timestamp)
        data.recovered += 1
