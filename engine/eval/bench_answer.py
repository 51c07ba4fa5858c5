"""What memory adds to an answer: get_response vs a bare generation, with N stored pages.

    python -m engine.eval.bench_answer [--pages 10000] [--runs 5] [--max-tokens 64]
    python -m engine.eval.bench_answer --conversation [--questions 20] [--model X.gguf]

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.api import MemoryOS

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


# One conversation, asked turn after turn (the multi-turn case: --conversation).
CONVERSATION = [
    "What did I say about hiking?",
    "How long was that, roughly?",
    "And what about baking bread?",
    "Did I mention my sister's wedding?",
    "What else did I do that week?",
    "Have I been running a marathon?",
    "How many minutes did I spend on the garden?",
    "What do you remember about my job?",
    "Tell me about the dog.",
    "Which hobbies come up most often?",
    "What did I say about photography?",
    "Did I play chess recently?",
    "What about climate startups?",
    "Have I done any pottery?",
    "When did I plan the trip to Lisbon?",
    "What novels did I mention?",
    "How often do I go cycling?",
    "Summarise my week for me.",
    "What should I do more of?",
    "Thanks. What did we talk about first today?",
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


@contextmanager
def bench_memory(chat, pages: int) -> Iterator[tuple[MemoryOS, float]]:
    """A throwaway vault (HashEmbedder vectors) answering with `chat`, filled with `pages`
    exchanges: the memory and the seconds filling it took. Closed and deleted afterwards."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    with tempfile.TemporaryDirectory() as folder:
        memory = MemoryOS.open(
            Path(folder) / "bench.memoryos",
            create=True,
            passphrase="bench-passphrase",
            embedder=HashEmbedder(384),
            chat=chat,
            background=False,
        )
        try:
            yield memory, fill(memory, pages)
        finally:
            memory.close()


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


