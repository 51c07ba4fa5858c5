"""Commands typed in a chat (/remember, /forget, /help): parsed the same way by the app and the CLI.

They are commands, not guesses: they work in any language because nothing here tries to read
the person's intent from free text.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import errors, remembered
from engine.memory import keywords
from engine.records import SUPERSEDED
from engine.terminal.wording import count

REMEMBER, FORGET, HELP, UNKNOWN = "remember", "forget", "help", "unknown"

HELP_LINES = (
    ("/remember TEXT", "remember TEXT as a fact about you"),
    ("/forget WORDS", "find what matches WORDS and forget it, after you confirm"),
    ("/help", "list these commands"),
)


@dataclass(frozen=True)
class Command:
    name: str  # REMEMBER | FORGET | HELP | UNKNOWN
    argument: str
    typed: str  # the command word as typed, e.g. "/remeber"


def parse(text: str) -> Command | None:
    """The command in `text`, or None when it is a message for the assistant."""
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) < 2 or not stripped[1].isalpha():
        return None
    word, _, argument = stripped.partition(" ")
    name = word[1:].lower()
    if name not in (REMEMBER, FORGET, HELP):
        name = UNKNOWN
    return Command(name=name, argument=argument.strip(), typed=word)


def help_text() -> str:
    return "\n".join(f"{usage:<16} {what}" for usage, what in HELP_LINES)


def known_text(status) -> str:
    """'7 facts · 5 profile entries': the long-term memory of a ConsolidationStatus, counted
    the way the Privacy panel lists it (facts, with the assistant's notes, and profile entries
    apart). The app's status bar, `memoryos status`, /status and the import summary all say
    it with these words."""
    return (f"{count(status.facts, 'fact')} · "
            f"{count(status.profile, 'profile entry', 'profile entries')}")


def memory_counts(status) -> str:
    """'3 recent exchanges · 12 exchanges in 2 topics · 7 facts · 5 profile entries'."""
    return (f"{count(status.short_term_pages, 'recent exchange')} · "
            f"{count(status.mid_term_pages, 'exchange')} in "
            f"{count(status.segments, 'topic')} · {known_text(status)}")


def remember(memory, text: str):
    """Store `text` as a fact whose source is the person (origin "user"). Returns the Fact."""
    text = text.strip()
    if not text:
        raise errors.InvalidInputError(
            "/remember needs the text to remember, e.g. /remember I am vegetarian"
        )
    return memory.add_fact(text)


@dataclass(frozen=True)
class ForgetMatch:
    """Something `/forget WORDS` found: a fact, a piece of knowledge, a profile entry or an exchange."""

    kind: str  # remembered.FACT | KNOWLEDGE | PROFILE | EXCHANGE
    id: int
    text: str
    date: float
    consequence: bool = False  # not a match: goes with matched exchanges (learned only from them)
    replaced: bool = False  # superseded: a newer item replaced it, it is no longer recalled

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.id)

    def label(self) -> str:
        """'fact', 'profile entry', 'exchange', 'fact, replaced' ..."""
        if self.kind == remembered.EXCHANGE:
            return "exchange"
        kind = remembered.describe(
            remembered.MemoryUsed(
                self.kind, self.id, remembered.PERSONA, self.text, self.date, None
            )
        )
        return f"{kind}, replaced" if self.replaced else kind


def search_words(text: str) -> list[str]:
    """The words `/forget TEXT` looks for."""
    words = keywords.content_words(text) or [w for w in keywords.tokens(text) if w]
    return list(dict.fromkeys(w.replace('"', "") for w in words if w.replace('"', "")))


def find_matches(memory, words: str, limit: int = 50) -> list[ForgetMatch]:
    """Everything that contains all of `words` (stemmed, any order): facts and knowledge,
    profile entries, then exchanges, newest first within each kind."""
    terms = search_words(words)
    if not terms:
        raise errors.InvalidInputError("/forget needs words to look for, e.g. /forget peanuts")
    match = " AND ".join(f'"{w}"' for w in terms)
    vault = memory.vault
    out: list[ForgetMatch] = []
    fact_ids = [i for i, _ in vault.keyword_search("facts_fts", match, limit)]
    for fact in memory.vault.facts(None, True, ids=fact_ids):
        kind = remembered.FACT if fact.kind == "user_fact" else remembered.KNOWLEDGE
        out.append(ForgetMatch(kind, fact.id, fact.text, fact.updated,
                               replaced=fact.status == SUPERSEDED))
    stems = {keywords.fts_term(w) for w in terms}
    for slot in memory.profile():
        slot_stems = {keywords.fts_term(t) for t in keywords.tokens(f"{slot.name} {slot.value}")}
        if stems <= slot_stems:
            out.append(
                ForgetMatch(remembered.PROFILE, slot.id, slot.text, slot.updated)
            )
    page_ids = [i for i, _ in vault.keyword_search("pages_fts", match, limit)]
    pages = sorted(vault.pages(page_ids), key=lambda p: -p.timestamp)
    out += [ForgetMatch(remembered.EXCHANGE, p.id, p.text(), p.timestamp) for p in pages]
    return out + consequences(memory, out)


def consequences(memory, matches: list[ForgetMatch]) -> list[ForgetMatch]:
    """Facts and profile entries learned only from the matched exchanges, not matched
    themselves: forgetting those exchanges removes them too (the privacy panel's cascade)."""
    pages = [m.id for m in matches if m.kind == remembered.EXCHANGE and not m.consequence]
    if not pages:
        return []
    cascade = memory.preview_forget_pages(pages)  # exactly what forgetting them will remove
    fact_ids, slot_ids = cascade.facts, cascade.slots
    listed = {m.key for m in matches}
    out = []
    for fact in memory.vault.facts(None, True, ids=fact_ids) if fact_ids else []:
        kind = remembered.FACT if fact.kind == "user_fact" else remembered.KNOWLEDGE
        if (kind, fact.id) not in listed:
            out.append(ForgetMatch(kind, fact.id, fact.text, fact.updated, consequence=True,
                                   replaced=fact.status == SUPERSEDED))
    for slot in memory.profile(include_superseded=True):
        if slot.id in slot_ids and (remembered.PROFILE, slot.id) not in listed:
            text = slot.text
            out.append(
                ForgetMatch(remembered.PROFILE, slot.id, text, slot.updated, consequence=True,
                            replaced=slot.status == SUPERSEDED)
            )
    return out


def forget_matches(memory, matches: list[ForgetMatch]) -> int:
    """Delete the confirmed matches through the facade's own forget calls (same cascade as
    the privacy panel). Items already gone with an earlier one's cascade are skipped.
    Returns how many items went: the matches and what was learned only from them."""
    matches = [m for m in matches if not m.consequence]  # recomputed: only what still goes
    total = len(matches) + len(consequences(memory, matches))
    facts = [m.id for m in matches if m.kind in (remembered.FACT, remembered.KNOWLEDGE)]
    present = {f.id for f in memory.vault.facts(None, True, ids=facts)} if facts else set()
    if present:
        memory.delete_facts(sorted(present))
    for match in matches:
        if match.kind == remembered.PROFILE:
            try:
                memory.delete_profile_slot(match.id)
            except errors.NotFoundError:
                pass
        elif match.kind == remembered.EXCHANGE:
            try:
                memory.forget_page(match.id)
            except errors.NotFoundError:
                pass
    return total
