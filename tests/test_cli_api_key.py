"""A server that needs an API key, used from `memoryos chat`: the refusal names what works in a
terminal ($MEMORYOS_API_KEY, or the key saved from the app's Settings), not the app's model
settings, which a terminal has not."""

from __future__ import annotations

import json

import pytest

from engine.api_keys import API_KEY_ENV
from tests.helpers import run_cli
from tests.local_servers import ChatServer

FAKE = ("--embedder", "fake")


@pytest.fixture
def keyed_server():
    with ChatServer(["m"], ["Hello from ", "the server"], api_key="secret-key") as chat_server:
        yield chat_server


def _save_server_in_app(home, server: ChatServer) -> None:
    """The app's saved model: this server (what `memoryos chat` uses without --model)."""
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    saved = {
        "model_source": "openai",
        "server_url": f"http://127.0.0.1:{server.port}/v1",
        "server_model": "m",
    }
    settings.write_text(json.dumps(saved), encoding="utf-8")


def test_chat_without_a_key_names_the_terminals_way_to_give_one(home, keyed_server, monkeypatch):
    """It said "set it in the model settings", which a terminal has not."""
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    _save_server_in_app(home, keyed_server)
    out = run_cli("chat", "--create", *FAKE, home=home, stdin="hello\n", timeout=60)
    said = out.stderr.decode()
    assert keyed_server.refused >= 1, said
    assert "needs an API key (HTTP 401)" in said, said
    assert API_KEY_ENV in said and "Settings" in said, said
    assert "model settings" not in said, said
    assert "Traceback" not in said


def test_chat_with_the_key_the_advice_names_gets_an_answer(home, keyed_server):
    """Following the advice works: the key in $MEMORYOS_API_KEY is sent, and it answers."""
    _save_server_in_app(home, keyed_server)
    out = run_cli("chat", "--create", *FAKE, home=home, stdin="hello\n", timeout=60,
                  env={API_KEY_ENV: "secret-key"})  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert "Hello from the server" in out.stdout.decode()


def test_chat_with_a_wrong_key_names_where_the_terminal_takes_it_from(home, keyed_server):
    _save_server_in_app(home, keyed_server)
    out = run_cli("chat", "--create", *FAKE, home=home, stdin="hello\n", timeout=60,
                  env={API_KEY_ENV: "wrong-key"})  # fmt: skip
    said = out.stderr.decode()
    assert "refused the API key (HTTP 401)" in said, said
    assert API_KEY_ENV in said and "model settings" not in said, said
