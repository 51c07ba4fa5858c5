"""Prompt assembly for an answer: persona, knowledge, chain summaries, dated pages, STM turns."""

from __future__ import annotations

import json
import re
import time

from engine.memory import when
from engine.records import Retrieval

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
            + "\n".join(f"[{when.describe(p.timestamp)}] {p.text()}" for p in older)
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


_REASONING = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)


def clean_answer(text: str) -> str:
    """An answer without a reasoning model's <think>...</think> part (as the reference does)."""
    if "<think>" not in text:
        return text
    return re.sub(r"\n\s*\n\s*\n", "\n\n", _REASONING.sub("", text)).strip()


class ReasoningFilter:
    """Removes <think>...</think> from a stream of chunks, so a reasoning model's thinking is never
    shown; a tag split across chunks is held back until it is complete."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.buffer = ""
        self.inside = False

    def feed(self, chunk: str) -> str:
        self.buffer += chunk
        out = []
        while True:
            tag = self.CLOSE if self.inside else self.OPEN
            at = self.buffer.find(tag)
            if at >= 0:
                if not self.inside:
                    out.append(self.buffer[:at])
                self.buffer = self.buffer[at + len(tag) :]
                self.inside = not self.inside
                continue
            keep = next((k for k in range(len(tag) - 1, 0, -1) if self.buffer.endswith(tag[:k])), 0)
            cut = len(self.buffer) - keep
            if not self.inside:
                out.append(self.buffer[:cut])
            self.buffer = self.buffer[cut:]
            return "".join(out)

    def flush(self) -> str:
        rest, self.buffer = ("" if self.inside else self.buffer), ""
        return rest


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
