"""Read a reference MemoryOS data folder (BAI-LAB/MemoryOS's files) and check it; write nothing.

The reference keeps, under its data_storage_path:
    users/<user_id>/short_term.json        [{user_input, agent_response, timestamp}, ...]
    users/<user_id>/mid_term.json          {"sessions": {id: {summary, summary_keywords, details: [page],
                                            N_visit, L_interaction, timestamp, last_visit_time, ...}}}
    users/<user_id>/long_term_user.json    {"user_profiles": {user_id: {data, last_updated}},
                                            "knowledge_base": [{knowledge, timestamp}], ...}
    assistants/<assistant_id>/long_term_assistant.json   {"assistant_knowledge": [...], ...}
or, in its chromadb variant, a Chroma store (engine/reference_chroma.py reads it into the same
ReferenceData). Everything is read and checked before anything is written (a bad file is an
error naming it); engine/reference_import.py writes what was read into a vault.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from engine.memory import keywords as keyword_tools
from engine.memory.persona_patterns import normalise_text
from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT
from engine.timestamps import parse_timestamp

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
            if knowledge_key(found) not in seen:
                seen.add(knowledge_key(found))
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


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def knowledge_key(item: RefKnowledge) -> str:
    """The same knowledge has the same key in any copy of the folder, whatever its date."""
    return text_key(json.dumps([item.kind, normalise_text(item.text)]))
