"""Fitting a model to the machine (GPU layers, context, threads with reasons) and `memoryos models`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from models.catalogue import bundled_gguf_path
from models.fit import fit_model, shape_of
from models.machine import Machine
from models.recommended import RECOMMENDED
from tests.helpers import ROOT

GiB = 1024**3
QWEN7B = next(model for model in RECOMMENDED if model.name == "Qwen2.5 7B Instruct")


def machine(
    free_ram: int = 16 * GiB, free_vram: int = 0, cores: int = 8, bandwidth: int = 0
) -> Machine:
    return Machine(
        total_ram=32 * GiB,
        free_ram=free_ram,
        free_vram=free_vram,
        gpu_name="RTX Test" if free_vram else "",
        physical_cores=cores,
        logical_cores=cores * 2,
        memory_bandwidth=bandwidth,
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


def test_the_writing_speed_is_estimated_from_the_memory_bandwidth():
    """On the CPU every token reads the whole model: 20 GB/s over a 4.7 GB model."""
    from models.fit import SPEED_EFFICIENCY, WORDS_PER_TOKEN

    fit = fit_model(QWEN7B.shape(), machine(bandwidth=20 * 10**9), gpu_offload=False)
    expected = SPEED_EFFICIENCY * 20e9 / QWEN7B.size_bytes * WORDS_PER_TOKEN
    assert fit.words_per_second == pytest.approx(expected)
    assert not fit.slow
    assert fit.verdict() == f"yes · 16,384 tokens on CPU · ~{expected:.0f} words/s"
    assert fit.reasons["speed"].startswith(f"about {expected:.1f} words a second")
    assert "reads 20.0 GB/s (measured)" in fit.reasons["speed"]


def test_a_model_that_fits_but_writes_slower_than_a_person_reads_says_so():
    big = next(model for model in RECOMMENDED if model.name == "Qwen2.5 32B Instruct")
    fit = fit_model(big.shape(), machine(free_ram=28 * GiB, bandwidth=20 * 10**9), False)
    assert fit.fits and fit.slow
    assert " · slow: ~" in fit.verdict() and fit.verdict().endswith(" words/s")
    assert "slower than you read" in fit.reasons["speed"]


def test_speed_counts_only_the_layers_left_on_the_cpu():
    bandwidth = 20 * 10**9
    cpu = fit_model(QWEN7B.shape(), machine(bandwidth=bandwidth), gpu_offload=False)
    split = fit_model(QWEN7B.shape(), machine(free_vram=4 * GiB, bandwidth=bandwidth), True)
    assert split.where == "GPU + CPU"
    share = 1 - split.n_gpu_layers / QWEN7B.layers
    assert split.words_per_second == pytest.approx(cpu.words_per_second / share, rel=0.01)
    assert "its CPU part" in split.reasons["speed"]
    whole = fit_model(QWEN7B.shape(), machine(free_vram=24 * GiB, bandwidth=bandwidth), True)
    assert whole.where == "GPU" and whole.words_per_second == 0 and whole.speed() == ""
    assert whole.reasons["speed"].startswith("on the GPU")


def test_no_speed_is_claimed_without_a_measured_bandwidth():
    fit = fit_model(QWEN7B.shape(), machine(), gpu_offload=False)
    assert fit.words_per_second == 0 and not fit.slow and "speed" not in fit.reasons
    assert fit.verdict() == "yes · 16,384 tokens on CPU"


def test_memory_bandwidth_is_measured_on_this_machine():
    """A real read of a block larger than the caches: positive and far above a disk's speed."""
    from models.machine import measure_bandwidth

    one = measure_bandwidth(1, 64 * 1024 * 1024)
    assert one > 500 * 10**6
    assert measure_bandwidth(2, 64 * 1024 * 1024) > 500 * 10**6


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
    assert "memory read at" in text and "GB/s" in text  # measured in that process
    assert data["machine"]["memory_bandwidth"] > 0
    assert all(
        r["fit"]["words_per_second"] > 0
        for r in data["recommended"]
        if r["fit"]["fits"] and r["fit"]["where"] == "CPU"
    )
    assert "words/s" in text
    # Each process measures the memory's speed itself, so under load the two runs may suggest
    # different sizes (a CI run: 1.5B in one, 3B in the other); each is a model that fits.
    fitting = {r["name"] for r in data["recommended"] if r["fit"]["fits"]}
    assert data["suggested"] is None or data["suggested"] in fitting
    said = [line.split(": ", 1)[1].split(", the ")[0] for line in text.splitlines()
            if line.strip().startswith("* suggested for this computer: ")]  # fmt: skip
    assert len(said) <= 1 and set(said) <= fitting


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


