"""The reference-style `Memoryos(openai_base_url=...)` and `memoryos mcp --config`: plain http://
to another computer is refused with the caller's way to allow it (never "in Settings", which a
library or an MCP config has not), and allowed with allow_plain_http=True / --allow-plain-http."""

from __future__ import annotations

import json

import pytest

from engine.backends.fake import HashEmbedder
from engine.compat import Memoryos
from engine.errors import ServerError
from engine.network import TREAT_AS_REMOTE_ENV
from tests.local_servers import ChatServer


def make(tmp_path, url: str, **kwargs) -> Memoryos:
    return Memoryos(user_id="tom", openai_api_key="sk-local", data_storage_path=str(tmp_path),
                    openai_base_url=url, llm_model="m", embedder=HashEmbedder(),
                    background=False, passphrase="correct horse battery", **kwargs)


def test_plain_http_to_another_computer_is_refused_naming_the_argument(tmp_path):
    with pytest.raises(ServerError) as refused:
        make(tmp_path, "http://192.168.1.20:8080/v1")
    said = str(refused.value)
    assert "refusing plain http:// to 192.168.1.20:8080" in said
    assert "allow_plain_http=True" in said and "Settings" not in said
    assert not (tmp_path / "users").exists()  # refused before any vault was made


def test_allowed_it_answers_from_that_server(tmp_path, memory_keyring, monkeypatch):
    with ChatServer(["m"], ["Hello from ", "the server"]) as server:
        monkeypatch.setenv(TREAT_AS_REMOTE_ENV, f"127.0.0.1:{server.port}")
        with pytest.raises(ServerError):
            make(tmp_path, server.url)
        memo = make(tmp_path, server.url, allow_plain_http=True)
        try:
            assert memo.get_response("Hi there") == "Hello from the server"
        finally:
            memo.close()


def test_mcp_config_with_a_plain_http_server_says_to_add_the_flag(tmp_path, home):
    from tests.helpers import run_cli

    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "user_id": "tom", "openai_api_key": "sk-local", "data_storage_path": str(tmp_path / "d"),
        "openai_base_url": "http://192.168.1.20:8080/v1", "llm_model": "m",
    }), encoding="utf-8")
    out = run_cli("mcp", "--config", str(config), "--embedder", "fake", home=home, stdin="",
                  timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 2 and "refusing plain http:// to 192.168.1.20:8080" in said
    assert "--allow-plain-http" in said and "Settings" not in said
