"""Bring a reference MemoryOS data folder (BAI-LAB/MemoryOS's JSON files) into a vault, all or nothing.

The reference keeps, under its data_storage_path:
    users/<user_id>/short_term.json        [{user_input, agent_response, timestamp}, ...]
    users/<user_id>/mid_term.json          {"sessions": {id: {summary, summary_keywords, details: [page],
                                            N_visit, L_interaction, timestamp, last_visit_time, ...}}}
    users/<user_id>/long_term_user.json    {"user_profiles": {user_id: {data, last_updated}},
                                            "knowledge_base": [{knowledge, timestamp}], ...}
    assistants/<assistant_id>/long_term_assistant.json   {"assistant_knowledge": [...], ...}
or, in its chromadb variant, a Chroma store (engine/reference_chroma.py reads it into the same
ReferenceData). Everything is read and checked first (a bad file is an error naming it), then embedded with the
vault's embedder, then written in one transaction: an error at any point leaves the vault as it
was. Every fact and profile entry carries the origin "imported from the reference". The vault
remembers what it imported (pages, knowledge, the profile's date), so importing a folder again,
or an older copy of it, adds only what is new: nothing the person deleted since comes back.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import InvalidInputError
from engine.memory import keywords as keyword_tools
from engine.memory import mid_term, short_term, vocabulary
from engine.memory.persona_patterns import normalise_text
from engine.records import ACTIVE, ASSISTANT_KNOWLEDGE, SHORT_TERM, USER_FACT, Page, turn_id
from engine.terminal.wording import count
from engine.timestamps import parse_timestamp
from engine.vault.jobs import LEARN_WORDS

ORIGIN = "imported from the reference"
PROFILE_CATEGORY, PROFILE_NAME = "imported", "profile from the reference MemoryOS"
EMBED_BATCH = 32
USER_FILES = ("short_term.json", "mid_term.json", "long_term_user.json")
# The reference's parts, as a note names those not in a folder.
PARTS = {
    "short_term.json": "recent exchanges",
    "mid_term.json": "topics",
    "long_term_user.json": "profile and knowledge",
    "assistants/": "assistant knowledge",
}


@dataclass
class RefPage:
    page_id: str
    user_input: str
    agent_response: str
    timestamp: float
    analysed: bool = False
    previous: str | None = None
    meta_info: str = ""
    keywords: list[str] = field(default_factory=list)


@dataclass
class RefSession:
    session_id: str
    summary: str
    keywords: list[str]
    created: float
    last_visit: float
    visits: int
    length: int
    pages: list[RefPage]


@dataclass
class RefKnowledge:
    text: str
    timestamp: float
    kind: str
    source: str  # "user" or "assistant <id>"
    whole: str = ""  # the list it is one item of (an earlier version imported lists whole)


@dataclass
class ReferenceData:
    """One user's reference memory, read and checked, nothing written yet."""

    folder: Path
    user_id: str
    short_term: list[RefPage]
    sessions: list[RefSession]
    profile: str | None
    profile_updated: float | None
    knowledge: list[RefKnowledge]
    assistants: list[str]
    skipped_empty: int = 0
    recovered: int = 0  # chromadb variant: pages only its index kept (engine/reference_chroma.py)
    not_found: list[str] = field(default_factory=list)  # parts not in the folder (PARTS' keys)
    # the knowledge entries the files hold, by kind: the reference writes each analysis again,
    # so many entries can be one fact (a report that says only "4 facts" looked like a loss)
    knowledge_entries: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {
            "short_term_pages": len(self.short_term),
            "segments": len(self.sessions),
            "mid_term_pages": sum(len(s.pages) for s in self.sessions),
            "analysed_pages": sum(p.analysed for s in self.sessions for p in s.pages),
            "profile": int(bool(self.profile)),
            "user_knowledge": sum(k.kind == USER_FACT for k in self.knowledge),
            "assistant_knowledge": sum(k.kind == ASSISTANT_KNOWLEDGE for k in self.knowledge),
            "skipped_empty_pages": self.skipped_empty,
        }


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


def not_found_note(parts: list[str]) -> str:
    """'Not in this folder: mid_term.json (topics), …' with what to do, or "" when none."""
    if not parts:
        return ""
    named = ", ".join(f"{part} ({PARTS[part]})" for part in parts)
    return (
        f"Not in this folder: {named}. If you copied the folder from elsewhere, copy "
        f"{'it' if len(parts) == 1 else 'them'} too and import again: what is imported now is "
        "not added twice."
    )


