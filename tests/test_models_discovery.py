"""Discovery of GGUF files in the folders LM Studio, GPT4All, Jan, the HF cache and Ollama use."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.gguf import gguf_info
from models.catalogue import bundled_gguf_path
from models.discovery import find_models, ollama_models

SMOL_PARAMETERS = 134_515_008


@pytest.fixture(scope="module")
def gguf_copy(tmp_path_factory) -> Path:
    """One copy of the bundled GGUF on the test's file system, so the layouts can hard-link it."""
    copy = tmp_path_factory.mktemp("source") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shutil.copyfile(bundled_gguf_path(), copy)
    return copy


def place(source: Path, target: Path) -> Path:
    """A distinct file with the model's bytes (a hard link: no 98 MB copy per layout)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.link(source, target)
    return target


def test_every_tool_layout_is_found_with_metadata(tmp_path, gguf_copy):
    home = tmp_path / "person"
    data = home / ".local" / "share"
    place(
        gguf_copy, home / ".lmstudio/models/lmstudio-community/SmolLM2-GGUF/SmolLM2-135M-Q4_1.gguf"
    )
    place(gguf_copy, home / ".cache/lm-studio/models/old/SmolLM2-GGUF/old-smol.gguf")
    place(gguf_copy, data / "nomic.ai/GPT4All/smollm2-135m.gguf")
    place(gguf_copy, home / "jan/models/smollm2-135m/smollm2-135m.gguf")
    place(gguf_copy, data / "Jan/data/llamacpp/models/smollm2-jan/model.gguf")
    # Hugging Face cache: the snapshot entry is a relative symlink to a content-addressed blob.
    repo = home / ".cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-135M-Instruct-GGUF"
    blob = place(gguf_copy, repo / "blobs" / ("ab" * 32))
    snapshot = repo / "snapshots" / "0123abcd" / "smollm2-135m-instruct-q4_1.gguf"
    snapshot.parent.mkdir(parents=True)
    snapshot.symlink_to(os.path.relpath(blob, snapshot.parent))
    # Ollama: a manifest whose model layer names a blob, and one whose blob is gone.
    digest = "cd" * 32
    ollama = home / ".ollama/models"
    place(gguf_copy, ollama / "blobs" / f"sha256-{digest}")
    manifest = {
        "schemaVersion": 2,
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "digest": "sha256:" + "ee" * 32,
        },
        "layers": [
            {
                "mediaType": "application/vnd.ollama.image.model",
                "digest": f"sha256:{digest}",
                "size": 1,
            },
            {
                "mediaType": "application/vnd.ollama.image.template",
                "digest": "sha256:" + "ff" * 32,
                "size": 1,
            },
        ],
    }
    for relative in (
        "registry.ollama.ai/library/smollm2/135m",
        "hf.co/bartowski/SmolLM2-GGUF/Q4_1",
    ):
        file = ollama / "manifests" / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(manifest))
    gone = ollama / "manifests/registry.ollama.ai/library/missing/latest"
    gone.parent.mkdir(parents=True)
    gone.write_text(
        json.dumps(
            {
                "layers": [
                    {
                        "mediaType": "application/vnd.ollama.image.model",
                        "digest": "sha256:" + "00" * 32,
                    }
                ]
            }
        )
    )
    # A folder the person picked: one model, a download in progress, later shards, a projector,
    # a text file pretending to be a model, and a link to the LM Studio file (listed once).
    picked = tmp_path / "my models"
    place(gguf_copy, picked / "mine.gguf")
    place(gguf_copy, picked / "big-00001-of-00002.gguf")
    place(gguf_copy, picked / "big-00002-of-00002.gguf")
    place(gguf_copy, picked / "mmproj-model-f16.gguf")
    (picked / "half.gguf.part").write_bytes(b"GGUF" + b"\0" * 100)
    (picked / "notes.gguf").write_text("not a model")
    (picked / "again.gguf").symlink_to(
        home / ".lmstudio/models/lmstudio-community/SmolLM2-GGUF/SmolLM2-135M-Q4_1.gguf"
    )

    found = find_models(home=home, folders=[picked], environ={})

    listed = {(model.source, model.name) for model in found}
    assert listed == {
        ("lmstudio", "SmolLM2-135M-Q4_1"),
        ("lmstudio", "old-smol"),
        ("gpt4all", "smollm2-135m"),
        ("jan", "smollm2-135m"),
        ("jan", "model"),
        ("huggingface", "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/smollm2-135m-instruct-q4_1.gguf"),
        ("ollama", "smollm2:135m"),
        ("ollama", "hf.co/bartowski/SmolLM2-GGUF:Q4_1"),
        ("folder", "mine"),
        ("folder", "big-00001-of-00002"),
        ("folder", "notes"),
    }
    by_name = {model.name: model for model in found}
    # Both Ollama manifests point at the same blob, and both names are listed (as `ollama list`).
    assert by_name["smollm2:135m"].path == str(ollama / "blobs" / f"sha256-{digest}")
    assert by_name["SmolLM2-135M-Q4_1"].also_in == ["folder"]
    assert "not a valid GGUF model file" in by_name["notes"].error and by_name["notes"].info is None
    for model in found:
        if model.name == "notes":
            continue
        info = model.info
        assert (info.architecture, info.parameters, info.quantisation, info.context_length) == (
            "llama",
            SMOL_PARAMETERS,
            "Q4_1",
            8192,
        ), model.name
        assert info.chat_template.startswith("{% for message in messages %}")
    assert [model.to_dict()["tool"] for model in found if model.name == "smollm2:135m"] == [
        "Ollama"
    ]


def test_ollama_names_follow_the_registry(tmp_path, gguf_copy):
    root = tmp_path / "ollama"
    place(gguf_copy, root / "blobs" / ("sha256-" + "12" * 32))
    layer = {
        "layers": [
            {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + "12" * 32}
        ]
    }
    for relative in (
        "registry.ollama.ai/library/qwen3/8b",
        "registry.ollama.ai/someone/tiny/latest",
    ):
        file = root / "manifests" / relative
        file.parent.mkdir(parents=True)
        file.write_text(json.dumps(layer))
    (root / "manifests" / "registry.ollama.ai" / "library" / "qwen3" / "broken").write_text(
        "{not json"
    )
    assert sorted(name for name, _ in ollama_models(root)) == ["qwen3:8b", "someone/tiny:latest"]


def test_empty_home_finds_nothing(tmp_path):
    assert find_models(home=tmp_path, environ={}) == []


@pytest.mark.slow  # gguf.GGUFReader takes seconds to read the bundled file
def test_the_gguf_library_reads_the_same_metadata():
    """The header reader stays for speed (see models/gguf.py); the gguf package is the reference."""
    from gguf import GGUFReader

    path = bundled_gguf_path()
    reader = GGUFReader(path)
    fields = reader.fields
    ours = gguf_info(path)
    arch = fields["general.architecture"].contents()
    assert ours.architecture == arch
    assert ours.context_length == fields[f"{arch}.context_length"].contents()
    assert ours.chat_template == fields["tokenizer.chat_template"].contents()
    assert ours.parameters == sum(int(tensor.n_elements) for tensor in reader.tensors)
    assert ours.quantisation == "Q4_1" and fields["general.file_type"].contents() == 3
