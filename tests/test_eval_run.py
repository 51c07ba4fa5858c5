"""A tiny LoCoMo-shaped conversation through the eval runner with the fake backends."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass

import pytest

from engine.backends.fake import FakeChat, HashEmbedder
from engine.eval.cli import eval_main
from engine.eval.run import EvalConfig, run_eval

TURNS = [
    # (session, speaker, text)
    (1, "Ann", "Hi Bob, I adopted a beagle puppy named Rexford yesterday!"),
    (1, "Bob", "Congratulations! I have been learning the violin since March."),
    (1, "Ann", "Violin sounds hard. My sister Ingrid lives in Trondheim now."),
    (1, "Bob", "Trondheim is lovely in summer."),
    (1, "Ann", "Look at my garden.", "a photo of sunflowers in a raised bed"),
    (2, "Bob", "I bought a kayak called Seabiscuit last weekend."),
    (2, "Ann", "Seabiscuit is a funny name for a kayak!"),
    (2, "Bob", "I paddled to Hvaler island with it."),
    (2, "Ann", "I started pottery classes on Tuesdays."),
    (2, "Bob", "Pottery is relaxing. I'm off to practise the violin."),
    (2, "Ann", "Bye!"),
]
TOPICS = [
    "the weather",
    "a football match",
    "traffic",
    "a podcast",
    "cooking pasta",
    "a new phone",
    "the news",
    "homework",
    "a board game",
    "a rainy day",
]
# A third session of small talk, so that k=5 pages of 30 is a real test of ranking.
FILLER = [
    (3, "Ann" if i % 2 == 0 else "Bob", f"Chat number {i}: we talked about {TOPICS[i % 10]}.")
    for i in range(48)
]
QUESTIONS = [
    {
        "question": "What is the name of Ann's beagle puppy?",
        "answer": "Rexford",
        "evidence": ["D1:1"],
        "category": 4,
    },
    {
        "question": "Where does Ann's sister Ingrid live?",
        "answer": "Trondheim",
        "evidence": ["D1:3"],
        "category": 4,
    },
    {
        "question": "What is Bob's kayak called and where did he paddle?",
        "answer": "Seabiscuit, Hvaler island",
        "evidence": ["D2:1", "D2:3"],
        "category": 1,
    },
    {
        "question": "When did Ann adopt the puppy Rexford?",
        "answer": "30 April 2023",
        "evidence": ["D1:1"],
        "category": 2,
    },
    {
        "question": "What flowers grow in Ann's garden?",
        "answer": "sunflowers; maybe roses",
        "evidence": ["D1:5"],
        "category": 3,
    },
    {
        "question": "What colour is Bob's car?",
        "evidence": ["D2:1"],
        "category": 5,
        "adversarial_answer": "red",
    },
]
# Two replies are partly right, so the scores below come from the metric, not from a copy of
# the gold answer: "Rexford beagle" against "Rexford" is P 1/2, R 1, F1 2/3; "Seabiscuit" against
# the category-1 gold "Seabiscuit, Hvaler island" scores 1 and 0 on its two parts, 1/2.
ANSWERS = {
    "What is the name of Ann's beagle puppy?": "Rexford beagle",
    "Where does Ann's sister Ingrid live?": "Trondheim",
    "What is Bob's kayak called and where did he paddle?": "Seabiscuit",
    "When did Ann adopt the puppy Rexford?": "30 April 2023",
    "What flowers grow in Ann's garden?": "sunflowers",
    "What colour is Bob's car?": "Not mentioned in the conversation.",
}


def sample() -> dict:
    conversation = {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 1 May, 2023",
        "session_2_date_time": "10:00 am on 20 May, 2023",
        "session_3_date_time": "10:00 am on 21 May, 2023",
    }
    counters: dict[int, int] = {}
    for session, speaker, text, *caption in TURNS + FILLER:
        counters[session] = counters.get(session, 0) + 1
        turn = {"speaker": speaker, "dia_id": f"D{session}:{counters[session]}", "text": text}
        if caption:
            turn["blip_caption"] = caption[0]
        conversation.setdefault(f"session_{session}", []).append(turn)
    return {"sample_id": "tiny-1", "conversation": conversation, "qa": QUESTIONS}


@dataclass
class ScriptedChat(FakeChat):
    """Answers a known question (found at the end of the last message) with a fixed reply."""

    def _stream(self, messages, *, max_tokens, temperature):
        content = messages[-1]["content"].rstrip()
        for question, reply in ANSWERS.items():
            if content.endswith(question):
                self.replies.appendleft(reply)
                break
        return super()._stream(messages, max_tokens=max_tokens, temperature=temperature)


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "tiny_locomo.json"
    path.write_text(json.dumps([sample()]))
    return path


def config(data_file, out, llm="fake") -> EvalConfig:
    return EvalConfig(data=str(data_file), out=str(out), llm=llm, embedder="fake", progress=False)


def test_retrieval_only_run_scores_and_writes_files(data_file, tmp_path):
    out = tmp_path / "out"
    results = run_eval(config(data_file, out, llm="none"), embedder=HashEmbedder(384))
    ours = results["metrics"]["ours"]
    # 59 turns -> 30 pages; the evidence holds rare words the questions repeat
    assert ours["overall_1_4"]["questions"] == 5
    assert ours["4"]["recall@5"] == 1.0 and ours["1"]["recall@5"] == 1.0
    assert ours["overall_1_4"]["recall@10"] == 1.0
    for name in ("bm25", "fusion"):
        assert results["metrics"][name]["4"]["recall@5"] == 1.0
        assert results["metrics"][name]["overall_1_4"]["recall@20"] == 1.0
    conv = results["conversations"][0]
    assert (conv["turns"], conv["pages"], conv["sessions"]) == (59, 30, 3)
    assert results["cost"]["ingest"]["llm_calls_per_turn"] == 0
    answer_cost = results["cost"]["answer"]
    assert 0 < answer_cost["retrieval_ms_p50"] <= answer_cost["retrieval_ms_p95"]
    assert "f1" not in ours["overall_1_4"]
    saved = json.loads((out / "results.json").read_text())
    assert saved["config"]["llm"] == "none" and len(saved["questions"]) == 6
    assert saved["questions"][0]["retrieved"]["ours"][0]  # pages carry their dia_ids
    assert "Evidence recall@10" in (out / "report.md").read_text()
    assert (out / "recall.png").read_bytes()[:4] == b"\x89PNG"
    assert not list((out / "vaults").glob("*.memoryos"))  # throwaway vaults are erased


def test_llm_run_answers_through_get_response_and_resumes(data_file, tmp_path):
    out = tmp_path / "out"
    chat, judge = ScriptedChat(), FakeChat(default_reply="CORRECT")
    results = run_eval(config(data_file, out), embedder=HashEmbedder(384), chat=chat, judge=judge)
    ours = results["metrics"]["ours"]
    # micro-average over the five questions of categories 1-4: (2/3 + 1 + 1/2 + 1 + 1) / 5
    assert ours["overall_1_4"]["f1"] == pytest.approx((2 / 3 + 1 + 0.5 + 1 + 1) / 5)
    assert ours["4"]["f1"] == pytest.approx((2 / 3 + 1) / 2) and ours["1"]["f1"] == 0.5
    assert ours["5"]["f1"] == 1.0 and ours["3"]["bleu1"] == 1.0
    assert ours["overall_1_4"]["judge_accuracy"] == 1.0
    assert results["cost"]["answer"]["llm_calls_per_question"] == 1.0  # one generation
    assert set(results["questions"][0]["answers"]) == {"ours", "fusion", "full_context"}
    assert "fits" in results["conversations"][0]["full_context"]
    assert results["metrics"]["full_context"]["4"]["f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert results["questions"][0]["context_pages"] >= 1
    assert ours["overall_1_4"]["prompt_recall"] == 1.0
    assert "What the answer prompt held" in (out / "report.md").read_text()

    # An interrupted run: the last two questions were not checkpointed.
    folder = out / "checkpoints" / "tiny-1"
    lines = (folder / "questions.jsonl").read_text().splitlines()
    (folder / "questions.jsonl").write_text("\n".join(lines[:4]) + "\n")
    info = json.loads((folder / "ingest.json").read_text())
    info["complete"] = False
    (folder / "ingest.json").write_text(json.dumps(info))
    chat2 = ScriptedChat()
    again = run_eval(config(data_file, out), embedder=HashEmbedder(384), chat=chat2, judge=judge)
    assert chat2.usage.generate_calls == 2 * 3  # only the 2 missing questions, 3 answers each
    assert again["metrics"]["ours"]["overall_1_4"]["f1"] == pytest.approx(ours["overall_1_4"]["f1"])
    assert len(again["questions"]) == 6

    # A finished run resumes without any work; other settings are refused.
    chat3 = ScriptedChat()
    run_eval(config(data_file, out), embedder=HashEmbedder(384), chat=chat3, judge=judge)
    assert chat3.usage.calls == 0
    with pytest.raises(ValueError):
        run_eval(config(data_file, out, llm="other"), embedder=HashEmbedder(384), chat=chat3)


def test_cli_runs_retrieval_only(data_file, tmp_path, capsys):
    out = tmp_path / "cli"
    code = eval_main(
        [
            "locomo",
            "--data",
            str(data_file),
            "--out",
            str(out),
            "--llm",
            "none",
            "--embedder",
            "fake",
            "--conversations",
            "tiny-1",
            "--no-progress",
            "--limit-questions",
            "2",
        ]
    )
    assert code == 0
    assert "Evidence recall@5" in capsys.readouterr().out
    assert len(json.loads((out / "results.json").read_text())["questions"]) == 2
    assert (
        eval_main(
            [
                "locomo",
                "--data",
                str(data_file),
                "--out",
                str(tmp_path / "x"),
                "--conversations",
                "conv-404",
                "--embedder",
                "fake",
                "--no-progress",
            ]
        )
        == 2
    )


def test_sample_questions_spreads_over_all_categories(data_file):
    from engine.eval.locomo import load_locomo
    from engine.eval.run import select_questions

    (conv,) = load_locomo(data_file)
    picked = select_questions(conv, EvalConfig(data="", out="", sample_questions=3))
    assert [q.index for q in picked] == [0, 2, 4]
    first = select_questions(conv, EvalConfig(data="", out="", limit_questions=2))
    assert [q.index for q in first] == [0, 1]


def test_headline_is_at_equal_turns_with_ablation_and_versioned_checkpoints(data_file, tmp_path):
    out = tmp_path / "out"
    results = run_eval(config(data_file, out, llm="none"), embedder=HashEmbedder(384))
    metrics = results["metrics"]
    for system in ("ours", "dense", "bm25", "fusion"):  # every system: single turns, same budget
        assert all(len(item) == 1 for q in results["questions"] for item in q["retrieved"][system])
        assert metrics[system]["overall_1_4"]["context_tokens@10"] > 0
    assert metrics["ours"]["overall_1_4"]["recall_turns@10"] == 1.0
    assert metrics["ours"]["overall_1_4"]["app_prompt_tokens"] > 0
    assert list(results["ablation"]) == [
        "flat turns (dense + keyword)",
        "flat turns + segments (off by default)",
        "+ persona facts",
        "+ neighbours",
        "+ time resolution",
        "+ named speakers",
        "+ term hop",
        "+ query expansion",
        "+ asking turns discounted = full",
        "full without persona facts",
        "full without neighbours",
        "full without time resolution",
        "full without named speakers",
        "full without term hop",
        "full without query expansion",
        "full without asking turns discounted",
        "full + segments (off by default)",
        "full + second hop (off by default)",
    ]
    assert results["ablation"]["+ asking turns discounted = full"]["4"]["recall_turns@10"] == 1.0
    report = (out / "report.md").read_text()
    assert "## Ablation: recall at 10 turns" in report and "recall per 1,000 tokens" in report

    # A checkpoint written by other code is refused, not silently reused.
    marker = out / "checkpoints" / "identity.json"
    saved = json.loads(marker.read_text())
    marker.write_text(json.dumps({**saved, "code_version": "0000000000000000"}))
    with pytest.raises(ValueError, match="code_version"):
        run_eval(config(data_file, out, llm="none"), embedder=HashEmbedder(384))


def test_cli_measures_a_model_folder_the_person_names(data_file, tmp_path, capsys):
    """`--embedder DIR` runs every system on that sentence-transformers model, and says so;
    a folder holding no model is refused before anything is written."""
    from engine.bundled import bundled_embedder_path

    folder = tmp_path / "my-embedder"  # a model folder of its own (its files the bundled ones)
    shutil.copytree(bundled_embedder_path(), folder, copy_function=os.symlink)
    out = tmp_path / "named"
    args = ["locomo", "--data", str(data_file), "--llm", "none", "--no-progress"]
    code = eval_main(
        [*args, "--out", str(out), "--embedder", str(folder), "--limit-questions", "2"]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["embedder"] == "my-embedder"
    assert len(results["questions"]) == 2

    empty = tmp_path / "not-a-model"
    empty.mkdir()
    refused = tmp_path / "refused"
    assert eval_main([*args, "--out", str(refused), "--embedder", str(empty)]) == 2
    assert "not-a-model" in capsys.readouterr().err
    assert not (refused / "results.json").exists()
