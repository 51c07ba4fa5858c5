"""Command-line entry points: `memoryos eval locomo ...` and `memoryos bench ...`."""

from __future__ import annotations

import argparse
import sys

from engine.cli_parser import CommandParser, positive_int

SUITES = {
    "locomo": "LoCoMo long-conversation memory benchmark",
    "personal": "the everyday case: is the memory that answers a person's question shown to the "
    "model, in the small-model prompt and the normal one (26 scenarios, bundled models)",
}


def _eval_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="memoryos eval", description="Evaluate the memory.")
    sub = parser.add_subparsers(dest="suite", metavar="SUITE")
    locomo = sub.add_parser("locomo", help=SUITES["locomo"])
    locomo.add_argument("--data", required=True, help="a locomo10.json-shaped file")
    locomo.add_argument("--out", required=True, help="output folder (results, checkpoints)")
    locomo.add_argument("--conversations", default="", help="sample ids, e.g. conv-26,conv-30")
    locomo.add_argument("--llm", default="none", help="none | bundled | gguf:PATH | url:URL")
    locomo.add_argument("--llm-model", default=None, help="model name for --llm url:URL")
    locomo.add_argument("--judge-url", default=None, help="OpenAI-compatible URL of an LLM judge")
    locomo.add_argument(
        "--judge-model", default=None, help="model name for the judge (with --judge-url)"
    )
    locomo.add_argument(
        "--allow-plain-http",
        action="store_true",
        help="use a server on another computer at a plain http:// address (--llm url:, "
        "--judge-url) (refused without it: the conversations and questions would cross the "
        "network unencrypted)",
    )
    locomo.add_argument(
        "--limit-questions",
        type=positive_int,
        default=None,
        metavar="N",
        help="first N per conversation",
    )
    locomo.add_argument(
        "--sample-questions",
        type=positive_int,
        default=None,
        metavar="N",
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
    locomo.add_argument(
        "--max-answer-tokens",
        type=positive_int,
        default=64,
        metavar="N",
        help="the longest answer the model may write to a question, in tokens (default 64)",
    )
    locomo.add_argument("--restart", action="store_true", help="drop checkpoints in --out")
    locomo.add_argument("--no-progress", action="store_true", help="no progress bars")
    # its own options: engine/eval/personal.py (`memoryos eval personal -h`)
    sub.add_parser("personal", add_help=False, help=SUITES["personal"])
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


def _check_addresses(args: argparse.Namespace) -> None:
    """--llm url:URL and --judge-url: a server address each (AddressError), and plain http://
    to another computer only with --allow-plain-http (PlainHttpRefusedError), as `memoryos
    chat` refuses them."""
    from engine.network import check_address, check_url
    from engine.terminal.opening import ALLOW_PLAIN_HTTP

    given = []
    if args.llm.startswith("url:"):
        given.append((args.llm[4:], f"--llm {args.llm!r}"))
    if args.judge_url is not None:
        given.append((args.judge_url, f"--judge-url {args.judge_url!r}"))
    for url, given_as in given:
        check_address(url, given_as)
        check_url(url, allow_plain_http=args.allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)


def _check_judge(args: argparse.Namespace) -> None:
    """--judge-url and --judge-model together or not at all (InvalidInputError). Half a judge
    showed only once the run was over: without the model each answer went to the judge with
    no model name (a server that refuses it gives no verdict, and the report still named the
    judge); without the address --judge-model was ignored and no answer was judged."""
    from engine.errors import InvalidInputError

    if args.judge_url is not None and not (args.judge_model or "").strip():
        raise InvalidInputError(
            f"--judge-url {args.judge_url!r}: give the name of the judge's model on that server "
            "with --judge-model NAME (`memoryos models` lists the models that local servers "
            "offer)"
        )
    if args.judge_model is not None and args.judge_url is None:
        raise InvalidInputError(
            f"--judge-model {args.judge_model!r}: give the address of the judge's server with "
            "--judge-url URL, or leave out --judge-model (no answer is judged without it)"
        )


def _check_options(args: argparse.Namespace) -> None:
    """Every option `run_eval` would refuse, refused before it makes the output folder: the
    data file and its conversations, --llm (and --llm-model for url:), the addresses, the
    judge's two options, and --embedder: InvalidInputError, or the ValueError/OSError of a data
    file that cannot be read."""
    from pathlib import Path

    from engine.backends.build import embedder_folder, is_default_embedder
    from engine.errors import InvalidInputError, ModelLoadError
    from engine.eval.locomo import load_locomo
    from engine.model_config import GGUF, URL, ModelConfig

    if not Path(args.data).is_file():
        raise InvalidInputError(
            f"--data {args.data!r}: no such file; give the path of a locomo10.json-shaped file"
        )
    if args.conversations.strip():  # names that are not in the file, said now
        load_locomo(args.data, [c.strip() for c in args.conversations.split(",") if c.strip()])
    _check_addresses(args)
    _check_judge(args)
    if args.llm not in ("", "none"):
        try:
            config = ModelConfig.parse(args.llm, args.llm_model or "")
        except InvalidInputError as exc:
            raise InvalidInputError(f"--llm: {exc}, or none") from None
        if config.source == URL and not config.url_model:
            raise InvalidInputError(
                f"--llm {args.llm!r}: give the name of the model on that server with "
                "--llm-model NAME (`memoryos models` lists the models that local servers offer)"
            )
        if config.source == GGUF:
            from engine.gguf import check_gguf_file

            file = Path(config.gguf_path).expanduser()
            if not file.is_file():
                raise InvalidInputError(
                    f"--llm {args.llm!r}: no model file there; give gguf:PATH with the path of a "
                    ".gguf file (`memoryos models` lists those on this computer)"
                )
            try:
                check_gguf_file(file)
            except ModelLoadError as exc:
                raise InvalidInputError(f"--llm {args.llm!r}: {exc}") from None
    if args.embedder != "fake" and not is_default_embedder(args.embedder):
        try:
            embedder_folder(args.embedder)
        except InvalidInputError as exc:
            raise InvalidInputError(f"--embedder: {exc}") from None


def eval_main(argv: list[str]) -> int:
    """`memoryos eval locomo`: run (or resume) the evaluation; prints the report.
    `memoryos eval personal`: the everyday-memory probe (engine/eval/personal.py)."""
    if argv[:1] == ["personal"]:
        from engine.eval.personal import main as personal_main

        return personal_main(argv[1:], prog="memoryos eval personal")
    parser = _eval_parser()
    args = parser.parse_args(argv)
    if args.suite is None:
        parser.error(
            f"say which suite to run: {' or '.join(SUITES)} (`memoryos eval --help` says what "
            "each measures)"
        )
    from engine.errors import MemoryOSError
    from engine.eval.run import EvalConfig, run_eval

    try:  # before the output folder is made: a bad option changes nothing
        _check_options(args)
    except (OSError, ValueError, MemoryOSError) as exc:  # a policy too, as run_eval's below
        print(f"memoryos eval: {exc}", file=sys.stderr)
        return 2
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
        allow_plain_http=args.allow_plain_http,
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


def _sizes(text: str) -> list[int]:
    """--sizes: vault sizes in pages, comma-separated, each 1 or more."""
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give numbers of pages, comma-separated, e.g. 1000,10000"
        ) from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a vault size is 1 page or more, e.g. 1000,10000"
        )
    return sizes


def _bench_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="memoryos bench", description="Measure engine costs.")
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=[1000, 10000, 100000],
        metavar="N,N,...",
        help="vault sizes in pages, comma-separated: retrieval is measured on a vault of each "
        "size (default 1000,10000,100000)",
    )
    parser.add_argument("--out", default=None, metavar="FILE", help="write the JSON results here")
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
    parser.add_argument(
        "--queries",
        type=positive_int,
        default=200,
        metavar="N",
        help="retrieval queries per size (default 200)",
    )
    parser.add_argument(
        "--adds", type=positive_int, default=300, metavar="N",
        help="add_memory calls measured (default 300)",
    )  # fmt: skip
    parser.add_argument(
        "--consolidation-pages",
        type=positive_int,
        default=200,
        metavar="N",
        help="exchanges consolidated to measure consolidation throughput (default 200)",
    )
    return parser


def bench_main(argv: list[str]) -> int:
    """`memoryos bench`: print a table of engine costs and write them as JSON."""
    args = _bench_parser().parse_args(argv)
    from engine.eval.bench import BenchConfig, format_table, run_bench

    config = BenchConfig(
        sizes=args.sizes,
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