# ---- reading --------------------------------------------------------------------------------


def find_users(folder: str | Path) -> list[str]:
    """The user ids of a reference data folder (JSON files, or the chromadb variant's store)."""
    from engine import reference_chroma

    users = Path(folder).expanduser() / "users"
    if not has_json_files(folder) and reference_chroma.store_folder(folder) is not None:
        return reference_chroma.find_chroma_users(folder)
    if not users.is_dir():
        raise InvalidInputError(_not_a_data_folder(folder, reference_chroma.STORE_FOLDER))
    # a user's folder without any of the reference's files holds no memory (nothing to import)
    return sorted(p.name for p in users.iterdir() if _user_files(p))


def _user_files(user_dir: Path) -> bool:
    return user_dir.is_dir() and any((user_dir / name).is_file() for name in USER_FILES)


def has_json_files(folder: str | Path) -> bool:
    """Does `folder` hold a user's files of the JSON variant? Not just a users/ folder:
    engine.compat keeps its vaults in users/ too, beside a chromadb-variant store."""
    users = Path(folder).expanduser() / "users"
    return users.is_dir() and any(_user_files(user) for user in users.iterdir())


def _not_a_data_folder(folder: str | Path, store: str) -> str:
    """Why `folder` is not the reference's data folder (its data_storage_path, the one holding
    users/), and which folder to choose instead when it is one user's folder or users/ itself.
    Plain words: the app shows it as it is."""
    chosen = Path(folder).expanduser().resolve()
    if chosen.parent.name == "users" and any((chosen / n).is_file() for n in USER_FILES):
        return (
            f"{folder} is the folder of the user {chosen.name!r}, not a reference MemoryOS data "
            f"folder: choose the folder two levels up, {chosen.parent.parent}, the one that "
            "holds users/."
        )
    if chosen.name == "users" and chosen.is_dir():
        if any((u / n).is_file() for u in chosen.iterdir() if u.is_dir() for n in USER_FILES):
            return (
                f"{folder} is not a reference MemoryOS data folder but its users/ folder: "
                f"choose the folder one level up, {chosen.parent}."
            )
    return (
        f"{folder} is not a reference MemoryOS data folder: it has no users/ folder and no "
        f"{store}/ folder. Choose the reference's data folder, the one that holds users/."
    )


def read_reference(
    folder: str | Path, user_id: str | None = None, assistant_ids: list[str] | None = None
) -> ReferenceData:
    """Read one user's files (the only user when `user_id` is None) and the assistants' knowledge
    (all assistants when `assistant_ids` is None)."""
    folder = Path(folder).expanduser()
    if not has_json_files(folder):
        from engine import reference_chroma

        if reference_chroma.store_folder(folder) is not None:
            return reference_chroma.read_chroma(folder, user_id, assistant_ids)
    user_id = choose_user(folder, find_users(folder), user_id)
    user_dir = folder / "users" / user_id
    data = ReferenceData(folder, user_id, [], [], None, None, [], [])

    short = _load(user_dir / "short_term.json", list, [])
    for index, item in enumerate(short):
        page = _page(item, f"{user_dir / 'short_term.json'}: item {index}", "")
        if page is None:
            data.skipped_empty += 1
        else:
            data.short_term.append(page)

    mid = _load(user_dir / "mid_term.json", dict, {})
    sessions = mid.get("sessions", {})
    where = user_dir / "mid_term.json"
    if not isinstance(sessions, dict):
        raise InvalidInputError(f"{where}: 'sessions' must be a JSON object")
    for session_id, session in sessions.items():
        data.sessions.append(
            _session(session_id, session, f"{where}: session {session_id!r}", data)
        )

    long_path = user_dir / "long_term_user.json"
    long_term = _load(long_path, dict, {})
    profiles = long_term.get("user_profiles", {})
    if not isinstance(profiles, dict):
        raise InvalidInputError(f"{long_path}: 'user_profiles' must be a JSON object")
    entry = profiles.get(user_id) or {}
    if not isinstance(entry, dict):
        raise InvalidInputError(f"{long_path}: the profile of {user_id!r} must be a JSON object")
    text = _text(entry.get("data", ""), f"{long_path}: profile")
    if text.strip() and text.strip().lower() != "none":
        data.profile = text.strip()
        data.profile_updated = _time(entry.get("last_updated"), f"{long_path}: last_updated")
    entries = data.knowledge_entries
    data.knowledge += _knowledge(
        long_term, "knowledge_base", USER_FACT, "user", long_path, entries
    )
    data.knowledge += _knowledge(
        long_term, "assistant_knowledge", ASSISTANT_KNOWLEDGE, "user", long_path, entries
    )

    assistants_dir = folder / "assistants"
    found = (
        sorted(p.name for p in assistants_dir.iterdir() if p.is_dir())
        if assistants_dir.is_dir()
        else []
    )
    for assistant in found if assistant_ids is None else assistant_ids:
        if assistant not in found:
            raise InvalidInputError(f"{folder} has no assistant {assistant!r}")
        path = assistants_dir / assistant / "long_term_assistant.json"
        content = _load(path, dict, {})
        data.knowledge += _knowledge(
            content, "assistant_knowledge", ASSISTANT_KNOWLEDGE, f"assistant {assistant}", path,
            entries,
        )
        data.assistants.append(assistant)
    data.not_found = parts_not_found(folder, user_dir, data)
    one_page_per_id(data)
    return data


