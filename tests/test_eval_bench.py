"""`memoryos bench` on tiny sizes with the fake backends: every measure present and sane."""

from __future__ import annotations

import json
import random

from engine.eval.bench import BenchConfig, format_table, run_bench, synthetic_exchange
from engine.eval.cli import bench_main


def test_synthetic_text_is_varied():
    rng = random.Random(1)
    assert len({synthetic_exchange(rng) for _ in range(200)}) == 200


def test_bench_measures_everything_with_fakes(tmp_path):
    config = BenchConfig(
        sizes=[300],
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
    (row,) = results["retrieval"]
    assert row["pages"] == 300 and row["p50_ms"] > 0 and row["vault_mb_per_1k_pages"] > 0
    chats = [r["chat"] for r in results["consolidation"]]
    assert chats == ["none", "fake/chat"]
    assert all(r["pages_per_s"] > 0 and r["failed_jobs"] == 0 for r in results["consolidation"])
    assert results["peak_rss_mb"] > 0
    assert "retrieval" in format_table(results)
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
    assert bench_main(["--sizes", "ten"]) == 2
