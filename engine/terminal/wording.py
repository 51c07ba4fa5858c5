"""How the terminal commands write counts, file sizes and dates (the app's counts and sizes
too: one wording for both)."""

from __future__ import annotations

import time


def count(number: int, one: str, many: str = "", *, grouped: bool = False) -> str:
    """'1 fact', '0 facts', '2 profile entries' (`many` where adding an s is wrong);
    `grouped`: '12,000 exchanges'."""
    shown = f"{number:,}" if grouped else str(number)
    return f"{shown} {one if number == 1 else many or one + 's'}"


def size(size_bytes: int) -> str:
    """Bytes as people read a file size, in decimal units as the model lists are: "300 KB",
    "3.0 MB", "98 MB", "4.4 GB"."""
    if size_bytes >= 1e9:
        return f"{size_bytes / 1e9:.1f} GB"
    if size_bytes >= 1e7:
        return f"{size_bytes / 1e6:.0f} MB"
    if size_bytes >= 1e6:
        return f"{size_bytes / 1e6:.1f} MB"
    return f"{max(1, round(size_bytes / 1e3))} KB"


def when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def learned_on(said: float, learned: float) -> str:
    """', learned 2026-11-27' after the day an item was said, when it was learned another day
    (history imported today); '' when it was learned that day."""
    return f", learned {day(learned)}" if learned and day(learned) != day(said) else ""


def iso(timestamp: float) -> str:
    """Epoch seconds as ISO 8601 UTC (2026-11-27T03:26:50Z), as `memoryos mcp` gives dates;
    --json keeps the number beside it for scripts that read it."""
    from datetime import datetime, timezone

    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
