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

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
VERBS = ["visited", "cooked", "fixed", "planned", "discussed", "bought", "painted", "practised"]
FRIENDS = ["Anna", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hiro"]


def topics(count: int = 60, size: int = 12, seed: int = 3) -> list[list[str]]:
    """`count` disjoint vocabularies of made-up words: stand-ins for the subjects of a life."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < count * size:
        words.add("".join(rng.choices(SYLLABLES, k=3)))
    pool = sorted(words)
    rng.shuffle(pool)
    return [pool[i * size : (i + 1) * size] for i in range(count)]


TOPICS = topics()


def synthetic_exchange(rng: random.Random) -> tuple[list[str], str, str]:
    """One exchange on a random topic: (the topic's words, user_input, agent_response)."""
    words = rng.choice(TOPICS)
    said = rng.sample(words, 8)
    user = f"I {rng.choice(VERBS)} {' '.join(said[:5])} with {rng.choice(FRIENDS)}."
    agent = f"Noted: {', '.join(said[5:])}."
    return words, user, agent


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
            if i % 100 == 99:
                memory.run_consolidation()
            if i % 1000 == 999:
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
            words, _, _ = synthetic_exchange(rng)
            query = "What do you remember about {} and {}?".format(*rng.sample(words, 2))
            start = time.perf_counter()
            result = await session.call_tool("retrieve_memory", {"query": query})
            elapsed = (time.perf_counter() - start) * 1000
            if result.is_error:
                raise RuntimeError(f"retrieve_memory failed: {result.content}")
            if i >= warmup:
                round_trip.append(elapsed)
                engine.append(float(result.structured_content["elapsed_ms"]))
    return round_trip, engine


async def first_call(path: Path, wait: float) -> dict[str, float | str]:
    """One fresh `memoryos mcp` with the bundled embedding model, as an agent meets it: seconds
    from start to initialize answered, list_facts' round trip right after (it must not wait for
    the model), the model's state then, and, `wait` seconds later, the first retrieve_memory:
    seconds from start to its answer and its own round trip."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {
        "MEMORYOS_PASSPHRASE": PASSPHRASE,
        "MEMORYOS_HOME": os.environ.get("MEMORYOS_HOME", str(path.parent)),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        "HF_HUB_OFFLINE": "1",
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.mcp_server", "--vault-path", str(path), "--embedder", "default",
              "--create"],
        env=env,
    )  # fmt: skip
    import anyio

    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found: dict[str, float | str] = {"initialize": time.perf_counter() - start}
        before = time.perf_counter()
        await session.call_tool("list_facts", {})
        found["list_facts"] = time.perf_counter() - before
        status = (await session.call_tool("memory_status", {})).structured_content
        found["model then"] = status.get("embedding_model", {}).get("state", "not said")
        await anyio.sleep(wait)
        before = time.perf_counter()
        result = await session.call_tool("retrieve_memory", {"query": "where do I live?"})
        if result.is_error:
            raise RuntimeError(f"retrieve_memory failed: {result.content}")
        found["first retrieve"] = time.perf_counter() - before
        found["start to first answer"] = time.perf_counter() - start
    return found


def first_calls(starts: int, wait: float) -> None:
    """Print first_call's figures for `starts` fresh servers on one new vault, and their
    medians."""
    import anyio

    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        os.environ.setdefault("MEMORYOS_HOME", tmp)
        path = Path(tmp) / "first-call.memoryos"
        runs = [anyio.run(first_call, path, wait) for _ in range(starts)]
    seconds = ("initialize", "list_facts", "first retrieve", "start to first answer")
    for run in runs:
        print(", ".join(f"{key} {run[key]:.2f} s" for key in seconds)
              + f"; model after initialize: {run['model then']}")  # fmt: skip
    print("median: " + ", ".join(
        f"{key} {statistics.median(float(run[key]) for run in runs):.2f} s" for key in seconds
    ))  # fmt: skip


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
    parser.add_argument(
        "--first-call",
        type=int,
        metavar="STARTS",
        help="instead: start a real server with the bundled embedding model STARTS times and "
        "time initialize and its first retrieve_memory (the model's load)",
    )
    parser.add_argument(
        "--wait", type=float, default=0.0, help="with --first-call: seconds before the retrieve"
    )
    args = parser.parse_args(argv)
    if args.first_call:
        first_calls(args.first_call, args.wait)
        _print_load()
        return 0

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
    _print_load()
    return 0


def _print_load() -> None:
    if hasattr(os, "getloadavg"):
        cores = os.cpu_count()
        print(f"load average {os.getloadavg()[0]:.1f} on {cores} cores (other work skews these)")


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
