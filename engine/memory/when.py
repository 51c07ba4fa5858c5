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
    if re.search(r"\b(?:the )?day after tomorrow\b", text):
        start = today + timedelta(days=2)
        return start.timestamp(), (start + timedelta(days=1)).timestamp()
    if re.search(r"\btomorrow\b", text):
        start = today + timedelta(days=1)
        return start.timestamp(), (start + timedelta(days=1)).timestamp()
    if re.search(r"\btoday\b|\bthis (?:morning|afternoon|evening)\b|\btonight\b", text):
        return today.timestamp(), now + 1
    # A named day or weekend ("on Saturday", "this weekend"): the day or days it means, asked
    # now, so that a plan said earlier and dated then ("this Saturday [17 May 2025]") is found.
    match = _NAMED_DAY.search(text)
    if match:
        start, days = _named_day(match.group(0), today, past=_past(text))
        return start.timestamp(), (start + timedelta(days=days)).timestamp()
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
_WEEKDAY = "(?:" + "|".join(_WEEKDAYS) + ")"
# "this Saturday", "on Saturday", "this weekend": a day said without its date. Not "on a
# Saturday", "Saturdays are busy" or "on Saturday mornings": any Saturday, not one day; nor
# "on Monday's report", where a date would split the possessive.
_THIS_OR_ON = (
    r"(?:this|on) " + _WEEKDAY + r"(?! (?:mornings|afternoons|evenings|nights)\b)(?!['’])|"
    r"this weekend(?!['’])"
)
_NAMED_DAY = re.compile(
    r"\b(?:" + _THIS_OR_ON + r"|(?:last|next) " + _WEEKDAY + r"|next weekend)\b", re.I
)
_RELATIVE = re.compile(
    r"\b(yesterday|last night|today|tonight|this (?:morning|afternoon|evening)|tomorrow|"
    r"(?:last|next) (?:week|weekend|month|year)|"
    r"(?:last|next) " + _WEEKDAY + r"|" + _THIS_OR_ON + r"|"
    r"(?:\d+|a|an|one|two|three|four|five|six) (?:day|week|month|year)s? ago|"
    r"in (?:\d+|two|three|four|five|six) (?:day|week|month|year)s)\b",
    re.IGNORECASE,
)
# "in two weeks", not "in a week": "twice in a week" is how often, not when.
_IN = re.compile(r"in (\d+|two|three|four|five|six) (day|week|month|year)s", re.I)


# Words that put a sentence in the past ("I went there on Saturday", "It was fun this weekend"),
# and words that put it in the future whatever else it holds ("I was going to go on Saturday").
# A simple past after a pronoun ("we booked", "I finally visited"), not "I need", "I'm excited"
# (an adjective) or "I've booked" (the present perfect: "I've booked a table on Saturday").
_PAST = re.compile(
    r"\b(?:yesterday|ago|last night|was|were|did|went|came|saw|met|ate|spent|bought|took|"
    r"told|left|won|lost|felt|slept|drove|flew|rode|swam|ran)\b|"
    r"\b(?:i|we|he|she|they|you)(?: \w+ly| just| also| finally)? (?!(?:ne|fe|ble|bre|spe|"
    r"proce|succe|exce|he|se)ed\b)\w+ed\b",
    re.I,
)
_FUTURE = re.compile(
    r"\b(?:will|shall|going to|gonna|plan|plans|planning|hope|hoping|want to|can['’]t wait|"
    r"looking forward)\b|['’]ll\b",
    re.I,
)


def _past(sentence: str) -> bool:
    """Whether a sentence speaks of what happened rather than what is planned."""
    return bool(_PAST.search(sentence)) and not _FUTURE.search(sentence)


def _next_week(today: datetime, weekday: int) -> datetime:
    """`weekday` (0 is Monday) of the calendar week after the one `today` is in: what "next
    Friday" means. Weeks start on Monday, so on Thursday 26 November 2026 "next Friday" is 4
    December (the coming Friday, 27 November, is "this Friday" or "on Friday") and "next
    Monday" 30 November; said on a Friday, "next Friday" is a week later; said on Sunday, the
    last day of its week, "next Friday" is in five days and "next Monday" is tomorrow."""
    return today + timedelta(days=7 - today.weekday() + weekday)


