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
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH_NAMES + r")\.?,?\s+(\d{4})\b", re.I
)
_MONTH_DAY_YEAR = re.compile(
    r"\b(" + _MONTH_NAMES + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", re.I
)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
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
    for pattern, order in (
        (_ISO_DAY, (3, 2, 1)),
        (_DAY_MONTH_YEAR, (1, 2, 3)),
        (_MONTH_DAY_YEAR, (2, 1, 3)),
    ):
        match = pattern.search(query)
        if match:
            day, month, year = (match.group(i) for i in order)
            number = int(month) if month.isdigit() else _MONTHS[month.lower()]
            try:
                start = datetime(int(year), number, int(day), tzinfo=timezone.utc)
            except ValueError:
                continue  # "31 February": not a date
            return start.timestamp(), (start + timedelta(days=1)).timestamp()
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


_WEEKDAYS = [name.lower() for name in calendar.day_name]
_RELATIVE = re.compile(
    r"\b(yesterday|last night|today|tonight|this morning|tomorrow|"
    r"(?:last|next) (?:week|weekend|month|year)|"
    r"(?:last|next) (?:" + "|".join(_WEEKDAYS) + r")|"
    r"(?:\d+|a|an|one|two|three|four|five|six) (?:day|week|month|year)s? ago|"
    r"in (?:\d+|two|three|four|five|six) (?:day|week|month|year)s)\b",
    re.IGNORECASE,
)
# "in two weeks", not "in a week": "twice in a week" is how often, not when.
_IN = re.compile(r"in (\d+|two|three|four|five|six) (day|week|month|year)s", re.I)


def _resolve(phrase: str, ts: float) -> str:
    """The absolute date a relative phrase said at `ts` refers to, as people write it."""
    text = phrase.lower()
    today = _day(ts)
    if text in ("yesterday", "last night"):
        return describe_day((today - timedelta(days=1)).timestamp())
    if text in ("today", "tonight", "this morning"):
        return describe_day(today.timestamp())
    if text == "last week":
        return "the week before " + describe_day(today.timestamp())
    if text == "last weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return "the weekend of " + describe_day(saturday.timestamp())
    if text == "last month":
        first = today.replace(day=1) - timedelta(days=1)
        return f"{calendar.month_name[first.month]} {first.year}"
    if text == "last year":
        return str(today.year - 1)
    if text.startswith("last "):  # last <weekday>: the most recent one before today
        back = (today.weekday() - _WEEKDAYS.index(text[5:])) % 7 or 7
        return describe_day((today - timedelta(days=back)).timestamp())
    ahead = _ahead(text, today)
    if ahead:
        return ahead
    match = _AGO.fullmatch(text)
    return _counted(match, today, -1) if match else ""


def _counted(match: re.Match, today: datetime, sign: int) -> str:
    """"two weeks ago" (sign -1) or "in two weeks" (+1): the count and unit `match` holds,
    as precise as the unit ("about" a day for weeks, the month for months, the year)."""
    count = _NUMBERS.get(match.group(1), None) or int(match.group(1))
    unit = match.group(2).lower()
    if unit == "year":
        return str(today.year + sign * count)
    moment = today + sign * timedelta(days=count * _SPAN[unit])
    if unit == "month":
        return f"{calendar.month_name[moment.month]} {moment.year}"
    return ("about " if unit == "week" else "") + describe_day(moment.timestamp())


def _ahead(text: str, today: datetime) -> str:
    """The day a phrase about the future means ("next Tuesday", "tomorrow", "in two weeks"):
    a plan told on Sunday for "next Tuesday" was read a week later as that week's Tuesday."""
    if text == "tomorrow":
        return describe_day((today + timedelta(days=1)).timestamp())
    if text == "next week":
        return "the week after " + describe_day(today.timestamp())
    if text == "next weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
        return "the weekend of " + describe_day(saturday.timestamp())
    if text == "next month":
        first = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
        return f"{calendar.month_name[first.month]} {first.year}"
    if text == "next year":
        return str(today.year + 1)
    if text.startswith("next "):  # next <weekday>: the first one after today
        forward = (_WEEKDAYS.index(text[5:]) - today.weekday()) % 7 or 7
        return describe_day((today + timedelta(days=forward)).timestamp())
    match = _IN.fullmatch(text)
    return _counted(match, today, +1) if match else ""


def resolve_relative(text: str, ts: float) -> str:
    """`text` with each relative date ("yesterday", "last Tuesday", "two weeks ago") followed by
    the absolute date it meant when said at `ts`: "yesterday [7 May 2023]"."""

    def annotate(match: re.Match) -> str:
        resolved = _resolve(match.group(0), ts)
        return f"{match.group(0)} [{resolved}]" if resolved else match.group(0)

    return _RELATIVE.sub(annotate, text)


# What resolve_relative adds, taken out again where stored text is shown to the person (a search
# snippet): " [7 May 2023]", " [the weekend of 6 May 2023]", " [May 2023]", " [2022]"; a snippet
# may hold its highlight marks (\x02, \x03) inside.
_RESOLVED = re.compile(r" \[(?:the week before |the week after |the weekend of |about )?[^\[\]]{0,30}?\d{4}\x03?\]")


def undated(text: str) -> bool:
    """True when `text` holds a relative date ("yesterday") not yet resolved in it."""
    return bool(_RELATIVE.search(text)) and not _RESOLVED.search(text)


def dated(text: str, ts: float) -> str:
    """`text` said at `ts`, its relative dates resolved (resolve_relative), unless that was done
    already: "yesterday" in a fact read a week later says which day it was."""
    return resolve_relative(text, ts) if undated(text) else text


def without_resolved(text: str) -> str:
    """`text` without the dates resolve_relative wrote into it: what the person typed."""
    return _RESOLVED.sub("", text)


def date_phrases(window: tuple[float, float], most: int = 31) -> list[str]:
    """How the days (or, for a long period, the months) of a window are written in resolved
    text ("7 May 2023", "May 2023"), to find what was said about them at another time."""
    start, end = _day(window[0]), datetime.fromtimestamp(window[1], tz=timezone.utc)
    days = (end - start).days + 1
    if days <= most:
        out = []
        day = start
        while day.timestamp() < window[1] and len(out) < most:
            out.append(describe_day(day.timestamp()))
            day += timedelta(days=1)
        return out
    months: list[str] = []
    day = start
    while day.timestamp() < window[1] and len(months) < 13:
        label = f"{calendar.month_name[day.month]} {day.year}"
        if label not in months:
            months.append(label)
        day = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return months
