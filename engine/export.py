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


def export_json(ctx: MemoryContext, info: VaultInfo, path: str | Path | None = None) -> dict:
    """The export as a dict; written to `path` (owner-only, never a partial file) if given."""
    rules = ctx.policy()
    if rules.export_forbidden:
        raise errors.PolicyError(f"export is turned off by your administrator ({rules.source})")
    data = {
        "format": FORMAT,
        "exported_at": ctx.clock(),
        "vault": {k: v for k, v in info.__dict__.items() if k != "size_bytes"},
        "settings": ctx.settings.to_dict(),
    }
    for table in TABLES:
        data[table] = ctx.vault.dump_table(table)
    for row in data["pages"] + data["segments"]:
        for key in ("meta", "keywords"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
    for row in data["facts"]:
        row.pop("norm", None)
    if path is not None:
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_private(Path(path), text.encode("utf-8"))
    return data
