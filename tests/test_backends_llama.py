"""LlamaChat: the real bundled GGUF through llama.cpp, plus clear errors for bad model files."""

from __future__ import annotations

import json
import math
import os
import struct

import jsonschema
import pytest

from engine.backends.base import CancelToken
from engine.backends.llama import LlamaChat, bounded_schema
from engine.errors import GenerationCancelled, ModelLoadError
from models.catalogue import bundled_gguf_path
from models.machine import gpu_offload_supported

SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "keywords": {"type": "array", "items": {"type": "string"}}},
    "required": ["summary", "keywords"],
}  # fmt: skip


def write_gguf(path, architecture="llama", tensors=(), context_length=None):
    """A GGUF file of metadata and tensor shapes whose weights (f32, all at offset 0) are a
    hole: as long as its header says, so it is complete, and no disk is used for them."""

    def text(value: str) -> bytes:
        raw = value.encode()
        return struct.pack("<Q", len(raw)) + raw

    keys = [(b"general.architecture", 8, text(architecture)), (b"general.name", 8, text("Test"))]
    if context_length:
        keys.append(
            (f"{architecture}.context_length".encode(), 4, struct.pack("<I", context_length))
        )
    data = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(keys))
    for key, kind, value in keys:
        data += struct.pack("<Q", len(key)) + key + struct.pack("<I", kind) + value
    for index, shape in enumerate(tensors):
        data += text(f"t{index}") + struct.pack("<I", len(shape))
        data += struct.pack(f"<{len(shape)}Q", *shape) + struct.pack("<IQ", 0, 0)
    path.write_bytes(data)
    weights = max((4 * math.prod(shape) for shape in tensors), default=0)
    os.truncate(path, -(-len(data) // 32) * 32 + weights)  # a sparse file on Linux and macOS
    return path


@pytest.fixture(scope="module")
def bundled():
    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    yield chat
    chat.close()


def ask(text: str) -> list[dict]:
    return [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": text}]


@pytest.mark.real_models
def test_streams_text_and_counts_usage(bundled):
    steps = []
    bundled.load(lambda fraction, label: steps.append(fraction))
    assert steps == [] or steps[-1] == 1.0  # a second load is a no-op
    messages = ask("Name a colour.")
    calls = bundled.usage.generate_calls
    chunks = list(bundled.stream(messages, max_tokens=12, temperature=0.0))
    assert "".join(chunks).strip()
    usage = bundled.usage
    assert usage.generate_calls == calls + 1
    assert usage.last_prompt_tokens == bundled.prompt_tokens(messages)
    assert 0 < usage.last_completion_tokens <= 12 + 1
    assert bundled.count_tokens("data scientist") < len("data scientist") // 2  # the real tokenizer


@pytest.mark.real_models
def test_cancel_stops_between_chunks(bundled):
    # Greedy decoding makes the reply the same whatever ran before; the assertions hold for
    # any reply of at least one chunk, however long or short.
    cancel = CancelToken()
    seen = []
    with pytest.raises(GenerationCancelled):
        for chunk in bundled.stream(
            ask("Count from one to fifty."), max_tokens=200, temperature=0.0, cancel=cancel
        ):
            seen.append(chunk)
            cancel.cancel()
    assert len(seen) == 1  # no chunk is seen after the cancel
    # llama.cpp stopped generating at the cancel (one chunk is a token or two), not at 200
    assert bundled.usage.last_completion_tokens <= 4
    # A token cancelled before the call yields nothing at all.
    with pytest.raises(GenerationCancelled):
        next(bundled.stream(ask("Say yes."), max_tokens=5, cancel=cancel))
    # The model is free again at once (the lock was released).
    assert "".join(bundled.stream(ask("Say yes."), max_tokens=5, temperature=0.0)).strip()


@pytest.mark.real_models
def test_tiny_context_is_cut_never_overflows():
    chat = LlamaChat(bundled_gguf_path(), n_ctx=160)
    memories = " ".join(f"On day {i} the user mentioned detail number {i}." for i in range(400))
    messages = [
        {
            "role": "system",
            "content": "INSTRUCTIONS FIRST. Memories: " + memories + " LAST MEMORY.",
        },
        {"role": "user", "content": "old question " * 40},
        {"role": "assistant", "content": "old answer " * 40},
        {"role": "user", "content": "What is my name?"},
    ]
    chunks = list(chat.stream(messages, max_tokens=100, temperature=0.0))
    assert chunks
    fitted = chat.fit_messages(messages, 80)
    assert chat.prompt_tokens(fitted) + 80 <= 160
    assert fitted[-1]["content"] == "What is my name?"
    assert fitted[0]["content"].startswith("INSTRUCTIONS FIRST.")
    assert chat.usage.last_prompt_tokens + chat.usage.last_completion_tokens <= 160
    chat.close()


@pytest.mark.slow  # grammar-constrained decoding of a long JSON object
@pytest.mark.real_models
def test_json_constrained_call_returns_parseable_json(bundled):
    text = bundled.complete_json(
        [{"role": "user", "content": "Summarise: I'm Tom, a data scientist in San Francisco."}],
        SCHEMA,
        max_tokens=256,
    )
    value = json.loads(text)
    jsonschema.validate(value, SCHEMA)
    assert bundled.usage.structured_calls >= 1


def test_bundled_model_is_not_extraction_capable():
    chat = LlamaChat(bundled_gguf_path())  # reads the header only
    assert not chat.loaded
    assert chat.extraction_capable is False
    assert chat.context_window == 4096
    assert chat.model_id == "SmolLM2-135M-Instruct.Q4_1"


def test_a_big_model_is_extraction_capable_from_its_tensor_shapes(tmp_path):
    path = write_gguf(tmp_path / "big.gguf", tensors=[(50_000, 40_000)], context_length=2048)
    chat = LlamaChat(path, n_ctx=8192)
    assert chat.extraction_capable is True
    assert chat.context_window == 2048  # never past the training context


def test_missing_file_is_a_clear_error(tmp_path):
    chat = LlamaChat(tmp_path / "nowhere.gguf")
    with pytest.raises(ModelLoadError, match="not found"):
        chat.load()


def test_not_a_gguf_is_a_clear_error(tmp_path):
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"PK\x03\x04 this is a zip, not a model" * 10)
    with pytest.raises(ModelLoadError, match="not a valid GGUF"):
        LlamaChat(path).load()


def test_unsupported_architecture_is_a_clear_error(tmp_path):
    path = write_gguf(tmp_path / "odd.gguf", architecture="nosucharch")
    with pytest.raises(ModelLoadError, match="architecture 'nosucharch'"):
        LlamaChat(path).load()


def test_too_big_for_memory_is_refused_before_loading(monkeypatch):
    from engine.backends import llama

    monkeypatch.setattr(llama, "physical_memory", lambda: 50 * 2**20)  # a 50 MiB machine
    chat = LlamaChat(bundled_gguf_path())
    with pytest.raises(ModelLoadError, match="Not enough memory"):
        chat.load()
    assert not chat.loaded


def test_llama_cpp_allocation_failure_reads_as_out_of_memory(tmp_path):
    chat = LlamaChat(write_gguf(tmp_path / "m.gguf"))
    log = "ggml_aligned_malloc: insufficient memory (attempted to allocate 219729.38 MB)\n"
    assert "Not enough memory" in str(chat._load_error(log))


def test_grammar_caps_strings_and_arrays_without_changing_the_schema():
    bounded = bounded_schema(SCHEMA)
    summary, keywords = bounded["properties"]["summary"], bounded["properties"]["keywords"]
    assert keywords["maxItems"] > 0
    assert 0 < keywords["items"]["maxLength"] < summary["maxLength"]
    assert "maxLength" not in SCHEMA["properties"]["summary"]


def test_gpu_offload_support_is_reported():
    assert gpu_offload_supported() in (True, False)


@pytest.mark.real_models
def test_a_small_model_answers_within_the_short_limit_whatever_is_asked(
    tmp_path, memory_keyring, embedder
):
    """The demo model rambles past ~160 tokens: the engine caps any small model for every
    caller (the app, `memoryos chat`, MCP), not only where the app's banner knows it is the
    demo. A tiny model with random weights never stops by itself, so the cap is what ends it."""
    from engine.api import MemoryOS
    from engine.eval.random_gguf import write_random_gguf
    from engine.prompt import SMALL_MAX_TOKENS

    path = tmp_path / "tiny.gguf"
    write_random_gguf(path, layers=2, hidden=64, feed_forward=128, heads=4, kv_heads=2)
    chat = LlamaChat(path, n_ctx=1024)
    try:
        # Usage counts the text's tokens again, which random text can make a little more
        # than were generated; the two runs are far apart either way.
        list(chat.stream(ask("Go on."), max_tokens=3 * SMALL_MAX_TOKENS, temperature=0.7))
        assert chat.usage.last_completion_tokens > 2 * SMALL_MAX_TOKENS  # no early stop
        with MemoryOS.open(
            tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat, background=False
        ) as memory:
            list(memory.get_response("Tell me everything.", max_tokens=512))
        assert SMALL_MAX_TOKENS // 2 < chat.usage.last_completion_tokens < 1.25 * SMALL_MAX_TOKENS
    finally:
        chat.close()
