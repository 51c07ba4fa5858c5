"""The LoCoMo eval runner: fresh vault per conversation, ingest, consolidate, answer, score."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.eval import baselines as base
from engine.eval.locomo import Conversation, Question, exchanges, ingest, load_locomo
from engine.eval.report import build_results, write_all
from engine.eval.run_models import (
    make_embedder,
    make_judge,
    make_llm,
    usage_since,
    usage_snapshot,
)
from engine.eval.run_question import answer_question


@dataclass
class EvalConfig:
    """What `memoryos eval locomo` was asked to do."""

    data: str
    out: str
    conversations: list[str] | None = None
    llm: str = "none"  # none | bundled | gguf:PATH | url:URL
    llm_model: str | None = None  # model name for url: backends
    judge_url: str | None = None
    judge_model: str | None = None
    limit_questions: int | None = None  # per conversation: the first N questions
    sample_questions: int | None = None  # per conversation: N questions spread evenly
    embedder: str = "bundled"  # bundled | fake | a sentence-transformers model folder
    baseline_answers: str = "fusion"  # none | fusion | all: which retrieval baselines answer
    max_answer_tokens: int = 64
    progress: bool = True
    allow_plain_http: bool = False  # --llm url: / --judge-url at plain http:// elsewhere

    def identity(self, data_sha256: str) -> dict[str, Any]:
        """The settings a resumed run must share with the interrupted one."""
        keep = (
            "llm",
            "llm_model",
            "judge_url",
            "judge_model",
            "limit_questions",
            "sample_questions",
            "embedder",
            "baseline_answers",
            "max_answer_tokens",
        )
        return {
            "data_sha256": data_sha256,
            **{k: getattr(self, k) for k in keep},
            "code_version": code_version(),
            "settings": retrieval_settings(),
        }


def code_version() -> str:
    """A digest of the engine's source: a checkpoint made by other code is not reused."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def retrieval_settings() -> dict[str, Any]:
    """The memory settings and retrieval constants a run's numbers depend on."""
    from engine import retrieval, retrieval_lists, retrieval_scores
    from engine.settings import MemorySettings

    return {
        "memory": MemorySettings().to_dict(),
        "weights": asdict(retrieval.Weights()),
        "rrf_k": retrieval_lists.RRF_K,
        "pool": [retrieval.POOL, retrieval.KEYWORD_POOL_SHARE],
        "neighbour_share": retrieval_scores.NEIGHBOUR_SHARE,
        "answer_share": retrieval_scores.ANSWER_SHARE,
        "speaker_other": retrieval_scores.SPEAKER_OTHER,
        "term_hop": [retrieval_lists.TERM_HOP_SEEDS, retrieval_lists.TERM_HOP_TERMS],
        "expansion": [
            retrieval_lists.EXPANSION_WORDS,
            retrieval_lists.EXPANSION_MIN_COS,
            retrieval_lists.EXPANSION_SHARE,
        ],
        "fusion_rrf_k": base.RRF_K,
        "bm25": [base.BM25_K1, base.BM25_B],
    }


