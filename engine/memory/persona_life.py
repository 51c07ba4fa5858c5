"""Profile slots about the pets and people in a person's life, read by patterns (no LLM): by name,
and how one's time with them ended (a death, a pet gone missing, a partner left). The categories
every profile pattern files under (persona_health and persona_self read the rest)."""

from __future__ import annotations

import re

# What a profile entry of this module, persona_health and persona_self is filed under. Several of each can stand side by side:
# the slot's name is what tells them apart ("cat: Miso", "sister: Ana", "peanuts", "speaks
# Spanish"); diet and birthday are one slot each, a new value replacing the old
# (long_term.Persona.set_slot).
PETS, PEOPLE, HEALTH, IDENTITY = "pets", "people", "health", "identity"
# The words the patterns of a category read besides the entry's own (persona_patterns.SLOT_WORDS
# is the same by slot name): a question about "allergies" is about "allergic to peanuts".
CATEGORY_WORDS = {HEALTH: "allergic allergy allergies"}
# Words that say a name: "My cat is called Miso" says no more than "cat: Miso". Not words a
# question is about: "What is my cat's name?" is not about "friend: Sam".
NAMING_WORDS = "call called name named"

# Capitalised, yet a nationality or a faith, not a name: "I'm American", "I am Catholic", "my
# dentist is Polish" (persona_patterns reads names too). Words that are also common first names
# ("Christian", "Jordan") are left out: "I'm Christian" more often introduces someone.
NATIONS_AND_FAITHS = (
    "American African Asian European Latino Latina Hispanic Caribbean Arab Australian "
    "Canadian Mexican Brazilian Argentinian Argentine Chilean Colombian Peruvian Cuban "
    "British English Scottish Welsh Irish French German Dutch Belgian Swiss Austrian "
    "Italian Spanish Portuguese Greek Turkish Polish Czech Slovak Hungarian Romanian "
    "Bulgarian Serbian Croatian Ukrainian Russian Swedish Norwegian Danish Finnish "
    "Icelandic Estonian Latvian Lithuanian Israeli Iranian Iraqi Syrian Lebanese Egyptian "
    "Moroccan Algerian Tunisian Nigerian Ghanaian Kenyan Ethiopian Somali Ugandan "
    "Tanzanian Indian Pakistani Bangladeshi Nepali Lankan Chinese Japanese Korean "
    "Vietnamese Thai Filipino Filipina Indonesian Malaysian Singaporean Taiwanese "
    "Mongolian Kiwi Catholic Protestant Orthodox Muslim Jewish Hindu Buddhist Sikh "
    "Mormon Atheist Agnostic Pagan Quaker Lutheran Baptist Methodist Anglican Vegan "
    "Vegetarian Millennial Boomer Aussie Brit Yankee Texan Californian Yorker "
    "Londoner Parisian"
).split()

_PET_KINDS = (
    "dog puppy cat kitten rabbit bunny hamster gerbil guinea pig parrot budgie canary tortoise "
    "turtle snake lizard gecko ferret goldfish horse pony chicken hen goat pig"
)
_RELATIONS = (
    "wife husband partner boyfriend girlfriend fiancé fiancée fiance fiancee spouse son "
    "daughter stepson stepdaughter mum mom mother dad father stepmother stepfather brother "
    "sister grandma grandmother granny grandpa grandfather granddad aunt uncle cousin niece "
    "nephew grandson granddaughter godson goddaughter best friend friend flatmate roommate "
    "colleague boss neighbour neighbor"
)


# A relation that grows into the next: "my girlfriend Ana", later "my wife Ana": the wife is
# current and the girlfriend replaced (kept as replaced, current again if the newer goes), in
# whichever order they are said ("my girlfriend Ana" told of the past stays replaced). Only for
# the same name: "girlfriend: Maria" leaves "wife: Ana". "partner" is said at every step, so it
# is none.
STEPS = {
    "girlfriend": 1, "boyfriend": 1,
    "fiancé": 2, "fiancée": 2, "fiance": 2, "fiancee": 2,
    "wife": 3, "husband": 3, "spouse": 3,
}  # fmt: skip


