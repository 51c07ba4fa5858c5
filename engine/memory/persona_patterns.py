"""Profile slots read by patterns without an LLM (names, places, likes, values); tastes, habits.
Pets, people, health, birthday, languages and relationship status: persona_life.py; one's work
as most people say it ("I'm a nurse"): persona_work.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.memory import keywords
from engine.memory.clauses import to_clause_end
from engine.memory.persona_health import health_slots
from engine.memory.persona_life import MONTHS, NATIONS_AND_FAITHS, life_slots
from engine.memory.persona_self import self_slots
from engine.memory.persona_work import EMPLOYER_LEAD_INS, occupation
from engine.memory.sentences import sentences
from engine.records import Page

# A taste that moved away from something the person names: "I've switched from coffee to tea",
# "These days I drink tea instead of coffee". Group 1 is the old thing. "Instead of" and
# "rather than" count only beside a word of change or preference: "I took the train instead
# of the bus" is one day's choice, not a change of taste.
_MOVED_AWAY = [
    re.compile(
        r"(?i:\bi(?:['’]ve| have)?(?: \w+)? (?:switched|swapped|changed|gone over|went over)"
        r"(?: over| back)? from) ([^,.;!?]+?)(?= to\b| for\b|[,.;!?]|$)"
    ),
    re.compile(
        r"(?i:^(?=.*\bi\b)(?=.*\b(?:now|nowadays|these days|lately|anymore|any more|prefer\w*|"
        r"switched|started)\b).*?\b(?:instead of|rather than)) ([^,.;!?]+?)"
        r"(?=\s+(?:now|nowadays|these days|lately|anymore|any more)\b|[,.;!?]|$)"
    ),
]
# What the taste moved to (group 1), said with the same words: "I've switched from coffee to
# green tea" -> green tea, "These days I drink tea instead of coffee" -> tea. It ends before a
# reason or a time ("... to tea last month because ...").
_UNTIL_REASON = (
    r"(?=\s+(?:because|since|as|when|after|and|but|so|last|this|recently|now|nowadays|"
    r"these days|lately|anymore|any more|about|around|a few|a while)\b|[,.;!?]|$)"
)
_MOVED_TO = [
    re.compile(
        r"(?i:\bi(?:['’]ve| have)?(?: \w+)? (?:switched|swapped|changed|gone over|went over)"
        r"(?: over| back)? from [^,.;!?]+? to) ([^,.;!?]+?)" + _UNTIL_REASON
    ),
    re.compile(
        r"(?i:^(?=.*\b(?:now|nowadays|these days|lately|anymore|any more|prefer\w*|switched|"
        r"started)\b).*?\bi (?:now |mostly |just |only |usually )?(?:drink|eat|have|use|take|"
        r"prefer|play|read|watch|ride|cook|buy|order)) ([^,.;!?]+?)"
        r"(?= (?:instead of|rather than)\b)"
    ),
]
# A regular practice the person states (group 1: what follows the verb, where the thing is):
# "I need two cups of coffee every morning", "I drink coffee every day". Present tense and a
# word of habit both: "I had coffee with Ana" is one day, not a habit.
_HABIT_VERB = re.compile(
    r"\bi (?:\w+ly |just |still |also |always |usually |normally )?(?:need|drink|have|take|"
    r"get|use|eat|buy|order|smoke|start (?:my|the|each|every) (?:day|morning) with)\b"
    r" ([^,.;!?]+)",
    re.I,
)
_HABIT_WORD = re.compile(
    r"\b(?:(?:every|each) (?:single )?(?:day|morning|evening|night|afternoon|week|weekend|"
    r"lunch|breakfast|dinner|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"daily|always|usually|normally|regularly|(?:a|per) day|mornings|evenings|nights)\b",
    re.I,
)
_NOT_NAMES = {
    "sorry",
    "glad",
    "fine",
    "good",
    "here",
    "not",
    "so",
    "just",
    "really",
    "going",
    "happy",
    "sure",
    "okay",
    "ok",
    "back",
    "excited",
    "tired",
    "busy",
    "home",
    "done",
    "ready",
}
# "I'm American", "I am Catholic": capitalised, yet a nationality or a faith, not a name
# (persona_life.NATIONS_AND_FAITHS).
_NOT_NAMES |= {word.lower() for word in NATIONS_AND_FAITHS}

# (category, slot name, pattern whose group 1 is the value). The lead-in is case-insensitive;
# names and places must be capitalised, which keeps "I'm tired" from becoming a name.
# Places in any script ("Zürich", "São Paulo", "Łódź"): the words are taken here and
# _capitalised_run keeps the capitalised ones, as for names.
_PLACE = r"([^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)*)"
# A name word in any script ("José", "Élodie"), with apostrophes and hyphens inside ("O'Neill",
# "Jean-Luc"); [^\W\d_] is a letter. re has no "upper-case letter" class, so the words are taken
# here and _name keeps the capitalised run; the lookahead lets "I am so glad, I'm Tom" still
# find the second lead-in.
_NAME_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"
_NAME_WORDS = 6  # up to 4 name words with particles between ("Maria de la Cruz")
_PLACE_SLOTS = {"employer", "location", "origin"}
# The words a slot's own pattern reads besides its value ("I live in Porto" is location: Porto):
# a fact made only of these and what the slot holds says nothing the profile does not.
SLOT_WORDS = {
    "name": "name call",
    "occupation": "work working",
    "employer": "work",
    "location": "live living moved relocated based work",
    "origin": "originally grew born raised",
    "age": "old turned",
    "likes": "love like enjoy adore",
    "dislikes": "hate dislike stand",
}
_SLOT_PATTERNS: list[tuple[str, str, re.Pattern]] = [
    (
        "identity",
        "name",
        re.compile(
            r"(?i:\b(?:my name is|call me|i['’]m|i am))\s+"
            rf"(?=({_NAME_WORD}(?: {_NAME_WORD}){{0,{_NAME_WORDS - 1}}}))"
        ),
    ),
    (
        "identity",
        "occupation",
        re.compile(
            r"\bi (?:work|am working|'m working) as (?:an? )?([^,.;!?]+?)(?= in [A-Z]| at [A-Z]| for [A-Z]|[,.;!?]|$)",
            re.I,
        ),
    ),
    ("identity", "employer", re.compile(r"(?i:\bi work (?:at|for)) " + _PLACE)),
    # "I'm a nurse at St Mary's", "I got a job at Spotify" (persona_work.py)
    *[("identity", "employer", re.compile(lead + _PLACE)) for lead in EMPLOYER_LEAD_INS],
    (
        "identity",
        "location",
        re.compile(r"(?i:\bi (?:live|am living|'m living|moved|relocated) (?:in|to)) " + _PLACE),
    ),
    ("identity", "location", re.compile(r"(?i:\bi(?:['’]m| am) (?:now )?based in) " + _PLACE)),
    ("identity", "location", re.compile(r"(?i:\bi work [^,.;!?]*? in) " + _PLACE)),
    ("identity", "origin", re.compile(r"(?i:\bi(?:'m| am) (?:originally )?from) " + _PLACE)),
    # "I grew up in Porto", "I was born in Lisbon"; not "I was born in May 1990"
    (
        "identity",
        "origin",
        re.compile(
            r"(?i:\bi (?:grew up|was born|was raised|was born and raised) in) "
            rf"(?!(?:{MONTHS})\b)" + _PLACE
        ),
    ),
    (
        "preference",
        "likes",
        re.compile(r"\bi (?:really |absolutely )?(?:love|like|enjoy|adore) ([^,.;!?]+)", re.I),
    ),
    (
        "preference",
        "dislikes",
        re.compile(
            r"\bi (?:really )?(?:hate|dislike|can't stand|don't like|do not like) "
            r"(?![^,.;!?]*\bany ?more\b)([^,.;!?]+)",
            re.I,
        ),
    ),
    (  # a taste that changed: it replaces the old "likes" (long_term.LongTermMemory.set_slot)
        "preference",
        "no longer likes",
        re.compile(r"\bi (?:no longer|don't really|do not really) (?:like|love|enjoy) ([^,.;!?]+)",
                   re.I),
    ),
    (  # "I don't like running any more"
        "preference",
        "no longer likes",
        re.compile(
            r"\bi (?:don['’]t|do not) (?:like|love|enjoy) ([^,.;!?]+?)(?= any ?more\b)",
            re.I,
        ),
    ),
    (  # "I stopped running in the mornings", not "I stopped by the shop"
        "preference",
        "stopped",
        re.compile(
            r"\bi(?:['’]ve| have)? (?:stopped|quit) (\w+ing\b[^,.;!?]*?)" + _UNTIL_REASON, re.I
        ),
    ),
    (  # "I've given up coffee", not "I gave up on the course"
        "preference",
        "gave up",
        re.compile(r"\bi(?:['’]ve| have)? (?:given|gave) up (?!on\b)([^,.;!?]+?)" + _UNTIL_REASON,
                   re.I),
    ),
    (  # "I prefer swimming at Pirbadet now"; "instead of" is a switch (below)
        "preference",
        "prefers",
        re.compile(
            r"\bi (?:now |really |much |still |definitely |mostly |also )?prefer "
            r"(?![^,.;!?]*\b(?:instead of|rather than)\b)([^,.;!?]+?)"
            r"(?=\s+(?:to|over)\b|" + _UNTIL_REASON[3:],
            re.I,
        ),
    ),
    *(("preference", "switched away from", pattern) for pattern in _MOVED_AWAY),
    # and what it moved to: the old taste's entry and facts go (long_term._supersede_opposite),
    # the new one is said
    *(("preference", "switched to", pattern) for pattern in _MOVED_TO),
    (
        "value",
        "values",
        re.compile(
            r"\b(?:i care (?:a lot )?about|what matters (?:most )?to me is|i believe in) ([^,.;!?]+)",
            re.I,
        ),
    ),
]


# Lower-case words inside a name ("Ludwig van Beethoven", "Maria de la Cruz"), kept only when a
# capitalised word follows them.
_NAME_PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le"}
_POSSESSIVE = re.compile(r"['’]s$")
# "I'm Tom I work ...": a capitalised first-person word ends the name.
_NOT_NAME_WORDS = {"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll"}


def _capitalised(word: str) -> bool:
    """Upper-case start, or after an apostrophe or hyphen ("d'Souza", "al-Rashid")."""
    return any(part[:1].isupper() for part in re.split(r"['’-]", word))


def _capitalised_run(words: str) -> str | None:
    """The capitalised words at the start of `words` ("São Paulo" of "São Paulo now"), or None
    where the first is not capitalised ("I live in the city")."""
    kept = []
    for word in words.split():
        if not word[:1].isupper():
            break
        kept.append(word)
    return " ".join(kept) or None


def _name(words: str) -> str | None:
    """The capitalised run at the start of `words` (at most 4 name words), or None where it
    does not start with a name ("I'm tired", "I am Sorry")."""
    parts = words.split()
    if not parts or not parts[0][:1].isupper() or parts[0].lower() in _NOT_NAMES:
        return None
    kept, named = [parts[0]], 1
    for i, word in enumerate(parts[1:], 1):
        if word.lower() in _NOT_NAME_WORDS or named == 4:
            break
        if _capitalised(word):
            kept.append(word)
            named += 1
        elif word.lower() in _NAME_PARTICLES and any(_capitalised(w) for w in parts[i + 1 : i + 3]):
            kept.append(word)
        else:
            break
    while kept[-1].lower() in _NAME_PARTICLES:
        kept.pop()
    if any(_POSSESSIVE.search(w) for w in kept):
        return None  # "I'm Tom's mum", "I am Priya Raman's sister": someone else's name
    return " ".join(kept)


@dataclass(frozen=True)
class SlotCandidate:
    category: str
    name: str
    value: str


def normalise_text(text: str) -> str:
    return " ".join(keywords.tokens(text))


def _named_speaker(page: Page, side: str) -> str | None:
    key = "user_speaker" if side == "user" else "agent_speaker"
    name = page.meta.get(key)
    return str(name) if name else None


def moved_away(text: str) -> bool:
    """Whether `text` says the person's taste moved away from something it names."""
    return any(p.search(s) for s in sentences(text) for p in _MOVED_AWAY)


