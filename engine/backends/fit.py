"""Cut a chat prompt to a token budget: old turns and the middle of long messages go first."""

from __future__ import annotations

from collections.abc import Callable

from engine.backends.base import Message

CUT_MARK = "\n[...]\n"

PromptCounter = Callable[[list[Message]], int]


def fit_to_budget(messages: list[Message], budget: int, count: PromptCounter) -> list[Message]:
    """Return a copy of `messages` whose prompt is at most `budget` tokens by `count`.

    Order of cuts: the middle of the system message down to half the budget, then the oldest
    turns, then the middle of the last message (a long paste: its start and end are read),
    and the system message further only if that is not enough. The head and tail of a cut
    message are kept (instructions, the question). The last message went before the system
    message until a walkthrough pasted 20,000 characters: the instructions and the profile
    were then dropped whole, while the paste kept most of its words.
    """
    fitted = [dict(message) for message in messages]
    if not fitted or count(fitted) <= budget:
        return fitted
    start = 1 if fitted[0].get("role") == "system" else 0
    if start:
        _shrink(fitted, 0, budget, count, floor_tokens=budget // 2)
    while len(fitted) - start > 1 and count(fitted) > budget:
        del fitted[start]
        # Templates that insist on user/assistant alternation need a user turn first.
        while len(fitted) - start > 1 and fitted[start].get("role") == "assistant":
            del fitted[start]
    if len(fitted) - start >= 1 and count(fitted) > budget:
        _shrink(fitted, len(fitted) - 1, budget, count)
    if start and count(fitted) > budget:
        _shrink(fitted, 0, budget, count)
    return fitted


def _shrink(
    messages: list[Message], index: int, budget: int, count: PromptCounter, floor_tokens: int = 0
) -> None:
    """Cut the middle of messages[index] until the prompt fits (keeping >= floor_tokens of it)."""
    text = messages[index].get("content") or ""
    if not text or count(messages) <= budget:
        return
    messages[index]["content"] = ""
    empty = count(messages)
    # The most characters that fit; then never below `floor_tokens` of this message's own text.
    keep = _most_chars(text, messages, index, lambda total: total <= budget, count)
    if floor_tokens:
        floor = _most_chars(text, messages, index, lambda t: t - empty <= floor_tokens, count)
        keep = max(keep, floor)
    messages[index]["content"] = _cut_middle(text, keep)


def _most_chars(
    text: str,
    messages: list[Message],
    index: int,
    fits: Callable[[int], bool],
    count: PromptCounter,
) -> int:
    """Binary search for the most characters of `text` (middle cut) whose prompt `fits`."""
    low, high = 0, len(text)
    messages[index]["content"] = text
    if fits(count(messages)):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        messages[index]["content"] = _cut_middle(text, middle)
        if fits(count(messages)):
            low = middle
        else:
            high = middle
    return low


def _cut_middle(text: str, keep: int) -> str:
    """`keep` characters of `text`: half from the start, half from the end, a mark between."""
    if keep >= len(text):
        return text
    if keep <= len(CUT_MARK):
        return text[: max(0, keep)]
    head = (keep - len(CUT_MARK)) // 2
    tail = keep - len(CUT_MARK) - head
    return text[:head] + CUT_MARK + (text[-tail:] if tail else "")
