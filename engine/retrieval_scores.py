"""What moves a fused turn's score: its neighbours, the speakers named, turns that only ask."""

from __future__ import annotations

import re

from engine.memory import keywords
from engine.records import Page, turn_id, turn_page, turn_side
from engine.retrieval_lists import has_side, load_missing, speaker


def named_speakers(query: str, pages: list[Page]) -> set[str]:
    """The speakers of these pages that the question names ("Melanie's kids": melanie)."""
    words = {w.removesuffix("'s") for w in keywords.tokens(query.replace("\u2019", "'"))}
    spoken = {speaker(p, side) for p in pages for side in (0, 1)}
    return {w for w in words if w in spoken}


def without_names(query: str, names: set[str]) -> str:
    """The question without the names of its speakers, if anything is left to search for."""
    if not names:
        return query
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")(?:['\u2019]s)?\b"
    topic = " ".join(re.sub(pattern, " ", query, flags=re.IGNORECASE).split())
    return topic if keywords.content_words(topic) else query


# The question's words often sit in the turn before the answer. Dev recall_turns@10 with the
# stage off 0.664, share 0.25 0.702 (conv-26); 0.4 -> 0.741 vs 0.25 -> 0.731 on both. With
# the named-speakers stage (overall / multi-hop; other-speaker factor 0.3): 0.3 0.849/0.606,
# 0.4 0.841/0.566, 0.5 0.835/0.554; with the final factor 0.5: 0.3 0.843/0.573, 0.4 0.838/0.538.
NEIGHBOUR_SHARE = 0.3
# The reply to a strong turn that asks something is where its answer usually is. Dev
# recall_turns@10: 0.4 (as any neighbour) 0.771, 0.5 0.781, 0.6 0.786 (multi-hop 0.409),
# 0.7 0.782, 0.8 0.775, 1.0 0.775; with 0.6, NEIGHBOUR_SHARE 0.3 0.777, 0.5 0.782.
ANSWER_SHARE = 0.6


def boost_neighbours(
    vault,
    pages: dict[int, Page],
    scores: dict[int, float],
    sources: dict[int, list[str]],
    limit: int,
) -> None:
    """Give the turns just before and after each strong turn a share of its score."""
    top = sorted(scores, key=lambda t: (-scores[t], t))[:limit]
    base = {t: scores[t] for t in top}
    around = vault.neighbour_ids(sorted({turn_page(t) for t in top}))

    def last_side(page_id: int) -> int:  # a page not read yet: most exchanges have a reply
        page = pages.get(page_id)
        return 1 if page is None or page.agent_response else 0

    for turn in top:
        page_id, side = turn_page(turn), turn_side(turn)
        before, after = around.get(page_id, (None, None))
        near = []  # (turn, True when it follows `turn`)
        if side == 1:
            near.append((turn_id(page_id, 0), False))
            if after is not None:
                near.append((turn_id(after, 0), True))
        else:
            if has_side(pages, turn_id(page_id, 1)):
                near.append((turn_id(page_id, 1), True))
            if before is not None:
                near.append((turn_id(before, last_side(before)), False))
        asks = "?" in (pages[page_id].turn_text(side) if page_id in pages else "")
        for neighbour, follows in near:
            share = ANSWER_SHARE if follows and asks else NEIGHBOUR_SHARE
            scores[neighbour] = scores.get(neighbour, 0.0) + share * base[turn]
            if "neighbour" not in sources[neighbour]:
                sources[neighbour].append("neighbour")


# Score factor for a turn by a speaker the question does not name. Dev recall_turns@10,
# question embedded without the names (overall 1-4 / multi-hop / adversarial, category 5,
# whose questions name the wrong person and whose evidence is the other speaker's turn):
# 1.0 0.786/0.418/0.944, 0.7 0.807/0.484/0.915, 0.5 0.843/0.573/0.880, 0.3 0.849/0.595/0.634.
# 0.5: a question that names the wrong person must still find who really said it. Applied
# after the neighbour shares: before them, 0.781/0.430 (at 0.3, names kept in the query).
SPEAKER_OTHER = 0.5


# Score factor for a turn that only asks (only_asks). Dev recall_turns@10 (overall / multi-hop
# / adversarial; conv-26, conv-30), against 0.859 / 0.600 / 0.866 (0.876, 0.827) without it:
# 0.6 0.862 / 0.608, 0.7 0.864 / 0.608 / 0.894 (0.878, 0.839), 0.8 0.864 / 0.608 / 0.866;
# 0.3 and 0.5 (without the first-person guard below) 0.858 and 0.862. The turns it lowers are
# the other speaker's "What do you love most about camping?" that ranked above the answers.
# Without the guard the same 0.864 for limits of 6-12 words, but 0.858 at 20.
ASKING = 0.7
# What else an asking turn may say: sentences up to this many words with no first person in
# them ("Wow, Mel, that's awesome!"). A sentence about oneself ("I adopted a dog last week.
# Any tips?") is something told, so that turn is not discounted. Dev, at ASKING 0.7: 6, 8, 10,
# 12 and 20 words all 0.864 / 0.608 (adversarial 0.866-0.894).
REACTION_WORDS = 12
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
# Wider than the persona's list (engine/memory/persona_statements.py), which leaves out us and ours:
# one list for both (this one, plus "ourselves") made the persona also keep sentences whose only
# first-person word is "us" or "ours", and cost dev 0.864 / 0.608 -> 0.863 / 0.600.
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours)\b",
    re.IGNORECASE,
)


def only_asks(text: str) -> bool:
    """True for a turn that ends in a question and says nothing else of its own: its other
    sentences, if any, are short reactions without "I", "my", "we"..."""
    sentences = [s for s in _SENTENCE_BREAK.split(text.strip()) if s]
    if not sentences or not sentences[-1].endswith("?"):
        return False
    return all(
        s.endswith("?")
        or (len(s.split()) <= REACTION_WORDS and not _FIRST_PERSON.search(s))
        for s in sentences
    )


def discount_asking(
    vault, pages: dict[int, Page], head: list[int], scores: dict[int, float]
) -> None:
    """Turns of `head` (the best of the pool) that only ask (only_asks) count ASKING of their
    score."""
    load_missing(vault, pages, {turn_page(t) for t in head})
    for turn in head:
        page = pages.get(turn_page(turn))
        if page is not None and only_asks(page.turn_text(turn_side(turn))):
            scores[turn] *= ASKING


def prefer_named_speakers(
    vault,
    pages: dict[int, Page],
    ranked: list[int],
    scores: dict[int, float],
    named: set[str],
    pool: int,
) -> list[int]:
    """When the question names who spoke ("What has Melanie painted?"), turns by others
    count less: their words about the named person are second-hand."""
    head = ranked[:pool]
    load_missing(vault, pages, {turn_page(t) for t in head})
    for turn in head:
        page = pages.get(turn_page(turn))
        who = speaker(page, turn_side(turn)) if page is not None else ""
        if who and who not in named:
            scores[turn] *= SPEAKER_OTHER
    head.sort(key=lambda t: (-scores[t], t))
    return head + ranked[pool:]