def parts_not_found(folder: Path, user_dir: Path, data: ReferenceData) -> list[str]:
    """The reference's parts a folder lacks, for a note: a copy of half the folder imports
    what is there and must say what was not. The reference writes each file only once it has
    something for it (BAI-LAB/MemoryOS, memoryos-pypi): on start, the folders users/<user>/
    and assistants/<assistant>/ and no file; short_term.json at the first exchange (kept
    ever after, [] when emptied); mid_term.json once the short-term memory overflows;
    long_term_user.json once a topic is analysed (its pages marked "analyzed");
    long_term_assistant.json once there is assistant knowledge. So a file it had no reason to
    write yet is not missing; a folder without short_term.json or without assistants/ was
    copied in part, and every part not there is named."""
    assistants = folder / "assistants"
    copied_whole = (user_dir / "short_term.json").is_file() and assistants.is_dir()
    analysed = any(page.analysed for session in data.sessions for page in session.pages)
    expected = {
        "short_term.json": True,
        "mid_term.json": not copied_whole or (user_dir / "long_term_user.json").is_file(),
        "long_term_user.json": not copied_whole or analysed,
    }
    found = [name for name, wanted in expected.items() if wanted and not (user_dir / name).is_file()]
    return found + ([] if assistants.is_dir() else ["assistants/"])


def one_page_per_id(data: ReferenceData) -> None:
    """A page the reference filed under several sessions (one page_id in each) is one page, and
    a page is in one topic (segment) only: it goes to the session whose summary and keywords
    share most words with it (the first on a tie). A session then left without any of its
    pages takes one back from a session that keeps others, so every session stays a topic with
    its summary and keywords. Only when that cannot be (two sessions listing one single page)
    is a session folded into the one that holds its pages: its summary and keywords are added
    to that topic's, so no summary is lost."""
    first: dict[str, RefPage] = {}
    listed: dict[str, list[RefSession]] = {}
    for session in data.sessions:
        for page in session.pages:
            first.setdefault(page.page_id, page)
            if session not in listed.setdefault(page.page_id, []):
                listed[page.page_id].append(session)
    words: dict[str | int, set[str]] = {}  # read only for pages in several sessions

    def fit(page_id: str, session: RefSession) -> int:
        if page_id not in words:
            page = first[page_id]
            words[page_id] = _words_of(f"{page.user_input} {page.agent_response}")
        if id(session) not in words:
            words[id(session)] = _words_of(f"{session.summary} {' '.join(session.keywords)}")
        return len(words[page_id] & words[id(session)])

    owner = {  # max() keeps the first of equals
        pid: holders[0] if len(holders) == 1 else max(holders, key=lambda s, p=pid: fit(p, s))
        for pid, holders in listed.items()
    }

    def owned(session: RefSession) -> list[str]:
        return [pid for pid in dict.fromkeys(p.page_id for p in session.pages)
                if owner[pid] is session]  # fmt: skip

    for session in data.sessions:
        if session.pages and not owned(session):
            spare = [p.page_id for p in session.pages if len(owned(owner[p.page_id])) > 1]
            if spare:
                owner[max(spare, key=lambda pid: fit(pid, session))] = session
    kept = []
    for session in data.sessions:
        mine = owned(session)
        if session.pages and not mine:
            holder = owner[session.pages[0].page_id]
            holder.summary = _joined(holder.summary, session.summary)
            holder.keywords = list(dict.fromkeys(holder.keywords + session.keywords))
            continue
        session.pages = [first[pid] for pid in mine]
        kept.append(session)
    data.sessions = kept


