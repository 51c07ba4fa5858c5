"""Which retrieved memories a prompt carries: a small model's few, and the time budget."""

from __future__ import annotations

import dataclasses

from engine.memory.keywords import content_words, normalise
from engine.memory.persona_life import CATEGORY_WORDS, HEALTH, NAMING_WORDS, PEOPLE, PETS
from engine.memory.persona_patterns import SLOT_WORDS
from engine.prompt import (
    ANSWER_MARK,
    MEMORY_HEADER,
    SMALL_RECENT,
    STABLE_SLOTS,
    SYSTEM,
    TEMPLATE_TOKENS,
    ShownHistory,
    _page_line,
    _window,
)
from engine.records import ProfileSlot, Retrieval, ScoredFact

SMALL_FACTS = 5
# Profile entries and facts share SMALL_FACTS places, the profile at most this many: the facts
# are ranked for the question and the profile is not, so with five profile entries the fact
# that answers ("My dog is called Biscuit") never reached the demo model.
SMALL_PROFILE = 3
# Words a question about an entry asks beside the entry's own ("Where do I live?", "What
# is my job?"): see STABLE_SLOTS in engine/prompt.py for which entries are shown.
ASKED_WORDS = {
    "location": "city town country home address",
    "origin": "country home from grew born",
    "children": "kids children son sons daughter daughters family",
    "pronouns": "pronoun pronouns",
    "occupation": "job profession career",
    "employer": "job company employer",
    "diet": "eat eating food meal meat cook recipe restaurant",
    "birthday": "born old age",
    "age": "old born birthday",
    "relationship": "married marriage single partner relationship spouse dating",
}
# The same for every entry of a category (persona_health.py, persona_life.py): "Can I eat
# satay?" is about an allergy that no word of it names.
ASKED_CATEGORY_WORDS = {
    HEALTH: "eat eating food meal drink cook recipe restaurant health doctor medicine",
    PETS: "pet pets animal animals",
}
SMALL_PAGES = 3  # past things the user said, best first
# Memory may add at most this share of a bare question's time to first token (issue #14: with
# memory <= 1.5x without). Prompt processing dominates that time on a CPU, so the share is a
# number of new tokens, chosen from the speed the backend measured.
MEMORY_SHARE = 0.5
MIN_MEMORY_TOKENS = 16  # one short fact, whatever the speed
# The best fact and the best exchange may take the budget up to this many times (fit_memory).
# Chosen with the personal probe (`memoryos eval personal`, small prompt) and the TTFT bench
# (`python -m engine.eval.bench_answer --conversation --questions 20 --pages 2000 --max-tokens 32
# --threads 1`, SmolLM2, budget 42 tokens): 1.0 21/25, new memory tokens p50/p95 52/56, time to
# the first token per turn / the question alone with nothing cached 0.67x/0.90x; 1.5 24/25,
# 64/79, 0.87x/1.13x; 2.0 24/25, 87/94, 1.15x/1.58x (slower than no memory at all); only the
# first line allowed past the budget, at 2.0: 23/25, 63/66, 0.90x/1.02x.
BEST_ROOM = 1.5


