"""`memoryos facts`: what was learned (facts and profile entries) listed, added and deleted."""

from __future__ import annotations

import json
import sys
from typing import Any, NamedTuple

from engine import errors
from engine.terminal import wording
from engine.terminal.opening import _open

FACT_PREFIX, PROFILE_PREFIX = "f", "p"  # ids as `facts list` prints and `facts delete` takes


def _learned_from(page_ids, origin: str) -> str:
    """'from exchange 4', 'from exchanges 1, 4', 'added by you': where an item came from (the
    exchange ids `memoryos forget page` takes)."""
    if page_ids:
        return f"from exchange{'s' if len(page_ids) > 1 else ''} {', '.join(map(str, page_ids))}"
    if origin == "user":
        return "added by you"
    return origin if origin.startswith("imported") else "no exchange kept"


def _one_line(text: str) -> str:
    """An item on one line of `facts list` (one item a line, for grep and eyes): its line
    breaks shown as ⏎ (a fact remembered from a multi-paragraph message has them)."""
    return " ⏎ ".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _slot_name(slot) -> str:
    """"category/name: " before a profile entry's value; "category/" alone where the value says
    its name ("pets/cat: Miso", "preference/likes hiking", not "pets/cat: Miso: cat: Miso"). An
    imported profile is its own text: its name only says where it came from, which its line
    says at its end."""
    if slot.category == "imported":
        return ""
    if slot.text == slot.value:
        return f"{slot.category}/"
    return f"{slot.category}/{slot.name}: "


class Learned(NamedTuple):
    """One item of what was learned, with the ref `memoryos facts delete` takes."""

    kind: str  # "profile", or "fact": a fact or a note of what the assistant said
    ref: str  # p3 for a profile entry, f12 for a fact
    item: Any  # the ProfileSlot or the Fact


def learned_items(memory, include_all: bool = False) -> list[Learned]:
    """Every profile entry, then every fact, as `facts list` shows them (the superseded ones
    too with `include_all`, --all). `memoryos search` looks through the same items."""
    items = [
        Learned("profile", f"{PROFILE_PREFIX}{slot.id}", slot)
        for slot in memory.profile(include_superseded=include_all)
    ]
    items += [
        Learned("fact", f"{FACT_PREFIX}{fact.id}", fact)
        for fact in memory.facts(include_superseded=include_all)
    ]
    return items


def _listed(memory, include_all: bool) -> list[tuple[Learned, str]]:
    """Every item `facts list` shows, with the line printed for it: profile entries, then
    facts as the prompt reads them. --search matches these lines: what is shown (a resolved
    date, an id, a category) is what can be found."""
    from engine.remembered import said_at
    from engine.retrieval_facts import dated_facts

    items = learned_items(memory, include_all)
    out: list[tuple[Learned, str]] = []
    for entry in (entry for entry in items if entry.kind == "profile"):
        slot = entry.item
        mark = "" if slot.status == "active" else f" [{slot.status}]"
        named = _slot_name(slot)
        line = (
            f"profile {entry.ref:>6}  {named}"
            f"{_one_line(slot.value)}{mark}  ({_learned_from(slot.evidence_page_ids, slot.origin)})"
        )
        out.append((entry, line))
    entries = [entry for entry in items if entry.kind == "fact"]
    facts = [entry.item for entry in entries]
    # Dated when said: the first of its exchanges still stored, as the app dates it
    sources = sorted({i for fact in facts for i in fact.source_page_ids})
    times = {page.id: page.timestamp for page in memory.vault.pages(sources)}
    # As the prompt reads them: "Next Friday [4 December 2026] I fly to Lisbon", from when said
    for entry, dated in zip(entries, dated_facts(memory.vault, facts), strict=True):
        fact = entry.item
        mark = "" if fact.status == "active" else f" [{fact.status}]"
        label = "knows  " if fact.kind == "assistant_knowledge" else "fact   "
        said = said_at(times, fact.source_page_ids, fact.created)
        line = (
            f"{label} {entry.ref:>6}  {_one_line(dated.text)}{mark}  "
            f"({wording.when(said)}{wording.learned_on(said, fact.created)}, "
            f"{_learned_from(fact.source_page_ids, fact.origin)})"
        )
        out.append((entry, line))
    return out


def _matching(items: list[tuple[Learned, str]], search: str | None):
    """The items whose printed line contains `search` (any case); all of them without one."""
    if not search:
        return items
    return [(entry, line) for entry, line in items if search.lower() in line.lower()]


def _print_facts(memory, search: str | None, include_all: bool) -> None:
    items = _listed(memory, include_all)
    shown = _matching(items, search)
    if not items:
        print("Nothing learned yet.")
    elif not shown:
        print(f"Nothing learned matches {search!r}.")
    for _, line in shown:
        print(line)


