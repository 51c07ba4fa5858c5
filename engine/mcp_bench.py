"""Benchmark: retrieve_memory round-trip latency over stdio against a vault of N pages."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PASSPHRASE = "benchmark passphrase"

TOPICS = {
    "cooking": "ramen curry dumplings oven recipe spicy garlic basil bread dough noodles",
    "travel": "flight lisbon kyoto hotel train passport beach mountains museum itinerary",
    "work": "deadline manager project report meeting promotion python dashboard client",
    "music": "guitar concert album jazz piano band playlist vinyl rehearsal chords",
    "health": "running knee doctor sleep yoga marathon diet allergy vitamins gym",
    "family": "sister birthday parents wedding nephew dinner holidays grandmother kids",
    "pets": "dog cat vet walk puppy leash adoption food training park",
    "books": "novel author library poetry chapter mystery fantasy reading club memoir",
}
FRIENDS = ["Anna", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hiro"]


def synthetic_exchange(rng: random.Random) -> tuple[str, str, str]:
    """One plausible exchange on a random topic: (topic, user_input, agent_response)."""
    topic = rng.choice(list(TOPICS))
    words = TOPICS[topic].split()
    a, b, c = rng.sample(words, 3)
    friend = rng.choice(FRIENDS)
    user = f"I talked with {friend} about {a} and {b} today; next week we plan the {c}."
    agent = f"Sounds good. How did {friend} feel about the {a}? I can help plan the {c}."
    return topic, user, agent


def fill_vault(path: Path, pages: int, seed: int = 7) -> float:
    """Create a vault with `pages` synthetic pages (fake embedder) and consolidate it; seconds."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    rng = random.Random(seed)
    start = time.perf_counter()
    day = 86_400.0
    first = time.time() - pages / 20 * day  # about 20 exchanges a day, ending now
    with MemoryOS.open(
        path, create=True, passphrase=PASSPHRASE, embedder=HashEmbedder(384), background=False
    ) as memory:
        conversation = memory.new_conversation()
        for i in range(pages):
            if i % 20 == 0:
                conversation = memory.new_conversation()
            _, user, agent = synthetic_exchange(rng)
            memory.add_memory(
                user,
                agent,
                first + i * day / 20,
                {"external_id": f"bench-{i}"},
                conversation_id=conversation,
            )
            if i % 500 == 499:
                memory.run_consolidation()
                print(f"  {i + 1} pages, {time.perf_counter() - start:.0f} s", file=sys.stderr)
        memory.run_consolidation()
    return time.perf_counter() - start


async def measure(path: Path, queries: int, warmup: int) -> tuple[list[float], list[float]]:
    """Round-trip and engine-side milliseconds of `queries` retrieve_memory calls over stdio."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {
        "MEMORYOS_PASSPHRASE": PASSPHRASE,
        "MEMORYOS_HOME": os.environ.get("MEMORYOS_HOME", str(path.parent)),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", "--vault-path", str(path), "--embedder", "fake"],
        env=env,
    )
    rng = random.Random(11)
    round_trip: list[float] = []
    engine: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for i in range(warmup + queries):
            topic, user, _ = synthetic_exchange(rng)
            query = f"What did I say about {user.split()[5]} and {topic}?"
            start = time.perf_counter()
            result = await session.call_tool("retrieve_memory", {"query": query})
            elapsed = (time.perf_counter() - start) * 1000
            if result.is_error:
                raise RuntimeError(f"retrieve_memory failed: {result.content}")
            if i >= warmup:
                round_trip.append(elapsed)
                engine.append(float(result.structured_content["elapsed_ms"]))
    return round_trip, engine


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def report(name: str, values: list[float]) -> str:
    return (
        f"{name}: p50 {percentile(values, 50):.1f} ms, p95 {percentile(values, 95):.1f} ms, "
        f"mean {statistics.fmean(values):.1f} ms, max {max(values):.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.mcp_bench", description=__doc__)
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--vault-path", help="reuse (or create once) this bench vault")
    args = parser.parse_args(argv)

    import anyio

    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        os.environ.setdefault("MEMORYOS_HOME", tmp)
        path = Path(args.vault_path) if args.vault_path else Path(tmp) / "bench.memoryos"
        if not path.exists():
            print(
                f"filling {path} with {args.pages} synthetic pages (fake hash embedder, "
                "384-d, no LLM: non-LLM consolidation)...",
                file=sys.stderr,
            )
            seconds = fill_vault(path, args.pages)
            print(f"filled in {seconds:.0f} s", file=sys.stderr)
        stats = _vault_stats(path)
        round_trip, engine = anyio.run(measure, path, args.queries, args.warmup)
    print(f"vault: {stats}")
    print(f"retrieve_memory over stdio, {len(round_trip)} queries after {args.warmup} warm-up")
    print(report("round trip", round_trip))
    print(report("engine retrieve", engine))
    return 0


def _vault_stats(path: Path) -> dict[str, Any]:
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    with MemoryOS.open(
        path, passphrase=PASSPHRASE, embedder=HashEmbedder(384), background=False
    ) as memory:
        status = memory.consolidation_status()
        return {
            "pages": memory.info().pages,
            "short_term": status.short_term_pages,
            "mid_term": status.mid_term_pages,
            "segments": status.segments,
            "facts": status.facts,
            "pending_jobs": status.pending_jobs,
        }


if __name__ == "__main__":
    sys.exit(main())