def _words_of(text: str) -> set[str]:
    return keyword_tools.normalise(keyword_tools.content_words(text))


def _joined(summary: str, other: str) -> str:
    """Two sessions' summaries as one: 'User has a cat called Miso. User moved to Lisbon'."""
    summary, other = summary.strip(), other.strip()
    if not summary or not other or other in summary:
        return summary or other
    return f"{summary}{'' if summary[-1] in '.!?' else '.'} {other}"


def choose_user(place: Path, users: list[str], user_id: str | None) -> str:
    """The user to import from `place`: the one asked for, or the only one there."""
    if not users:  # an empty users/ folder, or users' folders without any memory file
        raise InvalidInputError(f"{place} holds no user's memory: nothing to import")
    if user_id is None:
        if len(users) != 1:
            raise InvalidInputError(
                f"{place} holds {len(users)} users ({', '.join(users)}): choose one"
            )
        return users[0]
    if user_id not in users:
        raise InvalidInputError(f"{place} has no user {user_id!r} (it has {', '.join(users)})")
    return user_id


def _load(path: Path, kind: type, default: Any) -> Any:
    if not path.exists():
        return default
    try:
        text = path.read_text(encoding="utf-8")
        if not text.strip():  # the reference writes a whole JSON document: it never finished
            raise InvalidInputError(
                f"{path} is empty: the reference MemoryOS did not finish writing it (it may have "
                "been stopped while saving). Run the reference MemoryOS once more so that it "
                "saves this file again, or put back a copy from a backup; nothing was imported"
            )
        content = json.loads(text)
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text; nothing was imported") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(_not_json(path, text, exc)) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    if not isinstance(content, kind):
        expected = "a JSON list" if kind is list else "a JSON object"
        raise InvalidInputError(f"{path} should hold {expected}; nothing was imported")
    return content


def _not_json(path: Path, text: str, exc: json.JSONDecodeError) -> str:
    """Why a file is not JSON and what to do, with the line where it breaks for whoever wants
    to look. Not "run the reference once more": it reads such a file as empty and its next save
    replaces it, losing what the file still holds."""
    from engine.transcripts import cut_short

    if cut_short(exc):  # cut off: a JSON document that stops part-way
        why = (
            f"it stops part-way, at line {exc.lineno}: the reference MemoryOS did not finish "
            "writing it (it may have been stopped while saving)"
        )
    else:
        why = (
            f"it breaks at line {exc.lineno} ({exc.msg}): it was damaged or changed after the "
            "reference MemoryOS wrote it"
        )
    return (
        f"{path} is not valid JSON: {why}. Put back a copy from a backup, or, to import the "
        "rest without it, move this file out of the folder (keep it: what it holds up to that "
        "line can still be read); nothing was imported"
    )


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


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInputError(f"{where} must be text, not {type(value).__name__}")
    return value


def _time(value: Any, where: str) -> float:
    try:
        return parse_timestamp(value, default=time.time())
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InvalidInputError(f"{where} must be a count (a number ≥ 0)")
    return int(value)