def habits(text: str) -> list[str]:
    """What `text` says the person does regularly, as the words after the verb ("two cups of
    coffee every morning before I can think" of "I need two cups of coffee every morning
    before I can think"); none for a sentence without a word of habit ("I had coffee with
    Ana")."""
    return [
        match.group(1)
        for sentence in sentences(text)
        if _HABIT_WORD.search(sentence) and not sentence.endswith("?")
        for match in _HABIT_VERB.finditer(sentence)
    ]


def places_lived(text: str) -> list[str]:
    """The places `text` says the person lives, works or is based in ("I live in Lyon", "I work
    at a bakery in Lyon"); not a place it only mentions ("I visited Lyon")."""
    return [slot.value for slot in _slots(text) if slot.name == "location"]


def slot_candidates(page: Page) -> list[SlotCandidate]:
    """Profile slots read from the person's own words by patterns (no LLM)."""
    if _named_speaker(page, "agent"):
        return []  # a transcript between two people: no single "user" profile to fill
    return _slots(page.user_input)


def slots_said(text: str) -> list[SlotCandidate]:
    """Profile slots read by the same patterns from words the person typed as a fact (`facts
    add`, /remember): what they fill said in an exchange."""
    return _slots(text)


def _slots(text: str) -> list[SlotCandidate]:
    found: list[SlotCandidate] = []
    for sentence in sentences(text):
        if sentence.endswith("?"):
            continue
        start = len(found)
        for category, name, pattern in _SLOT_PATTERNS:
            for match in pattern.finditer(sentence):
                value = match.group(1).strip(" '\"").rstrip()
                if value and (name == "name" or name in _PLACE_SLOTS):
                    # cut to the name or place first: "I moved to Glasgow last weekend and the
                    # flat is still full of boxes" is a place of one word, not of eleven
                    full = _name(value) if name == "name" else _capitalised_run(value)
                    if full is None:
                        continue
                    value = full
                else:
                    # "I work as a bookbinder and I like strong coffee": the occupation is
                    # "bookbinder", not the sentence up to the full stop
                    value = to_clause_end(value)
                if not value or len(value.split()) > 8:
                    continue
                if category == "preference":
                    obj = " ".join(keywords.content_words(value)[:4])
                    if not obj:
                        continue
                    found.append(SlotCandidate("preference", obj, f"{name} {value}"))
                else:
                    found.append(SlotCandidate(category, name, value))
        found[start:] = _switch_from(_not_amounts(found[start:]))
        found.extend(SlotCandidate("identity", "occupation", job) for job in occupation(sentence))
        for read in (life_slots, health_slots, self_slots):
            found.extend(SlotCandidate(*slot) for slot in read(sentence))
    return found


