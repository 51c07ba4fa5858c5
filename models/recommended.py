"""A short curated list of instruction-tuned GGUF models for 4, 8, 16 and 32 GB computers.

Sizes are the hub's, rounded; the exact size and the SHA-256 are not written here: no
offline source for the real hashes was available when this list was made, and a made-up
hash would be worse than none. The download asks the hub for the file's LFS metadata
(`X-Linked-Etag` is the SHA-256 of an LFS file, `X-Linked-Size` its size) before it starts,
and checks the finished file against that hash before the model is offered.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.fit import Fit, ModelShape, fit_model
from models.machine import Machine

GB = 1000**3
HUB = "https://huggingface.co"


@dataclass(frozen=True)
class Recommended:
    """One model we suggest downloading, with what the fit needs to know about it."""

    name: str
    tier_gb: int  # the smallest memory (RAM or VRAM) it is meant for
    repo: str  # Hugging Face repository
    file: str
    size_bytes: int  # approximate until the hub answers
    licence: str
    layers: int
    kv_bytes_per_token: int  # 2 (K,V) x 2 bytes (f16) x layers x KV heads x head size
    trained_context: int
    note: str = ""
    sha256: str = ""  # empty: taken from the hub's LFS metadata at download time
    thinks: bool = False  # writes its reasoning before the answer: slower to a first word

    @property
    def url(self) -> str:
        return f"{HUB}/{self.repo}/resolve/main/{self.file}"

    def shape(self) -> ModelShape:
        return ModelShape(
            self.size_bytes, self.layers, self.kv_bytes_per_token, self.trained_context
        )


def _kv(layers: int, kv_heads: int, head_size: int = 128) -> int:
    return 2 * 2 * layers * kv_heads * head_size


RECOMMENDED: tuple[Recommended, ...] = (
    Recommended("Qwen2.5 1.5B Instruct", 4, "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
                "qwen2.5-1.5b-instruct-q4_k_m.gguf", int(1.12 * GB), "Apache-2.0",
                28, _kv(28, 2), 32768, "fast on any laptop; many languages"),
    Recommended("Llama 3.2 3B Instruct", 4, "bartowski/Llama-3.2-3B-Instruct-GGUF",
                "Llama-3.2-3B-Instruct-Q4_K_M.gguf", int(2.02 * GB),
                "Llama 3.2 Community Licence", 28, _kv(28, 8), 131072),
    Recommended("Qwen2.5 7B Instruct", 8, "bartowski/Qwen2.5-7B-Instruct-GGUF",
                "Qwen2.5-7B-Instruct-Q4_K_M.gguf", int(4.68 * GB), "Apache-2.0",
                28, _kv(28, 4), 32768, "the best all-rounder for 8 GB"),
    Recommended("Llama 3.1 8B Instruct", 8, "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
                "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", int(4.92 * GB),
                "Llama 3.1 Community Licence", 32, _kv(32, 8), 131072),
    Recommended("Qwen3 8B (reasoning)", 8, "Qwen/Qwen3-8B-GGUF", "Qwen3-8B-Q4_K_M.gguf",
                int(5.03 * GB), "Apache-2.0", 36, _kv(36, 8), 40960,
                "thinks before answering; the thinking is shown folded", thinks=True),
    Recommended("Mistral Nemo 12B Instruct", 16, "bartowski/Mistral-Nemo-Instruct-2407-GGUF",
                "Mistral-Nemo-Instruct-2407-Q4_K_M.gguf", int(7.48 * GB), "Apache-2.0",
                40, _kv(40, 8), 131072),
    Recommended("Qwen2.5 14B Instruct", 16, "bartowski/Qwen2.5-14B-Instruct-GGUF",
                "Qwen2.5-14B-Instruct-Q4_K_M.gguf", int(8.99 * GB), "Apache-2.0",
                48, _kv(48, 8), 32768),
    Recommended("Mistral Small 24B Instruct", 32, "bartowski/Mistral-Small-24B-Instruct-2501-GGUF",
                "Mistral-Small-24B-Instruct-2501-Q4_K_M.gguf", int(14.33 * GB), "Apache-2.0",
                40, _kv(40, 8), 32768),
    Recommended("Qwen2.5 32B Instruct", 32, "bartowski/Qwen2.5-32B-Instruct-GGUF",
                "Qwen2.5-32B-Instruct-Q4_K_M.gguf", int(19.85 * GB), "Apache-2.0",
                64, _kv(64, 8), 32768),
)  # fmt: skip


def recommendations(machine: Machine, gpu_offload: bool) -> list[tuple[Recommended, Fit]]:
    """Every recommended model with how it would run here (fits, where, context it would get)."""
    return [(model, fit_model(model.shape(), machine, gpu_offload)) for model in RECOMMENDED]


# A model is suggested when it writes at least this fast here: about the speed people read
# aloud, so an answer keeps up with the reader (the table marks below 2 words/s as slow).
SUGGEST_WORDS_PER_SECOND = 4.0


def suggested(recommended: list[tuple[Recommended, Fit]]) -> tuple[Recommended, Fit] | None:
    """The model to suggest here: the largest that fits, does not think before answering and
    writes at least SUGGEST_WORDS_PER_SECOND (or runs wholly on the GPU); failing that, the
    fastest that fits. None when nothing fits or no speed is known."""
    fitting = [(model, fit) for model, fit in recommended if fit.fits and not model.thinks]
    quick = [
        (model, fit)
        for model, fit in fitting
        if fit.where == "GPU" or fit.words_per_second >= SUGGEST_WORDS_PER_SECOND
    ]
    if quick:
        return max(quick, key=lambda pair: pair[0].size_bytes)
    timed = [(model, fit) for model, fit in fitting if fit.words_per_second]
    return max(timed, key=lambda pair: pair[1].words_per_second) if timed else None


def suggestion_reason(fit: Fit) -> str:
    """Why `suggested` chose the model with this fit, in words."""
    if fit.where == "GPU":
        return "the largest that fits on the GPU"
    if fit.words_per_second >= SUGGEST_WORDS_PER_SECOND:
        return (
            f"the largest that writes at least {SUGGEST_WORDS_PER_SECOND:.0f} words a second "
            f"here, {fit.speed()}"
        )
    return f"the fastest that fits, {fit.speed()}"
