"""Time awareness for retrieval: is a question about time, and which period does it name?"""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta, timezone

_TEMPORAL = re.compile(
    r"\b(when|what (?:date|day|time|year|month)|how long (?:ago|since)|which (?:year|month|day)|"
    r"last (?:week|month|year|weekend|night|time)|yesterday|today|ago|recently|before|after|since|"
    r"first time|date)\b",
    re.IGNORECASE,
)
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH_YEAR = re.compile(
    r"\b(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?,?\s+(\d{4})\b", re.I
)
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b", re.I
)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_SPAN = {"day": 1, "week": 7, "month": 30, "year": 365}


def is_temporal(query: str) -> bool:
    return bool(_TEMPORAL.search(query))


def _day(ts: float) -> datetime:
    moment = datetime.fromtimestamp(ts, tz=timezone.utc)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def time_window(query: str, now: float) -> tuple[float, float] | None:
    """The period a query names, as (start, end) epoch seconds, or None."""
    text = query.lower()
    today = _day(now)
    if "yesterday" in text:
        start = today - timedelta(days=1)
        return start.timestamp(), today.timestamp()
    if re.search(r"\btoday\b|\bthis morning\b|\btonight\b", text):
        return today.timestamp(), now + 1
    for phrase, days in (
        ("last weekend", 7),
        ("last week", 7),
        ("this week", 7),
        ("last month", 31),
        ("this month", 31),
        ("last year", 366),
        ("this year", 366),
    ):
        if phrase in text:  # loose on purpose: people say "last week" of 5 to 14 days ago
            span = days if phrase.startswith("this") else 2 * days
            return (today - timedelta(days=span)).timestamp(), now + 1
    match = _AGO.search(text)
    if match:
        count = _NUMBERS.get(match.group(1), None) or int(match.group(1))
        days = count * _SPAN[match.group(2)]
        centre = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))
        return (centre - slack).timestamp(), (centre + slack + timedelta(days=1)).timestamp()
    match = _MONTH_YEAR.search(query)
    if match:
        month, year = _MONTHS[match.group(1).lower()], int(match.group(2))
        start = datetime(year, month, 1, tzinfo=timezone.utc)
        last = calendar.monthrange(year, month)[1]
        return start.timestamp(), (start + timedelta(days=last)).timestamp()
    match = _YEAR.search(query)
    if match and is_temporal(query):
        year = int(match.group(1))
        return (
            datetime(year, 1, 1, tzinfo=timezone.utc).timestamp(),
            datetime(year + 1, 1, 1, tzinfo=timezone.utc).timestamp(),
        )
    return None


def describe(ts: float) -> str:
    """A date a model and a person read easily: '8 May 2023, 13:56'."""
    moment = datetime.fromtimestamp(ts, tz=timezone.utc)
    return f"{moment.day} {calendar.month_name[moment.month]} {moment.year}, {moment:%H:%M}"


def describe_day(ts: float) -> str:
    """The day only: '8 May 2023'."""
    moment = datetime.fromtimestamp(ts, tz=timezone.utc)
    return f"{moment.day} {calendar.month_name[moment.month]} {moment.year}"
