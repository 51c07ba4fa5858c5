"""Long-term persona memory: profile slots, user facts and assistant knowledge, with provenance."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import numpy as np

from engine.memory import keywords
from engine.records import ACTIVE, ASSISTANT_KNOWLEDGE, CANDIDATE, USER_FACT, Page

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


class Persona:
    """Writes to the long-term tier: merge duplicates, supersede contradictions, keep provenance."""

    def __init__(self, vault, embedder, facts_mirror, dimension: int) -> None:
        self.vault = vault
        self.embedder = embedder
        self.facts_mirror = facts_mirror
        self.dimension = dimension

    def remember_fact(
        self,
        kind: str,
        text: str,
        *,
        status: str,
        origin: str,
        sources: list[int],
        now: float | None = None,
        vector: np.ndarray | None = None,
    ) -> int:
        """Add a fact, or merge it into an equal / near-identical one (sources are unioned)."""
        now = now or time.time()
        norm = normalise_text(text)
        existing = self.vault.find_fact(kind, norm)
        if existing is None:
            vector = vector if vector is not None else self.embedder.embed_one(text)
            for fact_id, score in self.facts_mirror.search(vector, 1):
                if score >= 0.97:
                    fact = self.vault.fact(fact_id)
                    if fact.kind == kind and fact.status != "superseded":
                        existing = fact_id
        if existing is not None:
            self.vault.add_fact_sources(existing, sources)
            self.vault.touch_fact(existing, now)
            return existing
        fact_id = self.vault.insert_fact(
            kind=kind,
            text=text,
            norm=norm,
            status=status,
            origin=origin,
            vector=vector,
            sources=sources,
            now=now,
        )
        self.facts_mirror.add(fact_id, vector)
        return fact_id

    def set_slot(
        self,
        category: str,
        name: str,
        value: str,
        *,
        origin: str,
        evidence: list[int],
        now: float | None = None,
    ) -> int:
        """Fill a profile slot; a different value supersedes the old one (kept, marked)."""
        now = now or time.time()
        current = self.vault.active_slot(category, name)
        if current is not None and normalise_text(current.value) == normalise_text(value):
            self.vault.add_slot_evidence(current.id, evidence)
            self.vault.touch_slot(current.id, now)
            return current.id
        slot_id = self.vault.insert_slot(category, name, value, origin, evidence, now)
        if current is not None:
            self.vault.supersede_slot(current.id, slot_id, now)
        return slot_id

    def prepare(self, page: Page) -> Learned:
        """The non-LLM path for one new page, read and embedded (outside any transaction)."""
        statements = statement_candidates(page)
        vectors = self.embedder.embed([text for _, text in statements]) if statements else []
        return Learned(page.id, statements, list(vectors), slot_candidates(page))

    def learn(self, learned: Learned, now: float | None = None) -> int:
        """Write what `prepare` found (inside the caller's transaction). Returns items touched."""
        for (kind, text), vector in zip(learned.statements, learned.vectors, strict=True):
            self.remember_fact(
                kind,
                text,
                status=CANDIDATE if kind == USER_FACT else ACTIVE,
                origin="verbatim",
                sources=[learned.page_id],
                now=now,
                vector=vector,
            )
        for slot in learned.slots:
            self.set_slot(
                slot.category,
                slot.name,
                slot.value,
                origin="pattern",
                evidence=[learned.page_id],
                now=now,
            )
        return len(learned.statements) + len(learned.slots)


@dataclass
class Learned:
    """What one page teaches without an LLM: verbatim statements (embedded) and profile slots."""

    page_id: int
    statements: list[tuple[str, str]]
    vectors: list[np.ndarray]
    slots: list[SlotCandidate]


# JSON schema of the one structured call per hot-segment analysis (capable models only).
ANALYSIS_SCHEMA = {
    "type": "object",
    "properties": {
        "profile": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "category": {
                        "type": "string",
                        "enum": ["identity", "trait", "preference", "value"],
                    },
                    "name": {"type": "string"},
                    "value": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["category", "name", "value", "evidence"],
            },
        },
        "user_facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                    "supersedes": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "evidence"],
            },
        },
        "assistant_knowledge": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "evidence"],
            },
        },
    },
    "required": ["profile", "user_facts", "assistant_knowledge"],
}


def analysis_messages(pages: list[Page], known_facts: list, slots: list) -> list[dict]:
    """The prompt of the hot-segment analysis: pages with ids, what is already known."""
    lines = [f"[page {p.id}] {p.text()}" for p in pages]
    known = [f"[fact {f.id}] {f.text}" for f in known_facts]
    profile = [f"{s.category}/{s.name}: {s.value}" for s in slots]
    return [
        {
            "role": "system",
            "content": (
                "You maintain a long-term memory of a user. From the exchanges, extract: profile "
                "slots (identity, traits, preferences, values) with short values; user facts as short "
                "self-contained third-person sentences; assistant knowledge (what the assistant did or "
                "promised). Cite the page ids each item comes from in `evidence`. If a new fact "
                "contradicts a known fact, list the known fact's id in `supersedes`. Only state what "
                "the exchanges say. Answer with JSON only."
            ),
        },
        {
            "role": "user",
            "content": "Known facts:\n"
            + ("\n".join(known) or "(none)")
            + "\n\nProfile:\n"
            + ("\n".join(profile) or "(empty)")
            + "\n\nExchanges:\n"
            + "\n".join(lines),
        },
    ]


def attribute(text: str, pages: list[Page], vectors: dict, embedder) -> list[int]:
    """The pages an uncited extracted item comes from: those sharing the most content words
    with it, else the one closest in meaning. One page at least, never the whole batch."""
    if not pages:
        return []
    wanted = keywords.normalise(keywords.content_words(text))
    if wanted:
        overlap = {
            p.id: len(wanted & keywords.normalise(keywords.content_words(p.text()))) for p in pages
        }
        best = max(overlap.values())
        if best > 0:
            return sorted(pid for pid, count in overlap.items() if count == best)
    query = embedder.embed_one(text)
    scored = [(float(np.dot(vectors[p.id], query)), p.id) for p in pages if p.id in vectors]
    return [max(scored)[1]] if scored else [pages[0].id]