# What a partner is called at every step ("partner" too): an ex of any of them ends them all.
PARTNERS = {*STEPS, "partner"}
# A pet or a person who died: their entry's value says so ("cat: Miso (died)") under the same
# name ("cat: Miso"), so it replaces the entry that said them alive (long_term.Persona.set_slot).
DIED = " (died)"
# A pet that went missing ("my dog Rex ran away"), and one that came home after it ("we found
# our dog Rex"): the same way. Death is final; a missing pet is found only by words that say so.
MISSING = " (missing)"
BACK = " (back home)"


def grows_out_of(new: str, old: str) -> bool:
    """Whether the people entry `new` ("wife: Ana") is the later step of `old` ("fiancée:
    Ana"): the same name, a relation further on. An ex ("ex-wife: Ana", "ex: Ana", said of
    one's partner or boss) is the last step of that relation."""
    new_kind, _, new_name = new.partition(": ")
    old_kind, _, old_name = old.partition(": ")
    if new_name != old_name:
        return False
    if new_kind.startswith("ex") and not old_kind.startswith("ex"):
        was = new_kind.removeprefix("ex").removeprefix("-")
        return old_kind == was or (was in PARTNERS | {""} and old_kind in PARTNERS)
    later, earlier = STEPS.get(new_kind), STEPS.get(old_kind)
    return bool(later and earlier and later > earlier)


def still_ended(current: str, said: str) -> bool:
    """Whether the entry's `current` value says an end ("cat: Miso (died)") that the newly
    `said` one ("cat: Miso", from "my cat Miso used to sleep on my bed") does not undo: a
    story told afterwards does not bring a pet back. Nothing undoes a death; a pet gone missing
    is back only when said so ("cat: Miso (back home)")."""
    line = _line(current)
    if current.endswith(DIED):
        return said != current and _line(said) == line
    return current.endswith(MISSING) and said == line


def settled(current: str | None, said: str) -> str:
    """What `said` files, the entry now being `current`: a pet "back home" ("my dog Rex is back
    from the groomer") that was never missing is the pet ("dog: Rex")."""
    if said.endswith(BACK) and not (current or "").endswith(MISSING):
        return _line(said)
    return said


def _line(value: str) -> str:
    """ "cat: Miso" of "cat: Miso (died)", "cat: Miso (missing)", "cat: Miso (back home)"."""
    return value.removesuffix(DIED).removesuffix(MISSING).removesuffix(BACK)


def _alternatives(words: str) -> str:
    """A regex alternation of the names in `words` (two-word ones kept whole), longest first."""
    names = re.findall(r"guinea pig|best friend|\S+", words)
    return "|".join(sorted(names, key=len, reverse=True))


