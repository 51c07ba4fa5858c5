"""Prompt assembly for an answer: persona, knowledge, chain summaries, dated pages, STM turns."""

from __future__ import annotations

import dataclasses
import json
import time

from engine.memory import when
from engine.records import Page, Retrieval

SYSTEM = (
    "You are a private assistant running on the user's own computer. You remember the user "
    "across conversations through the memories below. Use them when they help, mention dates "
    "when the question is about time, and never invent memories: if the memories do not hold "
    "the answer, say that it was not mentioned."
)

# A model this small drowns in a long system prompt: it loses the question and drifts into
# another language. It gets one short instruction, a few facts and the last exchange.
SMALL_MODEL_PARAMETERS = 1_000_000_000
SYSTEM_SMALL = (
    "You are a helpful assistant. Answer in the same language as the user's last message, "
    "in one to three short sentences."
)
SMALL_FACTS = 5
SMALL_PAGES = 3  # past things the user said, best first


def is_small_model(chat: object) -> bool:
    """True for a local model under 1 B parameters (known from its GGUF header)."""
    parameters = getattr(getattr(chat, "info", None), "parameters", 0) or 0
    return 0 < parameters < SMALL_MODEL_PARAMETERS


def build_messages(
    retrieval: Retrieval, query: str, now: float | None = None, compact: bool = False
) -> list[dict[str, str]]:
    now = time.time() if now is None else now
    if compact:
        return _compact_messages(retrieval, query)
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


def compact_retrieval(retrieval: Retrieval) -> Retrieval:
    """What of `retrieval` the small-model prompt holds: the first few profile slots and facts,
    the best few older exchanges and the recent queue, no assistant knowledge or threads (a
    transcript between two people is left out). The prompt and the list of memories an answer
    used are both made from this, so that list is exactly what the model was shown."""
    profile = retrieval.profile[:SMALL_FACTS]
    facts = retrieval.facts[: SMALL_FACTS - len(profile)]
    recent = tuple(p for p in retrieval.short_term if "agent_speaker" not in p.meta)
    recent_ids = {p.id for p in retrieval.short_term}
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
        profile=profile,
        facts=facts,
        knowledge=(),
        chain_summaries=(),
        turns=tuple(t for t in retrieval.turns if t.page_id in kept),
    )


def _compact_messages(retrieval: Retrieval, query: str) -> list[dict[str, str]]:
    """The small-model prompt: short instruction, a few known facts and past lines, the last turn."""
    retrieval = compact_retrieval(retrieval)  # a no-op when the caller already cut it
    known = [f"{slot.name}: {slot.value}" for slot in retrieval.profile]
    known += [item.fact.text for item in retrieval.facts]
    ranked = [item.page for item in retrieval.pages]
    # The best older pages, then this conversation's recent lines: the user's words only.
    pages = ranked + list(retrieval.short_term[:-1])
    said = [_clip(p.user_input) for p in pages if p.user_input]
    system = SYSTEM_SMALL
    if known:
        system += "\nAbout the user: " + "; ".join(known) + "."
    if said:
        system += "\nThe user said earlier:\n" + "\n".join(f"- {line}" for line in said)
    messages = [{"role": "system", "content": system}]
    for page in retrieval.short_term[-1:]:
        if page.user_input and page.agent_response:
            messages.append({"role": "user", "content": _clip(page.user_input)})
            messages.append({"role": "assistant", "content": _clip(page.agent_response)})
    messages.append({"role": "user", "content": query})
    return messages


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def with_conversation_style(
    messages: list[dict[str, str]],
    relationship: str = "",
    style_hint: str = "",
    conversation_meta: dict | None = None,
) -> list[dict[str, str]]:
    """Messages whose system prompt also says who the assistant is to the user and how to speak
    (the reference MemoryOS's relationship_with_user, style_hint, user_conversation_meta_data)."""
    lines = []
    if relationship.strip():
        lines.append(f"Speak to the user as their {relationship.strip()}.")
    if style_hint.strip():
        lines.append(f"Style of your answer: {style_hint.strip()}")
    if conversation_meta:
        lines.append(
            "About this conversation: " + json.dumps(conversation_meta, ensure_ascii=False)
        )
    if not lines:
        return messages
    out = [dict(m) for m in messages]
    if out and out[0]["role"] == "system":
        out[0]["content"] += "\n\n" + "\n".join(lines)
    else:
        out.insert(0, {"role": "system", "content": "\n".join(lines)})
    return out
