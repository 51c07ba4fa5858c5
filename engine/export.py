"""Export: everything the vault holds about the person, as one JSON document."""

from __future__ import annotations

import json
from pathlib import Path

from engine import errors
from engine.files import write_private
from engine.memory.context import MemoryContext
from engine.records import VaultInfo

FORMAT = "memoryos-export/1"
# What a damaged vault's export could not read, as a person counts it (unreadable_text)
NAMES = {
    "conversations": "conversations",
    "pages": "exchanges",
    "segments": "topics",
    "facts": "facts",
    "fact_sources": "links from facts to exchanges",
    "profile": "profile entries",
    "profile_evidence": "links from profile entries to exchanges",
    "page_memories": "records of the memories an answer used",
    "forgotten": "records of what was forgotten",
}
TABLES = (
    "conversations",
    "pages",
    "segments",
    "facts",
    "fact_sources",
    "profile",
    "profile_evidence",
    "page_memories",
)


def check_target(path: str | Path) -> Path:
    """The file an export goes to, refused before anything is read or written where its
    folder does not exist (no folder is made: a typo must not leave one behind)."""
    target = Path(path).expanduser()
    folder = target.parent
    if target.is_dir():
        raise errors.InvalidInputError(
            f"{target} is a folder. Choose a file name for the export; nothing was exported."
        )
    if not folder.is_dir():
        raise errors.InvalidInputError(
            f"The folder {folder} does not exist, so nothing was exported. Choose an existing "
            "folder."
        )
    return target


def export_json(ctx: MemoryContext, info: VaultInfo, path: str | Path | None = None) -> dict:
    """The export as a dict; written to `path` (owner-only, never a partial file) if given.
    From a damaged vault, what can be read; `unreadable` counts what could not be."""
    rules = ctx.policy()
    if rules.export_forbidden:
        raise errors.PolicyError(
            f"export is turned off by your administrator ({rules.source}). Ask them if you need "
            "it; a backup is still allowed (File → Back up memory…, or `memoryos backup FILE`): "
            "an encrypted copy of the whole memory"
        )
    target = None if path is None else check_target(path)
    data = {
        "format": FORMAT,
        "exported_at": ctx.clock(),
        "vault": {k: v for k, v in info.__dict__.items() if k != "size_bytes"},
        "settings": ctx.settings.to_dict(),
    }
    # A damaged vault (engine/vault/damage.py): what can be read is exported, and how many
    # rows of each table could not be read is kept under "unreadable" (None: not known).
    unreadable: dict[str, int | None] = {}
    for table in TABLES:
        read = ctx.vault.read_table(table)
        data[table] = read.rows
        if read.skipped != 0:
            unreadable[table] = read.skipped
    # What was forgotten, as one-way keys and times (engine/vault/forgotten.py): a restore
    # elsewhere leaves it out of older exports too. Exports without this key still restore.
    try:
        data["forgotten"] = ctx.vault.forgotten_records()
    except errors.VaultCorruptError:
        read = ctx.vault.read_table("forgotten")
        data["forgotten"] = [{k: row[k] for k in ("kind", "key", "at")} for row in read.rows]
        unreadable["forgotten"] = read.skipped
    if unreadable:
        data["unreadable"] = unreadable
    for row in data["pages"] + data["segments"]:
        for key in ("meta", "keywords"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
    for row in data["facts"]:
        row.pop("norm", None)
    if target is not None:
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_private(target, text.encode("utf-8"))
    return data


def unreadable_text(data: dict) -> str:
    """'' for a whole export; else which rows a damaged vault kept back, said in full."""
    from engine.vault.damage import skipped_text

    parts = list(skipped_text(data.get("unreadable") or {}, NAMES))
    if not parts:
        return ""
    return (
        f"The vault file is damaged: {', '.join(parts)} could not be read and are not in the "
        "export; everything else is."
    )
