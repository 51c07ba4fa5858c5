"""Fit a model to this computer: GPU layers, context size and threads, each with the reason why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.gguf import kv_cache_bytes, read_header
from models.machine import Machine

GB = 1024**3
RESERVE_RAM = 1 * GB  # the app, the embedder and the desktop keep running beside the model
RESERVE_VRAM = GB // 2  # llama.cpp's compute buffers and the display
MIN_CONTEXT = 2048  # below this the memory context and one exchange no longer fit
MAX_CONTEXT_CPU = 16384  # longer prompts take minutes to read on a CPU
MAX_CONTEXT_GPU = 32768


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
                f"all ({layers}): the {_gb(shape.size_bytes)} model fits in the "
                f"{_gb(machine.free_vram)} free on {machine.gpu_name or 'the GPU'}."
            )
        elif shape.layers:
            layers = int(room / (shape.size_bytes / shape.layers) * 0.9)
            layers, where = max(0, min(layers, shape.layers)), "GPU + CPU" if layers else "CPU"
            reasons["gpu_layers"] = (
                f"{layers} of {shape.layers}: the {_gb(shape.size_bytes)} model does not fit in "
                f"{_gb(machine.free_vram)} of free GPU memory, so the rest runs on the CPU."
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
            f"{_gb(per_token * context)} of the {_gb(max(budget, 0))} of free {pool} left after "
            f"the model"
        )
        if context == limit and limit < trained:
            why += f" (capped at {limit:,}: longer prompts are slow on this hardware)"
        reasons["context"] = why + "."
    else:
        context = MIN_CONTEXT
        reasons["context"] = (
            f"does not fit: the {_gb(shape.size_bytes)} model and {MIN_CONTEXT:,} tokens of "
            f"context need more than the {_gb(machine.free_ram)} of free RAM."
        )
    return Fit(fits, layers, context, threads, where, reasons)


def _guess_kv(size_bytes: int) -> int:
    """Without a header: about 128 KiB per token for a 5 GB model, scaled by size."""
    return max(16 * 1024, int(size_bytes / (5 * GB) * 128 * 1024))


def _gb(value: int) -> str:
    return f"{value / 1e9:.1f} GB" if value >= 1e8 else f"{value / 1e6:.0f} MB"