def memory_budget(chat: object, query: str) -> int | None:
    """New memory tokens one answer may carry, from the model's measured prompt speed: at most
    MEMORY_SHARE of the time the bare question takes to its first token. None (no cut) for a
    backend that measures no speed (a server, the fake model)."""
    speed = getattr(chat, "prompt_tokens_per_second", None)
    if not speed:
        return None
    first_token = getattr(chat, "first_token_seconds", 0.0) or 0.0
    count = getattr(chat, "count_tokens", lambda text: max(1, len(text) // 4))
    # The bare question: the instructions and the question alone, a fresh prompt to process.
    bare_tokens = count(SYSTEM) + count(query) + TEMPLATE_TOKENS
    bare_seconds = first_token + bare_tokens / speed
    return max(MIN_MEMORY_TOKENS, int(MEMORY_SHARE * bare_seconds * speed))


def fit_memory(
    retrieval: Retrieval,
    query: str,
    chat: object,
    compact: bool = False,
    history: ShownHistory | None = None,
) -> Retrieval:
    """`retrieval` cut to the memory budget: facts, assistant knowledge, exchanges, then thread
    summaries, best first, as long as their new lines fit (lines the conversation above already shows are
    free). The prompt and the list of memories an answer used are both made from the result."""
    budget = memory_budget(chat, query)
    if budget is None:
        return retrieval
    count = chat.count_tokens  # type: ignore[attr-defined]
    recent = _window(retrieval.short_term, SMALL_RECENT) if compact else retrieval.short_term
    seen: set[str] = set()
    for page in recent:
        shown = history.shown(page.id) if history is not None else None
        if shown:
            seen.update(shown.splitlines())
    # The block's header, its section titles and the mark before the question cost too.
    used = 0
    overhead = count(MEMORY_HEADER) + count(ANSWER_MARK) + 8

    def fits(line: str, best: bool = False) -> bool:
        nonlocal used
        if line in seen:
            return True
        cost = count(line) + 1 + (overhead if used == 0 else 0)
        if used + cost > (BEST_ROOM * budget if best else budget):
            return False
        used += cost
        seen.add(line)
        return True

    # The best fact and the best exchange may go past the budget (up to BEST_ROOM of it): the
    # demo model's budget is ~40 tokens, and a dated fact of 30 ("I fly to Rome next Tuesday
    # [20 May 2025]") was left out while a shorter, weaker line took its place (the personal
    # probe: `memoryos eval personal`, "When is my flight?").
    facts = tuple(
        f for i, f in enumerate(retrieval.facts) if fits(f"- {f.fact.text}", best=i == 0)
    )
    knowledge = tuple(f for f in retrieval.knowledge if fits(f"- {f.fact.text}"))
    pages = tuple(
        item
        for i, item in enumerate(retrieval.pages)
        if fits(_page_line(retrieval, item.page, compact), best=i == 0)
    )
    # Thread summaries last: they restate what the exchanges above say.
    threads = () if compact else tuple(s for s in retrieval.chain_summaries if fits(f"- {s}"))
    kept = {item.page.id for item in pages}
    return dataclasses.replace(
        retrieval,
        facts=facts,
        knowledge=knowledge,
        pages=pages,
        chain_summaries=threads,
        turns=tuple(t for t in retrieval.turns if t.page_id in kept),
    )


def compact_retrieval(retrieval: Retrieval) -> Retrieval:
    """What of `retrieval` the small-model prompt holds: the name and the profile entries the
    question is about (small_profile), the best few facts the profile does not already say, the
    best few older exchanges and the last 1-3 exchanges, no assistant knowledge or threads (a
    transcript between two people is left out). The prompt and the list of memories an answer
    used are both made from this, so that list is exactly what the model was shown."""
    profile = list(small_profile(retrieval.profile, retrieval.query))
    shown = normalise([w for slot in profile for w in _said_words(slot)])
    facts: list[ScoredFact] = []
    for item in retrieval.facts:
        if len(profile) + len(facts) >= SMALL_FACTS:
            break
        said = normalise(content_words(item.fact.text))
        if said <= shown:  # "My name is Priya Raman." beside "name: Priya Raman" says no more
            continue
        # The entries made from the same exchange come with it (as many as SMALL_PROFILE
        # allows), and take its place when they say all of it: "I've switched from coffee to
        # green tea" ranked for "What do I drink in the morning?" brings "switched to green tea
        # from coffee", which no word of the question names; "My name is Marta and I live in
        # Lisbon" is shown as location: Lisbon. Profile lines are short and not cut by
        # fit_memory, so the entry is shown when the budget leaves the fact out.
        ids, sources = {slot.id for slot in profile}, set(item.fact.source_page_ids)
        others = [
            slot for slot in retrieval.profile
            if slot.id not in ids and sources & set(slot.evidence_page_ids)
            and said & normalise(content_words(f"{slot.name} {slot.value}"))
        ]  # fmt: skip
        if others and len(profile) + len(others) <= SMALL_PROFILE:
            profile += others
            shown |= normalise([w for slot in others for w in _said_words(slot)])
            if said <= shown or len(profile) + len(facts) >= SMALL_FACTS:
                continue
        facts.append(item)
    recent = tuple(_window(retrieval.short_term, SMALL_RECENT))
    # Only the 1-3 exchanges shown as turns are left out: the rest of the short-term queue is
    # not in this prompt otherwise (it was, for a while, in neither place).
    recent_ids = {p.id for p in recent}
    pages = tuple(
        item
        for item in retrieval.pages
        if item.page.id not in recent_ids and "agent_speaker" not in item.page.meta
    )[:SMALL_PAGES]
    kept = {item.page.id for item in pages}
    return dataclasses.replace(
        retrieval,
        short_term=recent,
        pages=pages,
        profile=tuple(profile),
        facts=tuple(facts),
        knowledge=(),
        chain_summaries=(),
        turns=tuple(t for t in retrieval.turns if t.page_id in kept),
    )


def _slot_words(slot: ProfileSlot) -> list[str]:
    """The entry's words, with those its pattern read ("live" for location)."""
    pattern = f"{SLOT_WORDS.get(slot.name, '')} {CATEGORY_WORDS.get(slot.category, '')}"
    return content_words(f"{slot.name} {slot.value} {pattern}")


def _said_words(slot: ProfileSlot) -> list[str]:
    """The words a fact may say that the entry says too ("called" beside "cat: Miso")."""
    naming = NAMING_WORDS.split() if slot.category in (PETS, PEOPLE) else []
    return _slot_words(slot) + naming


def small_profile(profile: tuple[ProfileSlot, ...], query: str) -> tuple[ProfileSlot, ...]:
    """The profile entries a small model is shown for `query` (see STABLE_SLOTS): the name,
    then the entries the question is about, at most SMALL_PROFILE."""
    stable = [slot for slot in profile if slot.name in STABLE_SLOTS]
    asked = normalise(content_words(query))
    shared = {
        slot.id: asked & normalise(_slot_words(slot) + _asked_words(slot))
        for slot in profile
        if slot.name not in STABLE_SLOTS
    }
    about = [slot for slot in profile if shared.get(slot.id)]
    # A word every such entry shares says less than one only some share: "What's my favourite
    # colour?" is about "favourite colour: blue", not every favourite; "Can I eat satay?" shares
    # "eat" with every health entry, and is about them all.
    everywhere = set.intersection(*(shared[slot.id] for slot in about)) if about else set()
    narrower = [slot for slot in about if shared[slot.id] - everywhere]
    return tuple(stable + (narrower or about))[:SMALL_PROFILE]


def _asked_words(slot: ProfileSlot) -> list[str]:
    """The words a question about `slot` may ask instead of its own (ASKED_WORDS)."""
    return f"{ASKED_WORDS.get(slot.name, '')} {ASKED_CATEGORY_WORDS.get(slot.category, '')}".split()
