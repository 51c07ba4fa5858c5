"""Where a profile value's clause ends: "tea" of "I like tea and I hate coffee"."""

from __future__ import annotations

import re

# Where a slot's value ends: at a word that always starts another clause ("I like cooking but
# not baking"), or at a conjunction that a new subject follows ("I like tea and I hate coffee",
# "I hate waking up early and my boss knows it"). A conjunction between two things is kept:
# "I like tea and biscuits", "I like rock and roll", "I love my job and my colleagues".
_ALWAYS_ENDS = re.compile(r"\s+(?:but|because|although|whereas)\b", re.I)
_CONJUNCTION = re.compile(
    r"\s+(?:and|or|nor|so|since|while|whilst|though|when|whenever|yet|as|after|before|until|"
    r"till|unless|if|once)(?:\s+(?:then|now|also|still|so))?\s+(?=\S)",
    re.I,
)
# Words that start a clause wherever they stand ("and he loves it", "so we're moving").
_SUBJECTS = frozenset(
    "i i'm i've i'd i'll we we're we've we'd we'll he he's he'd he'll she she's she'd she'll "
    "they they're they've they'd they'll you're you've you'd you'll it's it'd it'll that's "
    "there's".split()
)
# Words that start a clause only with more after them: "and it helps me relax", "and you know
# it", but "I like tea and you", "I like him and her".
_SUBJECTS_BEFORE_MORE = frozenset("it you there".split())
# A noun phrase that starts with these is a subject only with a verb after the noun: "and my
# boss knows it", "and my sister is a chef", not "and my wife", "and my kids' toys".
_POSSESSIVES = frozenset("my our his her their your its".split())
_VERBS = frozenset(
    "is was are were has had have does did do can could will would should may might must "
    "isn't wasn't aren't weren't hasn't hadn't haven't doesn't didn't don't can't couldn't "
    "won't wouldn't shouldn't".split()
)
_NUMBER_WORDS = frozenset("two three four five six seven eight nine ten few many".split())
_NOT_IN_NOUN = frozenset("and or of with in on at for from to".split())


def to_clause_end(value: str) -> str:
    """`value` up to where a new clause begins ("tea" of "tea and I hate coffee")."""
    always = _ALWAYS_ENDS.search(value)
    if always:
        value = value[: always.start()]
    for conjunction in _CONJUNCTION.finditer(value):
        if _opens_clause(value[conjunction.end() :].split()):
            return value[: conjunction.start()]
    return value


def _opens_clause(words: list[str]) -> bool:
    """Whether `words` (what follows a conjunction) start with a subject and its verb."""
    first = words[0].lower().replace("’", "'")
    if first in _SUBJECTS:
        return True
    if first in _SUBJECTS_BEFORE_MORE:
        return len(words) > 1 and (first != "there" or words[1].lower() in _VERBS)
    if first not in _POSSESSIVES or len(words) < 3 or words[1].lower() in _NUMBER_WORDS:
        return False
    for i in (2, 3):
        if i >= len(words):
            return False
        before, word = words[i - 1].lower(), words[i].lower().replace("’", "'")
        if before in _NOT_IN_NOUN or before.endswith(("'", "’", "'s", "’s")):
            return False
        if word in _VERBS or (len(word) > 3 and word.endswith(("s", "ed"))):
            return True
    return False
