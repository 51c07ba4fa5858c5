"""Plain result records the engine returns (frozen dataclasses, no behaviour that touches storage)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

# Where a page currently lives.
SHORT_TERM = "short"  # in the STM queue
MID_TERM = "mid"  # in an MTM segment
ARCHIVED = "archived"  # its segment was evicted from MTM: still searchable, never silently lost

# Fact kinds and statuses.
USER_FACT = "user_fact"
ASSISTANT_KNOWLEDGE = "assistant_knowledge"
ACTIVE = "active"
CANDIDATE = "candidate"  # verbatim first-person statement, not yet rewritten by a capable model
SUPERSEDED = "superseded"

# Each side of a page has its own vector: the user's words (side 0) and the answer (side 1).
USER_SIDE, ANSWER_SIDE = 0, 1
SIDES = (USER_SIDE, ANSWER_SIDE)


def new_conversation_id() -> str:
    """The id of a new conversation, however it starts (the app, `memoryos chat`, the API, an
    import): the time it began and a random suffix."""
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def turn_id(page_id: int, side: int) -> int:
    """The one rule naming a turn: its rowid in turns_vec and its key in retrieval."""
    return page_id * 2 + side


def turn_page(turn: int) -> int:
    """The page a turn id belongs to."""
    return turn // 2


def turn_side(turn: int) -> int:
    """Which side of its page a turn id is (USER_SIDE or ANSWER_SIDE)."""
    return turn % 2


def turn_ids(page_ids: list[int]) -> list[int]:
    """Both turn ids of each page (what forgetting a page removes from turns_vec)."""
    return [turn_id(page_id, side) for page_id in page_ids for side in SIDES]


def external_ids_of(meta: dict[str, Any]) -> tuple[str, ...]:
    """The ids a page's meta gives it at add time ('external_ids', a list or one value, then
    'external_id'), as text, each once: what Page.external_ids and MCP's lookup read."""
    ids = meta.get("external_ids") or []
    out = [str(i) for i in ids] if isinstance(ids, list) else [str(ids)]
    if meta.get("external_id") is not None:
        out.append(str(meta["external_id"]))
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Page:
    """One exchange: what the user said and what the assistant (or the other speaker) answered."""

    id: int
    user_input: str
    agent_response: str
    timestamp: float  # seconds since the epoch, UTC
    conversation_id: str
    tier: str  # SHORT_TERM | MID_TERM | ARCHIVED
    segment_id: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    chain_prev_id: int | None = None  # the page this one continues (dialogue chain)
    chain_summary: str = ""  # running summary of the chain up to this page ("meta info")
    keywords: tuple[str, ...] = ()

    @property
    def external_ids(self) -> tuple[str, ...]:
        """Ids given at add time (e.g. LoCoMo dia_ids), from meta 'external_id(s)'."""
        return external_ids_of(self.meta)

    @property
    def user_speaker(self) -> str:
        return str(self.meta.get("user_speaker") or "User")

    @property
    def agent_speaker(self) -> str:
        return str(self.meta.get("agent_speaker") or "Assistant")

    def turn_text(self, side: int) -> str:
        """One side as 'Speaker: words' (side 0: what the user said, 1: the answer); '' if empty."""
        if side == 0:
            return f"{self.user_speaker}: {self.user_input}" if self.user_input else ""
        return f"{self.agent_speaker}: {self.agent_response}" if self.agent_response else ""

    def text(self) -> str:
        """The page as one block of text (used for keywords, embeddings, prompts)."""
        parts = []
        if self.user_input:
            parts.append(f"{self.user_speaker}: {self.user_input}")
        if self.agent_response:
            parts.append(f"{self.agent_speaker}: {self.agent_response}")
        return "\n".join(parts)


@dataclass(frozen=True)
class StoredSegment:
    """A mid-term segment as the vault holds it; heat is computed from it when read."""

    id: int
    summary: str
    keywords: tuple[str, ...]
    created: float
    last_access: float
    visit_count: int
    length: int  # L_interaction: pages since the last persona analysis
    archived: bool
    page_count: int


@dataclass(frozen=True)
class Job:
    """One durable consolidation job (the jobs table)."""

    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int


@dataclass(frozen=True)
class SavedMemory:
    """One item of the list of memories a stored answer's prompt held (page_memories)."""

    page_id: int
    kind: str
    item_id: int
    tier: str
    score: float
    date: float


@dataclass(frozen=True)
class SearchHit:
    """One exchange found by the conversations search."""

    page_id: int
    conversation_id: str
    title: str
    timestamp: float
    snippet: str  # matching words between MARK_START and MARK_END


@dataclass(frozen=True)
class HeatParts:
    visits: int  # N_visit
    length: int  # L_interaction (pages since the last persona analysis)
    recency: float  # exp(-Δt/μ), computed at read time
    heat: float


@dataclass(frozen=True)
class Segment:
    """A mid-term topic segment."""

    id: int
    summary: str
    keywords: tuple[str, ...]
    created: float
    last_access: float
    visit_count: int
    length: int  # L_interaction
    page_count: int
    heat: HeatParts
    archived: bool = False


@dataclass(frozen=True)
class Fact:
    """A user fact or a piece of assistant knowledge, with provenance."""

    id: int
    kind: str  # USER_FACT | ASSISTANT_KNOWLEDGE
    text: str
    status: str  # ACTIVE | CANDIDATE | SUPERSEDED
    created: float
    updated: float
    source_page_ids: tuple[int, ...]
    origin: str  # "verbatim" | "pattern" | "llm:<model id>" | "user"
    superseded_by: int | None = None


