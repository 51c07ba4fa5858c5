"""Benchmark the bundled models: load, first token, tokens/s (llama.cpp vs ours), RSS, embeddings."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

PAGE_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "minLength": 1},
        "keywords": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": 8,
        },
    },
    "required": ["summary", "keywords"],
}
PAGE_PROMPT = (
    "You index a conversation memory. Summarise the exchange below in one sentence and give "
    '3 to 6 topic keywords. Answer with JSON only: {"summary": "...", "keywords": ["..."]}'
)
TOPICS = ["the history of Paris", "how bees make honey", "why the sky is blue",
          "the rules of chess", "how to bake bread", "the life of a star"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.eval.bench_backends", description=__doc__
    )
    parser.add_argument("--data", type=Path, help="LoCoMo-shaped JSON file (turns to summarise)")
    parser.add_argument("--limit", type=int, default=20, help="pages for the structured test")
    parser.add_argument("--runs", type=int, default=3, help="generation runs per side")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0, help="0 = llama-cpp-python's default")
    parser.add_argument("--embed-texts", type=int, default=640)
    parser.add_argument("--out", type=Path, default=Path("bench_backends.json"))
    args = parser.parse_args(argv)

    from engine.backends.build import make_embedder
    from engine.backends.llama import LlamaChat
    from engine.bundled import bundled_gguf_path

    path = bundled_gguf_path()
    turns = load_turns(args.data) if args.data else []
    results: dict[str, Any] = {
        "model": path.name,
        "n_ctx": args.n_ctx,
        "python": sys.version.split()[0],
    }

    chat = LlamaChat(path, n_ctx=args.n_ctx, n_threads=args.threads)
    started = time.perf_counter()
    chat.load()
    results["load_seconds"] = time.perf_counter() - started

    embedder = make_embedder()
    started = time.perf_counter()
    embedder.load()
    results["embedder_load_seconds"] = time.perf_counter() - started
    texts = [t["text"] for t in turns] or [
        f"Sentence {i} about {TOPICS[i % 6]}." for i in range(64)
    ]
    texts = (texts * (args.embed_texts // max(1, len(texts)) + 1))[: args.embed_texts]
    embedder.embed(texts[:64])  # warm-up
    started = time.perf_counter()
    embedder.embed(texts)
    results["embed_texts_per_second"] = len(texts) / (time.perf_counter() - started)
    results["embed_batch_size"] = embedder.batch_size

    ours_run(chat, 0, args.max_tokens)  # warm-up (and both models are now in memory)
    results["peak_rss_mb_both_models"] = peak_rss_mb()

    import llama_cpp

    from engine.backends.llama import REPEAT_PENALTY
    from engine.eval.metrics import percentile

    direct = llama_cpp.Llama(
        str(path), n_ctx=chat.context_window, n_threads=args.threads or None,
        n_threads_batch=args.threads or None, chat_format="chat_template.default", verbose=False,
    )  # fmt: skip
    direct_run(direct, 0, args.max_tokens)  # the same warm-up on the direct side
    runs: dict[str, list[dict]] = {"direct": [], "ours": []}
    for i in range(args.runs):  # interleaved, same prompts, same sampling on both sides
        runs["direct"].append(direct_run(direct, i + 1, args.max_tokens))
        runs["ours"].append(ours_run(chat, i + 1, args.max_tokens))
    for side, values in runs.items():
        for name, key in (("ttft_seconds", "ttft"), ("tokens_per_second", "tps")):
            samples = [r[key] for r in values]
            results[f"{side}_{name}"] = statistics.median(samples)
            results[f"{side}_{name}_p95"] = percentile(samples, 95)
        results[f"{side}_tokens"] = [r["tokens"] for r in values]
    # Greedy decoding with the same repeat penalty: both sides must have generated the same
    # text, or the tokens/s ratio compares different work.
    results["same_text_both_sides"] = all(
        d["text"] == o["text"] for d, o in zip(runs["direct"], runs["ours"], strict=True)
    )
    results["repeat_penalty"] = REPEAT_PENALTY
    results["ttft_seconds"] = results["ours_ttft_seconds"]
    results["tokens_per_second_ratio"] = (
        results["ours_tokens_per_second"] / results["direct_tokens_per_second"]
    )
    direct.close()

    if turns and args.limit > 0:
        results["structured"] = structured_rate(chat, turns, args.limit)
    results["load_average_1min"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    results["cpu_count"] = os.cpu_count()
    print_table(results)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten: {args.out}")
    return 0


def load_turns(path: Path) -> list[dict]:
    """Every turn of a LoCoMo-shaped file: [{"speaker", "text", "dia_id"}...] in order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    turns: list[dict] = []
    for sample in data if isinstance(data, list) else [data]:
        conversation = sample.get("conversation", {})
        index = 1
        while f"session_{index}" in conversation or f"session_{index}_date_time" in conversation:
            turns.extend(t for t in conversation.get(f"session_{index}") or [] if t.get("text"))
            index += 1
    return turns


