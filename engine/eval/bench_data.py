"""The synthetic exchanges `memoryos bench` fills its vaults with."""

from __future__ import annotations

import random

NAMES = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Grace", "Hugo", "Iris", "Jonas"]
VERBS = [
    "visited",
    "cooked",
    "painted",
    "repaired",
    "booked",
    "read about",
    "bought",
    "planned",
    "photographed",
    "learned about",
    "argued about",
    "finished",
]
THINGS = [
    "a sourdough loaf",
    "the old bicycle",
    "a trip to Lisbon",
    "the garden shed",
    "a jazz concert",
    "the tax forms",
    "a pottery class",
    "a used camera",
    "the kitchen tap",
    "a marathon plan",
    "a birthday present",
    "the violin lessons",
    "a chess opening",
    "the roof tiles",
    "a hiking route",
    "a podcast about whales",
    "the budget sheet",
]
WHEN = [
    "yesterday",
    "last weekend",
    "on Tuesday",
    "this morning",
    "two weeks ago",
    "in March",
    "after work",
    "before the holidays",
]
FEELINGS = [
    "It was fun.",
    "That took longer than planned.",
    "I want to do it again.",
    "Not sure it was worth it.",
    "The kids loved it.",
    "I am still tired.",
    "",
]


def synthetic_exchange(rng: random.Random) -> tuple[str, str]:
    """A varied, plausible exchange (so FTS and vectors are not degenerate)."""
    who = rng.choice(NAMES)
    user = (
        f"{rng.choice(WHEN).capitalize()} {who} and I {rng.choice(VERBS)} "
        f"{rng.choice(THINGS)}. {rng.choice(FEELINGS)}"
    ).strip()
    agent = (
        f"How did {rng.choice(THINGS)} compare with {rng.choice(THINGS)}? "
        f"You mentioned {rng.choice(NAMES)} {rng.choice(VERBS)} it {rng.choice(WHEN)}."
    )
    return user, agent
