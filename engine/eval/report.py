"""Score the per-question records of an eval run and write results.json, report.md, recall.png."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.eval import metrics
from engine.eval.locomo import CATEGORY_NAMES

K_VALUES = (5, 10, 20)
RETRIEVAL_SYSTEMS = ("ours", "dense", "bm25", "fusion")
OVERALL = "overall_1_4"
CATEGORY_NOTE = (
    "Categories follow the data README (checked against the evidence): 1 multi-hop, "
    "2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. Several published harnesses "
    "number them differently. 'Overall' is the micro-average over categories 1-4."
)
COUNTING_NOTE = (
    "How items are counted: every system returns single turns, so recall@k is evidence recall "
    "at an equal budget of k turns (recall_turns@k). Our memory ranks the turns of its pages "
    "(a page is one exchange: a turn and the other speaker's reply) and keeps the turns that "
    "matched. Evidence recall = share of a question's evidence turns present in the retrieved "
    "turns, averaged over questions that have evidence. Context tokens: the k turns rendered "
    "alike for every system ('[date] Speaker: text'), about 4 characters a token."
)
CONSTANTS_NOTE = (
    "How the constants were chosen: each system's free constants were picked on the "
    "development subset (locomo_dev.json) by the same procedure: a grid search maximising "
    "recall_turns@10 over categories 1-4. Ours: the RRF constant, the depth each list is "
    "read to (the same whatever the number of turns asked for), the list weights, the "
    "neighbour shares, the other-speaker factor, the term hop's seeds and terms and the "
    "query expansion's words per question word, cosine floor and page share "
    "(engine/retrieval.py, retrieval_lists.py and retrieval_scores.py, dev figures in their "
    "comments). Fusion: the RRF constant; BM25: k1 and b (engine/eval/baselines.py, dev "
    "figures in its comments). Dense has no constant."
)
HEADLINE_K = 10


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


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _group_label(group: str) -> str:
    if group == OVERALL:
        return "overall (1-4)"
    return f"{group} {CATEGORY_NAMES.get(int(group), '')}".strip()


def _retrieval_columns(scores: dict[str, dict[str, dict[str, Any]]]) -> list[tuple[str, str, str]]:
    columns = []
    for system in scores:
        if "recall@5" not in scores[system][OVERALL]:
            continue
        columns.append((system, system, "recall_turns"))
    return columns


def render_markdown(results: dict[str, Any]) -> str:
    """A human-readable report of one run."""
    config = results["config"]
    scores = results["metrics"]
    groups = [str(c) for c in CATEGORY_NAMES] + [OVERALL]
    lines = ["# LoCoMo evaluation", ""]
    lines.append(
        f"Data: `{config.get('data')}`; conversations: {', '.join(config.get('conversations') or [])}; "
        f"LLM: {config.get('llm')}; embedder: {config.get('embedder')}; "
        f"judge: {config.get('judge_url') or 'none'}."
    )
    lines += ["", CATEGORY_NOTE, "", COUNTING_NOTE, "", CONSTANTS_NOTE, ""]
    columns = _retrieval_columns(scores)
    lines += _headline_lines(scores, columns)
    lines += _interval_lines(scores, results.get("comparisons") or {}, columns)
    lines += _conversation_lines(results.get("by_conversation") or {})
    lines += _ablation_lines(results.get("ablation") or {}, groups)
    for k in results["k_values"]:
        lines += [f"## Evidence recall@{k}", ""]
        lines.append("| category | questions | " + " | ".join(c[0] for c in columns) + " |")
        lines.append("|---|---:|" + "---:|" * len(columns))
        for group in groups:
            n = scores[columns[0][1]][group]["questions"] if columns else 0
            cells = [_fmt(scores[s][group].get(f"{m}@{k}")) for _, s, m in columns]
            lines.append(f"| {_group_label(group)} | {n} | " + " | ".join(cells) + " |")
        lines.append("")
    answer_systems = [s for s in scores if "f1" in scores[s][OVERALL]]
    fits = config.get("full_context_note")
    if answer_systems:
        lines += ["## Answers (official F1 / BLEU-1 / judge accuracy)", ""]
        lines.append("| category | " + " | ".join(answer_systems) + " |")
        lines.append("|---|" + "---|" * len(answer_systems))
        for group in groups:
            cells = []
            for s in answer_systems:
                row = scores[s][group]
                cell = f"{_fmt(row.get('f1'))} / {_fmt(row.get('bleu1'))}"
                if row.get("judge_accuracy") is not None:
                    cell += f" / {_fmt(row['judge_accuracy'])}"
                cells.append(cell)
            lines.append(f"| {_group_label(group)} | " + " | ".join(cells) + " |")
        lines.append("")
    elif config.get("llm") == "none":
        lines += ["## Answers", "", "Retrieval only (`--llm none`): no answers generated.", ""]
    if fits:
        lines += [f"Full-context baseline: {fits}", ""]
    lines += _prompt_lines(scores.get("ours", {}), groups)
    lines += _cost_lines(results["cost"])
    lines += [
        "## Conversations",
        "",
        "| sample | sessions | turns | pages | questions | full context tokens |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for c in results["conversations"]:
        lines.append(
            f"| {c['sample_id']} | {c['sessions']} | {c['turns']} | {c['pages']} | "
            f"{c['questions']} | {c.get('full_context', '-')} |"
        )
    return "\n".join(lines) + "\n"


def _headline_lines(
    scores: dict[str, dict[str, dict[str, Any]]], columns: list[tuple[str, str, str]]
) -> list[str]:
    """Every system at the same budget of turns, with what that budget costs in tokens."""
    if not columns:
        return []
    k = HEADLINE_K
    lines = [
        f"## Headline: evidence recall at {k} turns (categories 1-4) and its cost",
        "",
        "| system | recall_turns@10 | multi-hop | temporal | open-domain | single-hop | "
        "context tokens | recall per 1,000 tokens |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, system, _ in columns:
        row = scores[system]
        cells = [_fmt(row[g].get(f"recall_turns@{k}")) for g in (OVERALL, "1", "2", "3", "4")]
        cells.append(_fmt(row[OVERALL].get(f"context_tokens@{k}"), 0))
        cells.append(_fmt(row[OVERALL].get("recall_per_1k_tokens"), 2))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    app = scores.get("ours", {}).get(OVERALL, {}).get("app_prompt_tokens")
    if app is not None:
        lines += [
            "",
            f"The whole prompt get_response builds with the app's settings (system text, profile, "
            f"facts, threads, retrieved turns, recent exchanges) averages {app:.0f} tokens.",
        ]
    return lines + [""]


def _span(interval: list[float] | None, signed: bool = False) -> str:
    if not interval:
        return "-"
    low, high = interval
    return f"{low:+.3f} to {high:+.3f}" if signed else f"{low:.3f}-{high:.3f}"


def _change(found: dict[str, Any] | None) -> str:
    """A paired difference with its interval: '+0.189 (+0.143 to +0.239)'."""
    if not found:
        return "-"
    return f"{found['difference']:+.3f} ({_span(found['ci95'], signed=True)})"


def _interval_lines(
    scores: dict[str, dict[str, dict[str, Any]]],
    comparisons: dict[str, dict[str, Any]],
    columns: list[tuple[str, str, str]],
) -> list[str]:
    """How far each headline figure could move with other questions of the same kind."""
    if not columns:
        return []
    k = HEADLINE_K
    shown = (OVERALL, "1", "2", "3", "4")
    lines = [
        f"## How sure: 95% intervals at {k} turns",
        "",
        f"Percentile bootstrap over the questions ({metrics.BOOTSTRAP_RESAMPLES:,} resamples, "
        "fixed seed); a difference is paired: both systems' recall on the same resampled "
        "questions. Questions of one conversation are not independent of each other, so with "
        "few conversations these intervals are narrower than the spread between conversations.",
        "",
        "| | " + " | ".join(_group_label(g) for g in shown) + " |",
        "|---|" + "---:|" * len(shown),
    ]
    for label, system, _ in columns:
        row = scores[system]
        cells = [_span(row.get(g, {}).get(f"recall_turns@{k}_ci95")) for g in shown]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for name, groups in comparisons.items():
        cells = [_change(groups.get(g)) for g in shown]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _conversation_lines(found: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """Each conversation's headline recall: overall (1-4) / multi-hop."""
    systems = list(dict.fromkeys(s for by_system in found.values() for s in by_system))
    if not systems:
        return []
    lines = [
        f"## By conversation: recall at {HEADLINE_K} turns, overall (1-4) / multi-hop",
        "",
        "| conversation | " + " | ".join(systems) + " |",
        "|---|" + "---:|" * len(systems),
    ]
    for sample, by_system in found.items():
        cells = [
            f"{_fmt(by_system.get(s, {}).get(OVERALL))} / {_fmt(by_system.get(s, {}).get('1'))}"
            for s in systems
        ]
        lines.append(f"| {sample} | " + " | ".join(cells) + " |")
    return lines + [""]


