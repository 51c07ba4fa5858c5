"""What memory adds to an answer: get_response vs a bare generation, with N stored pages.

    python -m engine.eval.bench_answer [--pages 10000] [--runs 5] [--max-tokens 64]

The vault is filled with varied synthetic exchanges through add_memory and consolidated without
an LLM; pages are embedded with the deterministic hash embedder (384 dimensions) so filling
10,000 pages takes a minute, not an hour: what is measured is the retrieval, prompt assembly and
longer prompt, not embedding quality. Generation uses the bundled SmolLM2 through llama.cpp.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

TOPICS = [
    "hiking",
    "baking bread",
    "jazz guitar",
    "learning Portuguese",
    "my sister's wedding",
    "running a marathon",
    "the garden",
    "a new job",
    "the dog",
    "photography",
    "chess",
    "climate startups",
    "pottery",
    "a trip to Lisbon",
    "reading novels",
    "cycling",
]
QUESTIONS = [
    "What do you remember about my job?",
    "When is my sister's wedding?",
    "What did I say about the garden last week?",
    "Which books did I mention?",
    "How is my marathon training going?",
]


def fill(memory, pages: int, seed: int = 7) -> float:
    rng = random.Random(seed)
    started = time.perf_counter()
    now = time.time() - pages * 600
    for i in range(pages):
        topic = rng.choice(TOPICS)
        memory.add_memory(
            f"Note {i}: I spent time on {topic} today, {rng.randint(1, 90)} minutes.",
            f"Good to hear about {topic}.",
            timestamp=now + i * 600,
        )
        if i % 2000 == 1999:
            memory.run_consolidation()
    memory.run_consolidation()
    return time.perf_counter() - started


def timed(stream) -> dict:
    """Time to the first chunk, whole time and chunks of one streamed answer."""
    started = time.perf_counter()
    first = None
    chunks = 0
    for _ in stream:
        chunks += 1
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    first = first or end
    return {
        "ttft": first - started,
        "total": end - started,
        "chunks": chunks,
        # decode speed after the first chunk: the same measure on both sides
        "decode_tps": max(chunks - 1, 0) / max(end - first, 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.eval.bench_answer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    from engine.api import MemoryOS
    from engine.backends.build import make_chat
    from engine.backends.fake import HashEmbedder
    from engine.model_config import ModelConfig

    chat = make_chat(ModelConfig(source="bundled"))
    chat.load()
    with tempfile.TemporaryDirectory() as folder:
        memory = MemoryOS.open(
            Path(folder) / "bench.memoryos",
            create=True,
            passphrase="bench",
            embedder=HashEmbedder(384),
            chat=chat,
            background=False,
        )
        try:
            fill_seconds = fill(memory, args.pages)
            bare, full, retrieval, prompt_tokens = [], [], [], []
            question_messages = [{"role": "user", "content": QUESTIONS[0]}]
            timed(chat.stream(question_messages, max_tokens=4, temperature=0.0))  # warm-up
            timed(memory.get_response(QUESTIONS[0], max_tokens=4, temporary=True))  # warm-up
            for _run in range(args.runs):
                for question in QUESTIONS:
                    # greedy decoding and the same token budget on both sides
                    bare.append(
                        timed(
                            chat.stream(
                                [{"role": "user", "content": question}],
                                max_tokens=args.max_tokens,
                                temperature=0.0,
                            )
                        )
                    )
                    stream = memory.get_response(
                        question, max_tokens=args.max_tokens, temporary=True
                    )
                    full.append(timed(stream))
                    retrieval.append(stream.retrieval.elapsed_ms)
                    prompt_tokens.append(chat.usage.last_prompt_tokens)
        finally:
            memory.close()

    from engine.eval.metrics import percentile

    def p(items, key, q):
        return round(percentile([item[key] for item in items], q), 3)

    result = {
        "pages": args.pages,
        "fill_seconds": round(fill_seconds, 1),
        "answers_per_side": len(bare),
        "bare_ttft_s_p50": p(bare, "ttft", 50),
        "bare_ttft_s_p95": p(bare, "ttft", 95),
        "memory_ttft_s_p50": p(full, "ttft", 50),
        "memory_ttft_s_p95": p(full, "ttft", 95),
        "bare_decode_tps_p50": p(bare, "decode_tps", 50),
        "memory_decode_tps_p50": p(full, "decode_tps", 50),
        "retrieval_ms_p50": round(percentile(retrieval, 50), 1),
        "retrieval_ms_p95": round(percentile(retrieval, 95), 1),
        "memory_prompt_tokens_p50": percentile(prompt_tokens, 50),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }
    # What memory costs the person: the wait for the first word (prefill of the memory context)
    # and the decode speed once it streams, each compared on the same question and budget.
    result["ttft_ratio_p50"] = round(result["memory_ttft_s_p50"] / result["bare_ttft_s_p50"], 3)
    result["decode_speed_ratio_p50"] = round(
        result["memory_decode_tps_p50"] / max(result["bare_decode_tps_p50"], 1e-9), 3
    )
    for key, value in result.items():
        print(f"{key:32} {value}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