def _named_day(phrase: str, today: datetime, *, past: bool) -> tuple[datetime, int]:
    """The first day, and how many days, a phrase of _NAMED_DAY means on `today`: "this
    Saturday" is the coming one, today on a Saturday; "on Saturday" the coming one after today
    (in a sentence about the past, the last one before today); "next Saturday" and "next
    weekend" the one of the following calendar week (_next_week); "this weekend" the coming or
    current weekend, or in the past the last one."""
    text = phrase.lower()
    if text.endswith("weekend"):
        if text.startswith("next"):
            return _next_week(today, 5), 2
        if past or today.weekday() == 6:
            ahead = -((today.weekday() - 5) % 7)
        else:
            ahead = (5 - today.weekday()) % 7
        return today + timedelta(days=ahead), 2
    which, name = text.split(" ", 1)
    if which == "next":
        return _next_week(today, _WEEKDAYS.index(name)), 1
    forward = (_WEEKDAYS.index(name) - today.weekday()) % 7
    back = (today.weekday() - _WEEKDAYS.index(name)) % 7
    if which == "last" or (which == "on" and past):
        ahead = -(back or 7)
    elif which == "this" and past:
        ahead = -back
    elif which == "this":
        ahead = forward
    else:  # on, of a plan: the coming one after today
        ahead = forward or 7
    return today + timedelta(days=ahead), 1


def _resolve(phrase: str, ts: float, past: bool = False) -> str:
    """The absolute date a relative phrase said at `ts` refers to, as people write it; `past`
    when the sentence it is in speaks of the past (which Saturday "on Saturday" is)."""
    text = phrase.lower()
    today = _day(ts)
    if text in ("yesterday", "last night"):
        return describe_day((today - timedelta(days=1)).timestamp())
    if text in ("today", "tonight", "this morning", "this afternoon", "this evening"):
        return describe_day(today.timestamp())
    if text.startswith(("this ", "on ")):
        day, days = _named_day(text, today, past=past)
        prefix = "the weekend of " if days == 2 else ""
        return prefix + describe_day(day.timestamp())
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
    """The day a phrase about the future means ("next Tuesday", "tomorrow", "in two weeks"),
    from the day it was said, not the day it is read: a plan read a week later names the day
    meant. "next Tuesday" and "next weekend": those of the following week (_next_week)."""
    if text == "tomorrow":
        return describe_day((today + timedelta(days=1)).timestamp())
    if text == "next week":
        return "the week after " + describe_day(today.timestamp())
    if text == "next weekend":
        return "the weekend of " + describe_day(_next_week(today, 5).timestamp())
    if text == "next month":
        first = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
        return f"{calendar.month_name[first.month]} {first.year}"
    if text == "next year":
        return str(today.year + 1)
    if text.startswith("next "):  # next <weekday>
        return describe_day(_next_week(today, _WEEKDAYS.index(text[5:])).timestamp())
    match = _IN.fullmatch(text)
    return _counted(match, today, +1) if match else ""


def resolve_relative(text: str, ts: float) -> str:
    """`text` with each relative date ("yesterday", "last Tuesday", "two weeks ago") followed by
    the absolute date it meant when said at `ts`: "yesterday [7 May 2023]"."""

    def annotate(match: re.Match) -> str:
        past = _past(_sentence_at(text, match.start()))
        resolved = _resolve(match.group(0), ts, past)
        return f"{match.group(0)} [{resolved}]" if resolved else match.group(0)

    return _RELATIVE.sub(annotate, text)


def _sentence_at(text: str, position: int) -> str:
    """The sentence of `text` that holds `position`."""
    start = max(text.rfind(mark, 0, position) for mark in ".!?\n") + 1
    ends = [i for i in (text.find(mark, position) for mark in ".!?\n") if i >= 0]
    return text[start : min(ends) if ends else len(text)]


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
