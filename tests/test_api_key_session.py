"""API keys where no keyring is usable: kept for the session by the app, or given in
$MEMORYOS_API_KEY; a real HTTP server on 127.0.0.1 that wants a bearer key answers only then."""

from __future__ import annotations

import pytest

from tests.local_servers import ChatServer

KEY = "sk-env-7d1e0b"


def _ask(url: str) -> str:
    from engine.backends.build import make_chat
    from engine.model_config import URL, ModelConfig

    chat = make_chat(ModelConfig(source=URL, url=url, url_model="cloud-model"))
    return "".join(chat.stream([{"role": "user", "content": "Hello?"}], max_tokens=16))


def test_the_environment_key_is_used_where_the_keyring_cannot_be_read(
    fail_keyring, monkeypatch
):
    from engine.errors import MemoryOSError

    with ChatServer(models=["cloud-model"], reply=["Hi."], api_key=KEY) as server:
        monkeypatch.delenv("MEMORYOS_API_KEY", raising=False)
        with pytest.raises(MemoryOSError):
            _ask(server.url)  # no key anywhere: refused (401)
        monkeypatch.setenv("MEMORYOS_API_KEY", KEY)
        assert _ask(server.url) == "Hi."


def test_a_key_that_no_keyring_can_keep_is_used_until_the_process_ends(
    fail_keyring, monkeypatch
):
    from engine.api_keys import ApiKeyError, get_api_key, keep_for_session, set_api_key

    monkeypatch.delenv("MEMORYOS_API_KEY", raising=False)
    with ChatServer(models=["cloud-model"], reply=["Hi."], api_key=KEY) as server:
        try:
            with pytest.raises(ApiKeyError):  # no keyring to keep it
                set_api_key(server.url, KEY)
            keep_for_session(server.url, KEY)  # what the app does then: for this session only
            assert get_api_key(server.url) == KEY
            assert _ask(server.url) == "Hi."
        finally:
            with pytest.raises(ApiKeyError):  # removed all the same
                set_api_key(server.url, "")
        with pytest.raises(ApiKeyError):  # removed: no key left, and no keyring to ask
            get_api_key(server.url)


def test_a_keyring_key_comes_before_the_environment(memory_keyring, monkeypatch):
    from engine.api_keys import get_api_key, set_api_key

    monkeypatch.setenv("MEMORYOS_API_KEY", "sk-from-env")
    url = "http://127.0.0.1:9/v1"
    assert get_api_key(url) == "sk-from-env"
    set_api_key(url, KEY)
    assert get_api_key(url) == KEY
