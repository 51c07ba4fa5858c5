"""Raw-turn baselines (BM25, dense, fusion) and the report writer, without the engine."""

from __future__ import annotations

import json

import pytest

from engine.backends.fake import HashEmbedder
from engine.eval import baselines, report
from engine.eval.locomo import parse_conversation
from engine.eval.report_constants import OVERALL


def conversation():
    turns = [
        ("Ann", "I adopted a puppy named Rex last week."),
        ("Bob", "Congratulations! What breed is he?"),
        ("Ann", "A beagle. He loves the beach."),
        ("Bob", "I started learning the violin."),
        ("Ann", "Violin is hard, good luck!"),
        ("Bob", "My sister moved to Berlin."),
    ]
    return parse_conversation(
        {
            "sample_id": "s",
            "conversation": {
                "speaker_a": "Ann",
                "speaker_b": "Bob",
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_1": [
                    {"speaker": s, "dia_id": f"D1:{i + 1}", "text": t}
                    for i, (s, t) in enumerate(turns)
                ],
            },
            "qa": [],
        }
    )


def test_bm25_ranks_the_turn_with_the_rare_word_first():
    docs = ["the puppy is a beagle", "I play the violin", "my sister lives in Berlin"]
    index = baselines.BM25(docs)
    assert baselines.top_indices(index.scores("Who plays violin?"), 1) == [1]
    assert float(index.scores("what did they do").max()) == 0.0  # stop words only


def test_reciprocal_rank_fusion_prefers_items_ranked_by_both():
    assert baselines.reciprocal_rank_fusion([[1, 2, 3], [4, 2, 5]], 2) == [2, 1]


def test_turn_baselines_find_the_turn():
    search = baselines.TurnBaselines(conversation(), HashEmbedder(64))
    ranks = search.rank("Which instrument is Bob learning, the violin?", 3)
    for name in ("dense", "bm25", "fusion"):
        assert search.ids(ranks[name])[0] == ["D1:4"], name
    assert "Bob: I started learning the violin." in search.context(ranks["bm25"][:1])
    assert "Session 1 (1:00 pm on 1 May, 2023):" in baselines.full_context(conversation())


def record(category, evidence, ours, fusion, answer=None):
    return {
        "sample_id": "s",
        "index": 0,
        "category": category,
        "question": "q",
        "gold": "Oslo",
        "evidence": evidence,
        "retrieved": {"ours": ours, "fusion": fusion},
        "answers": {} if answer is None else {"ours": answer},
        "judge": {},
        "retrieval_ms": 2.0,
        "usage": None,
    }


def test_report_scores_and_writes_files(tmp_path):
    records = [
        record(4, ["D1:1"], [["D1:1", "D1:2"]], [["D1:2"], ["D1:1"]], "Oslo"),
        record(2, ["D1:3", "D1:4"], [["D1:9", "D1:8"], ["D1:3", "D1:4"]], [["D1:3"]], "Paris"),
        record(5, ["D1:5"], [], [], "Not mentioned"),
    ]
    conv = {
        "sample_id": "s",
        "sessions": 1,
        "turns": 6,
        "pages": 4,
        "questions": 3,
        "add_ms": [1.0, 3.0],
        "consolidation_s": 2.0,
        "usage": {"calls": 3, "prompt_tokens": 60, "completion_tokens": 6},
    }
    results = report.build_results({"data": "x", "llm": "fake"}, [conv], records)
    ours, fusion = results["metrics"]["ours"], results["metrics"]["fusion"]
    assert ours["4"]["recall@5"] == 1.0 and ours["2"]["recall@5"] == 1.0
    assert ours["2"]["recall_turns@5"] == 1.0 and ours["2"]["recall@10"] == 1.0
    assert fusion["4"]["recall@5"] == 1.0 and fusion["2"]["recall@5"] == 0.5
    assert fusion[OVERALL]["recall@5"] == 0.75
    assert ours["4"]["f1"] == 1.0 and ours["2"]["f1"] == 0.0 and ours["5"]["f1"] == 1.0
    assert ours[OVERALL]["f1"] == 0.5 and ours[OVERALL]["questions"] == 2
    assert results["cost"]["ingest"]["llm_calls_per_turn"] == 0.5
    assert results["cost"]["ingest"]["consolidation_pages_per_s"] == 2.0
    report.write_all(results, tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["metrics"]["ours"]
    text = (tmp_path / "report.md").read_text()
    assert "multi-hop" in text and "Headline: evidence recall at 10 turns" in text
    assert (tmp_path / "recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_says_how_sure_each_gap_is(tmp_path):
    """Ours finds the evidence of 20 questions, fusion of 10 of them: the gap is paired by
    question and its interval excludes 0; a step that retrieves what ours does differs by 0."""
    records = []
    for i in range(30):
        sample = "a" if i < 15 else "b"
        ours = [["D1:1"]] if i < 20 else [["D1:2"]]
        fusion = [["D1:1"]] if i < 10 else [["D1:2"]]
        row = record(1 if i % 2 else 4, ["D1:1"], ours, fusion)
        row["sample_id"] = sample
        row["ablation"] = {"same as ours": ours, "flat": fusion}
        records.append(row)
    conv = {
        "sample_id": "a",
        "sessions": 1,
        "turns": 2,
        "pages": 1,
        "questions": 30,
        "add_ms": [1.0],
        "consolidation_s": 1.0,
        "usage": None,
    }
    results = report.build_results({"data": "x", "llm": "none"}, [conv], records)

    ours = results["metrics"]["ours"][OVERALL]
    low, high = ours["recall_turns@10_ci95"]
    assert low < ours["recall_turns@10"] == 20 / 30 < high
    gap = results["comparisons"]["ours - fusion"][OVERALL]
    assert gap["questions"] == 30 and gap["difference"] == pytest.approx(1 / 3)
    assert 0 < gap["ci95"][0] < 1 / 3 < gap["ci95"][1]
    same = results["ablation"]["same as ours"][OVERALL]["versus_ours"]
    assert same["difference"] == 0 and same["ci95"] == [0.0, 0.0]
    flat = results["ablation"]["flat"][OVERALL]["versus_ours"]
    assert flat["difference"] == pytest.approx(-1 / 3) and flat["ci95"][1] < 0
    by_conversation = results["by_conversation"]
    assert by_conversation["a"]["ours"][OVERALL] == 1.0  # questions 0-14 all found
    assert by_conversation["b"]["fusion"][OVERALL] == 0.0
    assert by_conversation["b"]["ours"][OVERALL] == pytest.approx(5 / 15)

    report.write_all(results, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "## How sure: 95% intervals at 10 turns" in text
    assert "| ours - fusion | +0.333 (" in text
    assert "## By conversation" in text and "| a | 1.000 / 1.000 |" in text
