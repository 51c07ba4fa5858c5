"""Prompt assembly for an answer: a stable, cached prefix first, then this turn's memories."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable

from engine.memory import when
from engine.records import Page, Retrieval

SYSTEM = (
    "You are a private assistant running on the user's own computer. You remember the user "
    "across conversations through the memories below. Use them when they help, mention dates "
    "when the question is about time, and never invent memories: if the memories do not hold "
    "the answer, say that it was not mentioned."
)

# A model this small drowns in a long system prompt: it loses the question and drifts into
# another language. It gets one short instruction, a few facts and the last 1-3 exchanges.
SMALL_MODEL_PARAMETERS = 1_000_000_000
# Its wording decides the language the demo model answers in. Measured with SmolLM2-135M at
# the app's temperature (0.7), the profile "name: Dana; location: Lisbon; hiking: likes hiking"
# in the system message, 4 English messages x 18 seeds: "Answer in the same language as the
# user's last message, in one to three short sentences." answered in English 41 of 72 times
# (a place name such as Lisbon pulls it into Portuguese or Spanish), this wording 55 of 72;
# French, Spanish and German messages (2 each x 4 seeds) in their own language 21 of 24
# against 24 of 24. Without any word on language: English 18 of 24, the others 19 of 24.
SYSTEM_SMALL = (
    "You are a helpful assistant. Answer in one to three short sentences, in the language the "
    "user writes in."
)
# Which profile entries a small model sees: the name, always, in the system message: it does not
# change, so the system message is the same from question to question and llama.cpp keeps its tokens
# cached. Then only the entries the question is about (prompt_memories.small_profile: it shares a
# word with the entry, or with the words its pattern reads or a question about it asks: "Where do I
# live?", "What is my job?") and those made from the exchange of a fact ranked for it
# (prompt_memories.compact_retrieval), with this turn's memories, where new text is processed
# anyway. The first three entries whatever was asked (location, name, occupation) left the demo
# model one or two facts: asked for its current dose, it was shown the first one the person ever
# said.
STABLE_SLOTS = ("name",)


def is_small_model(chat: object) -> bool:
    """True for a local model under 1 B parameters (known from its GGUF header)."""
    parameters = getattr(getattr(chat, "info", None), "parameters", 0) or 0
    return 0 < parameters < SMALL_MODEL_PARAMETERS


# The longest answer a small model writes, whatever the caller asks (the app, `memoryos chat`,
# MCP alike): past ~160 tokens SmolLM2-135M rambles and drifts into other languages.
SMALL_MAX_TOKENS = 160


def answer_limit(chat: object, max_tokens: int) -> int:
    """`max_tokens`, capped at SMALL_MAX_TOKENS for a small model."""
    return min(max_tokens, SMALL_MAX_TOKENS) if is_small_model(chat) else max_tokens


SMALL_RECENT = 3  # exchanges a small model sees as turns (1 to 3: see _window)
MEMORY_HEADER = "Memories that may help:"
ANSWER_MARK = "My message: "
TEMPLATE_TOKENS = 8  # what a chat template adds around one user message


class ShownHistory:
    """Each stored exchange's user message exactly as the model saw it, memories included.

    The next prompt repeats it byte for byte, so llama.cpp finds the conversation so far in its
    cache and processes only the new memories and the question; the memories it held are not
    shown again. Kept in memory only (a restart starts a cold cache anyway), newest 64."""

    LIMIT = 64

    def __init__(self) -> None:
        self._shown: OrderedDict[int, str] = OrderedDict()
        self._lock = threading.Lock()

    def shown(self, page_id: int) -> str | None:
        with self._lock:
            return self._shown.get(page_id)

    def remember(self, page_id: int, messages: list[dict[str, str]]) -> None:
        """Record the last user message of `messages` as what page `page_id` showed."""
        if not messages or messages[-1].get("role") != "user":
            return
        with self._lock:
            self._shown[page_id] = messages[-1]["content"]
            self._shown.move_to_end(page_id)
            while len(self._shown) > self.LIMIT:
                self._shown.popitem(last=False)


_HISTORIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def shown_history(owner: object) -> ShownHistory:
    """The ShownHistory of one open memory (one per MemoryOS, gone with it)."""
    history = _HISTORIES.get(owner)
    if history is None:
        history = _HISTORIES[owner] = ShownHistory()
    return history


def _window(short_term: tuple[Page, ...], size: int) -> list[Page]:
    """The last 1..`size` exchanges, cut at fixed points of the queue so the shown turns stay
    the same from one question to the next (a sliding window would change the prompt's start
    each turn and void the cache); a transcript between two people is left out."""
    pages = [p for p in short_term if "agent_speaker" not in p.meta]
    if not pages:
        return []
    keep = (pages[-1].id % size) + 1 if pages[-1].id is not None else 1
    return pages[-keep:]


# After an exchange whose every fact was replaced since ("I live in Bristol", then a move):
# shown as it was said, dated, and marked, so the model takes the profile's current value.
# Before what it marks, so that the model reads it before the claim.
OUT_OF_DATE = "(out of date: changed since)"


def _page_line(retrieval: Retrieval, page: Page, compact: bool) -> str:
    mark = f"{OUT_OF_DATE} " if page.id in retrieval.changed else ""
    if compact:
        return f"- {mark}{_clip(page.user_input)}"
    return f"[{when.describe(page.timestamp)}] {mark}" + _other_turn(
        when.resolve_relative(_matched_text(retrieval, page), page.timestamp)
    )


def memory_sections(
    retrieval: Retrieval, recent: list[Page], compact: bool
) -> list[tuple[str, list[str]]]:
    """This answer's memories as (title, lines), in the order the prompt shows them."""
    recent_ids = {p.id for p in recent}
    stm_ids = {p.id for p in retrieval.short_term}
    if compact:
        pages = [item.page for item in retrieval.pages if item.page.id not in recent_ids]
        said = [_page_line(retrieval, p, True) for p in pages if p.user_input]
        asked = [f"- {s.text}" for s in retrieval.profile if s.name not in STABLE_SLOTS]
        facts = asked + [f"- {item.fact.text}" for item in retrieval.facts]
        return [("Facts about the user:", facts), ("The user said earlier:", said)]
    older = sorted(
        (item.page for item in retrieval.pages if item.page.id not in stm_ids),
        key=lambda p: p.timestamp,
    )
    return [
        ("User facts:", [f"- {f.fact.text}" for f in retrieval.facts]),
        ("What you did or promised earlier:", [f"- {f.fact.text}" for f in retrieval.knowledge]),
        ("Conversation threads:", [f"- {s}" for s in retrieval.chain_summaries]),
        ("Relevant past exchanges:", [_page_line(retrieval, p, False) for p in older]),
    ]


