"""A terminal command called wrongly exits 2 and says what to change, before it makes anything:
`memoryos mcp` refuses a bad --model/--url-model/--embedder as `memoryos chat` does, `memoryos
eval locomo` checks every option before making its --out folder. What is not how the command
was typed (a wrong passphrase, the app's saved model, a --config file's contents) exits 1."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import run_cli
from tests.local_servers import ChatServer
from tests.test_cli_addresses import FAKE, _eval, needs_eval_extra
from tests.test_mcp_server import make_vault

# (options, what the message tells the caller to give or change)
BAD_MODEL_OPTIONS = [
    (("--model", "foo"), "bundled, gguf:PATH or url:"),
    (("--model", "url:http://127.0.0.1:9/v1"), "--url-model NAME"),
    (("--model", "gguf:/no/such/model.gguf"), "gguf:PATH"),
]


@pytest.mark.parametrize("command", ["chat", "mcp"])
@pytest.mark.parametrize(("options", "advice"), BAD_MODEL_OPTIONS)
def test_a_bad_model_option_exits_2_from_chat_and_mcp_alike(home, command, options, advice):
    out = run_cli(command, *options, "--create", *FAKE, home=home, stdin="", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert advice in said and "Traceback" not in said
    assert not list(home.rglob("*.memoryos"))  # no vault made by a command that cannot start


@pytest.mark.parametrize("command", ["chat", "mcp"])
def test_an_embedder_that_is_no_model_folder_exits_2(home, tmp_path, command):
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    out = run_cli(command, "--embedder", str(folder), "--create", home=home, stdin="",
                  timeout=60)  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert "sentence-transformers model folder" in said and "Traceback" not in said
    assert not list(home.rglob("*.memoryos"))


def test_mcp_still_exits_1_for_a_wrong_passphrase(home):
    """Not a mistake in the command line: README's "wrong key or passphrase", status 1."""
    vault = make_vault(home)
    before = vault.read_bytes()
    out = run_cli("mcp", "--vault-path", str(vault), *FAKE, home=home,
                  passphrase="not the passphrase", stdin="", timeout=60)  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 1, said
    assert "wrong key or passphrase" in said
    assert vault.read_bytes() == before


def test_mcp_model_saved_with_a_malformed_saved_address_exits_1_pointing_at_settings(home):
    """The address was chosen in the app, not typed: exit 1, saying where to change it."""
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    saved = {"model_source": "openai", "server_url": "htp:/x", "server_model": "m"}
    settings.write_text(json.dumps(saved), encoding="utf-8")
    out = run_cli("mcp", "--model", "saved", "--create", *FAKE, home=home, stdin="", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 1, said
    assert "Settings" in said and "--model" in said
    assert not list(home.rglob("*.memoryos"))


def test_mcp_config_with_a_malformed_openai_base_url_names_the_key(home, tmp_path):
    """The message named no key, so the person could not tell which value of the file was
    wrong. A bad config file exits 1 (tests/test_mcp_reference.py), and makes nothing."""
    data = tmp_path / "data"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "user_id": "tom", "openai_api_key": "sk-local", "data_storage_path": str(data),
        "openai_base_url": "htp:/x", "llm_model": "m",
    }), encoding="utf-8")  # fmt: skip
    out = run_cli("mcp", "--config", str(config), *FAKE, home=home, stdin="", timeout=60)
    said = out.stderr.decode()
    assert out.returncode == 1, said
    assert "openai_base_url" in said and "http://127.0.0.1:8080/v1" in said
    assert "Traceback" not in said
    assert not data.exists() and not list(home.rglob("*.memoryos"))


# ---- memoryos eval locomo ------------------------------------------------------------------


@needs_eval_extra
@pytest.mark.parametrize(
    ("options", "advice"),
    [
        (("--llm", "url:http://127.0.0.1:9/v1"), "--llm-model NAME"),
        (("--llm", "foo"), "bundled, gguf:PATH or url:"),
        (("--llm", "gguf:/no/such/model.gguf"), "gguf:PATH"),
        (("--embedder", "/no/such/model-folder"), "sentence-transformers model folder"),
        (("--conversations", "conv-999"), "the conversations there"),
    ],
)
def test_eval_refuses_a_bad_option_before_making_its_out_folder(home, tmp_path, options, advice):
    out = _eval(home, tmp_path, *options)
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert advice in said and "Traceback" not in said
    assert not (tmp_path / "out").exists()


@needs_eval_extra
@pytest.mark.parametrize("given", ["--judge-url", "--judge-model"])
def test_eval_refuses_half_a_judge_at_once(home, tmp_path, given):
    """--judge-url without --judge-model sent every answer to the judge with no model name,
    and --judge-model without --judge-url was ignored: either showed only after the whole run.
    Now the missing option is named before anything is made or sent."""
    with ChatServer(["m"], ["CORRECT"]) as server:
        judge = {"--judge-url": server.url, "--judge-model": "m"}
        started = time.monotonic()
        out = _eval(home, tmp_path, "--llm", f"url:{server.url}", "--llm-model", "m",
                    given, judge[given])  # fmt: skip
        took = time.monotonic() - started
        asked = list(server.requests)
    said = out.stderr.decode()
    missing = "--judge-model NAME" if given == "--judge-url" else "--judge-url URL"
    assert out.returncode == 2, said
    assert missing in said and "Traceback" not in said, said
    assert took < 30, took  # at once, not after the conversations were read and answered
    assert asked == [] and not (tmp_path / "out").exists()


@needs_eval_extra
def test_eval_refuses_missing_data_before_making_its_out_folder(home, tmp_path):
    out = run_cli("eval", "locomo", "--data", str(tmp_path / "missing.json"), "--out",
                  str(tmp_path / "out"), *FAKE, home=home, timeout=120)  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert "--data" in said and "locomo10.json" in said
    assert not (tmp_path / "out").exists()
