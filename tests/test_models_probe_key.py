"""A local server that wants an API key (llama.cpp's server started with --api-key answers
/v1/models with 401) is listed by the look-around as needing one, not left out; a key kept for
its address lists its models."""

from __future__ import annotations

import json

import pytest

from models.probe import probe_servers
from tests.local_servers import ChatServer

KEY = "sk-local-key"


@pytest.fixture
def no_env_key(monkeypatch):
    from engine.api_keys import API_KEY_ENV

    monkeypatch.delenv(API_KEY_ENV, raising=False)


def test_the_probe_lists_a_server_that_wants_a_key_as_needing_one(no_env_key):
    with ChatServer(["secret-model"], ["Hi"], api_key=KEY) as server:
        found = probe_servers([server.port])
    assert [(s.url, s.models, s.needs_key, s.key_refused) for s in found] == [
        (server.url, [], True, False)
    ]
    assert "API key" in found[0].key_text
    assert server.refused == 1  # asked once, without a key: none is kept for it


def test_a_key_kept_for_the_address_lists_its_models_and_a_wrong_one_is_said(
    memory_keyring, no_env_key
):
    from engine.api_keys import set_api_key

    with ChatServer(["secret-model"], ["Hi"], api_key=KEY) as server:
        set_api_key(server.url, KEY)
        [listed] = probe_servers([server.port])
        assert listed.models == ["secret-model"] and not listed.needs_key
        set_api_key(server.url, "sk-old-key")
        [refused] = probe_servers([server.port])
    assert refused.needs_key and refused.key_refused and refused.models == []
    assert refused.key_text != listed.key_text == ""


def test_the_overview_and_memoryos_models_show_it_with_its_status(
    tmp_path, monkeypatch, capsys, no_env_key
):
    from models.cli import main
    from models.overview import overview

    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    with ChatServer(["secret-model"], ["Hi"], api_key=KEY) as server, \
            ChatServer(["open-model"], ["Hi"]) as open_server:  # fmt: skip
        ports = [server.port, open_server.port]
        result = overview(home=tmp_path / "empty-home", folders=[], ports=ports)
        monkeypatch.setattr(
            "models.probe.DEFAULT_PORTS",
            {server.port: "llama.cpp server", open_server.port: "LM Studio"},
        )
        assert main([]) == 0
        text = capsys.readouterr().out
        assert main(["--json"]) == 0
        listed = json.loads(capsys.readouterr().out)["servers"]
    servers = {s["url"]: s for s in result.to_dict()["servers"]}
    assert servers[server.url]["needs_key"] and servers[server.url]["models"] == []
    assert servers[open_server.url]["models"] == ["open-model"]
    assert not servers[open_server.url]["needs_key"]
    line = next(line for line in text.splitlines() if server.url in line)
    assert result.servers[0].key_text in line and "models:" not in line
    assert any("open-model" in line for line in text.splitlines())
    assert [s["url"] for s in listed if s["needs_key"]] == [server.url]
