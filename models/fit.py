"""Fit a model to this computer: GPU layers, context size and threads, each with the reason why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.gguf import kv_cache_bytes, read_header
from engine.terminal import wording
from models.machine import Machine

GB = 1024**3
RESERVE_RAM = 1 * GB  # the app, the embedder and the desktop keep running beside the model
RESERVE_VRAM = GB // 2  # llama.cpp's compute buffers and the display
MIN_CONTEXT = 2048  # below this the memory context and one exchange no longer fit
MAX_CONTEXT_CPU = 16384  # longer prompts take minutes to read on a CPU
MAX_CONTEXT_GPU = 32768
# Generating a token on the CPU reads every weight once, so tokens/s ~ bandwidth / model bytes.
# The share of the measured bandwidth llama.cpp reaches, on a 2-core machine (CPU build, 2
# threads, random-weight GGUFs written by engine.eval.random_gguf and requantised by
# llama.cpp): 1.07B Q4_K_M (0.66 GB) 19.7 tokens/s and 2.86B Q4_K_M (1.74 GB) 7.9, reading
# 13.0 and 13.7 GB/s; the same models in Q8_0 (1.14 / 3.04 GB) 12.7 and 4.9, reading 14.4 and
# 15.0 GB/s; models.machine.measure_bandwidth gave 14.9-18.0 GB/s over the same minutes. So
# 0.72-0.91 of it, Q4_K_M (every recommended download) lowest: the estimate is good to ~15%.
SPEED_EFFICIENCY = 0.8
WORDS_PER_TOKEN = 0.75  # English text: ~4 characters a token, ~5.3 a word with its space
SLOW_WORDS_PER_SECOND = 2.0  # below this an answer is read faster than it is written
# Above this the estimate is not shown as a figure: small models are bound by per-token work,
# not by reading their weights (SmolLM2-135M, 0.1 GB: 58 words/s measured against 100
# estimated; Gemma 3 270M, 0.25 GB: 34 against 39), and either is faster than anyone reads.
FAST_WORDS_PER_SECOND = 20.0


@dataclass(frozen=True)
class ModelShape:
    """What the fit needs to know about a model file."""

    size_bytes: int
    layers: int  # transformer blocks (0 when unknown)
    kv_bytes_per_token: int  # f16 KV cache per token of context (0 when unknown)
    trained_context: int  # the model's own context length (0 when unknown)


@dataclass
class Fit:
    """Suggested settings and, for each, a sentence saying why."""

    fits: bool
    n_gpu_layers: int
    n_ctx: int
    n_threads: int
    where: str  # "GPU", "GPU + CPU" or "CPU"
    reasons: dict[str, str] = field(default_factory=dict)
    words_per_second: float = 0.0  # estimated writing speed on the CPU; 0 when not estimated

    @property
    def slow(self) -> bool:
        """Estimated to write more slowly than a person reads (as shown, to one decimal)."""
        return _slow(self.words_per_second)

    def speed(self) -> str:
        """The estimate as shown: "~12 words/s", "slow: ~0.6 words/s", "20+ words/s" or ""."""
        value = self.words_per_second
        if not value:
            return ""
        if value >= FAST_WORDS_PER_SECOND:
            return f"{FAST_WORDS_PER_SECOND:.0f}+ words/s"
        if self.slow:
            return f"slow: ~{value:.1f} words/s"
        return f"~{value:.0f} words/s"

    def verdict(self) -> str:
        """One line for a table: whether it fits, the context it gets, how fast it writes."""
        if not self.fits:
            return "no: not enough memory"
        speed = self.speed()
        return f"yes · {self.n_ctx:,} tokens on {self.where}" + (f" · {speed}" if speed else "")

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def shape_of(path: str | Path) -> ModelShape:
    """Read the shape from a GGUF header (raises ModelLoadError for a bad file)."""
    metadata, _parameters = read_header(path)
    arch = metadata.get("general.architecture", "")
    layers = metadata.get(f"{arch}.block_count")
    context = metadata.get(f"{arch}.context_length")
    return ModelShape(
        size_bytes=Path(path).stat().st_size,
        layers=layers if isinstance(layers, int) else 0,
        kv_bytes_per_token=kv_cache_bytes(metadata, 1),
        trained_context=context if isinstance(context, int) else 0,
    )


def fit_model(shape: ModelShape, machine: Machine, gpu_offload: bool) -> Fit:
    """GPU layers from offload support and free VRAM, context from free memory, threads from cores."""
    reasons: dict[str, str] = {}
    threads = max(1, machine.physical_cores)
    reasons["threads"] = (
        f"{threads}: this computer has {threads} physical cores, and llama.cpp is fastest with one "
        f"thread per physical core ({machine.logical_cores} logical cores would compete)."
    )
    per_token = shape.kv_bytes_per_token or _guess_kv(shape.size_bytes)
    trained = shape.trained_context or 4096
    layers, where = 0, "CPU"
    if not gpu_offload:
        reasons["gpu_layers"] = "0: this build of llama.cpp cannot offload to a GPU."
    elif machine.free_vram <= RESERVE_VRAM:
        reasons["gpu_layers"] = "0: no GPU with free memory was found."
    else:
        room = machine.free_vram - RESERVE_VRAM
        whole = shape.size_bytes + per_token * MIN_CONTEXT
        if whole <= room:
            layers, where = shape.layers + 1 if shape.layers else 999, "GPU"
            reasons["gpu_layers"] = (
                f"all ({layers}): the {wording.size(shape.size_bytes)} model fits in the "
                f"{wording.size(machine.free_vram)} free on {machine.gpu_name or 'the GPU'}."
            )
        elif shape.layers:
            layers = int(room / (shape.size_bytes / shape.layers) * 0.9)
            layers, where = max(0, min(layers, shape.layers)), "GPU + CPU" if layers else "CPU"
            reasons["gpu_layers"] = (
                f"{layers} of {shape.layers}: the {wording.size(shape.size_bytes)} model does not "
                f"fit in {wording.size(machine.free_vram)} of free GPU memory, so the rest runs on "
                "the CPU."
            )
        else:
            reasons["gpu_layers"] = "0: the file does not say how many layers it has."
    if where == "GPU":
        budget, limit, pool = (
            machine.free_vram - RESERVE_VRAM - shape.size_bytes,
            MAX_CONTEXT_GPU,
            "GPU",
        )
    else:
        budget = machine.free_ram - RESERVE_RAM - shape.size_bytes
        limit, pool = MAX_CONTEXT_CPU, "RAM"
    room_tokens = budget // per_token if per_token and budget > 0 else 0
    context = min(trained, limit, int(room_tokens) // 1024 * 1024)
    fits = context >= MIN_CONTEXT
    if fits:
        why = (
            f"{context:,} tokens: the model was trained for {trained:,}; its KV cache then takes "
            f"{wording.size(per_token * context)} of the {wording.size(max(budget, 0))} of free {pool} "
            f"left after the model"
        )
        if context == limit and limit < trained:
            why += f" (capped at {limit:,}: longer prompts are slow on this hardware)"
        reasons["context"] = why + "."
    else:
        context = MIN_CONTEXT
        reasons["context"] = (
            f"does not fit: the {wording.size(shape.size_bytes)} model and {MIN_CONTEXT:,} tokens of "
            f"context need more than the {wording.size(machine.free_ram)} of free RAM."
        )
    words = _speed(shape, machine, layers, where, reasons)
    return Fit(fits, layers, context, threads, where, reasons, words)


def _speed(shape: ModelShape, machine: Machine, layers: int, where: str, reasons: dict) -> float:
    """Estimated words a second, from the bytes the CPU reads per token and its bandwidth."""
    if where == "GPU":
        reasons["speed"] = "on the GPU: far faster than this computer's CPU (not estimated)."
        return 0.0
    if not machine.memory_bandwidth:
        return 0.0
    on_cpu = shape.size_bytes
    if where == "GPU + CPU" and shape.layers:
        on_cpu = int(shape.size_bytes * (1 - min(layers, shape.layers) / shape.layers))
    tokens = SPEED_EFFICIENCY * machine.memory_bandwidth / max(on_cpu, 1)
    words = tokens * WORDS_PER_TOKEN
    part = "its CPU part" if where == "GPU + CPU" else "the whole model"
    amount = (
        f"over {FAST_WORDS_PER_SECOND:.0f} words a second"
        if words >= FAST_WORDS_PER_SECOND
        else f"about {words:.1f} words a second"
    )
    why = (
        f"{amount}: every token it writes (~3/4 of a word) reads "
        f"{part} ({wording.size(on_cpu)}) from memory, and this computer reads "
        f"{machine.memory_bandwidth / 1e9:.1f} GB/s (measured)"
    )
    if _slow(words):
        why += "; slower than you read. A smaller model, or a GPU, answers faster"
    reasons["speed"] = why + "."
    return words


def _slow(words_per_second: float) -> bool:
    """Below SLOW_WORDS_PER_SECOND as shown (to one decimal); 0 means not estimated."""
    return 0 < round(words_per_second, 1) < SLOW_WORDS_PER_SECOND


def _guess_kv(size_bytes: int) -> int:
    """Without a header: about 128 KiB per token for a 5 GB model, scaled by size."""
    return max(16 * 1024, int(size_bytes / (5 * GB) * 128 * 1024))