def _ablation_lines(ablation: dict[str, dict[str, dict[str, Any]]], groups: list[str]) -> list[str]:
    """Each stage switched on in turn, at the same budget of turns."""
    if not ablation:
        return []
    k = HEADLINE_K
    shown = groups  # adversarial (5) too: a stage must not buy 1-4 with it unseen
    lines = [
        f"## Ablation: recall at {k} turns as stages are added, then each left out",
        "",
        "| stages | "
        + " | ".join(_group_label(g) for g in shown)
        + " | overall less the full retrieval (95% interval) |",
        "|---|" + "---:|" * (len(shown) + 1),
    ]
    for name, rows in ablation.items():
        cells = [_fmt(rows.get(g, {}).get(f"recall_turns@{k}")) for g in shown]
        cells.append(_change(rows.get(OVERALL, {}).get("versus_ours")))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _prompt_lines(ours: dict[str, dict[str, Any]], groups: list[str]) -> list[str]:
    """What get_response actually showed the model (app settings: its token budget)."""
    if "prompt_recall" not in ours.get(OVERALL, {}):
        return []
    lines = [
        "## What the answer prompt held (ours, app settings)",
        "",
        "Evidence recall over every page in the get_response prompt (ranked pages plus the "
        "short-term queue), and how many pages that was.",
        "",
        "| category | prompt recall | pages in prompt |",
        "|---|---:|---:|",
    ]
    for group in groups:
        row = ours[group]
        lines.append(
            f"| {_group_label(group)} | {_fmt(row.get('prompt_recall'))} | "
            f"{_fmt(row.get('prompt_pages'), 1)} |"
        )
    return lines + [""]


