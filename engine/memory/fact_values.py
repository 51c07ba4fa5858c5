"""The numbers in a fact: two statements alike but for a number, a time or a date are not the
same fact, and said of a present state the newer value replaces the older (no LLM)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.memory import keywords, when

_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {
    word: str(10 * tens)
    for tens, word in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)
} | {word: word for word in "hundred thousand million billion half dozen".split()}
_DATE_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
# what may follow a number inside one value: 3 pm, 21st, 5th
_NUMBER_TAILS = frozenset("am pm st nd rd th".split())
# A number after these names which thing is meant ("plant number 7", "garden bed 10", "room
# 12", "chapter 3"), not how much of it: two such facts are about two things. A noun missing
# here only keeps both facts current, which loses nothing.
_LABELS = frozenset(
    keywords.stem(word)  # compared with the stemmed words before the number
    for word in """
    number no nr num id bed room floor flat apartment unit suite block lot plot seat row gate
    platform table chapter page verse episode season volume issue part section step stage level
    round lane track route bus line bay box locker desk station zone ward door house building
    terminal exit
    """.split()
)
# Past forms that end in no "-ed" (common ones; a miss only keeps an old value current).
_IRREGULAR_PAST = frozenset(
    """
    was were did had went got bought made took gave came saw ran ate drank paid sold spent won
    lost met left found told thought brought caught taught sent built felt kept slept swam
    began drove rode wrote flew grew knew threw drew wore broke chose spoke stole woke froze
    forgot became held heard sat stood understood fell fought hung lay led fed meant rose sang
    shot shook sought stuck struck swore swept swung tore wept hid bit bent blew dealt dug
    lent lit slid spun ago yesterday
    """.split()
)
# after these an "-ed" word says a state ("I'm married", "it is booked"), not an event
_BE = frozenset("am is are i'm you're we're they're he's she's it's that's be being been".split())


def _value(token: str) -> str | None:
    """`token` as a value ("two" -> "2"), or None where it is no number, time or date."""
    if token.isdigit():
        return token.lstrip("0") or "0"
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token]
    return token if token in _DATE_WORDS else None


def _read(text: str) -> tuple[tuple[str, ...], list[tuple[str, ...]], list[bool]]:
    """(template, values, labels): the words with each run of number / time / date words as
    "#" and the others stemmed; the runs themselves ("8:30" is ("8", "30")); whether each run
    follows a label word."""
    template: list[str] = []
    values: list[tuple[str, ...]] = []
    labels: list[bool] = []
    run: list[str] = []
    for token in keywords.tokens(text):
        value = _value(token)
        if value is None and run and token in _NUMBER_TAILS:
            value = token
        if value is None:
            if run:
                values.append(tuple(run))
                run = []
            template.append(_unit(token))  # "kilos" and "kg" alike
            continue
        if not run:
            labels.append(bool(template) and template[-1] in _LABELS)
            template.append("#")
        run.append(value)
    if run:
        values.append(tuple(run))
    return tuple(template), values, labels


def _as_said(text: str) -> str:
    """`text` without the days written into a fact added by hand ("yesterday [26 November
    2026]"): what changes is read from the words as said, as in a fact learned from an
    exchange (stored undated). same_values keeps them: two days are two events."""
    return when.without_resolved(text)


def same_values(one: str, other: str) -> bool:
    """Whether two statements hold the same numbers, times and dates, in the same order. A
    sentence embedder scores "I take 20 mg" and "I take 40 mg" as near-identical (0.99 with
    MiniLM): without this check the second was merged into the first and its dose lost."""
    return _read(one)[1] == _read(other)[1]


def _past_event(text: str) -> bool:
    """Whether the statement tells of something done ("I bought", "I paid", "we went"): each
    such event can be true beside another with a different number, where a present state
    ("I take", "school starts", "I am") holds one value at a time."""
    previous = ""
    for token in keywords.tokens(text):
        if token in _IRREGULAR_PAST:
            return True
        regular = len(token) >= 4 and token.endswith("ed") and not token.endswith("eed")
        if regular and token != "hundred" and previous not in _BE:
            return True
        previous = token
    return False


def value_changed(old: str, new: str) -> bool:
    """Whether `new` says what `old` says of the same subject with another value, so that the
    newer of the two replaces the other: the same words (compared stemmed) with exactly one
    number, time or date changed; not a label ("plant number 7" is another plant); not a past
    event ("I bought 3 apples" twice are two purchases); a word of content beside the value.
    Anything else keeps both facts, which loses nothing. Read as said (_as_said)."""
    old_template, old_values, old_labels = _read(_as_said(old))
    new_template, new_values, _ = _read(_as_said(new))
    if old_template != new_template or len(old_values) != len(new_values):
        return False
    changed = [i for i, (a, b) in enumerate(zip(old_values, new_values, strict=True)) if a != b]
    if len(changed) != 1 or old_labels[changed[0]]:
        return False  # several values changed: another occasion ("9:15 on Tuesday"), kept
    content = [w for w in old_template if w != "#" and w not in keywords.STOPWORDS]
    return bool(content) and not _past_event(old) and not _past_event(new)


# What says that a value changed: a word of time now ("my dose is now 75 mg"), or a verb of
# change ("we moved the meeting to Friday"). The old value, where named, follows "instead of",
# "rather than" or a change's "from" ("my dose went up from 50 to 75 mg"; not "I work from 9
# to 5", which names two ends of one value).
_NOW = frozenset(
    "now nowadays currently anymore changed moved increased decreased raised lowered reduced "
    "upped switched".split()
)
_DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# An amount, a time or a day: "100", "2.5", "8:30", "two", "Friday", "March" (a month with its
# capital: "may" is mostly a verb).
_AMOUNT = (
    r"\b(\d+(?:[.,:]\d+)?|(?i:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + "|" + "|".join(_DAYS) + r")|" + _MONTHS + r")\b"
)
_NAMED_OLD = re.compile(
    r"(?i:\b(?:instead of|rather than|(?:changed|moved|switched|increased|decreased|raised|"
    r"lowered|reduced|upped|up|down)(?: [\w']+){0,4}? from))\s+" + _AMOUNT
)
_CLAUSE = re.compile(
    r"[;!?()]|[,:](?!\d)|\s[-–—]\s|(?i:\b(?:since|because|after|as|when|but|so)\b)"
)
# Verbs said of any amount ("I take 100 micrograms", "I have 2 cats") and the words of change:
# they do not tell two things apart, where "weigh", "dose" or "meeting" do.
_NOT_SUBJECT = frozenset(
    keywords.stem(word)
    for word in [*_NOW, *"take use need drink eat get put give keep instead rather".split()]
)


# Spellings of one unit: "100 mcg" and "88 micrograms" count the same thing, and so do "70 kg"
# and "72 kilos". Each group is read as its first word. A unit missing here is compared as
# written, which only keeps both facts current.
_UNIT_SPELLINGS = """
    microgram micrograms mcg ug | milligram milligrams mg | gram grams g | kilogram kilograms kg
    kgs kilo kilos | pound pounds lb lbs | millilitre millilitres milliliter milliliters ml |
    litre litres liter liters l | centimetre centimetres centimeter centimeters cm | metre
    metres meter meters | kilometre kilometres kilometer kilometers km kms | mile miles mi |
    minute minutes min mins | hour hours hr hrs h | second seconds sec secs | calorie calories
    kcal