def parse_item_ids(tokens: list[str]) -> list[tuple[str, int]]:
    """`facts delete` ids: f12 / fact 12 / 12 (a fact or assistant knowledge, as before),
    p3 / profile 3 (a profile entry). Returns (kind, id) pairs in order, without repeats."""
    import re

    out: list[tuple[str, int]] = []
    word: str | None = None
    for token in tokens:
        text = token.strip().lower()
        if text in ("fact", "profile"):
            if word is not None:
                raise errors.InvalidInputError(f"{word!r} needs an id after it, e.g. {word} 3")
            word = text
            continue
        found = re.fullmatch(r"(f|p|fact|profile)?(\d+)", text)
        if not found or (word is not None and found.group(1)):
            raise errors.InvalidInputError(
                f"{token!r} is not an id: use what `memoryos facts list` shows, f12 for a fact "
                "or p3 for a profile entry (a bare number is a fact)"
            )
        kind = "profile" if (word or found.group(1) or "f").startswith("p") else "fact"
        word = None
        if (kind, int(found.group(2))) not in out:
            out.append((kind, int(found.group(2))))
    if word is not None:
        raise errors.InvalidInputError(f"{word!r} needs an id after it, e.g. {word} 3")
    return out


def _delete_items(memory, args) -> int:
    """`facts delete`: every id checked first (nothing goes if one is unknown); the items are
    listed and the app's privacy-panel question asked, unless --yes (run_facts refuses to
    delete without it where there is no terminal to ask in, as `forget` does)."""
    from engine import forgetting

    chosen = parse_item_ids(args.ids)
    items = []
    for kind, item_id in chosen:
        if kind == "profile":
            slot = memory.vault.slot(item_id)  # NotFoundError: no profile slot with id N
            items.append((kind, item_id, f"{_slot_name(slot)}{slot.value}", slot))
        else:
            fact = memory.fact(item_id)  # NotFoundError: no fact with id N
            items.append((kind, item_id, fact.text, fact))
    if not args.yes:
        for kind, item_id, text, _ in items:
            prefix = PROFILE_PREFIX if kind == "profile" else FACT_PREFIX
            print(f"  {prefix}{item_id}  {' '.join(text.split())[:100]}")
        from engine.unlock import confirm

        if not confirm(f"{forgetting.delete_question(len(items))} [y/N] "):
            print("Nothing was deleted.")
            return 1
    facts = [item_id for kind, item_id, _, _ in items if kind == "fact"]
    if facts:
        memory.delete_facts(facts)
    for kind, item_id, _, _ in items:
        if kind == "profile":
            memory.delete_profile_slot(item_id)  # what the app's privacy panel calls
    profile = len(items) - len(facts)
    parts = [wording.count(len(facts), "fact")] if facts else []
    parts += [f"{profile} profile entr{'y' if profile == 1 else 'ies'}"] if profile else []
    print(f"Deleted {' and '.join(parts)}.")
    sources = sorted({
        page_id
        for kind, _, _, item in items
        for page_id in (item.evidence_page_ids if kind == "profile" else item.source_page_ids)
    })  # fmt: skip
    # the exchanges themselves (`forget page`), not the whole conversations they are in
    pages = [page.id for page in memory.vault.pages(sources)] if sources else []
    if len(pages) == 1:
        print(
            f"{forgetting.sources_stay(len(items))}; `memoryos forget page {pages[0]}` "
            f"forgets {'it' if len(items) == 1 else 'that exchange'} too."
        )
    elif pages:
        print(
            f"{forgetting.sources_stay(len(items))}; `memoryos forget page ID` forgets one "
            f"of them (exchanges {', '.join(map(str, pages))})."
        )
    return 0


def run_facts(args) -> int:
    if args.action == "delete":
        parse_item_ids(args.ids)  # a mistyped id is told before anything else
        if not args.yes and not sys.stdin.isatty():
            raise errors.InvalidInputError("add --yes to confirm (no terminal to ask)")
    memory = _open(args, background=False)
    try:
        action = args.action or "list"
        if action == "list":
            if getattr(args, "json", False):
                # the same items as the listing: --search matches their printed lines
                shown = _matching(_listed(memory, args.all), args.search)
                data = {
                    "profile": [
                        {**entry.item.__dict__, "ref": entry.ref}
                        for entry, _ in shown
                        if entry.kind == "profile"
                    ],
                    "facts": [
                        {**entry.item.__dict__, "ref": entry.ref}
                        for entry, _ in shown
                        if entry.kind == "fact"
                    ],
                }
                print(json.dumps(data, indent=1, ensure_ascii=False))
            else:
                _print_facts(memory, getattr(args, "search", None), getattr(args, "all", False))
        elif action == "delete":
            return _delete_items(memory, args)
        elif action == "add":
            fact = memory.add_fact(args.text)
            print(f"Added fact {FACT_PREFIX}{fact.id}.")
    finally:
        memory.close()
    return 0
