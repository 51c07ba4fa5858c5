"""Export: everything the vault holds about the person, as one JSON document."""

from __future__ import annotations

import json
from pathlib import Path

from engine import errors
from engine.files import write_private
from engine.memory.context import MemoryContext
from engine.records import VaultInfo

FORMAT = "memoryos-export/1"
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
    """The export as a dict; written to `path` (owner-only, never a partial file) if given."""
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
    for table in TABLES:
        data[table] = ctx.vault.dump_table(table)
    # What was forgotten, as one-way keys and times (engine/vault/forgotten.py): a restore
    # elsewhere leaves it out of older exports too. Exports without this key still restore.
    data["forgotten"] = ctx.vault.forgotten_records()
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
