"""The probe finds a live OpenAI-compatible server on 127.0.0.1 and nothing else, quickly."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from models.probe import probe_port, probe_servers
from tests.local_servers import ChatServer


def closed_port() -> int:
    """A port nothing listens on (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebPage(BaseHTTPRequestHandler):
    """Something else on a port: a web app that answers every path with HTML."""

    def do_GET(self) -> None:  # noqa: N802
        body = b"<html><body>Dashboard</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_live_server_is_listed_with_its_models_and_others_are_not():
    other = ThreadingHTTPServer(("127.0.0.1", 0), WebPage)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    closed = closed_port()
    try:
        with ChatServer(models=["smollm2-135m", "qwen2.5-7b"], reply=["hi"]) as live:
            found = probe_servers([live.port, other.server_address[1], closed])
            assert [(s.url, s.models) for s in found] == [
                (f"http://127.0.0.1:{live.port}/v1", ["smollm2-135m", "qwen2.5-7b"])
            ]
            assert found[0].kind == "OpenAI-compatible server"
    finally:
        other.shutdown()
        other.server_close()


def test_a_closed_port_costs_no_more_than_300_ms():
    port = closed_port()
    started = time.perf_counter()
    assert probe_port(port) is None
    assert time.perf_counter() - started <= 0.3


def test_a_silent_port_is_given_up_quickly():
    """A program that accepts connections but never answers costs about the timeout."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        started = time.perf_counter()
        assert probe_port(listener.getsockname()[1], timeout=0.2, read_timeout=0.2) is None
        assert time.perf_counter() - started < 1.0


def test_ports_are_probed_in_parallel():
    """Seven silent ports together take about one timeout, not seven."""
    listeners = []
    for _ in range(7):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        listeners.append(sock)
    try:
        started = time.perf_counter()
        assert (
            probe_servers([s.getsockname()[1] for s in listeners], timeout=0.2, read_timeout=0.2)
            == []
        )
        assert time.perf_counter() - started < 0.2 * 7 * 0.6
    finally:
        for sock in listeners:
            sock.close()


def test_a_base_url_is_asked_for_its_models_and_silence_is_told_apart():
    from models.probe import server_models

    with ChatServer(models=["llama3.1:8b", "qwen2.5:7b"], reply=["hi"]) as server:
        assert server_models(server.url) == ["llama3.1:8b", "qwen2.5:7b"]
        assert server_models(f"127.0.0.1:{server.port}") == ["llama3.1:8b", "qwen2.5:7b"]
    other = ThreadingHTTPServer(("127.0.0.1", 0), WebPage)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:  # something answers, but not with a model list
        assert server_models(f"http://127.0.0.1:{other.server_address[1]}/v1") is None
    finally:
        other.shutdown()
        other.server_close()
    with pytest.raises(OSError):  # nothing answers at all
        server_models(f"http://127.0.0.1:{closed_port()}/v1")


def test_the_ports_probed_include_the_chosen_local_server():
    from models.probe import DEFAULT_PORTS, ports_to_probe

    assert ports_to_probe("") == list(DEFAULT_PORTS)
    assert ports_to_probe("http://127.0.0.1:8011/v1")[-1] == 8011
    assert ports_to_probe("http://localhost:8011/v1")[-1] == 8011
    assert ports_to_probe("http://127.0.0.1:8080/v1") == list(DEFAULT_PORTS)  # already there
    assert ports_to_probe("https://api.example.com/v1") == list(DEFAULT_PORTS)  # not this computer
    assert ports_to_probe("http://[::1") == list(DEFAULT_PORTS)  # unreadable: the usual ones


def test_memoryos_models_lists_the_server_chosen_in_the_app_on_any_port(capsys):
    """A llama.cpp server on 8011 chosen in Settings was missing from the list ("none
    answering"), though the app was chatting through it."""
    from app.settings_store import SERVER, AppSettings, save_settings
    from models.cli import main

    with ChatServer(models=["smollm"], reply=["Hi"]) as server:
        url = f"http://127.0.0.1:{server.port}/v1"
        save_settings(AppSettings(model_source=SERVER, server_url=url, server_model="smollm"))
        assert main(["--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["servers"]
    assert [s["url"] for s in listed if s["port"] == server.port] == [url]


def test_a_server_that_wants_an_api_key_is_told_apart_from_one_that_lists_nothing():
    """A llama.cpp server started with --api-key answers /v1/models with 401 without the key:
    that is a refused key, not "not an OpenAI-compatible server"."""
    from models.probe import ask_models, server_models

    with ChatServer(models=["secret-model"], reply=["hi"], api_key="sk-right") as server:
        refused = ask_models(server.url)
        assert refused.models is None and refused.key_refused and refused.status == 401
        assert ask_models(server.url, "sk-wrong").key_refused
        listed = ask_models(server.url, "sk-right")
        assert listed.models == ["secret-model"] and not listed.key_refused
        assert server_models(server.url, "sk-right") == ["secret-model"]
    other = ThreadingHTTPServer(("127.0.0.1", 0), WebPage)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:  # a web page: no model list, and no key asked for either
        page = ask_models(f"http://127.0.0.1:{other.server_address[1]}/v1")
        assert page.models is None and not page.key_refused
    finally:
        other.shutdown()
        other.server_close()


def test_a_pasted_endpoint_is_cut_back_to_its_base_url():
    from models.probe import base_url

    assert base_url("http://10.0.0.5:8080/v1/chat/completions") == "http://10.0.0.5:8080/v1"
    assert base_url(" https://h.example/v1/models/ ") == "https://h.example/v1"
    assert base_url("localhost:8080/v1/completions?x=1") == "localhost:8080/v1"
    assert base_url("http://10.0.0.5:8080/v1") == "http://10.0.0.5:8080/v1"
    assert base_url("/models") == "/models"  # nothing before it: left as typed