def prompt(i: int) -> list[dict]:
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": f"Tell me about {TOPICS[i % len(TOPICS)]}."},
    ]


def _timed(chunks: Any) -> dict:
    started = time.perf_counter()
    first = None
    parts: list[str] = []
    for chunk in chunks:
        parts.append(chunk)
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    first = first or end
    decode = max(end - first, 1e-9)
    count = len(parts)
    return {
        "ttft": first - started,
        "tokens": count,
        "tps": max(count - 1, 0) / decode,
        "text": "".join(parts),
    }


def direct_run(llama: Any, i: int, max_tokens: int) -> dict:
    from engine.backends.llama import REPEAT_PENALTY

    stream = llama.create_chat_completion(
        prompt(i),
        max_tokens=max_tokens,
        temperature=0.0,
        stream=True,
        repeat_penalty=REPEAT_PENALTY,  # what LlamaChat uses, so both sides decode alike
    )
    return _timed(
        c["choices"][0]["delta"]["content"]
        for c in stream
        if c["choices"][0]["delta"].get("content")
    )


def ours_run(chat: Any, i: int, max_tokens: int) -> dict:
    return _timed(chat.stream(prompt(i), max_tokens=max_tokens, temperature=0.0))


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB (0 where `resource` is missing: Windows)."""
    try:
        import resource
    except ImportError:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


def structured_rate(chat: Any, turns: list[dict], limit: int) -> dict:
    """First try / retry / fallback counts of structured_call over `limit` two-turn pages."""
    from engine.backends.structured import StructuredStats, structured_call

    stats = StructuredStats()
    seconds = []
    for start in range(0, min(len(turns) - 1, 2 * limit), 2):
        first, second = turns[start], turns[start + 1]
        exchange = f"{first['speaker']}: {first['text']}\n{second['speaker']}: {second['text']}"
        messages = [
            {"role": "system", "content": PAGE_PROMPT},
            {"role": "user", "content": exchange},
        ]
        started = time.perf_counter()
        structured_call(chat, messages, PAGE_SCHEMA, stats=stats, max_tokens=256)
        seconds.append(time.perf_counter() - started)
    total = max(stats.total, 1)
    return {
        **stats.to_dict(),
        "first_try_rate": stats.first_try_ok / total,
        "after_retry_rate": (stats.first_try_ok + stats.retry_ok) / total,
        "fallback_rate": stats.fallback / total,
        "median_seconds_per_page": statistics.median(seconds) if seconds else 0.0,
    }


def print_table(results: dict) -> None:
    rows = [
        ("bundled chat model load", f"{results['load_seconds']:.2f} s"),
        ("embedder load", f"{results['embedder_load_seconds']:.2f} s"),
        ("time to first token p50/p95 (ours)", f"{results['ours_ttft_seconds'] * 1000:.0f} / {results['ours_ttft_seconds_p95'] * 1000:.0f} ms"),
        ("time to first token p50/p95 (llama.cpp)", f"{results['direct_ttft_seconds'] * 1000:.0f} / {results['direct_ttft_seconds_p95'] * 1000:.0f} ms"),
        ("tokens/s p50/p95 llama.cpp directly", f"{results['direct_tokens_per_second']:.1f} / {results['direct_tokens_per_second_p95']:.1f}"),
        ("tokens/s p50/p95 through LlamaChat", f"{results['ours_tokens_per_second']:.1f} / {results['ours_tokens_per_second_p95']:.1f}"),
        ("ratio ours / direct (goal >= 0.95)", f"{results['tokens_per_second_ratio']:.3f}"),
        ("same generated text on both sides", "yes" if results["same_text_both_sides"] else "NO"),
        ("peak RSS, both bundled models", f"{results['peak_rss_mb_both_models']:.0f} MB"),
        (f"embeddings, batch {results['embed_batch_size']}", f"{results['embed_texts_per_second']:.0f} texts/s"),
    ]  # fmt: skip
    structured = results.get("structured")
    if structured:
        total = structured["total"]
        rows += [
            (f"structured pages (n={total}) valid first try", f"{structured['first_try_rate']:.0%}"),
            ("  valid after one retry", f"{structured['after_retry_rate']:.0%}"),
            ("  fallback used", f"{structured['fallback_rate']:.0%}"),
            ("  median seconds per page", f"{structured['median_seconds_per_page']:.1f}"),
        ]  # fmt: skip
    if results.get("load_average_1min") is not None:
        rows.append(
            (
                "machine load (1 min) / CPUs",
                f"{results['load_average_1min']:.1f} / {results['cpu_count']}",
            )
        )
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    raise SystemExit(main())