"""
_UNIT_GROUPS = [group.split() for group in _UNIT_SPELLINGS.split("|")]
_UNITS = {keywords.stem(word): group[0] for group in _UNIT_GROUPS for word in group}
_SPELLINGS = {group[0]: group for group in _UNIT_GROUPS}


def _unit(word: str) -> str:
    """What `word` counts, one name for each spelling of a unit ("mcg" -> "microgram"); the
    stem of any other word."""
    stem = keywords.stem(word)
    return _UNITS.get(stem, stem)


@dataclass(frozen=True)
class _Amount:
    value: str
    kind: str  # the unit (_unit: "microgram"), or "day", "month", "time"
    start: int = field(compare=False, default=0)


def _amounts(text: str) -> list[_Amount]:
    """The amounts, times and days `text` states, each with what it counts: "100 micrograms"
    is (100, microgram), "3 pm" and "8:30" a time, "Friday" a day; a bare number counts
    nothing ("instead of 88") and is left out."""
    found = []
    for match in re.finditer(_AMOUNT + r"(?:\s+([A-Za-z]+))?", text):
        number, unit = match.group(1).lower(), (match.group(2) or "").lower()
        if number in _DATE_WORDS:
            kind = "day" if number in _DAYS else "month"
            found.append(_Amount(number, kind, match.start()))
        elif ":" in number or unit in ("am", "pm"):
            found.append(_Amount(number, "time", match.start()))
        elif unit and unit not in keywords.STOPWORDS and unit not in _NOW:
            value = _value(number) or number.replace(",", ".")
            found.append(_Amount(value, _unit(unit), match.start()))
    return found


def _subject(text: str) -> set[str]:
    """The stemmed words of `text` that say what its values are of: not the values, what they
    count, the words of change, or a verb said of any amount."""
    counted = {a.kind for a in _amounts(text)}
    return {
        word for word in keywords.normalise(keywords.content_words(text))
        if _unit(word) not in counted and word not in _NOT_SUBJECT and _value(word) is None
    }  # fmt: skip


# Who a statement's values belong to: the person ("I now weigh 70 kg", "we sleep 8 hours") or
# a thing they name ("My suitcase weighs 20 kg", "we moved the meeting to Friday"), told by
# the nearest of these words before the first word of its subject.
_PERSON = frozenset("i i'm i've i'd we we're we've".split())
_THING = frozenset("my our your his her their its the a an this that these those".split())


def _of_person(text: str, subject: set[str]) -> bool | None:
    """Whether the values `text` states are the person's own measure, as opposed to a thing's
    (see _PERSON); None where it names no subject or neither word comes before it."""
    holder = None
    for token in keywords.tokens(text):
        if keywords.stem(token) in subject:
            return None if holder is None else holder in _PERSON
        if token in _PERSON or token in _THING:
            holder = token
    return None


def _same_holder(change: str, subject: set[str], other: str) -> bool:
    """Whether `change` (its value part, with that part's `subject`) and `other` give values
    of the same holder: "I now weigh 70 kg" is not of "My suitcase weighs 20 kg", though both
    weigh. Where either names no subject, the other checks decide."""
    part = next((p for p in _CLAUSE.split(other) if _amounts(p)), other)
    one, two = _of_person(change, subject), _of_person(part, _subject(part))
    return one is None or two is None or one == two


def search_words(text: str) -> list[str]:
    """Words that find the facts `text` may give another value, or be given one by (see
    `replaces`): what its values count and what they are of; none where it states no amount,
    time or day."""
    text = _as_said(text)
    amounts = _amounts(text)
    if not amounts:
        return []
    counted = {a.value if a.kind in ("day", "month") else a.kind for a in amounts}
    spelled = {word for kind in counted for word in _SPELLINGS.get(kind, ())}  # "mcg" too
    named = _NAMED_OLD.search(text)
    found = counted | spelled | _subject(text) | ({named.group(1).lower()} if named else set())
    return sorted(found)


def replaces(change: str, other: str) -> bool:
    """Whether `change` gives the thing `other` states another value: "I take 100 micrograms
    now instead of 88" of "My levothyroxine is now 88 micrograms"; "my dose is now 75 mg" of
    "My levothyroxine dose is 50 mg"; "we moved the meeting to Friday instead of Monday" of
    "Our team meeting is on Monday". Where the old value is named, `other` must hold it,
    counting the same thing, and share a word of the subject where `change` names one (a day
    always: "I swim on Monday" is another thing). Where it is not named, `change` says "now"
    or a verb of change, and every word of its subject is in `other`. Either way both give
    values of one holder: "I now weigh 70 kg" leaves "My suitcase weighs 20 kg" (_same_holder).
    A unit counts the same however it is spelled ("mcg", "micrograms"). Anything else keeps
    both facts, which loses nothing. Read as said (_as_said)."""
    change, other = _as_said(change), _as_said(other)
    named = _NAMED_OLD.search(change)
    if not named and not set(keywords.tokens(change)) & _NOW:
        return False
    new, held = _amounts(change), _amounts(other)
    # the subject is read in the part that says the new value: "My levothyroxine is now 88
    # micrograms, since the last blood test" is of levothyroxine, not of a blood test
    part = next((p for p in _CLAUSE.split(change) if _amounts(p) or _NAMED_OLD.search(p)), "")
    subject = _subject(part)
    shared = subject & keywords.normalise(keywords.content_words(other))
    if not _same_holder(part, subject, other):
        return False
    if named:
        said_old = [a for a in new if a.start == named.start(1)]
        new = [a for a in new if a.start != named.start(1)]
        if not new:
            return False
        old = said_old[0] if said_old else _Amount(
            _value(named.group(1).lower()) or named.group(1).replace(",", "."), new[0].kind
        )
        if old not in held or any(a in held for a in new):
            return False
        return bool(shared) if old.kind in ("day", "month", "time") or subject else True
    if not subject or shared != subject:
        return False
    kinds = {a.kind for a in new}
    return any(a.kind in kinds for a in held) and not any(a in held for a in new)
