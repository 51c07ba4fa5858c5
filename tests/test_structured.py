"""structured_call: malformed model output is parsed, validated, retried once, then dropped."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.backends.fake import FakeChat
from engine.backends.structured import (
    StructuredStats,
    check_output,
    parse_json_object,
    structured_call,
)
from engine.errors import ServerError

SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "keywords": {"type": "array", "items": {"type": "string"}}},
    "required": ["summary", "keywords"],
}  # fmt: skip
GOOD = {"summary": "Tom is a data scientist.", "keywords": ["job", "data science"]}
MESSAGES = [{"role": "user", "content": "Summarise the page."}]

keyword = st.text(min_size=1, max_size=12)
valid = st.fixed_dictionaries(
    {"summary": st.text(max_size=40), "keywords": st.lists(keyword, max_size=4)}
)


def truncated(value: dict) -> st.SearchStrategy[str]:
    text = json.dumps(value)
    return st.integers(0, len(text) - 1).map(lambda cut: text[:cut])


malformed = st.one_of(
    st.just(""),
    st.just("   \n"),
    st.just("I'm sorry, I cannot help with that."),
    valid.flatmap(truncated),  # cut off by max_tokens
    st.builds(lambda s: {"summary": s, "keywords": "not a list"}, st.text(max_size=20)),
    st.builds(lambda n: {"summary": n, "keywords": []}, st.integers()),  # wrong type
    st.just({"keywords": ["missing summary"]}),
    st.just(["a", "list", "not", "an", "object"]),
    st.just("null"),
)


def fenced(value: dict) -> st.SearchStrategy[str]:
    body = json.dumps(value, indent=1)
    return st.sampled_from(
        [
            f"```json\n{body}\n```",
            f"Sure! Here it is:\n```\n{body}\n```\nHope this helps.",
            f"Here is the JSON: {json.dumps(value)} -- done",
            f"```json\n{body}",  # the closing fence never came
        ]
    )


def run(*replies) -> tuple[dict | None, StructuredStats, FakeChat]:
    chat = FakeChat()
    chat.queue_json(*replies)
    stats = StructuredStats()
    return structured_call(chat, MESSAGES, SCHEMA, stats=stats), stats, chat


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(first=malformed, second=malformed)
def test_two_bad_answers_give_none_never_text(first, second):
    value, stats, chat = run(first, second)
    assert value is None
    assert stats.to_dict() == {"first_try_ok": 0, "retry_ok": 0, "fallback": 1, "total": 1}
    assert chat.usage.structured_calls == 2


@settings(max_examples=60)
@given(first=malformed, good=valid)
def test_a_bad_answer_then_a_good_one_is_used(first, good):
    value, stats, chat = run(first, good)
    assert value == good
    assert (stats.first_try_ok, stats.retry_ok, stats.fallback) == (0, 1, 0)
    retry = chat.seen_messages[-1]
    assert retry[: len(MESSAGES)] == MESSAGES
    assert retry[-1]["role"] == "user" and "JSON" in retry[-1]["content"]


@settings(max_examples=60)
@given(data=st.data(), good=valid)
def test_fences_and_chatter_around_valid_json_pass_first_time(data, good):
    value, stats, chat = run(data.draw(fenced(good)))
    assert value == good
    assert stats.first_try_ok == 1 and chat.usage.structured_calls == 1


@given(text=st.text(max_size=200))
def test_parse_never_raises_and_returns_only_objects(text):
    value = parse_json_object(text)
    assert value is None or isinstance(value, dict)


def test_extra_validator_can_reject_and_explain():
    def no_empty_summary(value: dict) -> str | None:
        return "summary is empty" if not value["summary"].strip() else None

    chat = FakeChat()
    chat.queue_json({"summary": " ", "keywords": []}, GOOD)
    value = structured_call(chat, MESSAGES, SCHEMA, validate=no_empty_summary)
    assert value == GOOD
    assert "summary is empty" in chat.seen_messages[-1][-1]["content"]
    assert check_output(json.dumps(GOOD), SCHEMA, lambda v: False) == (
        None,
        "rejected by the validator",
    )


def test_backend_errors_propagate_so_the_job_can_run_later():
    class DownChat(FakeChat):
        def _complete_json(self, messages, schema, *, max_tokens):
            raise ServerError("Cannot reach the server")

    stats = StructuredStats()
    with pytest.raises(ServerError):
        structured_call(DownChat(), MESSAGES, SCHEMA, stats=stats)
    assert stats.total == 0
