"""The persona's facts chosen for a question, the current one first, dated as they were meant."""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import replace

import numpy as np

from engine.memory import keywords, when
from engine.records import (
    ASSISTANT_KNOWLEDGE,
    SUPERSEDED,
    USER_FACT,
    Fact,
    ProfileSlot,
    ScoredFact,
)
from engine.retrieval_lists import fuse, keyword_match, load_pages, ranked, related


def choose_facts(
    memory, query: str, vector: np.ndarray, settings
) -> tuple[list[ScoredFact], list[ScoredFact]]:
    vault = memory.vault
    pool = 4 * (settings.top_facts + settings.top_knowledge) + 20
    dense = related(memory.fact_mirror.search(vector, pool))
    match = keyword_match(vault, "facts_fts", query)
    lexical = vault.keyword_search("facts_fts", match, pool) if match else []
    scores, _ = fuse(
        {
            "dense": (1.0, ranked([i for i, _ in dense])),
            "keyword": (1.0, ranked([i for i, _ in lexical])),
        }
    )
    # A tie (one fact first by meaning, another first by words) goes to meaning: for "What is
    # my cat's name?" the cat fact, not "My name is Sam", which only shares the word "name".
    closeness = {fact_id: rank for rank, (fact_id, _) in enumerate(dense)}
    fact_ids = sorted(scores, key=lambda i: (-scores[i], closeness.get(i, len(closeness))))
    by_id = {f.id: f for f in vault.facts(None, include_superseded=False, ids=fact_ids)}
    facts, knowledge = [], []
    for fact_id in fact_ids:
        fact = by_id.get(fact_id)
        if fact is None or fact.status == SUPERSEDED:
            continue
        if fact.kind == USER_FACT and len(facts) < settings.top_facts:
            facts.append(ScoredFact(fact, scores[fact_id]))
        elif fact.kind == ASSISTANT_KNOWLEDGE and len(knowledge) < settings.top_knowledge:
            knowledge.append(ScoredFact(fact, scores[fact_id]))
    said = _said_at(vault, facts + knowledge)
    return _dated(facts, said), _dated(knowledge, said)


# Two chosen facts are about the same thing ("My levothyroxine went up to 75 micrograms", "My
# levothyroxine is now 88 micrograms") when their vectors (the fact mirror's) have at least this
# cosine and they hold the same words of the question. Measured with all-MiniLM-L6-v2 on pairs
# of sentences written for it (not LoCoMo): 22 of one thing said twice, the second a change (a
# dose, a rent, a flight, a gym day, a therapist, a sister's city), 0.44 to 0.94, 13 >= 0.72;
# 24 of two things (another medicine, pet, drink, person), 0.04 to 0.82, one >= 0.72: "My
# sister Anna lives in Oslo" / "My mother lives in Oslo" 0.82, which the question's words tell
# apart (asked about the sister, one holds "sister", the other not); three at 0.70-0.72 ("My
# best friend is Kari" / "My boss is Kari", a rent and a salary, a sister and a brother in
# Oslo). A pair missed keeps its rank order; a pair joined wrongly puts a newer, other fact
# first, so the threshold errs high. Not caught: "I take 100 micrograms now instead of 88"
# beside "My levothyroxine is now 88 micrograms" (0.51; engine/memory replaces that one).
SAME_THING_COS = 0.72


