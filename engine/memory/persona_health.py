"""Profile entries about one's health, read by patterns (no LLM): allergies, conditions, a
pregnancy, diet, not drinking, fears. What a model suggests to eat, drink or do depends on them."""

from __future__ import annotations

import re

from engine.memory import keywords
from engine.memory.clauses import to_clause_end
from engine.memory.persona_life import HEALTH

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


def health_slots(sentence: str) -> list[tuple[str, str, str]]:
    """Allergies (filed by what one is allergic to), conditions, diet, not drinking, fears."""
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