def test_a_small_model_is_just_fast_and_the_rounding_does_not_contradict_itself():
    from models.fit import ModelShape

    tiny = fit_model(ModelShape(100 * 10**6, 30, 23040, 8192), machine(bandwidth=16 * 10**9), False)
    assert tiny.speed() == "20+ words/s" and tiny.reasons["speed"].startswith("over 20 words")
    edge = fit_model(QWEN7B.shape(), machine(bandwidth=int(15.55 * 10**9)), False)
    assert round(edge.words_per_second, 1) == 2.0
    assert not edge.slow and edge.speed() == "~2 words/s"


def test_the_suggested_download_is_the_largest_that_keeps_up_with_a_reader():
    from models.recommended import recommendations, suggested

    def pick(m, gpu=False):
        chosen = suggested(recommendations(m, gpu))
        return chosen[0].name if chosen else None

    laptop = machine(free_ram=28 * GiB, bandwidth=20 * 10**9)  # ~12 / GB words a second
    assert pick(laptop) == "Llama 3.2 3B Instruct"
    # 40 GB/s: up to 6 GB keeps up; the 8B that thinks first is passed over
    assert pick(machine(free_ram=28 * GiB, bandwidth=40 * 10**9)) == "Llama 3.1 8B Instruct"
    # a big GPU: the largest that fits on it whole, whatever the CPU reads
    assert pick(machine(free_vram=24 * GiB, bandwidth=20 * 10**9), gpu=True) == (
        "Qwen2.5 32B Instruct"
    )
    # nothing keeps up: the fastest that fits
    assert pick(machine(free_ram=28 * GiB, bandwidth=2 * 10**9)) == "Qwen2.5 1.5B Instruct"
    # no speed known and no GPU: no suggestion rather than a guess
    assert pick(machine(free_ram=28 * GiB)) is None
    # a model that thinks before answering is never the suggestion
    thinker = next(model for model in RECOMMENDED if model.thinks)
    for bandwidth in (2, 20, 60, 200):
        assert pick(machine(free_ram=28 * GiB, bandwidth=bandwidth * 10**9)) != thinker.name


def test_the_fastest_bandwidth_reading_is_kept(monkeypatch):
    """A reading taken while other programs were busy is lower; the suggestion must not change
    with it from one start to the next. The best reading is kept in the data folder."""
    from engine.paths import data_dir
    from models import machine

    readings = iter([12 * 10**9, 7 * 10**9, 15 * 10**9, 3 * 10**9])
    monkeypatch.setattr(machine, "measure_bandwidth", lambda threads, block=0: next(readings))
    data_dir().mkdir(parents=True)
    (data_dir() / "machine.json").write_text("{not json", encoding="utf-8")  # damaged: ignored
    machine.memory_bandwidth.cache_clear()  # each call below is another start of the program
    try:
        assert machine.memory_bandwidth(2) == 12 * 10**9
        machine.memory_bandwidth.cache_clear()
        assert machine.memory_bandwidth(2) == 12 * 10**9  # not the busy moment's 7 GB/s
        machine.memory_bandwidth.cache_clear()
        assert machine.memory_bandwidth(2) == 15 * 10**9
        machine.memory_bandwidth.cache_clear()
        assert machine.memory_bandwidth(1) == 3 * 10**9  # one thread reads less: its own entry
        kept = json.loads((data_dir() / "machine.json").read_text(encoding="utf-8"))
        assert sorted(kept.values()) == [3 * 10**9, 15 * 10**9]
    finally:
        machine.memory_bandwidth.cache_clear()
