"""Facts kept without an LLM: first-person statements and what the assistant did or promised."""

from __future__ import annotations

import re

from engine.memory import keywords
from engine.memory.persona_patterns import _named_speaker
from engine.memory.sentences import sentences
from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT, Page

_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|mine|me|myself|we|our|we're|we've)\b", re.I)
# A sentence about what the one before it introduced: "We have a golden retriever called Bamse.
# He is four." Its subject is a pronoun, so alone it says nothing of the person; it is kept
# with the sentence it refers to, as one fact. Only after a sentence that was kept and names
# something of the person's (_INTRODUCES): after anything else ("I went out. It was busy.",
# "It was a long day.") it is small talk, not a fact.
_REFERS_BACK = re.compile(r"^(?:he|she|it|they)(?:['’](?:s|re|ve|d|ll))?\s+\w", re.I)
_INTRODUCES = re.compile(
    r"\b(?:my|our)\s+\w|\b(?:called|named)\s+[^\W\d_]"
    r"|\b(?:i|we)(?:['’]ve)? (?:(?:have|got|own|adopted|bought|met|found) )+"
    r"(?:a|an|two|three|four|five|some)\b",
    re.I,
)
# "I see" and "I know" alone answer; "I see Dr. Hansen every three months" and "I know Tomasz
# from work" are facts.
_FILLER = re.compile(
    r"^(i (?:(?:see|know|agree|understand)(?=\s*(?:[,.!;:]|$|what\b|now\b|that\b|your\b|"
    r"you\b|right\b))|guess|think so|hope so|don't know|am not sure|mean)|"
    r"i'm (?:sorry|glad|happy for you|not sure)|me too|my pleasure)\b",
    re.I,
)
# A request to the assistant ("Tell me a story about my dog", "Can you help with my CV") names
# the user but says nothing about them: not a fact. Checked on the sentence's first words, after
# lead-ins a person puts before a request ("please", "hey", "ok so").
_LEAD_IN = (
    r"(?:(?:please|pls|hey|hi|hello|ok|okay|so|now|alright|right|well|oh|just|and|also)\b"
    r"[\s,!:-]*)*"
)
# Verbs that open an order to an assistant. Verbs also said with the "I" dropped ("Love my new
# bike", "Teach at my old school", "Find it hard") count only with "me"/"us" after them, and
# "remember"/"note"/"imagine" are left out: "Remember that I'm vegan" is a fact to keep, and so
# is "Imagine my surprise when ...". ['’] accepts typographic apostrophes.
_REQUEST = re.compile(
    _LEAD_IN
    + r"(?:(?:tell|write|explain|describe|summari[sz]e|list|suggest|recommend|draft|rewrite|"
    r"rephrase|translate|generate|create|compose|outline|brainstorm|pretend|calculate|"
    r"compare|define|remind|fix|edit|proofread|continue|search)\b|"
    # "Let me tell you, my trip was amazing" and "Can you believe I ran a marathon!" are the
    # person telling, not asking: kept
    r"(?:give|help|show|teach|find|get|make|send|bring) (?:me|us)\b|let['’]?s\b|act as\b|"
    r"let (?:me|us)\b(?! (?:tell|say|share|explain)\b)|"
    r"(?:can|could|would|will|won['’]t|wouldn['’]t) (?:you|u|we)\b(?! (?:believe|imagine)\b)|"
    r"i(?:['’]d| would) (?:like|love) you to\b|i (?:want|need) you to\b|"
    # "Please ..." is a request, except "please note / remember that I ...", a fact to keep
    r"please\b(?![\s,]+(?:remember|note|keep in mind|don['’]t forget|do not forget)\b))",
    re.I,
)
# What the assistant did or promised, kept as its own knowledge: a concrete thing done ("I've
# added milk to your list"), or a promise to keep or do what the person asked of it ("Remind me
# to call mum" -> "I'll remind you on Sunday"). A small model's stock offers ("I can help you
# with that!", "Let me know if ...", "I'll do my best") say nothing: every answer added one to
# the privacy panel.
_DONE = re.compile(
    r"\bi(?:['’]ve| have) (?:now |just |also |already )?(?:added|set|saved|noted|scheduled|"
    r"recorded|stored|logged|booked|made a note)\b",
    re.I,
)
_PROMISE = re.compile(
    r"\b(?:i['’]ll|i will|i['’]m going to|i am going to|let me) (?:also |now |definitely |"
    r"make sure to |be sure to )?(?:remind|remember|keep|note|track|save|add|set|schedule|book|"
    r"record|log|store|write (?:it|that|this) down|make a note)\b",
    re.I,
)
# The person asked the assistant to keep or do something (checked at a sentence's start).
_ASKED_TO_KEEP = re.compile(
    _LEAD_IN
    + r"(?:remind me|remember|note|make a note|keep track|keep in mind|add|save|set|schedule|"
    r"book|(?:don['’]t|do not) (?:let me )?forget|(?:can|could|would|will) (?:you|u) "
    r"(?:please )?(?:remind|remember|note|make a note|keep|save|add|set|schedule|book|track|"
    r"log|record)|please (?:remind|remember|note|keep|save|add|set|schedule|book|track))\b",
    re.I,
)


def statement_candidates(page: Page) -> list[tuple[str, str]]:
    """(kind, text) facts kept verbatim from first-person statements, with no LLM.

    The person's own statements are the most faithful facts a small model can keep; a capable
    model later rewrites them. In a two-person transcript both speakers' statements are kept,
    prefixed with the speaker's name.
    """
    out: list[tuple[str, str]] = []
    sides = [("user", page.user_input)]
    if _named_speaker(page, "agent"):
        sides.append(("agent", page.agent_response))  # a transcript: the other person's facts too
    for side, text in sides:
        speaker = _named_speaker(page, side)
        introduced = None  # where in `out` the sentence before, naming something, was kept
        for sentence in sentences(text):
            if introduced is not None and _refers_back(sentence):
                kind, said = out[introduced]
                if len(said.split()) + len(sentence.split()) <= 45:
                    out[introduced] = (kind, f"{said} {sentence}")
                    continue
            introduced = None
            if not _FIRST_PERSON.search(sentence) or sentence.endswith("?"):
                continue
            if _REQUEST.match(sentence):
                continue  # asked of the assistant, not said about the person
            words = sentence.split()
            if not 4 <= len(words) <= 45 or _FILLER.match(sentence):
                continue
            if len(keywords.content_words(sentence)) < 2:
                continue
            out.append((USER_FACT, f"{speaker}: {sentence}" if speaker else sentence))
            if _INTRODUCES.search(sentence):
                introduced = len(out) - 1
    if not _named_speaker(page, "agent"):
        asked = any(_ASKED_TO_KEEP.match(s) for s in sentences(page.user_input))
        for sentence in sentences(page.agent_response):
            if not 4 <= len(sentence.split()) <= 45 or sentence.endswith("?"):
                continue
            if _DONE.search(sentence) or (asked and _PROMISE.search(sentence)):
                out.append((ASSISTANT_KNOWLEDGE, sentence))
    return out


def _refers_back(sentence: str) -> bool:
    """Whether `sentence` tells something of a thing named before it by a pronoun ("He is
    four", "She works nights"): not a question, a request or a bare "It is"."""
    return (
        bool(_REFERS_BACK.match(sentence))
        and not sentence.endswith("?")
        and not _REQUEST.match(sentence)
        and bool(keywords.content_words(sentence))
    )
