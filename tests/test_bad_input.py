"""Bad input: a clear error or faithful storage; never a crash, never a half-written record."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import errors


def count(memory):
    return memory.vault.count_pages()


@pytest.mark.parametrize("user, agent", [("", ""), ("   ", "\n\t")])
def test_empty_exchange_is_refused(memory, user, agent):
    with pytest.raises(errors.InvalidInputError, match="empty"):
        memory.add_memory(user, agent)
    assert count(memory) == 0


def test_one_megabyte_message_is_stored_faithfully(memory):
    big = ("All work and no play makes Jack a dull boy. " * 24_000)[:1_000_000]
    page = memory.add_memory(big, "ok")
    assert memory.page(page.id).user_input == big
    assert page.id in memory.retrieve("dull boy Jack").page_ids()


def test_too_large_message_is_refused(memory):
    with pytest.raises(errors.InvalidInputError, match="too long"):
        memory.add_memory("x" * 4_000_001, "ok")
    assert count(memory) == 0


@pytest.mark.parametrize("text", ["nul\x00inside", "bell\x07 escape\x1b[31m red", "tab\tand\r\nnewline",
                                  "emoji 🧠 and 中文 and עברית", "\u202eright-to-left override"])
def test_odd_characters_round_trip(memory, text):
    page = memory.add_memory(text, text)
    stored = memory.page(page.id)
    assert stored.user_input == text and stored.agent_response == text


def test_lone_surrogate_is_a_clear_error(memory):
    with pytest.raises(errors.InvalidInputError, match="surrogate"):
        memory.add_memory("broken \udc80 text", "ok")
    with pytest.raises(errors.InvalidInputError, match="surrogate"):
        memory.retrieve("query \ud800")
    assert count(memory) == 0


@pytest.mark.parametrize("ts", [-1e12, 1e13, float("nan"), float("inf"), "not a date", True, [1]])
def test_impossible_timestamps_are_refused(memory, ts):
    with pytest.raises(errors.InvalidInputError, match="timestamp"):
        memory.add_memory("hi", "there", timestamp=ts)
    assert count(memory) == 0


def test_past_and_future_timestamps_within_range_are_kept(memory):
    old = memory.add_memory("in 1901", "long ago", timestamp="1901-03-04T05:06:07Z")
    future = memory.add_memory("in 2150", "far ahead", timestamp=datetime(2150, 1, 1, tzinfo=timezone.utc))
    assert datetime.fromtimestamp(memory.page(old.id).timestamp, tz=timezone.utc).year == 1901
    assert datetime.fromtimestamp(memory.page(future.id).timestamp, tz=timezone.utc).year == 2150


@pytest.mark.parametrize("meta", ["text", [1, 2], {"x": object()}, {"big": "x" * 70_000}])
def test_bad_meta_is_refused(memory, meta):
    with pytest.raises(errors.InvalidInputError, match="meta"):
        memory.add_memory("hi", "there", meta=meta)
    assert count(memory) == 0


@pytest.mark.parametrize("value", [None, 12, b"bytes"])
def test_non_text_is_refused(memory, value):
    with pytest.raises(errors.InvalidInputError):
        memory.add_memory(value if value is not None else "", value)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(user=st.text(max_size=300), agent=st.text(max_size=300))
def test_any_text_is_stored_faithfully_or_refused_cleanly(memory, user, agent):
    before = count(memory)
    try:
        page = memory.add_memory(user, agent)
    except errors.InvalidInputError:
        assert count(memory) == before
        return
    stored = memory.page(page.id)
    assert (stored.user_input, stored.agent_response) == (user, agent)
    assert count(memory) == before + 1