def _cost_lines(cost: dict[str, Any]) -> list[str]:
    ingest, answer = cost["ingest"], cost["answer"]
    return [
        "## Cost",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| ingested turns / pages | {ingest['turns']} / {ingest['pages']} |",
        f"| LLM calls per ingested turn | {_fmt(ingest['llm_calls_per_turn'])} |",
        f"| prompt / completion tokens per ingested turn | {_fmt(ingest['prompt_tokens_per_turn'], 1)}"
        f" / {_fmt(ingest['completion_tokens_per_turn'], 1)} |",
        f"| add_memory p50 / p95 (ms) | {_fmt(ingest['add_memory_ms_p50'], 2)} / "
        f"{_fmt(ingest['add_memory_ms_p95'], 2)} |",
        f"| consolidation total (s), pages/s | {_fmt(ingest['consolidation_s'], 1)}, "
        f"{_fmt(ingest['consolidation_pages_per_s'], 1)} |",
        f"| questions | {answer['questions']} |",
        f"| LLM calls per question (ours) | {_fmt(answer['llm_calls_per_question'])} |",
        f"| prompt / completion tokens per question (ours) | "
        f"{_fmt(answer['prompt_tokens_per_question'], 1)} / "
        f"{_fmt(answer['completion_tokens_per_question'], 1)} |",
        f"| retrieval p50 / p95 (ms) | {_fmt(answer['retrieval_ms_p50'], 1)} / "
        f"{_fmt(answer['retrieval_ms_p95'], 1)} |",
        f"| answer p50 / p95 (ms) | {_fmt(answer['answer_ms_p50'], 0)} / {_fmt(answer['answer_ms_p95'], 0)} |",
        f"| first chunk p50 / p95 (ms) | {_fmt(answer['first_chunk_ms_p50'], 0)} / "
        f"{_fmt(answer['first_chunk_ms_p95'], 0)} |",
        "",
    ]


def plot_recall(results: dict[str, Any], path: Path) -> None:
    """Bars: recall@10 per category and system; line: overall recall against k."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = results["metrics"]
    columns = _retrieval_columns(scores)
    groups = ["1", "2", "3", "4", OVERALL]
    figure, (bars, curve) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / max(1, len(columns))
    for i, (label, system, measure) in enumerate(columns):
        values = [scores[system][g].get(f"{measure}@10") or 0.0 for g in groups]
        bars.bar([x + i * width for x in range(len(groups))], values, width, label=label)
        ks = results["k_values"]
        curve.plot(
            ks,
            [scores[system][OVERALL].get(f"{measure}@{k}") or 0.0 for k in ks],
            marker="o",
            label=label,
        )
    bars.set_xticks([x + width * (len(columns) - 1) / 2 for x in range(len(groups))])
    bars.set_xticklabels([_group_label(g) for g in groups], rotation=15, fontsize=8)
    bars.set_ylim(0, 1)
    bars.set_title("Evidence recall@10 by category")
    bars.axhline(0.8, color="grey", linestyle=":", linewidth=1)
    curve.set_ylim(0, 1)
    curve.set_xlabel("k")
    curve.set_title("Evidence recall@k, categories 1-4")
    curve.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