def _render(sections: list[tuple[str, list[str]]], seen: set[str]) -> str:
    """The memory block: each section's lines the conversation above does not show yet."""
    parts = []
    for title, lines in sections:
        new = [line for line in dict.fromkeys(lines) if line not in seen]
        if new:
            parts.append(title + "\n" + "\n".join(new))
    return MEMORY_HEADER + "\n" + "\n\n".join(parts) if parts else ""


# An exchange of another conversation, or an older one of this, is memory, not the conversation
# going on: past this many characters its middle is left out. A walkthrough pasted
# 20,000 characters, pressed Ctrl+N and asked a short question: the paste went along in full
# (90 s of "Thinking…"; a server with a 2,048-token context refused). In the conversation it
# was pasted in, it stays whole: follow-up questions are about it.
OTHER_TURN_CHARS = 2000


def _other_turn(text: str) -> str:
    if len(text) <= OTHER_TURN_CHARS:
        return text
    half = OTHER_TURN_CHARS // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half:,} characters left out ...]\n{text[-half:]}"


def build_messages(
    retrieval: Retrieval,
    query: str,
    now: float | None = None,
    compact: bool = False,
    history: ShownHistory | None = None,
    conversation: str | None = None,
) -> list[dict[str, str]]:
    """The chat messages for an answer, laid out for llama.cpp's prompt cache.

    The stable part comes first: instructions, the profile and the day (system), then the
    conversation so far, each user turn exactly as the model saw it (its memories included,
    from `history`). This turn's memories go into the last user message, before the question:
    they change with every question, so only they and the question are new text to process.
    Memories already shown in the conversation above are not repeated."""
    now = time.time() if now is None else now
    if compact:  # `retrieval` as compact_retrieval cut it (the list of memories used too)
        system = SYSTEM_SMALL
        known = [slot.text for slot in retrieval.profile if slot.name in STABLE_SLOTS]
        if known:
            system += "\nAbout the user: " + "; ".join(known) + "."
        recent = _window(retrieval.short_term, SMALL_RECENT)
    else:
        sections = [SYSTEM]
        if retrieval.profile:
            sections.append(
                "What you know about the user:\n"
                + "\n".join(f"- {slot.text}" for slot in retrieval.profile)
            )
        sections.append(f"Today is {when.describe_day(now)}.")
        system = "\n\n".join(sections)
        recent = list(retrieval.short_term)
    messages = [{"role": "system", "content": system}]
    seen: set[str] = set()
    for page in recent:
        if "agent_speaker" in page.meta:  # a transcript between two people: keep their names
            messages.append(
                {"role": "user", "content": f"[{when.describe(page.timestamp)}] {page.text()}"}
            )
            continue
        shown = history.shown(page.id) if history is not None else None
        if shown is not None:
            seen.update(shown.splitlines())
        other = conversation is not None and page.conversation_id != conversation
        if page.user_input or shown:
            user = shown or (_clip(page.user_input) if compact else page.user_input)
            messages.append({"role": "user", "content": _other_turn(user) if other else user})
        if page.agent_response:
            answer = page.agent_response
            messages.append({"role": "assistant",
                             "content": _other_turn(answer) if other else answer})
    sections = memory_sections(retrieval, recent, compact)
    block = _render(sections, seen)
    messages.append(
        {"role": "user", "content": f"{block}\n\n{ANSWER_MARK}{query}" if block else query}
    )
    return _merge_same_role(messages)


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


