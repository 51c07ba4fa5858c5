"""LoCoMo metrics against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from engine.eval import metrics


def test_normalise_drops_case_commas_punctuation_and_articles():
    assert metrics.normalize_answer("Hello, World! The end and a cat.") == "hello world end cat"


def test_f1_counts_stemmed_tokens():
    # ['cat', 'sat'] against ['cat', 'sat', 'down']: P = 1, R = 2/3 -> F1 = 0.8
    assert metrics.f1_score("The cat sat", "a cat sat down") == pytest.approx(0.8)
    assert metrics.f1_score("running dogs", "run dog") == pytest.approx(1.0)
    assert metrics.f1_score("nothing shared", "cat") == 0.0


def test_category_1_splits_on_commas_and_averages_best_part():
    # gold parts: hiking -> 1, swimming -> 0, painting -> 1
    score = metrics.answer_f1("painting, hiking", "hiking, swimming, painting", 1)
    assert score == pytest.approx(2 / 3)
    # without the split rule the same answer scores differently (category 4)
    assert metrics.answer_f1("painting, hiking", "hiking, swimming, painting", 4) == pytest.approx(
        0.8
    )


def test_category_3_cuts_gold_at_first_semicolon():
    assert metrics.answer_f1("psychology", "Psychology; maybe counseling", 3) == 1.0
    # category 4 keeps the whole gold: P = 1, R = 1/3 -> 0.5
    assert metrics.answer_f1("psychology", "Psychology; maybe counseling", 4) == pytest.approx(0.5)


def test_category_5_rule():
    assert metrics.answer_f1("That is not mentioned in the conversation.", "", 5) == 1.0
    assert metrics.answer_f1("No information available.", "", 5) == 1.0
    assert metrics.answer_f1("Not available", "", 5) == 1.0
    assert metrics.answer_f1("She went to Paris", "self-care is important", 5) == 0.0


def test_bleu1_brevity_penalty():
    # pred ['cat'] vs gold ['cat', 'sat', 'on', 'mat']: precision 1, BP = exp(1 - 4/1)
    assert metrics.bleu1("cat", "the cat sat on mat") == pytest.approx(math.exp(-3))
    # longer than the gold: no penalty, clipped precision 2/5
    assert metrics.bleu1("cat sat on mat today", "cat sat") == pytest.approx(0.4)
    assert metrics.bleu1("cat cat cat", "cat") == pytest.approx(1 / 3)
    assert metrics.bleu1("", "cat") == 0.0


def test_evidence_recall_pages_and_turn_budget():
    pages = [["D1:5", "D1:6"], ["D1:1", "D1:2"], ["D1:3", "D1:4"]]
    evidence = ["D1:1", "D1:3"]
    assert metrics.evidence_recall(evidence, pages, 2) == 0.5
    assert metrics.evidence_recall(evidence, pages, 3) == 1.0
    assert metrics.evidence_recall([], pages, 3) is None
    # a budget of 4 turns holds the first two pages; of 3 turns only the first
    assert metrics.evidence_recall_turns(evidence, pages, 4) == 0.5
    assert metrics.evidence_recall_turns(evidence, pages, 3) == 0.0
    assert metrics.evidence_recall_turns(evidence, [["D1:1"], ["D1:3"]], 2) == 1.0


def test_percentile_and_mean():
    assert metrics.percentile([1, 2, 3, 4, 5], 50) == 3
    assert metrics.percentile([0, 10], 95) == pytest.approx(9.5)
    assert metrics.percentile([], 50) is None
    assert metrics.mean([1.0, None, 0.0]) == 0.5


def test_bootstrap_interval_holds_the_mean_and_narrows_with_more_questions():
    few = [1.0, 0.0] * 10
    many = [1.0, 0.0] * 200
    low, high = metrics.bootstrap_interval(few)
    assert low < 0.5 < high
    wide_low, wide_high = metrics.bootstrap_interval(few, level=0.99)
    assert wide_low <= low and high <= wide_high
    many_low, many_high = metrics.bootstrap_interval(many)
    assert low < many_low < 0.5 < many_high < high
    assert metrics.bootstrap_interval(few) == (low, high)  # a fixed seed: the same report twice
    assert metrics.bootstrap_interval([0.7] * 5) == pytest.approx((0.7, 0.7))  # no spread
    assert metrics.bootstrap_interval([]) is None
    with pytest.raises(ValueError, match="level"):
        metrics.bootstrap_interval([1.0], level=95)
