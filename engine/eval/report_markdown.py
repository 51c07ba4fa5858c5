"""report.md and recall.png: one eval run's results as a human-readable report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.eval import metrics
from engine.eval.locomo import CATEGORY_NAMES
from engine.eval.report_constants import (
    CATEGORY_NOTE,
    CONSTANTS_NOTE,
    COUNTING_NOTE,
    HEADLINE_K,
    OVERALL,
)


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
