"""Profile entries about oneself, read by patterns (no LLM): birthday and age, the relationship
status, children, pronouns, favourites, what one is learning, the languages one speaks."""

from __future__ import annotations

import re

from engine.memory.clauses import to_clause_end
from engine.memory.persona_life import IDENTITY, LANGUAGES, MONTHS, PEOPLE

_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = rf"(?:(?:the )?{_DAY} (?:of )?(?:{MONTHS})|(?:{MONTHS}) (?:the )?{_DAY})\b"
# "My birthday is on the 3rd of September", "my birthday's March 14th", "I was born on 2 May
# 1990" (the year kept), "my birthday is on the 3rd of september" (the month written as a
# month); not "my birthday is next week".
_BIRTHDAY = re.compile(
    rf"(?i:\bmy birthday(?:['’]s| is)(?: on)? |\bi was born on )"
    rf"((?i:{_DATE})(?:,? (?:19|20)\d\d\b)?)"
)
# "I'm married", "I'm happily married to Tom", "I got engaged last week", "I'm single again",
# "I'm divorced": one slot, the newest replacing the old. Not "I'm engaged in a project", nor
# "single-handedly".
_STATUS = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:now |happily |recently |newly |still |finally |officially )?"
    r"|\bi(?:['’]ve| have)? (?:just |recently |finally )?got )"
    r"(?i:(married|single|divorced|engaged|widowed|separated))"
    r"(?![\w-])(?! (?:in|with|by|out|on)\b)"
)
# "I'm a single mum", "I'm 34 and a single dad": the status too. Not "as a single parent" (a plan:
# "It'll be tough as a single parent").
_SINGLE_PARENT = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:now |still |[\w-]+ and )?a (single) "
    r"(?:mum|mom|mother|dad|father|parent))\b"
)
# The age: "I'm 34", "I am 34 years old", "I'm thirty-four", "I just turned 40", "I turned 40 last
# week". One slot, the newest replacing the old; true on the day it was said, so a model is shown
# that day with it (retrieval_facts.dated_profile) and can tell the age a year on. Not "I'm 5
# minutes late", "I'm 34 weeks pregnant", "I'm 100% sure", "I'm 6'2", "I'm fifty-fifty on it",
# "I'm turning 30 next month" (not yet), "I'm 12 and a half hours in", nor an age out of _AGES.
_AGE_WORDS = (
    r"(?:thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_AGE_NUMBER = rf"(\d{{2,3}}|(?i:{_AGE_WORDS}))(?: (?i:years?|yrs) (?i:old|of age|young))?"
_AGE = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:now |only |just )?)" + _AGE_NUMBER
    + r"(?=\s*(?:[,.;!?]|$|(?i:and|but|so|too|now|today|this year|btw)\b))(?! and a half)"
)
_TURNED = re.compile(
    r"(?i:\bi(?:['’]ve| have)? (?:just |finally |recently )?turned )" + _AGE_NUMBER
    + r"(?=\s*(?:[,.;!?]|$|(?i:and|but|so|too|today|yesterday|last|this|on|in)\b))"
)
_AGES = range(10, 121)
# Children by number: "I have two kids", "we've got three children", "I'm a mother of two" ->
# "children: two kids", "children: two". One slot, the newest replacing the old. Not "I have
# two kids in my class" (a teacher's), "I have two kids' bikes".
# By kind too: "I have a son", "we have a boy and a girl", "I've got two sons and a daughter"
# (one entry, tried first: not also "two sons"); not "I have a girl's name in mind", "I have a boy
# band poster".
_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|\d)"
_ONE_KIND = r"(?:an?|one|two|three|four|\d) (?:son|daughter|boy|girl|stepson|stepdaughter)s?"
_CHILDREN = re.compile(
    r"(?i:\b(?:i|we)(?:['’]ve got| have got| have) )"
    rf"((?i:{_ONE_KIND}(?:,? and {_ONE_KIND})?)"
    r"(?=[,.;!?]|$| (?i:and|aged|who|now|both|at home|at university)\b)"
    rf"|(?i:{_COUNT}) (?i:kids|children|sons|daughters|boys|girls|grandchildren|grandkids)"
    r"(?=[,.;!?]|$| (?i:and|aged|who|under|now|both|of (?:my|our) own|at home)\b))"
)
_PARENT_OF = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:a |the )?(?:proud )?(?:mum|mom|mother|dad|father|parent) of "
    rf"({_COUNT}))(?=[,.;!?]|$| (?i:and|now|kids|children|boys|girls)\b)"
)
# "My pronouns are she/her", "I use they/them pronouns".
_PRONOUNS = re.compile(
    r"(?i:\bmy pronouns are |\bi use (?=\w+/\w+(?:/\w+)? pronouns))"
    r"((?i:he|she|they|ze|xe|it|him|her|them|his|hers|theirs|any)"
    r"(?:/(?i:he|she|they|ze|xe|it|him|her|them|his|hers|theirs|any|zir|xem))+)\b"
)
# A favourite: "My favourite colour is blue", "my favorite band is Radiohead", "My all-time
# favourite films are Alien and Heat". Filed under what it is a favourite of, one each, the
# newest replacing the old. Not a moment ("my favourite part was the ending", "my favourite
# thing about Paris is ..."), nor a past one ("my favourite toy was a bear").
_FAVOURITE = re.compile(
    r"(?i:\bmy (?:all-time |absolute |very |new )?(favou?rite) )"
    r"([^\W\d_][\w-]*(?: [^\W\d_][\w-]*)?)"
    r"(?i: (?:is|are|has to be|has got to be)(?: probably| definitely| still| now)? )"
    r"([^,.;!?]+)"
)
# What one is learning: "I'm learning Spanish", "I started learning the ukulele", "I'm learning
# to drive" -> "learning Spanish" (several stand side by side). Not "I'm learning a ton", "I'm
# learning that ...", "I'm learning to accept it" (a lesson of life, not a skill).
_LEARNING = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:currently |now |still |slowly |finally |also )?learning "
    r"|\bi(?:['’]ve| have)? (?:just |recently |finally )?(?:started|began|begun) learning )"
    r"(?!(?i:a lot|a ton|a bit|loads|lots|heaps|so much|more|that|about|from|what|the hard way|"
    r"every|with|to (?:deal|live|accept|trust|love|be|let|say|forgive|cope|appreciate|listen)|"
    r"how (?:much|important|to (?:deal|live|accept|cope|be)))\b)"
    r"([^\W\d_][^,.;!?]*)"
)
_AND_MORE = re.compile(r"(?i:,? and (?:my|our|it|its|it['’]s|i|that|this|so)\b.*)$")
_NOW_AFTER = re.compile(r"(?i:,? (?:now|these days|at the moment|again|for sure|obviously))+$")
# The favourite said first: "Blue is my favourite colour", "Radiohead are my all-time favourite
# band"; not "I think blue is my favourite colour" (who says it is no favourite), "That is my
# favourite part".
_FAVOURITE_FIRST = re.compile(
    r"^([^\W\d_][\w'’-]*(?: [\w'’-]+){0,3}) (?i:is|are|has always been|have always been) "
    r"(?i:my (?:all-time |absolute |very )?(favou?rite)) "
    r"([^\W\d_][\w-]*(?: [^\W\d_][\w-]*)?)(?=[,.;!?]|$)"
)
_NOT_SUBJECTS = {
    "i", "we", "it", "that", "this", "these", "those", "he", "she", "they", "you", "there", "what",
    "which", "who", "here", "mine", "so", "and", "but",
}  # fmt: skip
_NOT_FAVOURITE = {
    "part", "thing", "bit", "moment", "memory", "way", "one", "ones", "kind", "sort", "time", "day",
}  # fmt: skip
_NOT_LAST = {"of", "about", "to", "in", "for", "is", "are"}
_LANGUAGE = "|".join(LANGUAGES)
_LEVEL = r"(?:(?:fluent|good|basic|some|decent|native|a little|a bit of|a little bit of) )?"
# "I speak Dutch and some French", "I can speak English, German or Italian"; languages by
# name only ("I speak to Maria" names none).
_SPEAK = re.compile(
    rf"(?i:\bi (?:also |can |can also |only |mostly )?speak) {_LEVEL}((?:{_LANGUAGE})\b"
    rf"(?:(?:,| and| or| as well as|, and) {_LEVEL}(?:{_LANGUAGE})\b)*)"
)


