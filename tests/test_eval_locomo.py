"""The LoCoMo loader: sessions, dates, captions, evidence ids and pairing of turns into pages."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from engine.eval.locomo import exchanges, load_locomo, parse_session_time, split_evidence


def sample() -> dict:
    return {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob!"},
                {
                    "speaker": "Bob",
                    "dia_id": "D1:2",
                    "text": "Hi Ann, look at this.",
                    "img_url": ["http://x/y.jpg"],
                    "blip_caption": "a photo of a red kayak",
                    "query": "kayak",
                },
                {"speaker": "Ann", "dia_id": "D1:3", "text": "Nice kayak."},
                {"speaker": "Ann", "dia_id": "D1:4", "text": "Where did you get it?"},
                {"speaker": "Bob", "dia_id": "D1:5", "text": "In Oslo."},
            ],
            "session_2_date_time": "10:03 am on 27 June, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "I sold the kayak."},
            ],
            # more date keys than sessions, as in the public file: ignored
            "session_3_date_time": "9:00 am on 1 July, 2023",
            "session_4_date_time": "9:00 am on 2 July, 2023",
        },
        "qa": [
            {
                "question": "Where did Bob get his kayak?",
                "answer": "Oslo",
                "evidence": ["D1:5"],
                "category": 4,
            },
            {
                "question": "What did Bob show?",
                "answer": 2023,
                "evidence": ["D1:2; D2:1"],
                "category": 1,
            },
            {
                "question": "What colour is Ann's car?",
                "evidence": ["D1:3"],
                "category": 5,
                "adversarial_answer": "red",
            },
        ],
        "event_summary": {},
        "observation": {},
        "session_summary": {},
    }


@pytest.fixture
def tiny_file(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample()]))
    return path


def test_session_time_parses_to_epoch():
    expected = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc).timestamp()
    assert parse_session_time("1:56 pm on 8 May, 2023") == expected
    assert (
        parse_session_time("10:03 am on 27 June, 2023")
        == datetime(2023, 6, 27, 10, 3, tzinfo=timezone.utc).timestamp()
    )
    with pytest.raises(ValueError):
        parse_session_time("yesterday")


def test_loader_keeps_sessions_turns_captions_and_ignores_extra_dates(tiny_file):
    (conv,) = load_locomo(tiny_file)
    assert conv.sample_id == "tiny-1" and (conv.speaker_a, conv.speaker_b) == ("Ann", "Bob")
    assert [s.number for s in conv.sessions] == [1, 2]
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D2:1"]
    assert conv.turns[1].text == "Hi Ann, look at this. [shares a photo: a photo of a red kayak]"
    times = [t.timestamp for t in conv.turns]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert conv.sessions[1].timestamp == parse_session_time("10:03 am on 27 June, 2023")


def test_loader_questions_evidence_and_answers(tiny_file):
    (conv,) = load_locomo(tiny_file)
    q1, q2, q5 = conv.questions
    assert q1.evidence == ("D1:5",) and q1.category_name == "single-hop"
    assert q2.answer == "2023" and q2.evidence == ("D1:2", "D2:1")
    assert q5.answer == "" and q5.adversarial_answer == "red" and q5.category_name == "adversarial"


def test_evidence_entries_holding_several_ids_count_each():
    assert split_evidence(["D8:6; D9:17", "D1:2 D1:3", "D:11:26", "d2 : 4,D2:5", "D8:6"]) == (
        "D8:6",
        "D9:17",
        "D1:2",
        "D1:3",
        "D11:26",
        "D2:4",
        "D2:5",
    )
    assert split_evidence(["  ", "S1"]) == ("S1",)  # no id in it: kept as written, not lost
    assert split_evidence(None) == ()


def test_loader_selects_samples(tiny_file):
    assert len(load_locomo(tiny_file, ["tiny-1"])) == 1
    with pytest.raises(ValueError):
        load_locomo(tiny_file, ["conv-99"])


def test_exchanges_pair_turns_without_losing_any(tiny_file):
    (conv,) = load_locomo(tiny_file)
    pairs = exchanges(conv)
    ids = [[t.dia_id for t in e.turns] for e in pairs]
    # Ann's two turns in a row: the first stays alone, the second pairs with Bob's reply;
    # the one-turn session 2 becomes a page with an empty reply.
    assert ids == [["D1:1", "D1:2"], ["D1:3"], ["D1:4", "D1:5"], ["D2:1"]]
    assert sum(len(i) for i in ids) == len(conv.turns)
    meta = pairs[0].meta()
    assert meta == {
        "external_ids": ["D1:1", "D1:2"],
        "user_speaker": "Ann",
        "agent_speaker": "Bob",
        "session": 1,
    }
    assert pairs[3].second is None and pairs[3].meta()["user_speaker"] == "Bob"
