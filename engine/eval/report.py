"""Score the per-question records of an eval run and write results.json, report.md, recall.png."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.eval import metrics
from engine.eval.locomo import CATEGORY_NAMES
from engine.eval.report_constants import (
    CATEGORY_NOTE,
    CONSTANTS_NOTE,
    COUNTING_NOTE,
    HEADLINE_K,
    K_VALUES,
    OVERALL,
)
from engine.eval.report_markdown import plot_recall, render_markdown


def score_records(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per system and per group (category '1'..'5' and overall 1-4): recall, F1, BLEU-1, judge."""
    groups: dict[str, list[dict[str, Any]]] = {str(c): [] for c in CATEGORY_NAMES}
    groups[OVERALL] = []  # every category listed, those without questions too
    groups.update(_groups(records))
    systems = sorted(
        {name for r in records for name in r.get("retrieved", {})}
        | {name for r in records for name in r.get("answers", {})},
        key=_system_order,
    )
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for system in systems:
        out[system] = {name: _score_group(system, rows) for name, rows in groups.items()}
    return out


def _system_order(name: str) -> tuple[int, str]:
    order = ["ours", "dense", "bm25", "fusion", "full_context"]
    return (order.index(name) if name in order else len(order), name)


def _score_group(system: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {"questions": len(rows)}
    ranked = [
        (r["evidence"], r["retrieved"][system]) for r in rows if system in r.get("retrieved", {})
    ]
    if ranked:
        for k in K_VALUES:
            result[f"recall@{k}"] = metrics.mean(
                metrics.evidence_recall(e, items, k) for e, items in ranked
            )
            per_question = [metrics.evidence_recall_turns(e, items, k) for e, items in ranked]
            result[f"recall_turns@{k}"] = metrics.mean(per_question)
            if k == HEADLINE_K:
                result[f"recall_turns@{k}_ci95"] = _interval(per_question)
        tokens = [
            r["context_tokens"][system] for r in rows if system in r.get("context_tokens", {})
        ]
        if tokens:
            result[f"context_tokens@{HEADLINE_K}"] = sum(tokens) / len(tokens)
            recall = result[f"recall_turns@{HEADLINE_K}"]
            result["recall_per_1k_tokens"] = (
                recall / (result[f"context_tokens@{HEADLINE_K}"] / 1000)
                if recall is not None and sum(tokens)
                else None
            )
    if system == "ours":
        app = [r["app_prompt_tokens"] for r in rows if r.get("app_prompt_tokens") is not None]
        if app:
            result["app_prompt_tokens"] = sum(app) / len(app)
    if system == "ours":
        shown = [r for r in rows if r.get("context_ids") is not None]
        if shown:  # evidence among everything the answer prompt held (ranked + recent pages)
            result["prompt_recall"] = metrics.mean(
                metrics.evidence_recall(r["evidence"], r["context_ids"], len(r["context_ids"]))
                for r in shown
            )
            result["prompt_pages"] = sum(len(r["context_ids"]) for r in shown) / len(shown)
    answered = [r for r in rows if r.get("answers", {}).get(system) is not None]
    if answered:
        result["answered"] = len(answered)
        result["f1"] = metrics.mean(
            metrics.answer_f1(r["answers"][system], r["gold"], r["category"]) for r in answered
        )
        result["bleu1"] = metrics.mean(
            metrics.answer_bleu1(r["answers"][system], r["gold"], r["category"]) for r in answered
        )
    judged = [r["judge"][system] for r in rows if r.get("judge", {}).get(system) is not None]
    if judged:
        result["judge_accuracy"] = sum(1.0 for j in judged if j) / len(judged)
    return result


def _interval(values) -> list[float] | None:
    """95% bootstrap interval of a mean over questions (None values left out)."""
    found = metrics.bootstrap_interval([v for v in values if v is not None])
    return list(found) if found is not None else None


def _difference(
    rows: Sequence[dict[str, Any]], ours, other, k: int = HEADLINE_K
) -> dict[str, Any] | None:
    """Recall at k turns of `ours` less that of `other`, question by question (`ours` and
    `other` read a record's ranked items), with the 95% bootstrap interval of the mean."""
    deltas = []
    for r in rows:
        a, b = ours(r), other(r)
        if a is None or b is None:
            continue
        x = metrics.evidence_recall_turns(r["evidence"], a, k)
        y = metrics.evidence_recall_turns(r["evidence"], b, k)
        if x is not None and y is not None:
            deltas.append(x - y)
    if not deltas:
        return None
    return {
        "questions": len(deltas),
        "difference": sum(deltas) / len(deltas),
        "ci95": _interval(deltas),
    }


def _groups(records: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Records by category ('1'..'5') and overall 1-4, in the order they first appear."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(str(record["category"]), []).append(record)
        if record["category"] in (1, 2, 3, 4):
            groups.setdefault(OVERALL, []).append(record)
    return groups


def compare_systems(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Ours less each other retrieval system at the headline budget, per group, paired by
    question: whether a gap is larger than what the questions' own spread could make."""
    others = sorted(
        {name for r in records for name in r.get("retrieved", {})} - {"ours"}, key=_system_order
    )
    groups = _groups(records)
    out: dict[str, dict[str, Any]] = {}
    for system in others:
        compared = {
            group: _difference(
                rows,
                lambda r: r.get("retrieved", {}).get("ours"),
                lambda r, s=system: r.get("retrieved", {}).get(s),
            )
            for group, rows in groups.items()
        }
        out[f"ours - {system}"] = {g: v for g, v in compared.items() if v is not None}
    return out


def by_conversation(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Recall at the headline budget of each retrieval system in each conversation, overall
    1-4 and multi-hop: how far apart conversations are, which the intervals do not show."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for sample in dict.fromkeys(r["sample_id"] for r in records):
        groups = _groups([r for r in records if r["sample_id"] == sample])
        systems = sorted(
            {n for r in groups.get(OVERALL, []) for n in r.get("retrieved", {})}, key=_system_order
        )
        out[sample] = {
            system: {
                group: metrics.mean(
                    metrics.evidence_recall_turns(r["evidence"], r["retrieved"][system], HEADLINE_K)
                    for r in groups.get(group, [])
                    if system in r.get("retrieved", {})
                )
                for group in (OVERALL, "1")
            }
            for system in systems
        }
    return out


def score_ablation(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Recall at k turns of each ablation step, per category and overall 1-4, and how far
    each step is from the full retrieval (ours), question by question."""
    names: list[str] = []
    for record in records:
        for name in record.get("ablation", {}):
            if name not in names:
                names.append(name)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in names:
        groups = _groups([r for r in records if r.get("ablation", {}).get(name) is not None])
        out[name] = {
            key: {
                "questions": len(rows),
                **{
                    f"recall_turns@{k}": metrics.mean(
                        metrics.evidence_recall_turns(r["evidence"], r["ablation"][name], k)
                        for r in rows
                    )
                    for k in K_VALUES
                },
                "versus_ours": _difference(
                    rows,
                    lambda r, n=name: r["ablation"][n],
                    lambda r: r.get("retrieved", {}).get("ours"),
                ),
            }
            for key, rows in groups.items()
        }
    return out


def cost_summary(
    conversations: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """LLM calls and tokens per ingested turn and per question; latency percentiles."""
    turns = sum(c["turns"] for c in conversations)
    pages = sum(c["pages"] for c in conversations)
    add_ms = [ms for c in conversations for ms in c["add_ms"]]
    consolidation_s = sum(c["consolidation_s"] for c in conversations)
    ingest_usage = _sum_usage(c["usage"] for c in conversations)
    answer_usage = _sum_usage(r["usage"] for r in records if r.get("usage"))
    answer_ms = [r["answer_ms"] for r in records if r.get("answer_ms") is not None]
    first_ms = [r["first_chunk_ms"] for r in records if r.get("first_chunk_ms") is not None]
    retrieval_ms = [r["retrieval_ms"] for r in records if r.get("retrieval_ms") is not None]
    questions = len(records)
    return {
        "ingest": {
            "conversations": len(conversations),
            "turns": turns,
            "pages": pages,
            "llm_calls_per_turn": _per(ingest_usage["calls"], turns),
            "prompt_tokens_per_turn": _per(ingest_usage["prompt_tokens"], turns),
            "completion_tokens_per_turn": _per(ingest_usage["completion_tokens"], turns),
            "add_memory_ms_p50": metrics.percentile(add_ms, 50),
            "add_memory_ms_p95": metrics.percentile(add_ms, 95),
            "consolidation_s": consolidation_s,
            "consolidation_pages_per_s": _per(pages, consolidation_s),
        },
        "answer": {
            "questions": questions,
            "llm_calls_per_question": _per(answer_usage["calls"], questions),
            "prompt_tokens_per_question": _per(answer_usage["prompt_tokens"], questions),
            "completion_tokens_per_question": _per(answer_usage["completion_tokens"], questions),
            "answer_ms_p50": metrics.percentile(answer_ms, 50),
            "answer_ms_p95": metrics.percentile(answer_ms, 95),
            "first_chunk_ms_p50": metrics.percentile(first_ms, 50),
            "first_chunk_ms_p95": metrics.percentile(first_ms, 95),
            "retrieval_ms_p50": metrics.percentile(retrieval_ms, 50),
            "retrieval_ms_p95": metrics.percentile(retrieval_ms, 95),
        },
    }


def _sum_usage(items: Any) -> dict[str, int]:
    total = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for usage in items:
        for key in total:
            total[key] += int((usage or {}).get(key, 0))
    return total


def _per(amount: float, count: float) -> float | None:
    return amount / count if count else None


def build_results(
    config: dict[str, Any],
    conversations: Sequence[dict[str, Any]],
    records: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """Everything results.json holds."""
    return {
        "config": config,
        "categories": {str(k): v for k, v in CATEGORY_NAMES.items()},
        "category_note": CATEGORY_NOTE,
        "counting_note": COUNTING_NOTE,
        "constants_note": CONSTANTS_NOTE,
        "k_values": list(K_VALUES),
        "metrics": score_records(records),
        "comparisons": compare_systems(records),
        "by_conversation": by_conversation(records),
        "ablation": score_ablation(records),
        "cost": cost_summary(conversations, records),
        "conversations": [{k: v for k, v in c.items() if k != "add_ms"} for c in conversations],
        "questions": list(records),
    }


def write_all(results: dict[str, Any], out_dir: Path) -> None:
    """results.json, report.md and recall.png in out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    (out_dir / "report.md").write_text(render_markdown(results), encoding="utf-8")
    plot_recall(results, out_dir / "recall.png")