@dataclass(frozen=True)
class ProfileSlot:
    """One slot of the user profile, e.g. (preference, 'food', 'loves spicy ramen')."""

    id: int
    category: str  # "trait" | "preference" | "value" | "identity" ...
    name: str
    value: str
    status: str  # ACTIVE | SUPERSEDED
    created: float
    updated: float
    evidence_page_ids: tuple[int, ...]
    origin: str
    superseded_by: int | None = None

    @property
    def text(self) -> str:
        """The slot as a line: "location: Zürich". A slot whose value already says its name
        ("likes hiking", filed under "hiking") is its value alone, not "hiking: likes hiking",
        and so is an imported one (its name says where it came from, not what it is about)."""
        if self.category == "imported":
            return self.value
        name = self.name.replace("_", " ")
        if name.lower() in self.value.lower():
            return self.value
        return f"{name}: {self.value}"

    @property
    def columns(self) -> tuple[str, str]:
        """The entry as a name and a value apart, for a table: ("location", "Zürich"). An entry
        filed under its whole line says it twice ("cat: Miso" under "cat: Miso", "speaks Dutch"
        under "speaks Dutch"): it is cut into "cat" and "Miso (died)", "speaks" and "Dutch"."""
        kind, colon, rest = self.value.partition(": ")
        if colon and self.name.startswith(f"{kind}: "):
            return kind, rest
        if self.value == self.name and self.value.startswith("speaks "):
            return "speaks", self.value.removeprefix("speaks ")
        return self.name, self.value


@dataclass(frozen=True)
class ScoredPage:
    page: Page
    score: float
    sources: tuple[
        str, ...
    ]  # which searches found it: "short", "dense", "keyword", "segment", "time"


@dataclass(frozen=True)
class ScoredTurn:
    """One side of a retrieved page: side 0 is what the user (first speaker) said, 1 the reply."""

    page_id: int
    side: int
    score: float
    sources: tuple[str, ...]


@dataclass(frozen=True)
class ScoredFact:
    fact: Fact
    score: float


@dataclass(frozen=True)
class Retrieval:
    """Everything retrieved for one query, from all three tiers."""

    query: str
    short_term: tuple[Page, ...]
    pages: tuple[ScoredPage, ...]  # mid-term/archived pages, best first, within budget
    segments: tuple[Segment, ...]
    profile: tuple[ProfileSlot, ...]
    facts: tuple[ScoredFact, ...]
    knowledge: tuple[ScoredFact, ...]
    chain_summaries: tuple[str, ...] = ()
    elapsed_ms: float = 0.0
    turns: tuple[ScoredTurn, ...] = ()  # the turns of `pages` that matched, best first
    # Pages (older or recent) whose every fact was replaced since: shown marked out of date
    changed: frozenset[int] = frozenset()

    def first_pages(self, count: int) -> Retrieval:
        """This retrieval with only its `count` best older pages (and their turns): a budget of
        k turns may span up to 2k pages, where a caller asked for at most k."""
        pages = self.pages[:count]
        kept = {item.page.id for item in pages}
        turns = tuple(t for t in self.turns if t.page_id in kept)
        return replace(self, pages=pages, turns=turns)

    def ranked_turns(self) -> list[tuple[Page, int]]:
        """(page, side) of every retrieved turn, best first (for recall at a budget of turns)."""
        by_id = {p.page.id: p.page for p in self.pages}
        return [(by_id[t.page_id], t.side) for t in self.turns if t.page_id in by_id]

    def page_ids(self) -> list[int]:
        """Retrieved page ids, ranked pages first, then the STM queue (newest first)."""
        seen: list[int] = []
        for item in self.pages:
            if item.page.id not in seen:
                seen.append(item.page.id)
        for page in reversed(self.short_term):
            if page.id not in seen:
                seen.append(page.id)
        return seen

    def ranked_pages(self) -> list[Page]:
        """All retrieved pages in rank order (for evidence recall@k)."""
        by_id = {p.page.id: p.page for p in self.pages}
        by_id.update({p.id: p for p in self.short_term})
        return [by_id[i] for i in self.page_ids()]

    def context_text(self) -> str:
        """A plain-text rendering of the retrieved context (for display and tests)."""
        lines = [f"[profile] {s.text}" for s in self.profile]
        lines += [f"[fact] {f.fact.text}" for f in self.facts]
        lines += [f"[knowledge] {f.fact.text}" for f in self.knowledge]
        lines += [f"[page {p.page.id}] {p.page.text()}" for p in self.pages]
        lines += [f"[recent {p.id}] {p.text()}" for p in self.short_term]
        return "\n".join(lines)


@dataclass(frozen=True)
class ConsolidationStatus:
    pending_jobs: int
    running: bool
    failed_jobs: int
    last_error: str | None
    short_term_pages: int
    mid_term_pages: int
    segments: int
    facts: int
    words: int = 0  # the vocabulary (engine/memory/vocabulary.py)
    profile: int = 0  # current profile entries (the privacy panel lists them with the facts)
    # The class name of the error memory building waits out (DiskFullError, VaultLockedError:
    # its jobs were handed back, to run again by themselves), "" when none stops it
    paused_by: str = ""


@dataclass(frozen=True)
class VaultInfo:
    path: str
    schema_version: int
    embedder_id: str
    embedder_dimension: int
    key_location: str  # "keyring (<backend name>)" | "passphrase"
    pages: int
    size_bytes: int


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    title: str
    first_ts: float
    last_ts: float
    pages: int
