"""Reading an export for a restore (restore.py): its format, and every row checked."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine import validation
from engine.errors import InvalidInputError
from engine.export import FORMAT
from engine.records import (
    ACTIVE,
    ASSISTANT_KNOWLEDGE,
    CANDIDATE,
    SUPERSEDED,
    USER_FACT,
    Page,
)
from engine.vault import forgotten as forgotten_keys

FORMAT_NAME = FORMAT.split("/")[0]  # "memoryos-export"
VERSION = int(FORMAT.split("/")[1])


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