def current_first(memory, query: str, facts: list[ScoredFact]) -> list[ScoredFact]:
    """`facts` (chosen and ranked for `query`) with each group about the same thing
    (SAME_THING_COS) in the order it was said, newest first, in the places the group holds: a
    prompt with room for one dose shows the current one, not the first ever said. Which facts
    are chosen, and where each group stands, is unchanged."""
    if len(facts) < 2:
        return facts
    vectors = memory.fact_mirror.vectors([item.fact.id for item in facts])
    asked = keywords.normalise(keywords.content_words(query))
    held = [asked & keywords.normalise(keywords.content_words(f.fact.text)) for f in facts]
    group = list(range(len(facts)))  # union-find: each place's link towards its group's root

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, j in itertools.combinations(range(len(facts)), 2):
        a, b = vectors.get(facts[i].fact.id), vectors.get(facts[j].fact.id)
        if a is None or b is None or held[i] != held[j] or float(a @ b) < SAME_THING_COS:
            continue
        group[root(j)] = root(i)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(facts)):
        members[root(i)].append(i)
    joined = [places for places in members.values() if len(places) > 1]
    if not joined:
        return facts
    said = _said_last(memory.vault, [facts[i].fact for places in joined for i in places])
    out = list(facts)
    for places in joined:
        newest = sorted(places, key=lambda i: (-said.get(facts[i].fact.id, 0.0), i))
        for place, i in zip(places, newest, strict=True):
            out[place] = facts[i]
    return out


def _said_last(vault, facts: list[Fact]) -> dict[int, float]:
    """By fact id, when the last exchange it came from was said (an imported exchange: when it
    was said, not imported); a fact with no exchange left (typed in Privacy): when made."""
    pages = load_pages(vault, {i for fact in facts for i in fact.source_page_ids})
    return {
        fact.id: max(
            (pages[i].timestamp for i in fact.source_page_ids if i in pages),
            default=fact.created,
        )
        for fact in facts
    }


def _said_at(vault, items: list[ScoredFact]) -> dict[int, float]:
    """By page id, when the exchange was stored that each fact with an unresolved relative
    date came from: one read for all of them, none when no fact says "yesterday" or the like."""
    ids = {
        item.fact.source_page_ids[0]
        for item in items
        if item.fact.source_page_ids and when.undated(item.fact.text)
    }
    return {page.id: page.timestamp for page in load_pages(vault, ids).values()}


def _dated(items: list[ScoredFact], said: dict[int, float]) -> list[ScoredFact]:
    """A fact keeps the words that were said ("my dog chewed my bow yesterday"); shown to a
    model days later, each relative date in it gets the day it meant, from the exchange the fact
    came from. Ranking is not affected: the facts are already chosen."""
    out = []
    for item in items:
        ids = item.fact.source_page_ids
        if ids and ids[0] in said:
            text = when.dated(item.fact.text, said[ids[0]])
            item = replace(item, fact=replace(item.fact, text=text))
        out.append(item)
    return out


def dated_facts(vault, facts: list[Fact]) -> list[Fact]:
    """`facts` as a prompt shows them (_dated): "Next Friday [4 December 2026] I fly to Lisbon",
    the day meant when the fact was said, never today's. For lists of what the model read."""
    items = [ScoredFact(fact, 0.0) for fact in facts]
    return [item.fact for item in _dated(items, _said_at(vault, items))]


# Profile entries true on the day they were said, and shown to a model with that day: "I'm 34"
# is no longer true a year on (persona_self reads the age).
SAID_ON = ("age",)


def dated_profile(vault, profile: tuple[ProfileSlot, ...]) -> tuple[ProfileSlot, ...]:
    """`profile` as a prompt shows it: an age with the day it was said, "age: 34 (said on 3 March
    2026)", from the last exchange that said it (an imported one: when it was said, not
    imported); an age typed or edited in Privacy, from when it was typed."""
    aged = [slot for slot in profile if slot.name in SAID_ON]
    if not aged:
        return profile
    learned = {i for slot in aged if slot.origin != "user" for i in slot.evidence_page_ids}
    said = {page.id: page.timestamp for page in load_pages(vault, learned).values()}

    def dated(slot: ProfileSlot) -> ProfileSlot:
        if slot.name not in SAID_ON:
            return slot
        when_said = slot.updated  # typed or edited by the person: when that was done
        if slot.origin != "user":
            when_said = max(
                (said[i] for i in slot.evidence_page_ids if i in said), default=when_said
            )
        return replace(slot, value=f"{slot.value} (said on {when.describe_day(when_said)})")

    return tuple(dated(slot) for slot in profile)
