"""`memoryos bench`: add_memory and retrieval latency, consolidation throughput, RSS, vault size."""

from __future__ import annotations

import gc
import os
import random
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.eval.bench_data import synthetic_exchange
from engine.eval.bench_memory import (
    current_rss_mb,
    load_average,
    peak_rss_mb,
    peak_since_reset_mb,
    reset_peak,
)
from engine.eval.metrics import percentile


@dataclass
class BenchConfig:
    sizes: list[int] = field(default_factory=lambda: [1000, 10000, 100000])
    embedder: str = "bundled"  # embedder for the add_memory and consolidation measures
    vectors: str = "fake"  # embedder of the retrieval vaults and their queries: fake | bundled
    chat: str = "bundled"  # none | fake | bundled (fake is always measured too)
    queries: int = 200
    adds: int = 300
    consolidation_pages: int = 200
    folder: str | None = None  # where the throwaway vaults go (a temp folder by default)
    seed: int = 7


def _open(
    folder: Path, name: str, embedder: Any, chat: Any = None, passphrase: str | None = None
) -> Any:
    from engine.api import MemoryOS

    return MemoryOS.open(
        folder / f"{name}.memoryos",
        create=True,
        passphrase=passphrase or secrets.token_urlsafe(24),
        embedder=embedder,
        chat=chat,
        background=False,
    )