_PET_ALTERNATIVES = _alternatives(_PET_KINDS)
_RELATION_ALTERNATIVES = _alternatives(_RELATIONS)
_PETS = set(_PET_ALTERNATIVES.split("|"))
# "my cat Miso", "my sister Ana is a nurse", "My dog is called Biscuit", "my wife's name is
# Priya", "my best friend, Tom, ...", "our dog Rex". The name must be capitalised: "my dog is
# lazy" names none.
# "my late husband Tom", "my ex-wife Ana", "my ex Tom", "my former boss Jim": the relation
# ended (_ended).
_NAMED = re.compile(
    rf"(?i:\b(?:my|our) (?:(?:little|older|younger|big|elder|baby|twin|new|old) )?"
    r"(?P<prior>late |ex-|ex |former )?"
    rf"(?P<kind>{_PET_ALTERNATIVES}|{_RELATION_ALTERNATIVES}|ex))"
    r"(?i:['’]s name is| is called| is named| called| named|,)? "
    # a lookahead at the name's first letter (_name_words reads the name): the words after it
    # are not taken, so "my cat Miso and my dog Rex" finds both
    r"(?=(?P<name>[^\W\d_]))"
)
# "I have a grey cat called Pixel", "We've got a rescue dog named Bo", "we got another cat named
# Bailey", "I have a brother called Luis".
_HAVE_NAMED = re.compile(
    r"(?i:\b(?:i|we)(?:['’]ve got| have got| have| own|(?:['’]ve| have)?(?: just)? "
    r"(?:got|adopted|rescued|bought))(?: an?| one| two| three| another)?"
    r"(?: [\w-]+){0,2}? "
    rf"(?P<kind>{_PET_ALTERNATIVES}|{_RELATION_ALTERNATIVES})"
    r"(?:,)? (?:called|named)) "
    r"(?=(?P<name>[^\W\d_]))"
)
# The people who look after one, by their work: "My GP is Dr Okafor", "my dentist, Mr Hale",
# "my therapist Jo". Their name often has a title, kept: "GP: Dr Okafor".
_CARERS = (
    "doctor GP dentist therapist physio physiotherapist vet counsellor counselor psychologist "
    "psychiatrist midwife landlord landlady lawyer solicitor accountant tutor coach trainer"
)
_CARE = re.compile(
    rf"(?i:\bmy (?P<kind>{_alternatives(_CARERS)})(?:['’]s name is| is called| is named| is|"
    r" called| named|,)?) "
    r"(?=(?P<name>[^\W\d_]))"
)
_TITLES = {"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "prof", "prof.", "doctor"}
# Capitalised words after "my sister" that are not a name: the start of the next part of the
# sentence or a day ("my dad I think", "I called my mum Sunday"). Months are names too (May,
# June, April): one is not a name only where a day's number follows it ("my sister May 5th").
_NOT_A_NAME = {
    "i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "and", "but", "so", "the",
    "a", "an", "is", "was", "has", "had", "who", "which", "that", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "christmas", "easter",
}  # fmt: skip

# A month's name: a date's part (persona_self's birthday), and a name only where no day follows.
MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
# The languages persona_self reads one speaks; their names are never a person's here.
LANGUAGES = (
    "English French Spanish German Italian Portuguese Dutch Flemish Danish Swedish Norwegian "
    "Icelandic Finnish Estonian Latvian Lithuanian Polish Czech Slovak Hungarian Romanian "
    "Bulgarian Serbian Croatian Bosnian Slovenian Albanian Greek Turkish Russian Ukrainian "
    "Belarusian Georgian Armenian Hebrew Arabic Persian Farsi Kurdish Urdu Hindi Bengali Punjabi "
    "Gujarati Marathi Tamil Telugu Kannada Malayalam Sinhala Nepali Chinese Mandarin Cantonese "
    "Japanese Korean Vietnamese Thai Khmer Lao Burmese Indonesian Malay Tagalog Filipino Swahili "
    "Amharic Somali Yoruba Igbo Hausa Zulu Xhosa Afrikaans Welsh Irish Gaelic Basque Catalan "
    "Galician Maltese Luxembourgish Esperanto Latin Yiddish"
).split()
# A language's name is often its people's too ("Polish", "Italian"): never a first name here.
_NATIONAL = {*LANGUAGES, *NATIONS_AND_FAITHS}


def life_slots(sentence: str) -> list[tuple[str, str, str]]:
    """The pets and people `sentence` names, as (category, name, value): filed under
    category/name, said as value (persona_health and persona_self read the rest of one's life).
    The caller (persona_patterns._slots) leaves questions out, as for every pattern."""
    named = _named(sentence)
    return [*named, *_split_named(sentence, named)]


def _named(sentence: str) -> list[tuple[str, str, str]]:
    """Pets and people by name: "my cat Miso" -> pets "cat: Miso"; "my sister Ana" -> people
    "sister: Ana". Filed under the whole line, so two sisters or a dog and a cat stand apart."""
    found = []
    matches = [*_NAMED.finditer(sentence), *_HAVE_NAMED.finditer(sentence),
               *_CARE.finditer(sentence)]  # fmt: skip
    for match in matches:
        name = _name_words(sentence[match.start("name") :])
        if name is None:
            continue
        kind = match.group("kind")
        kind = kind if kind.isupper() else kind.lower()  # "GP" as written
        category = PETS if kind in _PETS else PEOPLE
        ended = _ended(match, sentence, name, kind)
        if ended == "ex" and kind != "ex":
            kind = f"ex-{kind}"
        line = f"{kind}: {name}"  # filed under the whole line: it is shown as it is
        found.append((category, line, line + _SAID_END.get(ended, "")))
    return found


# How one's time with a pet or a person ended, said with their name. Died: "My cat Miso died
# last week", "my grandma Rose sadly passed away", "we had to put our dog Rex down", "my late
# husband Tom". Not "my cat Miso nearly died" nor "when my dog Rex dies".
_DIED_AFTER = re.compile(
    r"(?i:,? (?:(?:sadly|recently|just|suddenly|unexpectedly|peacefully|has|had|have),? )*"
    r"(?:died|passed away|was put down|was put to sleep|had to be put down)\b)"
)
_PUT_DOWN_BEFORE = re.compile(r"(?i:\bput (?:down )?)$")
# A pet gone missing: "My dog Rex ran away last night", "our cat Miso has gone missing", "Miso's
# been missing since Friday"; and back: "we found our dog Rex", "my cat Miso came home". Not "my
# dog Rex ran away with my sock", "my cat Miso is missing a tooth", "when our dog Rex ran away,
# ..." (a story: he may be back). Back is said only of a pet that was missing (settled).
_MISSING_AFTER = re.compile(
    r"(?i:(?:['’]s|,)? (?:(?:has|had|just|recently|suddenly|sadly|still|been|is|was|got),? )*"
    r"(?:ran away|run away|went missing|gone missing|missing|lost)"
    r"(?=[,.;!?]|$| (?:last|yesterday|this|on|in|at|near|during|while|after|two|three|again|"
    r"from home|since|for|"
    r"a (?:week|month|day|year|few|couple)|an hour)\b))"
)
_BACK_AFTER = re.compile(
    r"(?i:(?:['’]s|,)? (?:(?:has|is|just|finally|safely|was),? )*"
    r"(?:came back|come back|came home|come home|back|home safe|turned up|found)\b)"
)
_FOUND_BEFORE = re.compile(r"(?i:\b(?:we|i)(?:['’]ve| have)? (?:finally |just )?found )$")
_STORY_BEFORE = re.compile(r"(?i:\b(?:when|if|after|before|since|once|until|whenever) )$")
_SAID_END = {"died": DIED, "missing": MISSING, "back": BACK}
_PUT_DOWN_AFTER = re.compile(r"(?i: (?:down|to sleep)\b)")
# A partner one is no longer with: "I broke up with my boyfriend Tom", "I divorced my husband
# Tom", "I'm separated from my wife Ana", "my girlfriend Ana and I split up", "my boyfriend Tom
# dumped me". Said of one's partner only: "my sister Ana divorced" is not one's own. Not "I
# left my husband Tom" ("... a note").
# "I broke up with", "I've just divorced", "I dumped": what comes next is the one left.
_I_LEFT = (
    r"\bi(?:['’]ve| have)? (?:(?:just|finally|recently|officially) )?"
    r"(?:broke up with|broken up with|split up with|split from|divorced|dumped)"
)
_SPLIT_BEFORE = re.compile(
    rf"(?i:{_I_LEFT}"
    r"|\bi(?:['’]m| am) (?:now )?(?:separated|divorced) from) $"
)
_SPLIT_AFTER = re.compile(
    r"(?i: and i (?:(?:have|had|just|finally|recently|are|got|officially) )*"
    r"(?:broke up|split up|divorced|got divorced"
    # "split" and "separated" alone only where nothing is split: not "... split the bill"
    r"|(?:split|separated)(?=[,.;!?]|$| (?:last|this|in|on|after|at|a|two|three|recently|"
    r"years?|months?|weeks?)\b))\b"
    r"|,? (?:(?:has|had|just|finally) )*(?:dumped|left|broke up with) me\b)"
)


# A break-up said with the other's name alone: "Tom and I broke up", "I broke up with Tom",
# "I divorced Tom", "Tom dumped me". The entry is "ex: Tom", which retires "boyfriend: Tom" or
# any partner's entry of that name (grows_out_of).
_SPLIT_NAMED = re.compile(
    r"(?=(?P<who>[^\W\d_][\w'’-]*)(?i: and i (?:(?:have|had|just|finally|recently|officially) )*"
    r"(?:broke up|split up|got divorced))\b(?! (?:the|a|an|our|their|his|her|my|that|this)\b))"
    rf"|(?i:{_I_LEFT} )"
    r"(?=(?P<whom>[^\W\d_]))"
    r"|(?=(?P<by>[^\W\d_][\w'’-]*),? (?:(?:has|had|just|finally) )*(?:dumped|broke up with) me\b)"
)


def _split_named(sentence: str, named: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """ "ex: Tom" for each break-up `sentence` tells by the other's name alone; not for a name
    `named` already holds ("my boyfriend Tom and I broke up": "ex-boyfriend: Tom")."""
    known = {line.partition(": ")[2] for _, line, _ in named}
    found = []
    for match in _SPLIT_NAMED.finditer(sentence):
        start = next(match.start(g) for g in ("who", "whom", "by") if match.group(g))
        if start > 0 and sentence[start - 1] not in " \"'“(":
            continue  # inside a word
        before = sentence[:start].rstrip().lower()
        if before.endswith(("my", "our", "the", "a", "an", "his", "her", "their")):
            continue  # "my boyfriend Tom": the relation's own pattern reads it
        name = _name_words(sentence[start:])
        if name is None or name in known or name.split()[0] in _NATIONAL:
            continue
        if name.split()[0].lower() in ("we", "they", "he", "she", "you", "it", "then", "so"):
            continue
        found.append((PEOPLE, f"ex: {name}", f"ex: {name}"))
    return found


def _ended(match: re.Match, sentence: str, name: str, kind: str) -> str | None:
    """ "died" or "ex" where the sentence says the pet or person named by `match` died or the
    partner is an ex; "missing" or "back" for a pet gone missing or come home; else None."""
    before = sentence[: match.start()]
    rest = sentence[match.start("name") :]
    after = rest[len(name) :] if rest.startswith(name) else ""
    prior = (match.groupdict().get("prior") or "").strip().lower()
    if kind == "ex" or prior in ("ex-", "ex", "former"):
        return "ex"
    put_down = _PUT_DOWN_BEFORE.search(before) and (
        before.lower().endswith("put down ") or _PUT_DOWN_AFTER.match(after)
    )
    if prior == "late" or _DIED_AFTER.match(after) or put_down:
        return "died"
    if kind in _PETS and not _STORY_BEFORE.search(before):
        if _FOUND_BEFORE.search(before) or _BACK_AFTER.match(after):
            return "back"
        if _MISSING_AFTER.match(after):
            return "missing"
    if kind in PARTNERS and (_SPLIT_BEFORE.search(before) or _SPLIT_AFTER.match(after)):
        return "ex"
    return None


def _name_words(words: str) -> str | None:
    """The capitalised run at the start of `words` (up to three words), or None."""
    kept: list[str] = []
    split = re.findall(r"(?i:dr|mr|mrs|ms|prof)\.(?= )|[^\W\d_][\w'’-]*|\S+", words)[:4]
    for word, after in zip(split, [*split[1:], ""], strict=True):
        if len(kept) == 3:
            break
        bare = re.sub(r"['’]s?$", "", word)  # "my sister Ana's kids": Ana
        if not kept and bare.lower() in _TITLES and after[:1].isupper():
            kept.append(word)  # "Dr Okafor": the title, then the name
            continue
        if not bare[:1].isupper() or bare.lower() in _NOT_A_NAME:
            break
        if not kept and bare in _NATIONAL:  # "My dentist is Polish", "my tutor, French…"
            break
        if re.fullmatch(MONTHS, bare) and after[:1].isdigit():
            break
        kept.append(bare)
        if bare != word:
            break
    return " ".join(kept) or None
