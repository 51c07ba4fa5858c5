"""Server addresses typed to a terminal command (chat --url/--model url:, mcp --model url:, eval
locomo --llm url:/--judge-url): one that is not an address is a bad option, exit 2, with what
an address looks like; plain http:// to another computer needs --allow-plain-http in each."""

from __future__ import annotations

import json

import pytest

from engine.cli import EVAL_EXTRA, _installed
from engine.network import TREAT_AS_REMOTE_ENV
from tests.helpers import run_cli
from tests.local_servers import ChatServer

FAKE = ("--embedder", "fake")
needs_eval_extra = pytest.mark.skipif(
    not all(_installed(name) for name in EVAL_EXTRA), reason="the [eval] extra is not installed"
)
# Each way an address is typed wrong: no "://" after a scheme, nothing, no computer name, a port
# past 65535, a space
MALFORMED = ["htp:/x", "", "http://", "http://example.org:99999/v1", "http://a b/v1"]


@pytest.fixture
def server():
    with ChatServer(["m"], ["Hello from ", "the server"]) as chat_server:
        yield chat_server


def _remote(server: ChatServer) -> dict:
    return {TREAT_AS_REMOTE_ENV: f"127.0.0.1:{server.port}"}


def _usage_error(out, option: str) -> str:
    """Exit 2 (how the command was typed), naming the option and what an address looks like."""
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert option in said and "http://127.0.0.1:8080/v1" in said, said
    assert "Traceback" not in said
    return said


@pytest.mark.parametrize("typed", MALFORMED)
def test_chat_refuses_a_malformed_url_as_a_bad_option(home, typed):
    out = run_cli("chat", "--url", typed, "--url-model", "m", "--create", *FAKE, home=home,
                  stdin="hello\n", timeout=60)  # fmt: skip
    _usage_error(out, "--url")
    assert not list(home.rglob("*.memoryos"))  # no vault made for a chat that cannot start


def test_an_empty_url_is_refused_not_taken_for_no_url(home):
    """`--url ''` once chatted with the bundled model, as if --url had not been given."""
    out = run_cli("chat", "--url", "", *FAKE, home=home, stdin="hello\n", timeout=60)
    assert "no server address" in _usage_error(out, "--url").lower()
    assert "assistant>" not in out.stdout.decode()


@pytest.mark.parametrize(
    "command",
    [
        ("chat", "--model", "url:htp:/x", "--url-model", "m", "--create"),
        ("chat", "--model", "url:", "--create"),
        ("mcp", "--model", "url:htp:/x", "--url-model", "m", "--create"),
        ("mcp", "--model", "url:http://", "--url-model", "m", "--create"),
    ],
)
def test_a_malformed_model_url_is_a_bad_option(home, command):
    out = run_cli(*command, *FAKE, home=home, stdin="", timeout=60)
    _usage_error(out, "--model")
    assert not list(home.rglob("*.memoryos"))


def test_an_address_without_a_scheme_is_taken_as_http(home, server):
    """host:port is an address (the app takes it too): http:// is added, and it answers."""
    out = run_cli("chat", "--url", f"127.0.0.1:{server.port}", "--url-model", "m", "--create",
                  *FAKE, home=home, stdin="hello\n", timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert "Hello from the server" in out.stdout.decode()


def test_a_malformed_address_saved_in_the_app_points_at_settings(home):
    """Not how the command was typed (exit 1, not 2): the fix is in Settings or --model."""
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    saved = {"model_source": "openai", "server_url": "htp:/x", "server_model": "m"}
    settings.write_text(json.dumps(saved), encoding="utf-8")
    out = run_cli("chat", "--create", *FAKE, home=home, stdin="hello\n", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 1, said
    assert "Settings" in said and "--model" in said and "http://127.0.0.1:8080/v1" in said


# ---- memoryos eval locomo ------------------------------------------------------------------


def _eval(home, tmp_path, *options: str, env: dict | None = None):
    from tests.test_eval_locomo import sample

    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([sample()]), encoding="utf-8")
    return run_cli("eval", "locomo", "--data", str(data), "--out", str(tmp_path / "out"),
                   "--limit-questions", "1", "--baseline-answers", "none", "--no-progress",
                   *FAKE, *options, home=home, env=env, timeout=120)  # fmt: skip


@needs_eval_extra
@pytest.mark.parametrize("option", ["--llm", "--judge-url"])
@pytest.mark.parametrize("typed", ["htp:/x", "", "http://"])
def test_eval_refuses_a_malformed_url_before_making_anything(home, tmp_path, option, typed):
    value = f"url:{typed}" if option == "--llm" else typed
    out = _eval(home, tmp_path, option, value, "--llm-model", "m")
    _usage_error(out, option)
    assert not (tmp_path / "out").exists()


@needs_eval_extra
@pytest.mark.parametrize("option", ["--llm", "--judge-url"])
def test_eval_refuses_plain_http_elsewhere_with_the_terminals_way_to_allow_it(
    home, tmp_path, server, option
):
    """It said to allow plain http "in Settings", which a terminal command has not."""
    value = f"url:{server.url}" if option == "--llm" else server.url
    out = _eval(home, tmp_path, option, value, "--llm-model", "m", env=_remote(server))
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert f"refusing plain http:// to 127.0.0.1:{server.port}" in said
    assert "--allow-plain-http" in said and "Settings" not in said
    assert server.requests == [] and not (tmp_path / "out").exists()


@needs_eval_extra
def test_eval_allow_plain_http_lets_it_use_the_server(home, tmp_path, server):
    out = _eval(home, tmp_path, "--llm", f"url:{server.url}", "--llm-model", "m",
                "--allow-plain-http", env=_remote(server))  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert any(request.get("messages") for request in server.requests)  # it answered from there
    assert (tmp_path / "out" / "results.json").is_file()


@needs_eval_extra
def test_eval_help_names_the_flag(home):
    text = run_cli("eval", "locomo", "--help", home=home).stdout.decode()
    assert "--allow-plain-http" in text and "plain http://" in text


# ---- the address before the model name -----------------------------------------------------

ELSEWHERE = "http://192.168.1.5:8080/v1"  # refused before any connection: nothing is reached


@pytest.mark.parametrize(
    "command",
    [
        ("chat", "--url", ELSEWHERE),
        ("chat", "--model", f"url:{ELSEWHERE}"),
        ("mcp", "--model", f"url:{ELSEWHERE}"),
    ],
)
def test_plain_http_elsewhere_is_refused_before_the_model_name_is_asked(home, command):
    """It asked for --url-model first, and only once given refused the plain http:// address:
    two tries to learn what blocks it."""
    out = run_cli(*command, "--create", *FAKE, home=home, stdin="", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert "refusing plain http:// to 192.168.1.5:8080" in said, said
    assert "--allow-plain-http" in said and "--url-model" not in said, said
    assert not list(home.rglob("*.memoryos"))


def test_the_model_name_is_asked_once_plain_http_is_allowed(home):
    out = run_cli("chat", "--url", ELSEWHERE, "--allow-plain-http", "--create", *FAKE,
                  home=home, stdin="", timeout=60)  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert "--url-model" in said and "refusing" not in said, said