def _words(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise InvalidInputError(f"{where} must be a list of words")
    return [w for w in value if w.strip()]


def _page(item: Any, where: str, fallback_id: str) -> RefPage | None:
    if not isinstance(item, dict):
        raise InvalidInputError(f"{where} must be a JSON object")
    user = _text(item.get("user_input"), f"{where}: user_input")
    agent = _text(item.get("agent_response"), f"{where}: agent_response")
    if not user.strip() and not agent.strip():
        return None
    return RefPage(
        page_id=str(item.get("page_id") or fallback_id),
        user_input=user,
        agent_response=agent,
        timestamp=_time(item.get("timestamp"), f"{where}: timestamp"),
        analysed=bool(item.get("analyzed", False)),
        previous=str(item["pre_page"]) if item.get("pre_page") else None,
        meta_info=_text(item.get("meta_info"), f"{where}: meta_info"),
        keywords=_words(item.get("page_keywords"), f"{where}: page_keywords"),
    )


def _session(session_id: str, session: Any, where: str, data: ReferenceData) -> RefSession:
    if not isinstance(session, dict):
        raise InvalidInputError(f"{where} must be a JSON object")
    details = session.get("details", [])
    if not isinstance(details, list):
        raise InvalidInputError(f"{where}: 'details' must be a list of pages")
    pages = []
    for index, item in enumerate(details):
        page = _page(item, f"{where}: page {index}", f"{session_id}-{index}")
        if page is None:
            data.skipped_empty += 1
        else:
            pages.append(page)
    created = _time(session.get("timestamp"), f"{where}: timestamp")
    return RefSession(
        session_id=str(session_id),
        summary=_text(session.get("summary"), f"{where}: summary"),
        keywords=_words(session.get("summary_keywords"), f"{where}: summary_keywords"),
        created=created,
        last_visit=_time(session.get("last_visit_time") or created, f"{where}: last_visit_time"),
        visits=_count(session.get("N_visit", 0), f"{where}: N_visit"),
        length=_count(session.get("L_interaction", len(pages)), f"{where}: L_interaction"),
        pages=pages,
    )


def _knowledge(
    content: dict, key: str, kind: str, source: str, path: Path, entries: dict[str, int]
) -> list[RefKnowledge]:
    """The knowledge of one list, one item per fact: the reference stores what one analysis
    found as one text, a list ("- Alice moved to Lisbon\n- Alice has a cat"), and can store
    that text several times; each item becomes one fact (so it can be deleted alone), once.
    The list's entries are counted into `entries`, by kind."""
    items = content.get(key, [])
    if not isinstance(items, list):
        raise InvalidInputError(f"{path}: {key!r} must be a list")
    out, seen = [], set()
    entries[kind] = entries.get(kind, 0) + len(items)
    for index, item in enumerate(items):
        where = f"{path}: {key} item {index}"
        if not isinstance(item, dict):
            raise InvalidInputError(f"{where} must be a JSON object")
        whole = _text(item.get("knowledge"), f"{where}: knowledge").strip()
        for text in knowledge_items(whole):
            found = RefKnowledge(text, _time(item.get("timestamp"), where), kind, source, whole)
            if _knowledge_key(found) not in seen:
                seen.add(_knowledge_key(found))
                out.append(found)
    return out


LIST_MARKER = re.compile(r"^(?:[-*•‣–]|\d{1,3}[.)])\s+")


def knowledge_items(text: str) -> list[str]:
    """The facts of one knowledge text: each item of a list ("- ", "* ", "• ", "1. ") on its
    own, its marker dropped (a line without one continues the item before it); a text that is
    no list is one fact. "None" (the reference's word for nothing found) is no fact."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if not any(LIST_MARKER.match(line) for line in lines):
        lines = [text.strip()] if text.strip() else []
    items: list[str] = []
    for line in lines:
        marked = LIST_MARKER.match(line)
        if marked or not items:
            items.append(line[marked.end() :] if marked else line)
        else:
            items[-1] = f"{items[-1]} {line}"
    return [item for item in items if item.strip().rstrip(".").lower() not in ("", "none")]


# ---- writing ---------------------------------------------------------------------------------


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
            record.knowledge |= {_knowledge_key(k) for k in data.knowledge}
            if new_profile and data.profile:
                record.profile = {"key": _text_key(data.profile), "updated": data.profile_updated}
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
        keys = {_knowledge_key(item), _knowledge_key(replace(item, text=item.whole or item.text))}
        return bool(keys & self.knowledge)

    def takes_profile(self, memory: Any, data: ReferenceData) -> bool:
        """Is `data`'s profile to be imported: not the one imported before (still there or
        deleted since), and not older than it or than the imported profile the vault holds?"""
        if not data.profile:
            return False
        updated = data.profile_updated
        before = self.profile or {}
        if before.get("key") == _text_key(data.profile):
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


def _text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def _key(page: RefPage) -> str:
    """The same exchange has the same key wherever the reference keeps it (STM pages have no id,
    and get a new one when they move to mid-term)."""
    return _text_key(json.dumps([page.user_input, page.agent_response, round(page.timestamp, 3)]))


def _knowledge_key(item: RefKnowledge) -> str:
    """The same knowledge has the same key in any copy of the folder, whatever its date."""
    return _text_key(json.dumps([item.kind, normalise_text(item.text)]))


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
