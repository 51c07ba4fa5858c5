"""Which chat model to use and how to run it: one ModelConfig from settings to the backend.

The three ways a choice arrives all end here: the app's settings (`from_settings`), a
`--model` spec on the command line (`parse`), a catalogue entry (models/catalogue.py).
engine/backends/build.py turns a ModelConfig into a backend.
"""

from __future__ import annotations

from dataclasses import InitVar, asdict, dataclass, fields
from typing import Any

from engine.errors import InvalidInputError

BUNDLED, GGUF, URL = "bundled", "gguf", "url"
SOURCES = (BUNDLED, GGUF, URL)
_SOURCE_ALIASES = {"openai": URL, "server": URL, "endpoint": URL}


@dataclass
class ModelConfig:
    """Which chat model to use and how to run it (saved in the app settings as a dict)."""

    source: str = BUNDLED  # "bundled" | "gguf" | "url"
    gguf_path: str = ""
    n_gpu_layers: int = 0  # layers offloaded to the GPU; 0 = CPU only
    n_ctx: int = 4096  # context window in tokens (capped at the model's training context)
    n_threads: int = 0  # 0 = automatic
    url: str = ""  # OpenAI-compatible base URL, e.g. http://localhost:11434/v1
    url_model: str = ""  # the model name the server knows
    # Aliases some callers use: path= for gguf_path, model= for url_model.
    path: InitVar[str | None] = None
    model: InitVar[str | None] = None

    def __post_init__(self, path: str | None, model: str | None) -> None:
        self.source = _SOURCE_ALIASES.get(self.source, self.source)
        if path:
            self.gguf_path = str(path)
        if model:
            self.url_model = str(model)
        self.n_threads = int(self.n_threads or 0)
        self.n_gpu_layers = int(self.n_gpu_layers or 0)
        self.n_ctx = int(self.n_ctx or 4096)

    def validate(self) -> None:
        if self.source not in SOURCES:
            raise InvalidInputError(f"model source must be one of {SOURCES}, not {self.source!r}")
        if self.source == GGUF and not self.gguf_path:
            raise InvalidInputError("pick a .gguf file")
        if self.source == URL and not (self.url and self.url_model):
            raise InvalidInputError("give the server URL and the model name")
        if not 64 <= self.n_ctx <= 1_048_576:
            raise InvalidInputError("context size must be between 64 and 1048576 tokens")
        if self.n_threads < 0 or self.n_gpu_layers < -1:
            raise InvalidInputError("threads and GPU layers cannot be negative")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        names = {f.name for f in fields(cls)} | {"path", "model"}
        return cls(**{k: v for k, v in (data or {}).items() if k in names})

    @classmethod
    def parse(cls, spec: str, url_model: str = "") -> ModelConfig:
        """`bundled`, `gguf:PATH` or `url:BASE_URL` (with the server's model name)."""
        spec = (spec or "").strip()
        if spec == BUNDLED:
            return cls(source=BUNDLED)
        if spec.startswith("gguf:"):
            return cls(source=GGUF, gguf_path=spec[5:])
        if spec.startswith("url:"):
            return cls(source=URL, url=spec[4:], url_model=url_model or "")
        raise InvalidInputError(f"unknown model {spec!r}: use bundled, gguf:PATH or url:BASE_URL")

    @classmethod
    def from_settings(cls, data: dict[str, Any]) -> ModelConfig:
        """The desktop app's saved model choice (its settings file's keys, app/settings_store)."""
        source = _SOURCE_ALIASES.get(data.get("model_source", BUNDLED), data.get("model_source"))
        if source not in SOURCES:
            source = BUNDLED
        # a half-made choice (no file, no server) falls back to the model that always works
        if (source == GGUF and not data.get("gguf_path")) or (
            source == URL and not data.get("server_url")
        ):
            source = BUNDLED
        return cls(
            source=source,
            gguf_path=str(data.get("gguf_path") or "") if source == GGUF else "",
            n_gpu_layers=data.get("gpu_layers") or 0,
            n_ctx=data.get("context_size") or 4096,
            n_threads=data.get("threads") or 0,
            url=str(data.get("server_url") or "") if source == URL else "",
            url_model=str(data.get("server_model") or "") if source == URL else "",
        )
