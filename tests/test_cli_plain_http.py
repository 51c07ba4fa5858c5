"""Plain http:// to another computer from the terminal: refused with the terminal's way to allow
it (--allow-plain-http, or the app's saved setting for the app's saved server), never "in
Settings", which a terminal does not have; the app keeps its own wording."""

from __future__ import annotations

import json

import pytest

from engine.backends.openai_compat import OpenAIChat
from engine.errors import ServerError
from engine.network import TREAT_AS_REMOTE_ENV
from tests.helpers import run_cli
from tests.local_servers import ChatServer

FAKE = ("--embedder", "fake")


@pytest.fixture
def server():
    """A real OpenAI-compatible server on 127.0.0.1, which counts as another computer when
    MEMORYOS_TREAT_AS_REMOTE names it (loopback is always allowed plain http)."""
    with ChatServer(["m"], ["Hello from ", "the server"]) as chat_server:
        yield chat_server


def _remote(server: ChatServer) -> dict:
    return {TREAT_AS_REMOTE_ENV: f"127.0.0.1:{server.port}"}


def _save_app_settings(home, url: str, allow: bool) -> None:
    """The desktop app's settings file, as Settings saves it: a server chosen, plain http
    allowed or not."""
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    choice = {"model_source": "openai", "server_url": url, "server_model": "m"}
    settings.write_text(json.dumps({**choice, "allow_plain_http": allow}), encoding="utf-8")


def _refused_in_terminal_words(out, server: ChatServer) -> None:
    said = out.stderr.decode()
    assert out.returncode == 2, said  # how the command was called: exits as a bad option does
    assert f"refusing plain http:// to 127.0.0.1:{server.port}" in said
    assert "--allow-plain-http" in said and "Settings" not in said
    assert server.requests == []  # refused before anything was sent


def test_chat_refuses_plain_http_to_another_computer_and_says_how_to_allow_it(home, server):
    out = run_cli("chat", "--url", server.url, "--url-model", "m", "--create", *FAKE,
                  home=home, stdin="hello\n", env=_remote(server))  # fmt: skip
    _refused_in_terminal_words(out, server)


@pytest.mark.parametrize("command", [
    ("chat", "--model", "url:http://192.168.1.20:8080/v1", "--url-model", "m", "--create"),
    ("chat", "--url", "http://192.168.1.20:8080/v1", "--url-model", "m", "--create"),
    ("mcp", "--model", "url:http://192.168.1.20:8080/v1", "--url-model", "m", "--create"),
])  # fmt: skip
def test_an_address_on_the_local_network_is_refused_as_a_usage_error(home, command):
    """Exit 2, as argparse's usage errors and the project's validation exit, not 1 (a failure
    of the program or its environment): the fix is in how the command was typed."""
    out = run_cli(*command, *FAKE, home=home, stdin="hello\n", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 2 and "refusing plain http:// to 192.168.1.20:8080" in said
    assert "--allow-plain-http" in said and "Settings" not in said
    assert "Traceback" not in said


def test_allow_plain_http_lets_chat_use_the_server(home, server):
    """(`--url` once silently meant --url-model, an abbreviation to argparse: the bundled model
    answered instead of the server.)"""
    out = run_cli("chat", "--url", server.url, "--url-model", "m", "--allow-plain-http",
                  "--create", *FAKE, home=home, stdin="hello\n", env=_remote(server))  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert "Hello from the server" in out.stdout.decode()
    assert "which is not this computer" in out.stderr.decode()  # the remote notice, as ever
    assert any("hello" in json.dumps(request) for request in server.requests)


def test_url_and_model_together_are_refused(home, server):
    both = run_cli("chat", "--url", server.url, "--model", "bundled", *FAKE, home=home)
    assert both.returncode == 2 and "not both" in both.stderr.decode()


@pytest.mark.parametrize("allowed", [True, False])
def test_the_apps_saved_setting_applies_to_the_apps_saved_server(home, server, allowed):
    _save_app_settings(home, server.url, allow=allowed)
    out = run_cli("chat", "--create", *FAKE, home=home, stdin="hello\n", env=_remote(server))
    if allowed:
        assert out.returncode == 0, out.stderr.decode()
        assert "Hello from the server" in out.stdout.decode()
    else:
        _refused_in_terminal_words(out, server)


def test_the_apps_saved_setting_does_not_open_an_address_typed_in_the_terminal(home, server):
    # allowed for the server chosen in the app, not for this one
    _save_app_settings(home, "http://192.168.1.20:8080/v1", allow=True)
    out = run_cli("chat", "--url", server.url, "--url-model", "m", "--create", *FAKE,
                  home=home, stdin="hello\n", env=_remote(server))  # fmt: skip
    _refused_in_terminal_words(out, server)


def test_mcp_refuses_plain_http_unless_allowed(home, server):
    args = ("mcp", "--create", "--model", f"url:{server.url}", "--url-model", "m", *FAKE)
    refused = run_cli(*args, home=home, stdin="", env=_remote(server))
    _refused_in_terminal_words(refused, server)
    allowed = run_cli(*args, "--allow-plain-http", home=home, stdin="", env=_remote(server))
    assert allowed.returncode == 0, allowed.stderr.decode()
    assert "refusing" not in allowed.stderr.decode()


def test_chat_and_mcp_help_name_the_flag(home):
    for command in ("chat", "mcp"):
        text = run_cli(command, "--help", home=home).stdout.decode()
        assert "--allow-plain-http" in text and "plain http://" in text


def test_the_app_keeps_its_settings_wording():
    """The app builds the same backend with no hint: its refusal points at Settings."""
    with pytest.raises(ServerError) as refused:
        OpenAIChat("http://192.168.1.20:8080/v1", "m")
    assert "in Settings" in str(refused.value) and "--allow-plain-http" not in str(refused.value)


@pytest.mark.parametrize("argv", [
    ("facts", "list", "--sea", "x"),  # --search
    ("chat", "--temp"),  # --temporary
    ("mcp", "--url", "http://127.0.0.1:9/v1"),  # --url-model
])
def test_an_abbreviated_option_is_refused_not_taken_for_a_longer_one(home, argv):
    out = run_cli(*argv, *FAKE, home=home, stdin="", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 2, said
    abbreviated = next(word for word in argv if word.startswith("--"))
    assert f"unrecognized arguments: {abbreviated}" in said
