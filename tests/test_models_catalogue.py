"""The model catalogue: bundled models, GGUF metadata, configs, API keys, the saved list."""

from __future__ import annotations

import json

import pytest

from engine import api_keys, paths
from engine.api_keys import ApiKeyError
from engine.backends.build import make_chat
from engine.backends.llama import LlamaChat
from engine.backends.openai_compat import OpenAIChat
from engine.errors import InvalidInputError, ModelLoadError
from models import catalogue
from models.catalogue import ModelConfig
from models.machine import gpu_offload_supported


def test_bundled_models_are_found_without_network():
    assert catalogue.bundled_gguf_path().is_file()
    assert (catalogue.bundled_embedder_path() / "config.json").is_file()


def test_gguf_info_reads_the_header_only():
    info = catalogue.gguf_info(catalogue.bundled_gguf_path())
    assert info.architecture == "llama"
    assert info.quantisation == "Q4_1"
    assert info.context_length == 8192
    assert "<|im_start|>" in (info.chat_template or "")
    assert 130e6 < info.parameters < 140e6
    assert info.size_bytes > 50e6


def test_gguf_info_refuses_other_files(tmp_path):
    garbage = tmp_path / "model.gguf"
    garbage.write_bytes(b"\x00" * 100)
    with pytest.raises(ModelLoadError, match="not a valid GGUF model file .its header"):
        catalogue.gguf_info(garbage)
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(catalogue.bundled_gguf_path().read_bytes()[:5000])
    with pytest.raises(ModelLoadError, match="damaged or truncated"):
        catalogue.gguf_info(truncated)
    with pytest.raises(ModelLoadError, match="not found"):
        catalogue.gguf_info(tmp_path / "missing.gguf")


def test_model_config_round_trips_and_accepts_the_app_aliases():
    config = ModelConfig(source="gguf", gguf_path="/m.gguf", n_gpu_layers=10, n_ctx=8192)
    assert ModelConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    alias = ModelConfig(source="openai", url="http://h:1/v1", model="llama3", n_threads=None)
    assert (alias.source, alias.url_model, alias.n_threads) == ("url", "llama3", 0)
    assert ModelConfig.from_dict({"source": "bundled", "unknown": 1}).source == "bundled"
    with pytest.raises(InvalidInputError):
        ModelConfig(source="gguf").validate()


def test_make_chat_builds_without_loading(memory_keyring):
    chat = make_chat(ModelConfig(n_ctx=1024))
    assert isinstance(chat, LlamaChat) and not chat.loaded and chat.context_window == 1024
    api_keys.set_api_key("http://127.0.0.1:9/v1/", "sk-abc")
    remote = make_chat(ModelConfig(source="url", url="127.0.0.1:9", url_model="m"))
    assert isinstance(remote, OpenAIChat)
    assert remote.base_url == "http://127.0.0.1:9/v1" and remote._api_key == "sk-abc"


def test_api_keys_live_in_the_keyring_only(memory_keyring, home):
    api_keys.set_api_key("https://api.example.com/v1", "sk-secret-1")
    assert api_keys.get_api_key("https://api.example.com/v1/") == "sk-secret-1"
    assert memory_keyring.secrets == {
        (api_keys.KEYRING_SERVICE, "https://api.example.com/v1"): "sk-secret-1"
    }
    catalogue.add_endpoint("https://api.example.com/v1", "gpt-4o-mini")
    on_disk = "".join(p.read_text() for p in home.rglob("*") if p.is_file())
    assert "sk-secret-1" not in on_disk
    api_keys.set_api_key("https://api.example.com/v1", None)
    assert api_keys.get_api_key("https://api.example.com/v1") is None


def test_unusable_keyring_is_a_clear_error(fail_keyring):
    with pytest.raises(ApiKeyError, match="No usable system keyring") as caught:
        api_keys.set_api_key("http://h/v1", "sk-never-shown")
    assert "sk-never-shown" not in str(caught.value)
    with pytest.raises(ApiKeyError):
        api_keys.get_api_key("http://h/v1")
    # A server that needs no key still works without a keyring.
    assert isinstance(
        make_chat(ModelConfig(source="url", url="https://h", url_model="m")), OpenAIChat
    )