def conversation(args: argparse.Namespace) -> dict:
    """TTFT per turn of one conversation with memory, against the same model answering the
    bare question (instructions + question: cold, nothing cached, and warm, the instructions
    cached) and a plain chat without memory, each side on its own llama.cpp context so that
    no side evicts another's prompt cache."""
    from engine.backends.llama import LlamaChat
    from engine.memory import when
    from engine.prompt import SYSTEM
    from models.catalogue import bundled_gguf_path

    path = args.model or bundled_gguf_path()
    ours, bare, plain = (
        LlamaChat(path, n_ctx=args.n_ctx, n_threads=args.threads) for _side in range(3)
    )
    for chat in (ours, bare, plain):
        chat.load()
    questions = (CONVERSATION * 3)[: args.questions]
    rows = []
    plain_turns: list[dict[str, str]] = []
    today = f"Today is {when.describe_day(time.time())}."
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with bench_memory(ours, args.pages) as (memory, fill_seconds):
        memory.new_conversation()
        # warm-up, not stored: each side runs once before anything is timed
        timed(memory.get_response("Hello!", max_tokens=2, temporary=True))
        timed(bare.stream([{"role": "user", "content": "Hello!"}], max_tokens=2))
        timed(plain.stream([{"role": "user", "content": "Hello!"}], max_tokens=2))
        for turn, question in enumerate(questions, 1):
            stream = memory.get_response(question, max_tokens=args.max_tokens)
            with_memory = timed(stream)
            if hasattr(ours, "wait_warm"):  # its background warm-up must not slow the others
                ours.wait_warm()
            row = {
                "turn": turn,
                "memory_ttft_s": with_memory["ttft"],
                "memory_new_tokens": getattr(ours, "last_new_tokens", None),
                "memory_prompt_tokens": ours.usage.last_prompt_tokens,
                "memories_shown": len(stream.memories),
            }
            asked = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": question},
            ]
            # warm: the instructions are cached from the last bare question; cold: nothing is
            row["bare_ttft_s"] = _first_chunk(bare.stream(asked, max_tokens=args.max_tokens))
            row["bare_new_tokens"] = getattr(bare, "last_new_tokens", None)
            bare._llama.reset()
            row["cold_ttft_s"] = _first_chunk(bare.stream(asked, max_tokens=args.max_tokens))
            row["cold_new_tokens"] = getattr(bare, "last_new_tokens", None)
            # a plain chat: the same conversation, its own answers, no memory
            plain_turns.append({"role": "user", "content": question})
            messages = [{"role": "system", "content": f"{SYSTEM}\n\n{today}"}, *plain_turns]
            started = time.perf_counter()
            chunks = []
            for chunk in plain.stream(messages, max_tokens=args.max_tokens):
                if not chunks:
                    row["plain_ttft_s"] = time.perf_counter() - started
                chunks.append(chunk)
            row.setdefault("plain_ttft_s", time.perf_counter() - started)
            row["plain_new_tokens"] = getattr(plain, "last_new_tokens", None)
            plain_turns.append({"role": "assistant", "content": "".join(chunks).strip()})
            rows.append(row)
            print(
                json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}),
                flush=True,
            )

    from engine.eval.metrics import percentile

    def p(key: str, q: float) -> float | None:
        values = [row[key] for row in rows if row.get(key) is not None]
        return round(percentile(values, q), 3) if values else None

    result = {
        "model": Path(path).name,
        "parameters": ours.info.parameters if ours.info else None,
        "pages": args.pages,
        "fill_seconds": round(fill_seconds, 1),
        "turns": len(rows),
        "max_tokens": args.max_tokens,
    }
    for side in ("memory", "cold", "bare", "plain"):
        result[f"{side}_ttft_s_p50"] = p(f"{side}_ttft_s", 50)
        result[f"{side}_ttft_s_p95"] = p(f"{side}_ttft_s", 95)
        result[f"{side}_new_tokens_p50"] = p(f"{side}_new_tokens", 50)
        result[f"{side}_new_tokens_p95"] = p(f"{side}_new_tokens", 95)
    result["memory_prompt_tokens_p50"] = p("memory_prompt_tokens", 50)
    result["memories_shown_p50"] = p("memories_shown", 50)
    for side in ("cold", "bare", "plain"):
        for q in (50, 95):
            result[f"ratio_to_{side}_p{q}"] = round(
                result[f"memory_ttft_s_p{q}"] / max(result[f"{side}_ttft_s_p{q}"], 1e-9), 3
            )
    for side in ("cold", "bare", "plain"):
        per_turn = [row["memory_ttft_s"] / max(row[f"{side}_ttft_s"], 1e-9) for row in rows]
        result[f"per_turn_ratio_to_{side}_p50"] = round(percentile(per_turn, 50), 3)
        result[f"per_turn_ratio_to_{side}_p95"] = round(percentile(per_turn, 95), 3)
    result["memory_budget_tokens"] = _budget(ours, questions[-1])
    result["prompt_tokens_per_second"] = round(getattr(ours, "prompt_tokens_per_second", 0) or 0)
    result["load_average_1min_before"] = load_before
    result["load_average_1min_after"] = (
        round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    )
    result["rows"] = rows
    return result


def _first_chunk(stream) -> float:
    """Seconds to the first chunk; the rest is not generated (closing the stream stops it)."""
    started = time.perf_counter()
    for _chunk in stream:
        break
    seconds = time.perf_counter() - started
    stream.close()
    return seconds


def _budget(chat, question: str) -> int | None:
    try:
        from engine.prompt_memories import memory_budget
    except ImportError:  # the layout before the memory budget
        return None
    return memory_budget(chat, question)


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
    parser.add_argument(
        "--conversation",
        action="store_true",
        help="one conversation turn after turn: TTFT with memory, bare question, plain chat",
    )
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default: bundled)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)
    if args.conversation:
        result = conversation(args)
        for key, value in result.items():
            if key != "rows":
                print(f"{key:32} {value}")
        if args.out:
            args.out.write_text(json.dumps(result, indent=1))
        return 0

    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig

    chat = make_chat(ModelConfig(source="bundled"))
    chat.load()
    with bench_memory(chat, args.pages) as (memory, fill_seconds):
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
                stream = memory.get_response(question, max_tokens=args.max_tokens, temporary=True)
                full.append(timed(stream))
                retrieval.append(stream.retrieval.elapsed_ms)
                prompt_tokens.append(chat.usage.last_prompt_tokens)

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