def warm_next_prompt(
    chat: object,
    retrieval: Retrieval,
    short_term: Callable[[], list[Page]],
    compact: bool = False,
    history: ShownHistory | None = None,
    conversation: str | None = None,
) -> None:
    """Let the model process the stable start of the next prompt now (instructions, profile,
    the conversation including the exchange just stored), in the background, so the next
    question waits only for its own memories and words. A backend without a cache ignores it."""
    warm = getattr(chat, "warm", None)
    if warm is None:
        return
    upcoming = dataclasses.replace(
        retrieval,
        short_term=tuple(short_term()),
        pages=(),
        facts=(),
        knowledge=(),
        chain_summaries=(),
        turns=(),
    )
    messages = build_messages(upcoming, "", compact=compact, history=history,
                              conversation=conversation)
    warm(messages[:-1])  # all but the (empty) question: the part the next prompt starts with


def recent_exchanges(memory: object, conversation_id: str) -> list[Page]:
    """The last exchanges of one conversation, oldest first, as many as the short-term queue
    holds: the turns of its next prompt. Not the queue itself: it spans conversations, so after
    "New conversation" the last one's exchanges were this one's turns, and a conversation
    reopened from search was given today's exchanges, not its own."""
    limit = memory.settings.stm_capacity  # type: ignore[attr-defined]
    pages = memory.pages  # type: ignore[attr-defined]
    return pages(conversation_id=conversation_id, limit=limit, newest=True)


def warm_conversation(memory: object) -> None:
    """Right after a model loads: let it process the start of the first prompt (instructions,
    profile, the recent exchanges) while the person reads the window, so the first question
    waits only for its own memories and words."""
    chat = getattr(memory, "chat", None)
    if chat is None or getattr(chat, "warm", None) is None:
        return
    conversation = getattr(memory, "conversation_id", None)
    recent = tuple(recent_exchanges(memory, conversation)) if conversation else ()
    start = Retrieval(
        query="",
        short_term=recent,
        pages=(),
        segments=(),
        profile=tuple(memory.profile()[:40]),  # type: ignore[attr-defined]
        facts=(),
        knowledge=(),
    )
    warm_next_prompt(chat, start, lambda: list(recent), is_small_model(chat), shown_history(memory),
                     conversation)