def test_the_saved_list_of_models(tmp_path):
    assert [entry.id for entry in catalogue.list_models()] == ["bundled"]
    copy = tmp_path / "copy.gguf"
    copy.write_bytes(catalogue.bundled_gguf_path().read_bytes())
    added = catalogue.add_gguf(copy)
    assert added.info["quantisation"] == "Q4_1" and "Q4_1" in added.label
    endpoint = catalogue.add_endpoint("localhost:11434", "llama3.1:8b")
    assert endpoint.url == "http://localhost:11434/v1"
    catalogue.add_gguf(copy)  # adding again does not duplicate
    models = catalogue.list_models()
    assert [m.source for m in models] == ["bundled", "url", "gguf"]
    assert (paths.config_dir() / "models.json").is_file()
    config = models[2].config(n_ctx=2048)
    assert config.source == "gguf" and config.gguf_path == added.path and config.n_ctx == 2048
    copy.unlink()
    assert not catalogue.list_models()[2].available
    assert catalogue.remove(added.id) and catalogue.remove(endpoint)
    assert not catalogue.remove("gguf:/nothing")
    assert [entry.id for entry in catalogue.list_models()] == ["bundled"]
    with pytest.raises(ModelLoadError):
        catalogue.add_gguf(tmp_path / "nothing.gguf")


def test_gpu_offload_is_reported_as_a_bool():
    assert isinstance(gpu_offload_supported(), bool)


def test_a_broken_gguf_is_told_to_be_fetched_again_and_other_files_converted(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"<html>Not Found</html>")
    with pytest.raises(ModelLoadError) as raised:
        catalogue.gguf_info(broken)
    assert str(raised.value) == (
        "broken.gguf is not a valid GGUF model file (its header is not GGUF's): download it "
        "again, or pick another file."
    )
    other = tmp_path / "model.safetensors"
    other.write_bytes(b"\x00" * 64)
    with pytest.raises(ModelLoadError, match="model.safetensors is not a GGUF model file .llama"):
        catalogue.gguf_info(other)


@pytest.fixture
def cut_model(tmp_path):
    """The bundled GGUF's first 3 MB: its whole header and tensor list, most weights missing
    (a download that stopped early and was renamed, or a copy cut short)."""
    cut = tmp_path / "cut" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    cut.parent.mkdir()
    with open(catalogue.bundled_gguf_path(), "rb") as whole:
        cut.write_bytes(whole.read(3_000_000))
    return cut


def test_an_incomplete_gguf_is_refused_with_what_it_lacks(cut_model):
    from engine.gguf import check_gguf_file, read_header
    from models.fit import shape_of

    def load(path):  # the app's load says so before llama.cpp's "not within the file bounds"
        LlamaChat(path).load()

    whole = catalogue.bundled_gguf_path().stat().st_size
    for check in (check_gguf_file, read_header, catalogue.gguf_info, shape_of, load):
        with pytest.raises(ModelLoadError) as raised:
            check(cut_model)
        message = str(raised.value)
        assert "incomplete" in message and "Download it again" in message
        assert f"at 3.0 MB of the {whole / 1e6:.0f} MB" in message
    check_gguf_file(catalogue.bundled_gguf_path())  # the whole file passes


def test_a_file_made_whole_again_is_accepted_at_once(cut_model):
    """The answer is kept only while the file is unchanged: once it is as long as its header
    says (zeros where the weights were: sizes are compared, weights never read) it passes."""
    import os

    from engine.gguf import check_gguf_file

    with pytest.raises(ModelLoadError, match="incomplete"):
        check_gguf_file(cut_model)
    os.truncate(cut_model, catalogue.bundled_gguf_path().stat().st_size)
    assert check_gguf_file(cut_model) == cut_model


def test_the_model_list_marks_an_incomplete_file_unusable(cut_model):
    from models.overview import overview

    found = overview(
        home=cut_model.parent / "home", folders=[str(cut_model.parent)], probe=False, environ={}
    )
    model = next(item for item in found.files if item.path == str(cut_model))
    assert model.info is None and "incomplete" in model.error
    assert model.path not in found.file_fits  # no "yes · 8,192 tokens" for it