def _ms(samples: list[float]) -> dict[str, float | None]:
    ms = [s * 1000 for s in samples]
    return {"p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95), "n": len(ms)}


def _embedder(name: str) -> Any:
    from engine.backends.build import make_embedder

    embedder = make_embedder(name)
    if name == "fake":
        return embedder
    embedder.load()  # model load is not part of any measure
    embedder.embed(["warm up"])
    return embedder


def bench_add(folder: Path, embedder: Any, count: int, rng: random.Random) -> dict[str, Any]:
    """add_memory latency (one embedding + one transaction), consolidation not running."""
    mem = _open(folder, f"add-{embedder.model_id.replace('/', '_')}", embedder)
    samples = []
    try:
        for _ in range(count):
            user, agent = synthetic_exchange(rng)
            start = time.perf_counter()
            mem.add_memory(user, agent)
            samples.append(time.perf_counter() - start)
    finally:
        mem.close()
    return {"embedder": embedder.model_id, **_ms(samples)}


def build_vault(
    mem: Any,
    pages: int,
    rng: random.Random,
    *,
    pages_per_segment: int = 50,
    progress: Any = None,
) -> dict[str, float]:
    """Fill a vault with `pages` synthetic exchanges through add_memories (the path every
    page takes: validation, resolved dates, page and turn vectors, a consolidation job), one
    conversation per `pages_per_segment` exchanges; then place each conversation in a segment
    of its own, as consolidation would at the end (its job finished; the oldest segments
    archived past the mid-term capacity), without running it:
    consolidating 1M pages here takes hours (278 pages/s without a model), and only the
    search cost at this size is being measured. Returns seconds spent in each part."""
    start_ts = time.time() - pages * 600.0
    timings = {"add_s": 0.0, "segment_s": 0.0}
    done = 0
    while done < pages:
        chunk = []  # 4,000 pages at a time (whole conversations): memory stays flat at 1M
        while done + len(chunk) < pages and len(chunk) < 4000:
            index = done + len(chunk)
            user, agent = synthetic_exchange(rng)
            chunk.append((index, user, agent))
        started = time.perf_counter()
        ids: list[int] = []
        for first in range(0, len(chunk), pages_per_segment):
            conversation = chunk[first : first + pages_per_segment]
            ids += mem.add_memories(
                [(user, agent, start_ts + i * 600.0) for i, user, agent in conversation],
                conversation_id=f"bench-{conversation[0][0] // pages_per_segment}",
            )
        timings["add_s"] += time.perf_counter() - started
        started = time.perf_counter()
        _segment(mem, ids, [(u, a) for _, u, a in chunk], pages_per_segment, start_ts)
        timings["segment_s"] += time.perf_counter() - started
        done += len(chunk)
        if progress is not None:
            progress(done, pages)
    return timings


def _segment(mem: Any, ids: list[int], texts: list, pages_per_segment: int, ts: float) -> None:
    """Each run of `pages_per_segment` pages becomes one mid-term segment (centroid vector,
    keywords), their new words join the vocabulary, and their consolidation jobs are done."""
    import numpy as np

    from engine.memory import keywords, vocabulary

    vault = mem.vault
    vocabulary.learn(mem.ctx, vault.pages(ids))  # what consolidation's jobs would learn
    vectors = vault.page_vectors(ids)
    wanted = set(ids)
    jobs = [
        j for j in vault.pending_jobs(limit=len(ids) + 10) if j.payload.get("page_id") in wanted
    ]
    with vault.transaction():
        for first in range(0, len(ids), pages_per_segment):
            members = ids[first : first + pages_per_segment]
            bodies = [f"User: {u}\nAssistant: {a}" for u, a in texts[first : first + len(members)]]
            centroid = np.mean([vectors[p] for p in members], axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
            segment_id = vault.insert_segment(
                bodies[0][:200], keywords.extract(" ".join(bodies)), centroid, ts
            )
            for page_id, body in zip(members, bodies, strict=True):
                vault.move_page_to_segment(page_id, segment_id, None, "", keywords.extract(body))
        for job in jobs:
            vault.finish_job(job.id)
        # past its capacity mid-term memory archives its coldest segments (here the oldest:
        # none was visited); their pages stay searchable (consolidation's _make_room)
        live = [segment.id for segment in vault.segments()]
        for segment_id in sorted(live)[: max(0, len(live) - mem.settings.mtm_capacity)]:
            vault.archive_segment(segment_id)


FLAT_TURNS_K = 100  # what retrieve asks of the turn index (2 x its pool of 50)
FLAT_PAGES_K = 50  # and of the page index


def flat_scan(turns: Any, pages: Any, vector: Any) -> tuple[Any, Any]:
    """The reference: brute-force top-k over every turn and page vector held in RAM (numpy)."""
    import numpy as np

    out = []
    for matrix, k in ((turns, FLAT_TURNS_K), (pages, FLAT_PAGES_K)):
        scores = matrix @ vector
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        out.append(top[np.argsort(-scores[top])])
    return out[0], out[1]


# The numpy reference holds every turn and page vector as float32; past this it is skipped
# (1M pages would need 4.6 GB) and its columns read "-".
REFERENCE_MAX_BYTES = 3 * 2**30


def bench_retrieval(
    folder: Path,
    size: int,
    queries: int,
    rng: random.Random,
    log: Any = None,
    embedder: Any = None,
) -> dict[str, Any]:
    """Retrieval latency at `size` pages, query embedding excluded (vectors given), beside a
    brute-force numpy scan of the same vectors for the same queries (interleaved, so both see
    the same machine load). The vaults and queries are embedded by `embedder` (the fake
    HashEmbedder(384) unless given: with the bundled model, filling a vault embeds every page
    and turn, about 3 texts a page).

    The vault is closed after it is filled and opened again: `cold_first_ms` is the first
    query after opening (vectors read from the file), and `peak_rss_mb` the process's peak
    from that opening through every query, before the reference's float copy is made."""
    from engine.backends.fake import HashEmbedder

    embedder = embedder or HashEmbedder(384)
    passphrase = secrets.token_urlsafe(24)  # a throwaway vault's throwaway key
    mem = _open(folder, f"retrieve-{size}", embedder, passphrase=passphrase)
    try:
        start = time.perf_counter()
        timings = build_vault(mem, size, rng, progress=log)
        build_s = time.perf_counter() - start
        path = mem.path
    finally:
        mem.close()
    texts = [synthetic_exchange(rng)[0] for _ in range(queries)]
    vectors = embedder.embed(texts, kind="query")
    gc.collect()
    reset_peak()
    rss_open = current_rss_mb()
    opened = time.perf_counter()
    mem = _open(folder, f"retrieve-{size}", embedder, passphrase=passphrase)
    try:
        start = time.perf_counter()
        mem.retrieve(texts[0], query_vector=vectors[0], record_visits=False)
        cold_ms = (time.perf_counter() - start) * 1000
        # Past keyword_index.SYNC_PAGES the keyword index is built in the background (FTS5
        # answers meanwhile, as for the cold query above): the timed queries start once it is
        # ready, and when that was (from opening the vault) is reported beside them.
        keyword_index = mem.ctx.keyword_index
        keyword_index.wait_ready(600)
        ready_ms = (keyword_index.built_at - opened) * 1000 if keyword_index.built_at else None
        for text, vector in zip(texts, vectors, strict=True):  # every query once, untimed
            mem.retrieve(text, query_vector=vector, record_visits=False)
        peak = peak_since_reset_mb()
        keyword_index_mb = mem.ctx.keyword_index.held_bytes() / 2**20
        rows = mem.vault.count_rows("turns_vec") + mem.vault.count_rows("pages_vec")
        reference = rows * embedder.dimension * 4 <= REFERENCE_MAX_BYTES
        if reference:
            turn_ids, turns = mem.vault.all_vectors("turns_vec")
            _, pages = mem.vault.all_vectors("pages_vec")
        samples, cpu, flat, flat_cpu, overlap = [], [], [], [], []
        for text, vector in zip(texts, vectors, strict=True):
            start, started_cpu = time.perf_counter(), time.process_time()
            mem.retrieve(text, query_vector=vector, record_visits=False)
            samples.append(time.perf_counter() - start)
            cpu.append(time.process_time() - started_cpu)
            if reference:
                start, started_cpu = time.perf_counter(), time.process_time()
                top_turns, _ = flat_scan(turns, pages, vector)
                flat.append(time.perf_counter() - start)
                flat_cpu.append(time.process_time() - started_cpu)
                # how many of the exact 100 nearest turns the engine's dense search found
                found = {i for i, _ in mem.turn_mirror.search(vector, FLAT_TURNS_K)}
                overlap.append(len(found & set(turn_ids[top_turns].tolist())) / len(top_turns))
        if reference:
            del turns, pages
    finally:
        mem.close()
    size_bytes = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    ours, reference_ms = _ms(samples), _ms(flat)
    return {
        "pages": size,
        "vectors": embedder.model_id,
        "build_s": build_s,
        **{f"build_{key}": value for key, value in timings.items()},
        "cold_first_ms": cold_ms,
        "keyword_index_ready_ms": ready_ms,
        "keyword_index_mb": keyword_index_mb,
        **ours,
        **{f"flat_scan_{key}": value for key, value in reference_ms.items()},
        "ratio_p95": _ratio(ours["p95_ms"], reference_ms["p95_ms"]),
        # CPU time of this process per query: on a shared machine it moves far less with the
        # load than the wall clock (waiting for a core is not counted)
        **{f"cpu_{key}": value for key, value in _ms(cpu).items() if key != "n"},
        "flat_scan_cpu_p95_ms": _ms(flat_cpu)["p95_ms"],
        "ratio_cpu_p95": _ratio(_ms(cpu)["p95_ms"], _ms(flat_cpu)["p95_ms"]),
        "dense_overlap_100": sum(overlap) / len(overlap) if overlap else None,
        "vault_mb": size_bytes / 2**20,
        "vault_mb_per_1k_pages": size_bytes / 2**20 / size * 1000,
        "vault_kb_per_page": size_bytes / 1024 / size,
        "rss_before_open_mb": rss_open,
        "peak_rss_mb": peak,
    }


def _ratio(ours: float | None, reference: float | None) -> float | None:
    return ours / reference if ours is not None and reference else None


def _chat(name: str) -> Any:
    if name == "fake":
        from engine.backends.fake import FakeChat

        return FakeChat()
    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig

    chat = make_chat(ModelConfig(source="bundled"))
    chat.load()  # model load excluded
    return chat


def bench_consolidation(
    folder: Path, embedder: Any, chat_name: str, pages: int, rng: random.Random
) -> dict[str, Any]:
    """Pages per second through consolidation (STM overflow, segments, persona)."""
    chat = None if chat_name == "none" else _chat(chat_name)
    mem = _open(folder, f"consolidate-{chat_name}", embedder, chat)
    try:
        for _ in range(pages):
            mem.add_memory(*synthetic_exchange(rng))
        before = chat.usage.calls if chat is not None else 0
        start = time.perf_counter()
        jobs = 0
        while True:
            ran = mem.run_consolidation()
            jobs += ran
            if not ran or mem.consolidation_status().pending_jobs == 0:
                break
        seconds = time.perf_counter() - start
        status = mem.consolidation_status()
    finally:
        mem.close()
        if chat is not None:
            chat.close()
    return {
        "chat": getattr(chat, "model_id", "none"),
        "embedder": embedder.model_id,
        "pages": pages,
        "seconds": seconds,
        "pages_per_s": pages / seconds if seconds else None,
        "jobs": jobs,
        "llm_calls": (chat.usage.calls - before) if chat is not None else 0,
        "segments": status.segments,
        "failed_jobs": status.failed_jobs,
    }


def run_bench(config: BenchConfig, log: Any = print) -> dict[str, Any]:
    """Every measure; failures of one part (e.g. a missing model) are reported, not fatal."""
    rng = random.Random(config.seed)
    results: dict[str, Any] = {
        "config": vars(config).copy(),
        "add_memory": [],
        "retrieval": [],
        "consolidation": [],
        "errors": [],
        "load_avg_1m_start": load_average(),
    }
    results["notes"] = (
        "Retrieval vaults are filled with synthetic varied text and embedded with "
        + (
            "the fake HashEmbedder(384): only the search cost matters there"
            if config.vectors == "fake"
            else "the bundled embedder (--vectors bundled)"
        )
        + "; query embedding is excluded (vectors passed in). Model load times are excluded "
        "everywhere."
    )
    with tempfile.TemporaryDirectory(dir=config.folder) as tmp:
        folder = Path(tmp)
        wanted = {config.embedder, config.vectors}
        embedder_names = ["fake"] + (["bundled"] if "bundled" in wanted else [])
        embedders = {}
        for name in embedder_names:
            log(f"add_memory with the {name} embedder ...")
            try:
                embedders[name] = _embedder(name)
                results["add_memory"].append(bench_add(folder, embedders[name], config.adds, rng))
            except Exception as exc:  # a missing model must not hide the other numbers
                results["errors"].append(f"add_memory/{name}: {type(exc).__name__}: {exc}")
        for size in config.sizes:
            log(f"retrieval at {size} pages ...")
            results["retrieval"].append(
                bench_retrieval(
                    folder,
                    size,
                    config.queries,
                    rng,
                    log=lambda done, total: log(f"  {done:,} of {total:,} pages stored"),
                    embedder=embedders.get("bundled") if config.vectors == "bundled" else None,
                )
            )
        embedder = embedders.get(config.embedder) or embedders.get("fake") or _embedder("fake")
        chats = ["none", "fake"] + (["bundled"] if config.chat == "bundled" else [])
        for chat_name in chats:
            log(f"consolidation with chat={chat_name} ...")
            try:
                results["consolidation"].append(
                    bench_consolidation(
                        folder, embedder, chat_name, config.consolidation_pages, rng
                    )
                )
            except Exception as exc:
                results["errors"].append(f"consolidation/{chat_name}: {type(exc).__name__}: {exc}")
    # the process's peak; /proc's VmHWM (per size) and getrusage round differently
    results["peak_rss_mb"] = max([peak_rss_mb()] + [r["peak_rss_mb"] for r in results["retrieval"]])
    results["load_avg_1m_end"] = load_average()
    return results


def _f(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_table(results: dict[str, Any]) -> str:
    """The numbers as plain-text tables."""
    lines = [
        "add_memory (one embedding + one transaction; model load excluded)",
        f"  {'embedder':44} {'p50 ms':>8} {'p95 ms':>8}",
    ]
    for row in results["add_memory"]:
        lines.append(f"  {row['embedder']:44} {_f(row['p50_ms'], 2):>8} {_f(row['p95_ms'], 2):>8}")
    lines += [
        "",
        "retrieval (query embedding excluded; vectors: "
        + ", ".join(sorted({row.get("vectors", "?") for row in results["retrieval"]}))
        + "); flat = brute-force numpy "
        "scan of the same turn and page vectors in RAM, same queries; x flat = p95 / flat p95;\n"
        "  cold = first query after opening the vault; kw ready = when the keyword index was "
        "ready, from opening (the timed queries wait for it);\n  RSS = peak from opening "
        "through every query (reference excluded); dense@100 = share of the exact 100 nearest turns that "
        "the engine's dense search returned; cpu = this process's CPU time per query (x flat: "
        "over the scan's CPU p95)",
        f"  {'pages':>8} {'p50 ms':>8} {'p95 ms':>8} {'flat p50':>8} {'flat p95':>8} "
        f"{'x flat':>7} {'cold ms':>8} {'kw ready':>8} {'build s':>8} {'MB':>8} {'KB/page':>7} {'RSS MB':>7} "
        f"{'dense@100':>9} {'cpu p50':>8} {'cpu p95':>8} {'x flat':>7}",
    ]
    for row in results["retrieval"]:
        lines.append(
            f"  {row['pages']:>8} {_f(row['p50_ms'], 2):>8} {_f(row['p95_ms'], 2):>8} "
            f"{_f(row['flat_scan_p50_ms'], 2):>8} {_f(row['flat_scan_p95_ms'], 2):>8} "
            f"{_f(row['ratio_p95'], 1):>7} "
            f"{_f(row['cold_first_ms']):>8} {_f(row.get('keyword_index_ready_ms')):>8} "
            f"{_f(row['build_s']):>8} "
            f"{_f(row['vault_mb']):>8} {_f(row.get('vault_kb_per_page'), 2):>7} "
            f"{_f(row['peak_rss_mb'], 0):>7} {_f(row.get('dense_overlap_100'), 3):>9} "
            f"{_f(row.get('cpu_p50_ms'), 2):>8} {_f(row.get('cpu_p95_ms'), 2):>8} "
            f"{_f(row.get('ratio_cpu_p95'), 1):>7}"
        )
    lines += [
        "",
        "consolidation throughput",
        f"  {'chat':36} {'embedder':40} {'pages':>6} {'pages/s':>8} {'LLM calls':>9}",
    ]
    for row in results["consolidation"]:
        lines.append(
            f"  {row['chat']:36} {row['embedder']:40} {row['pages']:>6} "
            f"{_f(row['pages_per_s']):>8} {row['llm_calls']:>9}"
        )
    lines += [
        "",
        f"peak RSS: {_f(results['peak_rss_mb'], 0)} MiB",
        f"load average (1 min, {os.cpu_count()} cores): "
        f"{_f(results['load_avg_1m_start'], 2)} at start, {_f(results['load_avg_1m_end'], 2)} at end",
        results["notes"],
    ]
    lines += [f"error: {e}" for e in results["errors"]]
    return "\n".join(lines)
