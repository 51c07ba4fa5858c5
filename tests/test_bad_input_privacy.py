"""Bad input from files and clients: import size and schema checks, reserved page metadata."""

from __future__ import annotations

import json

import pytest

from engine import errors, transcripts


def _write(tmp_path, data) -> str:
    path = tmp_path / "talk.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"user": "hi", "assistant": "yo", "meta": {"source": "chat"}}], "item 1: metadata key 'source' is reserved"),
        ([{"user": "hi", "assistant": "yo"}, {"user": "a", "assistant": "b", "meta": [1]}], "item 2: 'meta' must be a JSON object"),
        ([{"user": "hi", "assistant": "yo", "timestamp": {"no": 1}}], "item 1"),
        ([{"user": "hi", "assistant": "yo"}, {"user": "a", "assistant": "b", "conversation": {"x": 1}}], "item 2: 'conversation' must be text or a number"),
        ([{"user": 3, "assistant": "yo"}], "must be text"),
    ],
)  # fmt: skip
def test_a_bad_item_anywhere_rejects_the_file_before_anything_is_stored(tmp_path, data, message):
    with pytest.raises(errors.InvalidInputError, match=message):
        transcripts.read(_write(tmp_path, data))


def test_an_oversized_file_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(transcripts, "MAX_FILE_BYTES", 1024)
    path = _write(tmp_path, [{"user": "x" * 2000, "assistant": "y"}])
    with pytest.raises(errors.InvalidInputError, match="is 2 KB: transcripts up to 1 KB can be"):
        transcripts.read(path)


def test_too_many_exchanges_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(transcripts, "MAX_EXCHANGES", 2)
    path = _write(tmp_path, [{"user": f"q{i}", "assistant": "a"} for i in range(3)])
    with pytest.raises(errors.InvalidInputError, match="at most 2 can be imported"):
        transcripts.read(path)


def test_metadata_cannot_overwrite_reserved_fields_in_the_engine(memory):
    for key in ("source", "stopped"):
        with pytest.raises(errors.InvalidInputError, match=f"metadata key '{key}' is reserved"):
            memory.add_memory("hi", "yo", meta={key: "forged"})
    assert memory.pages() == []  # nothing was stored
    page = memory.add_memory("hi", "yo", meta={"topic": "x"}, source="mcp")
    assert page.meta == {"topic": "x", "source": "mcp"}
    with pytest.raises(errors.InvalidInputError, match="source must be"):
        memory.add_memory("hi", "yo", source="Not A Name!")


@pytest.mark.parametrize("data", [{"bad": 1}, [], "text"])
def test_a_file_of_the_wrong_shape_is_told_what_shape_to_use(tmp_path, data):
    with pytest.raises(errors.InvalidInputError) as raised:
        transcripts.read(_write(tmp_path, data))
    message = str(raised.value)
    assert '[{"user": "...", "assistant": "..."}]' in message
    assert '[{"role": "user", "content": "..."}]' in message