_AN_AMOUNT = re.compile(
    r"\d|(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|half|a dozen)\b",
    re.I,
)


def _not_amounts(said: list[SlotCandidate]) -> list[SlotCandidate]:
    """One sentence's slots less a switch between two amounts: "I take 100 micrograms now
    instead of 88" changes a dose (long_term.Persona.remember_fact replaces the older value),
    not a taste, and made the entry "micrograms: switched to 100 micrograms now". Where the
    sentence says a switch, "prefer" is part of it ("I prefer tea instead of coffee now")."""
    switches = ("switched to ", "switched away from ")
    objects = [
        c.value.removeprefix(prefix) for c in said for prefix in switches
        if c.value.startswith(prefix)
    ]  # fmt: skip
    if any(_AN_AMOUNT.match(thing) for thing in objects):
        said = [c for c in said if not c.value.startswith(switches)]
    if any(c.value.startswith("switched to ") for c in said):
        said = [c for c in said if not c.value.startswith("prefers ")]
    return said


def _switch_from(said: list[SlotCandidate]) -> list[SlotCandidate]:
    """One sentence's slots, where it names both sides of a switch ("I've switched from coffee
    to green tea"), with the new taste saying what it replaced: "switched to green tea from
    coffee". That entry is the current one (long_term.Persona.set_slot retires "switched away
    from coffee" said with it), so the profile shows the new habit and the old in one line."""
    away = "switched away from "
    old = next((c.value[len(away):] for c in said if c.value.startswith(away)), None)
    if old is None:
        return said
    return [
        SlotCandidate(c.category, c.name, f"{c.value} from {old}")
        if c.value.startswith("switched to ") else c
        for c in said
    ]
