"""One question of a LoCoMo eval run: our retrieval and its ablation, the baselines', the
answers and the judge's scores."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.eval import baselines as base
from engine.eval.locomo import Conversation, Question
from engine.eval.report_constants import K_VALUES
from engine.eval.run_models import judge_answer, usage_since, usage_snapshot
from engine.thinking import strip_thinking

if TYPE_CHECKING:
    from engine.eval.run import EvalConfig

MAX_K = max(K_VALUES)
HEADLINE_K = 10  # the equal budget of the headline: 10 turns for every system
BASELINE_CONTEXT_TURNS = 10  # turns a retrieval baseline hands to the model when answering


def answer_question(
    mem: Any,
    conversation: Conversation,
    question: Question,
    turn_index: base.TurnBaselines,
    chat: Any,
    judge: Any,
    config: EvalConfig,
    full_text: str | None,
) -> dict[str, Any]:
    """Retrieve (and answer, with an LLM) one question with our memory and the baselines."""
    now = conversation_end(conversation)
    start = time.perf_counter()
    retrieval = ranked_retrieval(mem, question.question, now)
    retrieval_ms = (time.perf_counter() - start) * 1000
    ranks = turn_index.rank(question.question, MAX_K)
    retrieved = {
        "ours": turn_items(retrieval)[:MAX_K],
        **{name: turn_index.ids(ranks[name]) for name in ranks},
    }
    texts = {t.dia_id: t for t in conversation.turns}
    record: dict[str, Any] = {
        "sample_id": conversation.sample_id,
        "index": question.index,
        "category": question.category,
        "question": question.question,
        "gold": question.answer,
        "adversarial_answer": question.adversarial_answer,
        "evidence": list(question.evidence),
        "retrieved": retrieved,
        "ablation": {
            name: turn_items(ranked_retrieval(mem, question.question, now, stages))[:MAX_K]
            for name, stages in ABLATION
        },
        "context_tokens": {  # the k turns each system would hand the model, rendered alike
            name: sum(
                base.estimate_tokens(base.dated_turn(texts[i]))
                for item in items[:HEADLINE_K]
                for i in item
                if i in texts
            )
            for name, items in retrieved.items()
        },
        "app_prompt_tokens": app_prompt_tokens(mem, question.question, now),
        "retrieval_ms": retrieval_ms,
        "answers": {},
        "judge": {},
    }
    if chat is None:
        return record
    record.update(_answer_ours(mem, question, chat, config, now))
    wanted = {"none": (), "fusion": ("fusion",), "all": base.TurnBaselines.NAMES}
    for name in wanted.get(config.baseline_answers, ()):
        context = turn_index.context(ranks[name][:BASELINE_CONTEXT_TURNS])
        record["answers"][name] = _safe_answer(chat, question.question, context, config)
    if full_text is not None:
        record["answers"]["full_context"] = _safe_answer(chat, question.question, full_text, config)
    if judge is not None:
        for name, text in record["answers"].items():
            record["judge"][name] = judge_answer(judge, question, text)
    return record


def conversation_end(conversation: Conversation) -> float:
    """'Now' for the questions: the end of the last session (its last turn, plus an hour), not
    the machine's clock: "last week" means the week before the talk ended."""
    return max((t.timestamp for t in conversation.turns), default=0.0) + 3600.0


def ranked_retrieval(mem: Any, query: str, now: float, stages: Any = None) -> Any:
    """Our top MAX_K turns for recall at k turns, the context token budget lifted so they fit.

    The app's default budget (settings.context_budget_tokens) cuts the list earlier; what
    get_response actually hands the model is counted separately (app_prompt_tokens).
    """
    from engine.retrieval import Stages, retrieve

    saved = mem.settings
    mem.settings = replace(saved, context_budget_tokens=max(saved.context_budget_tokens, 10**6))
    try:
        result, _ = retrieve(mem, query, max_pages=MAX_K, now=now, stages=stages or Stages())
        return result
    finally:
        mem.settings = saved


