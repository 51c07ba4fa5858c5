"""What a page teaches the persona without an LLM: first-person statements and profile slots
found by patterns (names, places, likes, values)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.memory import keywords
from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT, Page

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|mine|me|myself|we|our|we're|we've)\b", re.I)
_COMMITMENT = re.compile(
    r"\b(i'll|i will|i can|i've (?:added|set|saved|noted)|let me|i'm going to)\b", re.I
)
_FILLER = re.compile(
    r"^(i (?:see|know|agree|understand|guess|think so|hope so|don't know|am not sure|mean)|"
    r"i'm (?:sorry|glad|happy for you|not sure)|me too|my pleasure)\b",
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

# (category, slot name, pattern whose group 1 is the value). The lead-in is case-insensitive;
# names and places must be capitalised, which keeps "I'm tired" from becoming a name.
_PLACE = r"([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"
_SLOT_PATTERNS: list[tuple[str, str, re.Pattern]] = [
    ("identity", "name", re.compile(r"(?i:\b(?:my name is|call me|i'm|i am))\s+([A-Z][a-z]+)\b")),
    (
        "identity",
        "occupation",
        re.compile(
            r"\bi (?:work|am working|'m working) as (?:an? )?([^,.;!?]+?)(?= in [A-Z]| at [A-Z]| for [A-Z]|[,.;!?]|$)",
            re.I,
        ),
    ),
    ("identity", "employer", re.compile(r"(?i:\bi work (?:at|for)) " + _PLACE)),
    (
        "identity",
        "location",
        re.compile(r"(?i:\bi (?:live|am living|'m living|moved|relocated) (?:in|to)) " + _PLACE),
    ),
    ("identity", "location", re.compile(r"(?i:\bi work [^,.;!?]*? in) " + _PLACE)),
    ("identity", "origin", re.compile(r"(?i:\bi(?:'m| am) (?:originally )?from) " + _PLACE)),
    (
        "preference",
        "likes",
        re.compile(r"\bi (?:really |absolutely )?(?:love|like|enjoy|adore) ([^,.;!?]+)", re.I),
    ),
    (
        "preference",
        "dislikes",
        re.compile(r"\bi (?:really )?(?:hate|dislike|can't stand) ([^,.;!?]+)", re.I),
    ),
    (
        "value",
        "values",
        re.compile(
            r"\b(?:i care (?:a lot )?about|what matters (?:most )?to me is|i believe in) ([^,.;!?]+)",
            re.I,
        ),
    ),
]


@dataclass(frozen=True)
class SlotCandidate:
    category: str
    name: str
    value: str


def normalise_text(text: str) -> str:
    return " ".join(keywords.tokens(text))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _named_speaker(page: Page, side: str) -> str | None:
    key = "user_speaker" if side == "user" else "agent_speaker"
    name = page.meta.get(key)
    return str(name) if name else None


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
        for sentence in _sentences(text):
            if not _FIRST_PERSON.search(sentence) or sentence.endswith("?"):
                continue
            words = sentence.split()
            if not 4 <= len(words) <= 45 or _FILLER.match(sentence):
                continue
            if len(keywords.content_words(sentence)) < 2:
                continue
            out.append((USER_FACT, f"{speaker}: {sentence}" if speaker else sentence))
    if not _named_speaker(page, "agent"):
        for sentence in _sentences(page.agent_response):
            if _COMMITMENT.search(sentence) and 4 <= len(sentence.split()) <= 45:
                out.append((ASSISTANT_KNOWLEDGE, sentence))
    return out


def slot_candidates(page: Page) -> list[SlotCandidate]:
    """Profile slots read from the person's own words by patterns (no LLM)."""
    if _named_speaker(page, "agent"):
        return []  # a transcript between two people: no single "user" profile to fill
    found: list[SlotCandidate] = []
    for sentence in _sentences(page.user_input):
        if sentence.endswith("?"):
            continue
        for category, name, pattern in _SLOT_PATTERNS:
            for match in pattern.finditer(sentence):
                value = match.group(1).strip(" '\"").rstrip()
                words = value.split()
                if not value or len(words) > 8:
                    continue
                if name == "name" and value.lower() in _NOT_NAMES:
                    continue
                if category == "preference":
                    obj = " ".join(keywords.content_words(value)[:4])
                    if not obj:
                        continue
                    verb = "likes" if name == "likes" else "dislikes"
                    found.append(SlotCandidate("preference", obj, f"{verb} {value}"))
                else:
                    found.append(SlotCandidate(category, name, value))
    return found
