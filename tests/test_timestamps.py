"""Timestamps as the reference MemoryOS and LoCoMo write them are read everywhere, in local time."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from engine import errors
from engine.timestamps import parse_timestamp


@pytest.fixture
def tokyo(monkeypatch):
    """Run the test in UTC+9 (no daylight saving), so 'local time' differs from UTC."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def utc(*fields: int) -> float:
    return datetime(*fields, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-05-01 12:00:00", utc(2025, 5, 1, 3)),  # the reference's get_timestamp()
        ("2025-05-01T12:00:00", utc(2025, 5, 1, 3)),
        ("2025-05-01T12:00", utc(2025, 5, 1, 3)),
        ("2025-05-01", utc(2025, 4, 30, 15)),
        ("2025-05-01T12:00:00Z", utc(2025, 5, 1, 12)),
        ("2025-05-01T12:00:00.250z", utc(2025, 5, 1, 12) + 0.25),
        ("2025-05-01T12:00:00+02:00", utc(2025, 5, 1, 10)),
        ("1:56 pm on 8 May, 2023", utc(2023, 5, 8, 4, 56)),  # LoCoMo session date-times
        ("10:37 am on 27 June, 2023", utc(2023, 6, 27, 1, 37)),
        ("7:00 PM on 1 Sept, 2023", utc(2023, 9, 1, 10)),
        ("  8:04\u202fpm  on 9 Jan, 2024 ", utc(2024, 1, 9, 11, 4)),
        ("8 May, 2023", utc(2023, 5, 7, 15)),
        ("8 May 2023", utc(2023, 5, 7, 15)),
        ("May 8, 2023", utc(2023, 5, 7, 15)),
        ("2023/05/08 13:56", utc(2023, 5, 8, 4, 56)),
        ("1714564800", utc(2024, 5, 1, 12)),
    ],
)
def test_reference_locomo_and_iso_texts_are_read_in_local_time(tokyo, text, expected):
    assert parse_timestamp(text) == pytest.approx(expected)


def test_numbers_datetimes_and_missing_values(tokyo):
    assert parse_timestamp(1714564800) == 1714564800.0
    assert parse_timestamp(datetime(2025, 5, 1, 12)) == utc(2025, 5, 1, 3)  # naive = local
    aware = datetime(2025, 5, 1, 12, tzinfo=timezone(timedelta(hours=-4)))
    assert parse_timestamp(aware) == utc(2025, 5, 1, 16)
    assert parse_timestamp(None, default=42.0) == 42.0
    assert parse_timestamp("", default=42.0) == 42.0  # the reference: empty means now
    with pytest.raises(errors.InvalidInputError, match="required"):
        parse_timestamp(None)


@pytest.mark.parametrize(
    "value",
    ["yesterday", "2023", "13:00 pm on 8 May, 2023", "31 February 2023", "2025-13-01", True, [1]],
)
def test_unreadable_timestamps_are_a_clear_error(value):
    with pytest.raises(errors.InvalidInputError) as caught:
        parse_timestamp(value)
    message = str(caught.value)
    assert "timestamp" in message
    if isinstance(value, str):
        assert repr(value) in message and "1:56 pm on 8 May, 2023" in message


def test_out_of_range_is_an_error():
    with pytest.raises(errors.InvalidInputError, match="between 1900 and 2200"):
        parse_timestamp("2250-01-01")


def test_add_memory_and_transcript_import_accept_the_formats(tokyo, memory, tmp_path):
    page = memory.add_memory("Hi, I'm Tom.", "Hello Tom!", timestamp="1:56 pm on 8 May, 2023")
    assert memory.page(page.id).timestamp == utc(2023, 5, 8, 4, 56)
    ref = memory.add_memory("I work in SF.", "Nice.", timestamp="2025-05-01 12:00:00")
    assert memory.page(ref.id).timestamp == utc(2025, 5, 1, 3)
    with pytest.raises(errors.InvalidInputError, match="not a date"):
        memory.add_memory("hi", "there", timestamp="sometime soon")
    assert memory.info().pages == 2

    from engine import transcripts

    path = tmp_path / "chat.json"
    rows = [{"user": "Lunch?", "assistant": "Sure.", "timestamp": "8 May, 2023"}]
    path.write_text(json.dumps(rows), encoding="utf-8")
    (exchange,) = transcripts.read(path)
    added = memory.add_memory(exchange.user_input, exchange.agent_response, exchange.timestamp)
    assert memory.page(added.id).timestamp == utc(2023, 5, 7, 15)
