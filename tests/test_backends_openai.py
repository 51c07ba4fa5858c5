"""OpenAIChat: URLs, the messages for the error bodies real servers send, and structured output
against a local server that takes only some response_format types (as llama_cpp.server does)."""

from __future__ import annotations

import json
import time

import pytest

from engine.backends.openai_compat import OpenAIChat
from engine.backends.openai_http import HTTPError, _error_text
from engine.bundled import bundled_gguf_path
from engine.errors import ServerError
from engine.network import normalise_url
from tests.local_servers import ChatServer


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("localhost:11434", "http://localhost:11434/v1"),
        ("http://localhost:1234/v1/", "http://localhost:1234/v1"),
        ("https://api.groq.com/openai/v1", "https://api.groq.com/openai/v1"),
    ],
)
def test_urls_are_normalised(given, expected):
    assert normalise_url(given) == expected


@pytest.mark.parametrize("bad", ["", "ftp://host/v1", "http://"])
def test_bad_urls_are_refused(bad):
    with pytest.raises(ServerError):
        normalise_url(bad)


# Error bodies as OpenAI, Ollama, vLLM and llama_cpp.server send them for an unknown model.
UNKNOWN_MODEL_BODIES = [
    (404, {"error": {"message": "The model `gpt-5x` does not exist", "code": "model_not_found"}}),
    (404, {"error": 'model "gpt-5x" not found, try pulling it first'}),
    (404, {"object": "error", "message": "The model `gpt-5x` does not exist.", "code": 404}),
    (400, {"error": {"message": "The model `gpt-5x` does not exist", "code": "model_not_found"}}),
]


@pytest.mark.parametrize(("status", "body"), UNKNOWN_MODEL_BODIES)
def test_unknown_model_bodies_read_as_unknown_model(status, body):
    chat = OpenAIChat("https://h/v1", "gpt-5x", api_key="sk-hidden")
    chat.available_models = ["llama3.1:8b"]
    message = _error_text(json.dumps(body).encode())
    error = chat._error(HTTPError(status, message, None))
    assert "has no model 'gpt-5x'" in str(error) and "llama3.1:8b" in str(error)


def test_the_key_is_scrubbed_from_server_messages():
    chat = OpenAIChat("https://h/v1", "m", api_key="sk-hidden-123")
    text = chat._scrub(_error_text(b'{"error": {"message": "Incorrect API key sk-hidden-123"}}'))
    assert "sk-hidden-123" not in text and "***" in text
    assert "sk-hidden-123" not in repr(chat)


# -- structured output against a server that takes only some response_format types ------------

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def ask_name(chat: OpenAIChat) -> dict:
    return json.loads(chat.complete_json([{"role": "user", "content": "Who?"}], SCHEMA))


def kinds(server: ChatServer) -> list[str | None]:
    """The response_format type of each chat request the server received (None: none)."""
    return [(request.get("response_format") or {}).get("type") for request in server.requests]


def test_llama_cpp_servers_refusal_of_json_schema_falls_back_once_for_that_server():
    """llama_cpp.server answers HTTP 500 to "json_schema": the next style is asked at once (no
    retry, no back-off), and neither later calls nor a backend made again for the same server
    (the model chosen again) send "json_schema" there again."""
    with ChatServer(["m"], ['{"name": "Ana"}'], formats=("text", "json_object")) as server:
        chat = OpenAIChat(server.url, "m", retries=2, backoff=5.0)  # a retry would take 5 s
        started = time.monotonic()
        assert ask_name(chat) == {"name": "Ana"}
        assert time.monotonic() - started < 4.0
        assert kinds(server) == ["json_schema", "json_object"]
        assert ask_name(chat) == {"name": "Ana"}
        assert ask_name(OpenAIChat(server.url, "m")) == {"name": "Ana"}
        assert kinds(server) == ["json_schema", "json_object", "json_object", "json_object"]
        assert "schema" in server.requests[-1]["response_format"]  # its grammar follows it


def test_a_server_that_refuses_json_object_too_gets_the_schema_in_words():
    with ChatServer(["m"], ['{"name": "Ana"}'], formats=("text",)) as server:
        assert ask_name(OpenAIChat(server.url, "m", backoff=5.0)) == {"name": "Ana"}
        assert kinds(server) == ["json_schema", "json_object", "json_object", None]
        assert json.dumps(SCHEMA) in server.requests[-1]["messages"][0]["content"]
        assert ask_name(OpenAIChat(server.url, "m")) == {"name": "Ana"}
        assert kinds(server)[4:] == [None]


def test_a_small_gguf_served_by_llama_cpp_python_is_kept_out_of_consolidation(memory):
    """llama_cpp.server names its model by the GGUF's path: the file on this computer tells
    its size, and the 135M demo model is not given background consolidation (it took about a
    minute a call and wrote unusable summaries); the memory is consolidated by rules."""
    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig
    from engine.prompt import SMALL_MAX_TOKENS, answer_limit
    from engine.settings import MemorySettings

    served = str(bundled_gguf_path())
    with ChatServer([served], ['{"pages": [], "segments": []}'], formats=("text", "json_object")) \
            as server:  # fmt: skip
        chat = make_chat(ModelConfig(source="url", url=server.url, url_model=served))
        chat.load()  # as the app loads a model before it is used (app.model_choice.load_chat)
        memory.set_chat(chat)
        memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
        for text in ("I run with Ana on Saturdays.", "My knee hurts after long runs."):
            memory.add_memory(text, "Noted.")
        assert memory.run_consolidation() > 0
        assert server.requests == [] and memory.sent_log() == []
        assert memory.consolidation_status().mid_term_pages >= 1
        assert not chat.extraction_capable
        # and its answers are capped as the bundled model's are (it rambled to 214 tokens)
        assert answer_limit(chat, 512) == SMALL_MAX_TOKENS
    # A model named otherwise (Ollama, LM Studio...) is still trusted: the size is unknown.
    with ChatServer(["llama3.1:8b"], ["Hi"]) as server:
        other = OpenAIChat(server.url, "llama3.1:8b")
        other.load()
        assert other.extraction_capable
        assert answer_limit(other, 512) == 512
