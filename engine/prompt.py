"""Prompt assembly for an answer: persona, knowledge, chain summaries, dated pages, STM turns."""

from __future__ import annotations

import time

from engine.memory import when
from engine.records import Page, Retrieval

SYSTEM = (
    "You are a private assistant running on the user's own computer. You remember the user "
    "across conversations through the memories below. Use them when they help, mention dates "
    "when the question is about time, and never invent memories: if the memories do not hold "
    "the answer, say that it was not mentioned."
)


def build_messages(
    retrieval: Retrieval, query: str, now: float | None = None
) -> list[dict[str, str]]:
    now = time.time() if now is None else now
    # Stable parts first, changing parts last: llama.cpp reuses the cached prefix of the
    # previous prompt, so a date near the top would force the whole memory to be re-read.
    sections = [SYSTEM]
    if retrieval.profile:
        sections.append(
            "What you know about the user:\n"
            + "\n".join(f"- {slot.name}: {slot.value}" for slot in retrieval.profile)
        )
    if retrieval.facts:
        sections.append("User facts:\n" + "\n".join(f"- {f.fact.text}" for f in retrieval.facts))
    if retrieval.knowledge:
        sections.append(
            "What you did or promised earlier:\n"
            + "\n".join(f"- {f.fact.text}" for f in retrieval.knowledge)
        )
    if retrieval.chain_summaries:
        sections.append(
            "Conversation threads:\n" + "\n".join(f"- {s}" for s in retrieval.chain_summaries)
        )
    recent_ids = {p.id for p in retrieval.short_term}
    older = [item.page for item in retrieval.pages if item.page.id not in recent_ids]
    if older:
        older.sort(key=lambda p: p.timestamp)
        sections.append(
            "Relevant past exchanges:\n"
            + "\n".join(
                f"[{when.describe(p.timestamp)}] "
                + when.resolve_relative(_matched_text(retrieval, p), p.timestamp)
                for p in older
            )
        )
    sections.append(f"Today is {when.describe_day(now)}.")
    messages = [{"role": "system", "content": "\n\n".join(sections)}]
    for page in retrieval.short_term:
        if "agent_speaker" in page.meta:  # a transcript between two people: keep their names
            messages.append(
                {"role": "user", "content": f"[{when.describe(page.timestamp)}] {page.text()}"}
            )
            continue
        if page.user_input:
            messages.append({"role": "user", "content": page.user_input})
        if page.agent_response:
            messages.append({"role": "assistant", "content": page.agent_response})
    messages.append({"role": "user", "content": query})
    return _merge_same_role(messages)


def _matched_text(retrieval: Retrieval, page: Page) -> str:
    """The turns of a page that retrieval matched (the whole page when it names none)."""
    sides = sorted({t.side for t in retrieval.turns if t.page_id == page.id})
    if not sides:
        return page.text()
    return "\n".join(page.turn_text(side) for side in sides)


def _merge_same_role(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Chat templates want user and assistant turns to alternate."""
    merged: list[dict[str, str]] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"] and message["role"] != "system":
            merged[-1] = {
                "role": message["role"],
                "content": merged[-1]["content"] + "\n\n" + message["content"],
            }
        else:
            merged.append(dict(message))
    return merged