def self_slots(sentence: str) -> list[tuple[str, str, str]]:
    """What `sentence` says of oneself, as (category, name, value): filed under category/name,
    said as value. The caller (persona_patterns._slots) leaves questions out."""
    found = []
    for match in _BIRTHDAY.finditer(sentence):
        day = re.sub(rf"(?i:\b(?:{MONTHS})\b)", lambda m: m[0].capitalize(), match.group(1))
        found.append((IDENTITY, "birthday", day.removeprefix("the ")))
    for match in [*_STATUS.finditer(sentence), *_SINGLE_PARENT.finditer(sentence)]:
        found.append((IDENTITY, "relationship", match.group(1).lower()))
    for match in [*_AGE.finditer(sentence), *_TURNED.finditer(sentence)]:
        age = match.group(1).lower()
        if not age.isdigit() or int(age) in _AGES:
            found.append((IDENTITY, "age", age))
    for match in [*_CHILDREN.finditer(sentence), *_PARENT_OF.finditer(sentence)]:
        found.append((PEOPLE, "children", match.group(1).lower()))
    for match in _PRONOUNS.finditer(sentence):
        found.append((IDENTITY, "pronouns", match.group(1).lower()))
    found += _favourites(sentence)
    for match in _LEARNING.finditer(sentence):
        skill = _AND_MORE.sub("", to_clause_end(match.group(1)).strip())  # "... and my ..."
        skill = _NOW_AFTER.sub("", skill)
        if skill and len(skill.split()) <= 5:
            found.append(("preference", f"learning {skill}", f"learning {skill}"))
    for match in _SPEAK.finditer(sentence):
        for language in re.findall(rf"\b(?:{_LANGUAGE})\b", match.group(1)):
            found.append((IDENTITY, f"speaks {language}", f"speaks {language}"))
    return found


def _favourites(sentence: str) -> list[tuple[str, str, str]]:
    """ "favourite colour: blue" from "My favourite colour is blue" or "Blue is my favourite
    colour" (preference, filed under "favourite colour"), as said up to where the clause ends."""
    said = [
        (match.group(1), match.group(2), to_clause_end(match.group(3)).strip())
        for match in _FAVOURITE.finditer(sentence)
    ]
    first = _FAVOURITE_FIRST.match(sentence.strip())
    if first and first.group(1).split()[0].lower() not in _NOT_SUBJECTS:
        said.append((first.group(2), first.group(3), first.group(1)))
    found = []
    for favourite, what, value in said:
        words = what.lower().split()
        if {what.lower(), words[0]} & _NOT_FAVOURITE or words[-1] in _NOT_LAST:
            continue  # "my favourite part", "my favourite place to eat"
        value = _NOW_AFTER.sub("", value)
        if value and len(value.split()) <= 6:
            found.append(("preference", f"{favourite.lower()} {what}", value))
    return found
