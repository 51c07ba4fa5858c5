"""Fitting a model to the machine (GPU layers, context, threads with reasons) and `memoryos models`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from models.catalogue import bundled_gguf_path
from models.fit import fit_model, shape_of
from models.machine import Machine
from models.recommended import RECOMMENDED
from tests.helpers import ROOT

GiB = 1024**3
QWEN7B = next(model for model in RECOMMENDED if model.name == "Qwen2.5 7B Instruct")


def machine(free_ram: int = 16 * GiB, free_vram: int = 0, cores: int = 8) -> Machine:
    return Machine(
        total_ram=32 * GiB,
        free_ram=free_ram,
        free_vram=free_vram,
        gpu_name="RTX Test" if free_vram else "",
        physical_cores=cores,
        logical_cores=cores * 2,
    )


def test_cpu_only_build_runs_everything_on_the_cpu():
    fit = fit_model(QWEN7B.shape(), machine(free_vram=24 * GiB), gpu_offload=False)
    assert (fit.fits, fit.n_gpu_layers, fit.where, fit.n_threads, fit.n_ctx) == (
        True,
        0,
        "CPU",
        8,
        16384,
    )
    assert fit.reasons["gpu_layers"] == "0: this build of llama.cpp cannot offload to a GPU."
    assert fit.reasons["threads"].startswith("8: this computer has 8 physical cores")
    assert "capped at 16,384" in fit.reasons["context"]


def test_a_big_gpu_takes_every_layer_and_a_longer_context():
    fit = fit_model(QWEN7B.shape(), machine(free_vram=24 * GiB), gpu_offload=True)
    assert (fit.n_gpu_layers, fit.where, fit.n_ctx) == (29, "GPU", 32768)
    assert fit.reasons["gpu_layers"].startswith(
        "all (29): the 4.7 GB model fits in the 25.8 GB free on RTX Test"
    )


def test_a_small_gpu_takes_the_layers_that_fit():
    fit = fit_model(QWEN7B.shape(), machine(free_vram=4 * GiB), gpu_offload=True)
    assert (fit.n_gpu_layers, fit.where) == (20, "GPU + CPU")
    assert fit.reasons["gpu_layers"].startswith("20 of 28: the 4.7 GB model does not fit")


def test_a_model_too_big_for_free_ram_is_marked():
    big = next(model for model in RECOMMENDED if model.name == "Qwen2.5 32B Instruct")
    fit = fit_model(big.shape(), machine(free_ram=8 * GiB), gpu_offload=False)
    assert not fit.fits
    assert fit.reasons["context"].startswith("does not fit: the 19.9 GB model")


def test_the_context_comes_from_the_file_metadata():
    shape = shape_of(bundled_gguf_path())
    assert (shape.layers, shape.kv_bytes_per_token, shape.trained_context) == (30, 23040, 8192)
    fit = fit_model(shape, machine(), gpu_offload=False)
    assert fit.n_ctx == 8192
    assert fit.reasons["context"].startswith("8,192 tokens: the model was trained for 8,192")


def test_memoryos_models_lists_files_and_recommendations(tmp_path):
    person = tmp_path / "person"
    target = person / ".lmstudio/models/community/SmolLM2-GGUF/smollm2.gguf"
    target.parent.mkdir(parents=True)
    os.symlink(bundled_gguf_path(), target)
    picked = tmp_path / "picked"
    picked.mkdir()
    shutil.copyfile(bundled_gguf_path(), picked / "copy.gguf")
    done = models_cli(tmp_path, person, "--json", "--no-probe", "--folder", str(picked))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(f["tool"], f["name"]) for f in data["files"]] == [
        ("LM Studio", "smollm2"),
        ("Chosen folder", "copy"),
    ]
    assert data["files"][0]["info"]["quantisation"] == "Q4_1"
    assert data["files"][0]["info"]["parameters"] == 134_515_008
    assert data["files"][0]["fit"]["n_ctx"] == 8192
    assert data["servers"] == []
    assert [r["name"] for r in data["recommended"]] == [model.name for model in RECOMMENDED]
    assert all({"fits", "n_ctx", "reasons"} <= set(r["fit"]) for r in data["recommended"])
    text = models_cli(tmp_path, person, "--no-probe", "--folder", str(picked)).stdout
    assert "On this computer (2 GGUF files)" in text
    assert "Built in               SmolLM2-135M Instruct (bundled demo" in text
    assert "LM Studio              smollm2" in text
    assert "Qwen2.5 7B Instruct" in text


def models_cli(tmp_path, person, *args: str) -> subprocess.CompletedProcess:
    """`python -m engine.cli models ...` with HOME pointing at a fake person's home."""
    env = dict(
        os.environ,
        MEMORYOS_HOME=str(tmp_path / "memoryos"),
        HOME=str(person),
        XDG_DATA_HOME="",
        HF_HOME="",
        HF_HUB_CACHE="",
        OLLAMA_MODELS="",
    )
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", "models", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_apple_silicon_counts_unified_memory_as_gpu_memory(monkeypatch):
    from models import machine as machine_module

    monkeypatch.setattr(machine_module.sys, "platform", "darwin")
    monkeypatch.setattr(machine_module.platform, "machine", lambda: "arm64")
    monkeypatch.setattr(machine_module, "free_ram", lambda: (16 * GiB, 10 * GiB))
    assert machine_module.free_vram() == (10 * GiB, "Apple GPU (unified memory)")
    monkeypatch.setattr(machine_module, "free_ram", lambda: (16 * GiB, 15 * GiB))
    assert machine_module.free_vram() == (12 * GiB, "Apple GPU (unified memory)")
