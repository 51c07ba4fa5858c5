"""Command-line entry points: `memoryos eval locomo ...` and `memoryos bench ...`."""

from __future__ import annotations

import argparse
import sys


def _eval_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="memoryos eval", description="Evaluate the memory."
    )
    sub = parser.add_subparsers(dest="suite", required=True)
    locomo = sub.add_parser("locomo", help="LoCoMo long-conversation memory benchmark")
    locomo.add_argument("--data", required=True, help="a locomo10.json-shaped file")
    locomo.add_argument("--out", required=True, help="output folder (results, checkpoints)")
    locomo.add_argument("--conversations", default="", help="sample ids, e.g. conv-26,conv-30")
    locomo.add_argument("--llm", default="none", help="none | bundled | gguf:PATH | url:URL")
    locomo.add_argument("--llm-model", default=None, help="model name for --llm url:URL")
    locomo.add_argument("--judge-url", default=None, help="OpenAI-compatible URL of an LLM judge")
    locomo.add_argument("--judge-model", default=None, help="model name for the judge")
    locomo.add_argument(
        "--limit-questions", type=int, default=None, help="first N per conversation"
    )
    locomo.add_argument(
        "--sample-questions",
        type=int,
        default=None,
        help="N per conversation, spread evenly over all its questions (a quick mixed sample)",
    )
    locomo.add_argument(
        "--embedder",
        default="bundled",
        metavar="MODEL",
        help="bundled (all-MiniLM-L6-v2), fake (hash vectors, for tests) or a local "
        "sentence-transformers model folder; every system, baselines included, uses it",
    )
    locomo.add_argument(
        "--baseline-answers",
        default="fusion",
        choices=["none", "fusion", "all"],
        help="which retrieval baselines also answer (one LLM call each)",
    )
    locomo.add_argument("--max-answer-tokens", type=int, default=64)
    locomo.add_argument("--restart", action="store_true", help="drop checkpoints in --out")
    locomo.add_argument("--no-progress", action="store_true")
    sub.add_parser(  # its own options: engine/eval/personal.py (`memoryos eval personal -h`)
        "personal", add_help=False,
        help="the everyday case: is the memory that answers a person's question shown to the "
        "model, in the small-model prompt and the normal one (25 scenarios, bundled models)",
    )
    return parser


def _embedder_name(name: str) -> str:
    """A model folder by its absolute path: a resumed run started elsewhere names it alike."""
    from pathlib import Path

    from engine.backends.build import is_default_embedder

    if name == "fake":
        return name
    if is_default_embedder(name):
        return "bundled"
    return str(Path(name).expanduser().absolute())


def eval_main(argv: list[str]) -> int:
    """`memoryos eval locomo`: run (or resume) the evaluation; prints the report.
    `memoryos eval personal`: the everyday-memory probe (engine/eval/personal.py)."""
    if argv[:1] == ["personal"]:
        from engine.eval.personal import main as personal_main

        return personal_main(argv[1:], prog="memoryos eval personal")
    args = _eval_parser().parse_args(argv)
    from engine.errors import MemoryOSError
    from engine.eval.run import EvalConfig, run_eval

    config = EvalConfig(
        data=args.data,
        out=args.out,
        conversations=[c.strip() for c in args.conversations.split(",") if c.strip()] or None,
        llm=args.llm,
        llm_model=args.llm_model,
        judge_url=args.judge_url,
        judge_model=args.judge_model,
        limit_questions=args.limit_questions,
        sample_questions=args.sample_questions,
        embedder=_embedder_name(args.embedder),
        baseline_answers=args.baseline_answers,
        max_answer_tokens=args.max_answer_tokens,
        progress=not args.no_progress,
    )
    try:
        run_eval(config, restart=args.restart)
    except (OSError, ValueError, MemoryOSError) as exc:
        print(f"memoryos eval: {exc}", file=sys.stderr)
        return 2
    from pathlib import Path

    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    print(f"Wrote {args.out}/results.json, report.md, recall.png")
    return 0


def _bench_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="memoryos bench", description="Measure engine costs."
    )
    parser.add_argument("--sizes", default="1000,10000,100000", help="vault sizes in pages")
    parser.add_argument("--out", default=None, help="write the JSON results here")
    parser.add_argument(
        "--embedder",
        default="bundled",
        choices=["fake", "bundled"],
        help="embedder for the add_memory measure ('fake' skips the model)",
    )
    parser.add_argument(
        "--chat",
        default="bundled",
        choices=["none", "fake", "bundled"],
        help="chat model for consolidation throughput (fake is always measured)",
    )
    parser.add_argument(
        "--vectors",
        default="fake",
        choices=["fake", "bundled"],
        help="embedder of the retrieval vaults and queries ('bundled' embeds ~3 texts a page)",
    )
    parser.add_argument("--queries", type=int, default=200, help="retrieval queries per size")
    parser.add_argument("--adds", type=int, default=300, help="add_memory calls measured")
    parser.add_argument("--consolidation-pages", type=int, default=200)
    return parser


def bench_main(argv: list[str]) -> int:
    """`memoryos bench`: print a table of engine costs and write them as JSON."""
    args = _bench_parser().parse_args(argv)
    from engine.eval.bench import BenchConfig, format_table, run_bench

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        print("memoryos bench: --sizes takes numbers, e.g. 1000,10000", file=sys.stderr)
        return 2
    config = BenchConfig(
        sizes=sizes,
        embedder=args.embedder,
        vectors=args.vectors,
        chat=args.chat,
        queries=args.queries,
        adds=args.adds,
        consolidation_pages=args.consolidation_pages,
    )
    results = run_bench(config)
    print(format_table(results))
    if args.out:
        import json

        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
        print(f"Wrote {args.out}")
    return 0


if __name__ == "__main__":  # python -m engine.eval.cli eval|bench ...
    command, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "eval":
        sys.exit(eval_main(rest))
    if command == "bench":
        sys.exit(bench_main(rest))
    print("usage: python -m engine.eval.cli eval|bench ...", file=sys.stderr)
    sys.exit(2)
