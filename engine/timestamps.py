"""The one place text timestamps become epoch seconds: ISO 8601, the reference's and LoCoMo's formats."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Any

from engine.errors import InvalidInputError

EARLIEST = datetime(1900, 1, 1, tzinfo=timezone.utc).timestamp()
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc).timestamp()

# Tried in order after ISO 8601 (which also covers the reference's "2025-05-01 12:00:00").
# Month names are matched in English whatever the locale: see _english_month below.
_FORMATS = (
    "%I:%M %p on %d %B, %Y",  # LoCoMo: "1:56 pm on 8 May, 2023"
    "%I:%M %p on %d %B %Y",
    "%I:%M %p on %B %d, %Y",
    "%I:%M %p, %d %B %Y",
    "%d %B, %Y %I:%M %p",
    "%d %B %Y %I:%M %p",
    "%B %d, %Y %I:%M %p",
    "%d %B %Y %H:%M:%S",
    "%d %B %Y %H:%M",
    "%B %d, %Y %H:%M:%S",
    "%B %d, %Y %H:%M",
    "%d %B, %Y",  # "8 May, 2023"
    "%d %B %Y",
    "%B %d, %Y",  # "May 8, 2023"
    "%B %d %Y",
    "%Y/%m/%d %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d",
    "%Y.%m.%d %H:%M:%S",
    "%Y.%m.%d",
)
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH_WORD = re.compile(r"[A-Za-z]+\.?")
_NUMBER = re.compile(r"\d{6,}(\.\d+)?")  # epoch seconds; a bare year is not one
EXAMPLES = "'2025-05-01T12:00:00+02:00', '2025-05-01 12:00:00' or '1:56 pm on 8 May, 2023'"


def parse_timestamp(value: Any, default: float | None = None) -> float:
    """Epoch seconds from a number, a datetime or a date text; local time when no zone is given.

    Text may be ISO 8601 ("2025-05-01T12:00:00Z", "2025-05-01 12:00:00", "2025-05-01"), a
    number of epoch seconds, or a written date such as LoCoMo's "1:56 pm on 8 May, 2023",
    "8 May, 2023" or "May 8, 2023". Anything else raises InvalidInputError naming the value.
    None (or an empty text) gives `default`, and an error when there is no default.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is None:
            raise InvalidInputError("a timestamp is required")
        return float(default)
    if isinstance(value, bool):
        raise InvalidInputError("timestamp must be a number, a datetime or a date text")
    if isinstance(value, datetime):
        seconds = value.timestamp()  # a naive datetime is local time, as Python means it
    elif isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        seconds = _parse_text(value)
    else:
        raise InvalidInputError(
            f"timestamp must be a number, a datetime or a date text, not {type(value).__name__}"
        )
    if not math.isfinite(seconds) or not EARLIEST <= seconds < LATEST:
        raise InvalidInputError(
            f"timestamp {_show(value)} is out of range: dates must lie between 1900 and 2200"
        )
    return seconds


def _parse_text(text: str) -> float:
    cleaned = " ".join(text.replace("\u202f", " ").replace("\u00a0", " ").split())
    if _NUMBER.fullmatch(cleaned):
        return float(cleaned)
    try:
        return datetime.fromisoformat(cleaned.replace("z", "Z").replace("Z", "+00:00")).timestamp()
    except ValueError:
        pass
    english = _MONTH_WORD.sub(_english_month, cleaned)
    for fmt in _FORMATS:
        try:
            return datetime.strptime(english, fmt).timestamp()
        except ValueError:
            continue
    raise InvalidInputError(
        f"timestamp {_show(text)} is not a date MemoryOS can read: use {EXAMPLES}"
    )


def _english_month(match: re.Match) -> str:
    """Month names and abbreviations as full English names, so strptime's locale does not matter."""
    word = match.group(0).rstrip(".").lower()
    if len(word) >= 3:
        for month in _MONTHS:
            if month.startswith(word):
                return month.capitalize()
    if word in ("am", "pm"):
        return word.upper()
    return match.group(0)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
