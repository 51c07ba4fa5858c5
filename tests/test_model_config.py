"""One ModelConfig from every way a model is chosen; models/ and the backends stay apart."""

from __future__ import annotations

import ast

import pytest

from engine.errors import InvalidInputError
from engine.model_config import ModelConfig
from tests.helpers import ROOT


def test_a_model_spec_is_parsed_into_a_config():
    assert ModelConfig.parse("bundled") == ModelConfig(source="bundled")
    assert ModelConfig.parse("gguf:/m/q4.gguf") == ModelConfig(
        source="gguf", gguf_path="/m/q4.gguf"
    )
    assert ModelConfig.parse("url:http://h:1/v1", "llama3") == ModelConfig(
        source="url", url="http://h:1/v1", url_model="llama3"
    )
    with pytest.raises(InvalidInputError, match="use bundled, gguf:PATH or url:BASE_URL"):
        ModelConfig.parse("ollama")


def test_the_apps_saved_choice_becomes_the_same_config():
    saved = {"model_source": "gguf", "gguf_path": "/m/q4.gguf", "gpu_layers": 12,
             "context_size": 8192, "threads": 4, "server_url": "http://h/v1"}  # fmt: skip
    assert ModelConfig.from_settings(saved) == ModelConfig(
        source="gguf", gguf_path="/m/q4.gguf", n_gpu_layers=12, n_ctx=8192, n_threads=4
    )
    server = {"model_source": "openai", "server_url": "http://h/v1", "server_model": "m"}
    assert ModelConfig.from_settings(server) == ModelConfig(
        source="url", url="http://h/v1", url_model="m"
    )
    # a half-made or unknown choice is the bundled model, as the CLI always did
    assert ModelConfig.from_settings({"model_source": "gguf"}).source == "bundled"
    assert ModelConfig.from_settings({"model_source": "mystery"}).source == "bundled"
    assert ModelConfig.from_settings({}) == ModelConfig()


def _imports(folder: str) -> list[tuple[str, str]]:
    found = []
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(path.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((path.name, node.module))
    return found


def test_models_is_data_and_the_backends_do_not_reach_into_it():
    assert [i for i in _imports("models") if i[1].startswith("engine.backends")] == []
    assert [i for i in _imports("engine/backends") if i[1].split(".")[0] == "models"] == []


def test_the_terminal_uses_the_embedder_chosen_in_the_app(home, tmp_path):
    import json

    from tests.helpers import run_cli

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"user": "I keep bees.", "assistant": "Nice."}]), encoding="utf-8")
    created = run_cli("import", str(chat), "--create", "--embedder", "fake", "--no-consolidate",
                      home=home)
    assert created.returncode == 0, created.stderr
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"embedder": "fake"}), encoding="utf-8")
    listed = run_cli("export", "-", home=home)  # no --embedder: the app's choice opens it
    assert listed.returncode == 0, listed.stderr
    assert [p["user_input"] for p in json.loads(listed.stdout)["pages"]] == ["I keep bees."]
    settings.write_text(json.dumps({"embedder": str(tmp_path)}), encoding="utf-8")
    refused = run_cli("export", "-", home=home)
    assert refused.returncode == 2
    assert b"is not a sentence-transformers model folder" in refused.stderr
