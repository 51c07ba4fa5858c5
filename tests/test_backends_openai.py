"""OpenAIChat without a server: URLs, and the messages for the error bodies real servers send."""

from __future__ import annotations

import json

import pytest

from engine.backends.openai_compat import OpenAIChat, _error_text, _HTTPError
from engine.errors import ServerError
from engine.network import normalise_url


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
    error = chat._error(_HTTPError(status, message, None))
    assert "has no model 'gpt-5x'" in str(error) and "llama3.1:8b" in str(error)


def test_the_key_is_scrubbed_from_server_messages():
    chat = OpenAIChat("https://h/v1", "m", api_key="sk-hidden-123")
    text = chat._scrub(_error_text(b'{"error": {"message": "Incorrect API key sk-hidden-123"}}'))
    assert "sk-hidden-123" not in text and "***" in text
    assert "sk-hidden-123" not in repr(chat)