def _bar(total: int, desc: str, enabled: bool, unit: str) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=f" {unit}",
        disable=not enabled,
        leave=False,
        dynamic_ncols=True,
    )


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Checkpoints:
    """Per-conversation progress in DIR/checkpoints: ingest.json and questions.jsonl."""

    def __init__(self, out: Path, identity: dict[str, Any], restart: bool = False) -> None:
        self.root = out / "checkpoints"
        marker = self.root / "identity.json"
        if restart and self.root.exists():
            shutil.rmtree(self.root)
        if marker.exists():
            saved = json.loads(marker.read_text(encoding="utf-8"))
            if saved != identity:
                differ = sorted(
                    k for k in set(saved) | set(identity) if saved.get(k) != identity.get(k)
                )
                raise ValueError(
                    f"{out} holds a run made with other code or settings (differs in: "
                    f"{', '.join(differ)}); use another --out or --restart"
                )
        self.root.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps(identity, indent=1), encoding="utf-8")

    def folder(self, sample_id: str) -> Path:
        path = self.root / re.sub(r"[^A-Za-z0-9_.-]", "_", sample_id)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def conversation(self, sample_id: str) -> dict[str, Any] | None:
        path = self.folder(sample_id) / "ingest.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def save_conversation(self, sample_id: str, info: dict[str, Any]) -> None:
        path = self.folder(sample_id) / "ingest.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(info), encoding="utf-8")
        tmp.replace(path)

    def questions(self, sample_id: str) -> dict[int, dict[str, Any]]:
        path = self.folder(sample_id) / "questions.jsonl"
        done: dict[int, dict[str, Any]] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by the interruption: that question runs again
                done[int(record["index"])] = record
        return done

    def add_question(self, sample_id: str, record: dict[str, Any]) -> None:
        with open(self.folder(sample_id) / "questions.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def run_eval(
    config: EvalConfig,
    *,
    embedder: Any = None,
    chat: Any = None,
    judge: Any = None,
    restart: bool = False,
) -> dict[str, Any]:
    """Run (or resume) the evaluation and write results.json, report.md and recall.png."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    identity = config.identity(file_sha256(config.data))
    checkpoints = Checkpoints(out, identity, restart=restart)
    conversations = load_locomo(config.data, config.conversations)
    embedder = embedder if embedder is not None else make_embedder(config.embedder)
    allowed = config.allow_plain_http
    if chat is None:
        chat = make_llm(config.llm, config.llm_model, allow_plain_http=allowed)
    if judge is None:
        judge = make_judge(config.judge_url, config.judge_model, allow_plain_http=allowed)
    infos: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    for conversation in conversations:
        info, rows = run_conversation(conversation, config, checkpoints, embedder, chat, judge)
        infos.append(info)
        records.extend(rows)
    summary = asdict(config)
    summary["conversations"] = [c.sample_id for c in conversations]
    summary["embedder"] = getattr(embedder, "model_id", config.embedder)
    summary["llm"] = config.llm if chat is None else f"{config.llm} ({chat.model_id})"
    summary["data_sha256"] = identity["data_sha256"]
    if judge is not None:
        summary["judge_url"] = config.judge_url or getattr(judge, "model_id", "judge")
    summary["full_context_note"] = _full_context_note(infos, chat)
    results = build_results(summary, infos, records)
    write_all(results, out)
    return results


def _full_context_note(infos: list[dict[str, Any]], chat: Any) -> str:
    if chat is None:
        return "not run (no LLM)."
    parts = [f"{i['sample_id']}: {i['full_context']}" for i in infos]
    return f"model context window {chat.context_window} tokens; " + "; ".join(parts)


def select_questions(conversation: Conversation, config: EvalConfig) -> list[Question]:
    """The questions to run: the first N, or N spread evenly (all categories, same order)."""
    questions = list(conversation.questions[: config.limit_questions or None])
    wanted = config.sample_questions
    if wanted and wanted < len(questions):
        picks = sorted({int(i * len(questions) / wanted) for i in range(wanted)})
        questions = [questions[i] for i in picks]
    return questions


def run_conversation(
    conversation: Conversation,
    config: EvalConfig,
    checkpoints: Checkpoints,
    embedder: Any,
    chat: Any,
    judge: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ingest one conversation into a fresh vault and answer its questions (resuming)."""
    questions = select_questions(conversation, config)
    done = checkpoints.questions(conversation.sample_id)
    info = checkpoints.conversation(conversation.sample_id)
    if info is not None and info.get("complete") and all(q.index in done for q in questions):
        return info, [done[q.index] for q in questions]
    from engine.api import MemoryOS, erase_vault

    vault = Path(config.out) / "vaults" / f"{conversation.sample_id}.memoryos"
    vault.parent.mkdir(parents=True, exist_ok=True)
    erase_vault(vault)  # a vault left by an interrupted run: its passphrase is gone, rebuild
    mem = MemoryOS.open(
        vault,
        create=True,
        passphrase=secrets.token_urlsafe(32),
        embedder=embedder,
        chat=chat,
        background=False,
    )
    try:
        info = _ingest(mem, conversation, chat, config)
        info["questions"] = len(questions)
        checkpoints.save_conversation(conversation.sample_id, info)
        turn_index = base.TurnBaselines(conversation, embedder)
        full_text = base.full_context(conversation)
        fits = chat is not None and base.fits_context(
            chat, base.answer_messages("?", full_text), config.max_answer_tokens
        )
        tokens = chat.count_tokens(full_text) if chat is not None else None
        info["full_context"] = (
            f"{tokens} tokens, {'fits' if fits else 'does not fit'}"
            if chat is not None
            else "not run"
        )
        bar = _bar(
            len(questions), f"{conversation.sample_id} questions", config.progress, "question"
        )
        bar.update(sum(1 for q in questions if q.index in done))
        for question in questions:
            if question.index in done:
                continue
            record = answer_question(
                mem,
                conversation,
                question,
                turn_index,
                chat,
                judge,
                config,
                full_text if fits else None,
            )
            checkpoints.add_question(conversation.sample_id, record)
            done[question.index] = record
            bar.update(1)
        bar.close()
        info["complete"] = True
        checkpoints.save_conversation(conversation.sample_id, info)
    finally:
        mem.close()
        erase_vault(vault)
    return info, [done[q.index] for q in questions]


def _ingest(mem: Any, conversation: Conversation, chat: Any, config: EvalConfig) -> dict[str, Any]:
    before = usage_snapshot(chat)
    bar = _bar(len(conversation.turns), f"{conversation.sample_id} ingest", config.progress, "turn")
    stats = ingest(mem, conversation, on_page=bar.update)
    bar.close()
    start = time.perf_counter()
    jobs = consolidate(mem, config.progress, conversation.sample_id)
    consolidation_s = time.perf_counter() - start
    status = mem.consolidation_status()
    return {
        "sample_id": conversation.sample_id,
        "sessions": len(conversation.sessions),
        "turns": stats.turns,
        "pages": stats.pages,
        "exchanges": len(exchanges(conversation)),
        "add_ms": [s * 1000 for s in stats.add_seconds],
        "consolidation_s": consolidation_s,
        "consolidation_jobs": jobs,
        "consolidation": asdict(status) if hasattr(status, "__dataclass_fields__") else str(status),
        "usage": usage_since(chat, before),
    }


def consolidate(mem: Any, progress: bool, label: str) -> int:
    """Run consolidation jobs until none is pending; returns the number of jobs run."""
    pending = mem.consolidation_status().pending_jobs
    bar = _bar(pending, f"{label} consolidation", progress, "job")
    total = 0
    while True:
        ran = mem.run_consolidation(max_jobs=16)
        total += ran
        bar.total = max(bar.total or 0, total + mem.consolidation_status().pending_jobs)
        bar.update(ran)
        if not ran or mem.consolidation_status().pending_jobs == 0:
            break
    bar.close()
    return total
