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
import random
import statistics
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


def timed(stream) -> tuple[float, int]:
    started = time.perf_counter()
    chunks = sum(1 for _ in stream)
    return time.perf_counter() - started, chunks


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
    from engine.backends.fake import HashEmbedder
    from models.catalogue import ModelConfig, make_chat

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
            for run in range(args.runs):
                for question in QUESTIONS:
                    # greedy decoding and a fixed budget: both sides generate comparable text
                    seconds, _ = timed(
                        chat.stream(
                            [{"role": "user", "content": question}],
                            max_tokens=args.max_tokens,
                            temperature=0.0,
                        )
                    )
                    bare.append((seconds, chat.usage.last_completion_tokens))
                    started = time.perf_counter()
                    stream = memory.get_response(
                        question, max_tokens=args.max_tokens, temporary=True
                    )
                    retrieval.append(stream.retrieval.elapsed_ms)
                    for _ in stream:
                        pass
                    full.append((time.perf_counter() - started, chat.usage.last_completion_tokens))
                    prompt_tokens.append(chat.usage.last_prompt_tokens)
                del run
        finally:
            memory.close()

    def per_token(items):
        return statistics.median(s / max(t, 1) for s, t in items)

    result = {
        "pages": args.pages,
        "fill_seconds": round(fill_seconds, 1),
        "bare_answer_s_median": round(statistics.median(s for s, _ in bare), 3),
        "memory_answer_s_median": round(statistics.median(s for s, _ in full), 3),
        "bare_s_per_token": round(per_token(bare), 4),
        "memory_s_per_token": round(per_token(full), 4),
        "retrieval_ms_median": round(statistics.median(retrieval), 1),
        "memory_prompt_tokens_median": statistics.median(prompt_tokens),
    }
    result["overhead_ratio_per_token"] = round(
        result["memory_s_per_token"] / result["bare_s_per_token"], 3
    )
    for key, value in result.items():
        print(f"{key:32} {value}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
