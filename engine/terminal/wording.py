"""How the terminal commands write counts and dates."""

from __future__ import annotations

import time


def count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


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