def turn_items(retrieval: Any) -> list[list[str]]:
    """Each retrieved turn as a one-element list of its dia_id (one item = one turn)."""
    out: list[list[str]] = []
    for page, side in retrieval.ranked_turns():
        ids = list(page.external_ids)
        out.append([ids[side]] if len(ids) == 2 else ids)
    return out


def app_prompt_tokens(mem: Any, query: str, now: float) -> int:
    """Estimated tokens of the prompt get_response would send (app settings, this `now`)."""
    from engine.prompt import build_messages

    retrieval = mem.retrieve(query, record_visits=False, now=now)
    return sum(base.estimate_tokens(m["content"]) for m in build_messages(retrieval, query, now))


def _ablation() -> list[tuple[str, Any]]:
    """Stages switched on one by one (the default stages are the row marked 'full'), then
    each stage left out of the full set: what the system loses without it. Stages that are
    off by default (segments, second hop) are shown added to flat turns or to the full set.
    Question parts (Stages.parts) have no row: no development question asks two things
    (engine/question_parts.py), so the row would repeat the full set's."""
    from engine.retrieval import FLAT, Stages

    full = Stages()
    facts = replace(FLAT, facts=True)
    neighbours = replace(facts, neighbours=True)
    timed = replace(neighbours, time=True)
    steps = [
        ("flat turns (dense + keyword)", FLAT),
        ("flat turns + segments (off by default)", replace(FLAT, segments=True)),
        ("+ persona facts", facts),
        ("+ neighbours", neighbours),
        ("+ time resolution", timed),
        ("+ named speakers", replace(timed, speakers=True)),
        ("+ term hop", replace(full, expansion=False, asking=False)),
        ("+ query expansion", replace(full, asking=False)),
        ("+ asking turns discounted = full", full),
    ]
    left_out = [
        (f"full without {label}", replace(full, **{stage: False}))
        for stage, label in (
            ("facts", "persona facts"),
            ("neighbours", "neighbours"),
            ("time", "time resolution"),
            ("speakers", "named speakers"),
            ("term_hop", "term hop"),
            ("expansion", "query expansion"),
            ("asking", "asking turns discounted"),
        )
    ]
    return [
        *steps,
        *left_out,
        ("full + segments (off by default)", replace(full, segments=True)),
        ("full + second hop (off by default)", replace(full, second_hop=True)),
    ]


ABLATION = _ablation()


def _answer_ours(
    mem: Any, question: Question, chat: Any, config: EvalConfig, now: float
) -> dict[str, Any]:
    before = usage_snapshot(chat)
    start = time.perf_counter()
    first_ms = None
    parts: list[str] = []
    error = None
    context_pages = context_recent = None
    context_ids: list[list[str]] | None = None
    try:
        stream = mem.get_response(
            question.question,
            max_tokens=config.max_answer_tokens,
            temporary=True,
            now=now,
        )
        for chunk in stream:
            if first_ms is None:
                first_ms = (time.perf_counter() - start) * 1000
            parts.append(chunk)
        if stream.retrieval is not None:  # what the model was shown: ranked pages + recent
            context_pages = len(stream.retrieval.pages)
            context_recent = len(stream.retrieval.short_term)
            context_ids = [list(p.external_ids) for p in stream.retrieval.ranked_pages()]
    except Exception as exc:  # one failed answer must not stop a long run; it scores 0
        error = f"{type(exc).__name__}: {exc}"
    return {
        "answers": {"ours": strip_thinking("".join(parts)).strip()},  # thinking is no answer
        "answer_ms": (time.perf_counter() - start) * 1000,
        "first_chunk_ms": first_ms,
        "usage": usage_since(chat, before),
        "context_pages": context_pages,
        "context_recent_pages": context_recent,
        "context_ids": context_ids,
        "error": error,
    }


def _safe_answer(chat: Any, question: str, context: str, config: EvalConfig) -> str:
    try:
        return base.answer(chat, base.answer_messages(question, context), config.max_answer_tokens)
    except Exception as exc:  # scored as a wrong answer, kept visible in results.json
        return f"[error: {type(exc).__name__}]"
