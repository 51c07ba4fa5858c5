"""`memoryos bench` on tiny sizes with the fake backends: every measure present and sane."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from engine.eval.bench import (
    FLAT_PAGES_K,
    FLAT_TURNS_K,
    BenchConfig,
    flat_scan,
    format_table,
    run_bench,
)
from engine.eval.bench_data import synthetic_exchange
from engine.eval.cli import bench_main


def test_synthetic_text_is_varied():
    rng = random.Random(1)
    assert len({synthetic_exchange(rng) for _ in range(200)}) == 200


def test_flat_scan_is_the_exact_top_k():
    rng = np.random.default_rng(3)
    turns = rng.standard_normal((300, 16)).astype(np.float32)
    pages = rng.standard_normal((150, 16)).astype(np.float32)
    query = rng.standard_normal(16).astype(np.float32)
    top_turns, top_pages = flat_scan(turns, pages, query)
    assert list(top_turns) == list(np.argsort(-(turns @ query), kind="stable")[:FLAT_TURNS_K])
    assert list(top_pages) == list(np.argsort(-(pages @ query), kind="stable")[:FLAT_PAGES_K])
    few, _ = flat_scan(turns[:7], pages, query)  # fewer rows than k: all of them, in order
    assert list(few) == list(np.argsort(-(turns[:7] @ query)))


def test_bench_measures_everything_with_fakes(tmp_path):
    config = BenchConfig(
        sizes=[100, 300],
        embedder="fake",
        chat="fake",
        queries=5,
        adds=5,
        consolidation_pages=25,
        folder=str(tmp_path),
    )
    results = run_bench(config, log=lambda *_: None)
    assert results["errors"] == []
    (add,) = results["add_memory"]
    assert add["n"] == 5 and 0 < add["p50_ms"] <= add["p95_ms"]
    small, large = results["retrieval"]
    assert (small["pages"], large["pages"]) == (100, 300)
    for row in (small, large):
        assert row["n"] == 5 and 0 < row["p50_ms"] <= row["p95_ms"]
        # the numpy reference ran on the same queries, and the ratio is of the two p95s
        assert row["flat_scan_n"] == row["n"]
        assert row["flat_scan_p50_ms"] <= row["flat_scan_p95_ms"]
        assert row["ratio_p95"] == pytest.approx(row["p95_ms"] / row["flat_scan_p95_ms"])
        assert row["cold_first_ms"] > 0
        # the keyword index was ready (built during the cold query at these sizes) and held
        assert 0 < row["keyword_index_ready_ms"] and row["keyword_index_mb"] > 0
        # MiB and MiB per 1,000 pages describe the same file
        assert row["vault_mb_per_1k_pages"] == pytest.approx(row["vault_mb"] / row["pages"] * 1000)
    assert large["vault_mb"] > small["vault_mb"]  # three times the pages take more room
    for row in (small, large):
        assert row["vault_kb_per_page"] == pytest.approx(row["vault_mb"] * 1024 / row["pages"])
        assert 0 < row["peak_rss_mb"] <= results["peak_rss_mb"]  # since the vault was reopened
        # an exact scan at these sizes: the engine's dense search found the exact nearest turns
        # (ties aside: the fake embedder gives equal scores to texts with the same words)
        assert 0.9 <= row["dense_overlap_100"] <= 1.0
        assert row["build_add_s"] > 0 and row["build_segment_s"] > 0
    none, fake = results["consolidation"]
    assert (none["chat"], fake["chat"]) == ("none", "fake/chat")
    for row in (none, fake):
        assert row["pages"] == 25 and row["failed_jobs"] == 0 and row["jobs"] >= 1
        assert row["pages_per_s"] == pytest.approx(25 / row["seconds"])
        assert row["segments"] >= 1  # 25 pages overflow a 10-page short-term queue
    assert none["llm_calls"] == 0  # no model: the non-LLM paths did all the work
    assert results["peak_rss_mb"] >= large["peak_rss_mb"]
    for key in ("load_avg_1m_start", "load_avg_1m_end"):
        assert results[key] is None or results[key] >= 0
    table = format_table(results)
    assert "retrieval" in table and "pages/s" in table
    assert "flat p95" in table and "load average (1 min" in table
    assert list(tmp_path.iterdir()) == []  # throwaway vaults removed


def test_bench_cli_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = bench_main(
        [
            "--sizes",
            "100",
            "--embedder",
            "fake",
            "--chat",
            "none",
            "--queries",
            "3",
            "--adds",
            "3",
            "--consolidation-pages",
            "12",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert json.loads(out.read_text())["retrieval"][0]["pages"] == 100
    assert "pages/s" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:  # argparse's exit: usage and the reason
        bench_main(["--sizes", "ten"])
    assert refused.value.code == 2 and "--sizes" in capsys.readouterr().err


@pytest.mark.real_models
def test_bench_retrieval_with_the_bundled_embedders_vectors(tmp_path):
    """--vectors bundled: the retrieval vault and its queries are embedded by MiniLM, and the
    rows say so; the search over real vectors is exact at this size."""
    from engine.backends.embedder import BUNDLED_EMBEDDER_ID

    config = BenchConfig(
        sizes=[60],
        embedder="fake",
        vectors="bundled",
        chat="none",
        queries=3,
        adds=2,
        consolidation_pages=12,
        folder=str(tmp_path),
    )
    results = run_bench(config, log=lambda *_: None)
    assert results["errors"] == []
    (row,) = results["retrieval"]
    assert row["vectors"] == BUNDLED_EMBEDDER_ID and row["n"] == 3
    assert row["dense_overlap_100"] == 1.0  # MiniLM vectors rarely tie: the exact nearest turns
    assert "bundled embedder" in results["notes"] and BUNDLED_EMBEDDER_ID in format_table(results)
