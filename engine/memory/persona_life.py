"""Profile slots about a person's life, read by patterns (no LLM): pets and the people close to
them by name, children, allergies and diet, birthday and age, the relationship status,
pronouns, favourites, what they are learning, the languages they speak."""

from __future__ import annotations

import re

from engine.memory import keywords
from engine.memory.clauses import to_clause_end

# What a profile entry of this module is filed under. Several of each can stand side by side:
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

# "I'm allergic to peanuts", "I am severely allergic to bee stings"; not "I'm not allergic",
# nor someone else's ("my son is allergic to eggs").
_ALLERGIC = re.compile(
    r"(?i:\bi(?:['’]m| am)(?: \w+ly)? allergic to) ([^,.;!?]+)"
)
# "I have a nut allergy", "I've got a severe shellfish allergy"
_ALLERGY = re.compile(
    r"(?i:\bi(?:['’]ve got| have got| have)(?: an?)?(?: severe| mild| bad| serious| slight)?) "
    r"([^\W\d_][\w -]{1,30}?) "
    r"(?i:allergy|allergies)\b"
)
# A condition said of oneself: "I'm lactose intolerant", "I am coeliac", "I'm diabetic", "I'm
# pregnant" (what a model suggests to eat or drink depends on it too).
_CONDITION = re.compile(
    r"(?i:\bi(?:['’]m| am)(?: \w+ly)? (?:a |\d{1,2} (?:weeks|months) (?=pregnant))?)"
    r"(?i:((?:lactose|gluten|fructose|histamine) intolerant|coeliac|celiac|diabetic|epileptic|"
    r"asthmatic|pregnant))\b"
)
# A condition one has or was diagnosed with: "I have asthma", "I've got type 2 diabetes", "I
# was diagnosed with ADHD last year", "I suffer from migraines", "I have a bad back". Not
# someone else's ("my son has asthma"), nor the past ("I had asthma as a kid").
_HAVE_CONDITION = re.compile(
    r"(?i:\bi(?:['’]ve got| have got| have| suffer from| live with|(?: was|['’]ve been| have been)"
    r"(?: recently| just)? diagnosed with)(?: an?)? )"
    r"((?i:(?:type [12] )?diabetes|asthma|epilepsy|(?:coeliac|celiac|crohn['’]s) disease|"
    r"arthritis|rheumatoid arthritis|migraines|high blood pressure|hypertension|a bad back|"
    r"long covid|multiple sclerosis|fibromyalgia|endometriosis|psoriasis|eczema|"
    r"sleep apnoea|sleep apnea|tinnitus|glaucoma|hypothyroidism|an underactive thyroid)"
    r"|ADHD|IBS|COPD|PCOS|OCD|PTSD)\b"
)
# Not drinking: "I don't drink alcohol", "I don't drink.", "I'm teetotal", "I've been sober for
# two years", "I gave up drinking". Not "I don't drink coffee", "I don't drink much".
_NO_ALCOHOL = re.compile(
    r"(?i:\bi (?:don['’]t|do not|never) drink(?: alcohol| any alcohol| at all)?"
    r"(?=[,.;!?]|$| (?:any ?more|now|these days)\b)"
    r"|\bi(?:['’]m| am) (?:a )?(?:teetotal|teetotaller|teetotaler|tee-total)\b"
    r"|\bi(?:['’]ve| have)? (?:been|am|['’]m) (?:now )?sober\b(?! enough)"
    r"|\bi(?:['’]ve| have)? (?:given|gave) up (?:drinking|alcohol|booze)\b)"
)
# A fear: "I'm afraid of spiders", "I'm scared of flying", "I'm terrified of the dark", "I have a
# fear of heights". Not a worry ("I'm afraid of missing the train", "I'm scared of what she'll
# say", "I'm afraid of that"), nor someone else's.
_AFRAID = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:really |so |very |a bit |deathly |quite |absolutely )?"
    r"(afraid|scared|terrified|frightened)"
    r"|\bi have an? (?:real |huge |big |irrational )?(fear)) of "
    r"((?:the )?(?!(?i:what|that|this|it|being|getting|losing|missing|making|doing|not|how|him|"
    r"her|them|you|me|my|your|his|our|their|a|an|going|having|looking|failing)\b)"
    r"[^\W\d_][\w-]*(?: [^\W\d_][\w-]*)?)(?=[,.;!?]|$| (?:and|but|so|too|since|ever)\b)"
)
_NOT_FEARS = {"it", "that", "this", "them", "him", "her", "you", "me", "things", "everything"}
# "I'm vegetarian", "I am a vegan", "I've gone vegan", "I became pescatarian last year".
_DIET = re.compile(
    r"(?i:\bi(?:['’]m| am)(?: now| strictly| mostly| fully)?(?: an?)?|"
    r"\bi(?:['’]ve| have)? (?:gone|become|became|went|turned)) "
    r"(?i:(vegetarian|vegan|pescatarian|pescetarian|flexitarian))\b"
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = rf"(?:(?:the )?{_DAY} (?:of )?(?:{_MONTHS})|(?:{_MONTHS}) (?:the )?{_DAY})\b"
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
# "I'm turning 30 next month" (not yet), "I'm 12 and a half hours in", nor an age out of AGES.
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
AGES = range(10, 121)
# Children by number: "I have two kids", "we've got three children", "I'm a mother of two" ->
# "children: two kids", "children: two". One slot, the newest replacing the old. Not "I have
# two kids in my class" (a teacher's), "I have two kids' bikes".
_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|\d)"
_CHILDREN = re.compile(
    r"(?i:\b(?:i|we)(?:['’]ve got| have got| have) )"
    rf"((?i:{_COUNT}) (?i:kids|children|sons|daughters|boys|girls|grandchildren|grandkids))"
    r"(?=[,.;!?]|$| (?i:and|aged|who|under|now|both|of (?:my|our) own|at home)\b)"
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
_NOT_FAVOURITE = {
    "part", "thing", "bit", "moment", "memory", "way", "one", "ones", "kind", "sort", "time", "day",
}  # fmt: skip
_NOT_LAST = {"of", "about", "to", "in", "for", "is", "are"}
_LANGUAGES = (
    "English French Spanish German Italian Portuguese Dutch Flemish Danish Swedish Norwegian "
    "Icelandic Finnish Estonian Latvian Lithuanian Polish Czech Slovak Hungarian Romanian "
    "Bulgarian Serbian Croatian Bosnian Slovenian Albanian Greek Turkish Russian Ukrainian "
    "Belarusian Georgian Armenian Hebrew Arabic Persian Farsi Kurdish Urdu Hindi Bengali Punjabi "
    "Gujarati Marathi Tamil Telugu Kannada Malayalam Sinhala Nepali Chinese Mandarin Cantonese "
    "Japanese Korean Vietnamese Thai Khmer Lao Burmese Indonesian Malay Tagalog Filipino Swahili "
    "Amharic Somali Yoruba Igbo Hausa Zulu Xhosa Afrikaans Welsh Irish Gaelic Basque Catalan "
    "Galician Maltese Luxembourgish Esperanto Latin Yiddish"
).split()
_LANGUAGE = "|".join(_LANGUAGES)
# A language's name is often its people's too ("Polish", "Italian"): never a first name here.
_NATIONAL = {*_LANGUAGES, *NATIONS_AND_FAITHS}
_LEVEL = r"(?:(?:fluent|good|basic|some|decent|native|a little|a bit of|a little bit of) )?"
# "I speak Dutch and some French", "I can speak English, German or Italian"; languages by
# name only ("I speak to Maria" names none).
_SPEAK = re.compile(
    rf"(?i:\bi (?:also |can |can also |only |mostly )?speak) {_LEVEL}((?:{_LANGUAGE})\b"
    rf"(?:(?:,| and| or| as well as|, and) {_LEVEL}(?:{_LANGUAGE})\b)*)"
)


def life_slots(sentence: str) -> list[tuple[str, str, str]]:
    """The entries one sentence of the person's own words gives, as (category, name, value):
    filed under category/name, said as value. The caller (persona_patterns._slots) leaves
    questions out, as for every pattern."""
    named = _named(sentence)
    found = [*named, *_split_named(sentence, named), *_health(sentence)]
    for match in _BIRTHDAY.finditer(sentence):
        day = re.sub(rf"(?i:\b(?:{_MONTHS})\b)", lambda m: m[0].capitalize(), match.group(1))
        found.append((IDENTITY, "birthday", day.removeprefix("the ")))
    for match in [*_STATUS.finditer(sentence), *_SINGLE_PARENT.finditer(sentence)]:
        found.append((IDENTITY, "relationship", match.group(1).lower()))
    for match in [*_AGE.finditer(sentence), *_TURNED.finditer(sentence)]:
        age = match.group(1).lower()
        if not age.isdigit() or int(age) in AGES:
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
    """ "favourite colour: blue" from "My favourite colour is blue" (preference, filed under
    "favourite colour"), as said up to where the clause ends."""
    found = []
    for match in _FAVOURITE.finditer(sentence):
        what = match.group(2)
        words = what.lower().split()
        if {what.lower(), words[0]} & _NOT_FAVOURITE or words[-1] in _NOT_LAST:
            continue  # "my favourite part", "my favourite place to eat"
        value = _NOW_AFTER.sub("", to_clause_end(match.group(3)).strip())
        if not value or len(value.split()) > 6:
            continue
        found.append(("preference", f"{match.group(1).lower()} {what}", value))
    return found


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
        if re.fullmatch(_MONTHS, bare) and after[:1].isdigit():
            break
        kept.append(bare)
        if bare != word:
            break
    return " ".join(kept) or None


def _health(sentence: str) -> list[tuple[str, str, str]]:
    """Allergies (filed by what one is allergic to), conditions and diet."""
    found = []
    for pattern in (_ALLERGIC, _ALLERGY):
        for match in pattern.finditer(sentence):
            thing = to_clause_end(match.group(1)).strip()
            words = keywords.content_words(thing)
            if not words or len(thing.split()) > 6:
                continue
            value = f"allergic to {thing}" if pattern is _ALLERGIC else f"{thing} allergy"
            found.append((HEALTH, " ".join(words[:4]), value))
    for match in [*_CONDITION.finditer(sentence), *_HAVE_CONDITION.finditer(sentence)]:
        condition = match.group(1)
        if not condition.isupper():  # "ADHD" as written; "a bad back" -> "bad back"
            condition = re.sub(r"^an? ", "", condition.lower()).replace("crohn", "Crohn")
        found.append((HEALTH, condition, condition))
    for match in _DIET.finditer(sentence):
        found.append((HEALTH, "diet", match.group(1).lower()))
    if _NO_ALCOHOL.search(sentence):
        found.append((HEALTH, "alcohol", "doesn't drink alcohol"))
    for match in _AFRAID.finditer(sentence):
        feeling, fear = (match.group(1) or match.group(2)).lower(), match.group(3)
        if fear.split()[-1].lower() not in _NOT_FEARS:
            found.append((HEALTH, f"{feeling} of {fear}", f"{feeling} of {fear}"))
    return found
