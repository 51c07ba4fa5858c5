"""The model catalogue: the bundled model, GGUF files and URL endpoints the person added.

Data about models only: building a backend from a choice is engine/backends/build.py, API keys
are engine/api_keys.py.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from engine import paths
from engine.bundled import BUNDLED_GGUF_NAME, bundled_embedder_path, bundled_gguf_path
from engine.errors import InvalidInputError, ModelLoadError
from engine.gguf import gguf_info
from engine.model_config import BUNDLED, GGUF, URL, ModelConfig
from engine.network import normalise_url

__all__ = [  # the bundled models and the config are named here too: the catalogue lists them
    "BUNDLED", "BUNDLED_GGUF_NAME", "GGUF", "URL", "ModelConfig", "ModelEntry",
    "add_endpoint", "add_gguf", "bundled_embedder_path", "bundled_gguf_path", "gguf_info",
    "list_models", "remove",
]  # fmt: skip


# -- the persisted catalogue: GGUF files and endpoints the person added -----------------------


@dataclass
class ModelEntry:
    """One row of the model list in the settings."""

    id: str  # "bundled", "gguf:<resolved path>", "url:<base url>#<model>"
    source: str
    label: str
    path: str = ""
    url: str = ""
    model: str = ""
    info: dict = field(default_factory=dict)  # GGUFInfo fields for GGUF files
    added: float = 0.0

    @property
    def available(self) -> bool:
        return self.source != GGUF or Path(self.path).is_file()

    def config(self, **settings: Any) -> ModelConfig:
        """A ModelConfig for this entry (n_ctx, n_gpu_layers, n_threads from `settings`)."""
        return ModelConfig(
            source=self.source, gguf_path=self.path, url=self.url, url_model=self.model, **settings
        )


def catalogue_file() -> Path:
    return paths.config_dir() / "models.json"


def list_models() -> list[ModelEntry]:
    """The bundled model first, then added GGUF files and endpoints in the order added."""
    bundled = ModelEntry(id=BUNDLED, source=BUNDLED, label="SmolLM2-135M Instruct (bundled)")
    try:
        bundled.path = str(bundled_gguf_path())
    except ModelLoadError:
        pass
    return [bundled, *_load()]


def add_gguf(path: str | os.PathLike) -> ModelEntry:
    """Add a GGUF file (its header is read now: ModelLoadError when it is not a GGUF)."""
    info = gguf_info(path)
    size = f"{info.parameters / 1e9:.1f}B" if info.parameters >= 1e8 else ""
    label = " ".join(part for part in (info.name, size, info.quantisation) if part)
    entry = ModelEntry(
        id=f"gguf:{info.path}", source=GGUF, label=label, path=info.path, info=info.to_dict(),
        added=time.time(),
    )  # fmt: skip
    return _upsert(entry)


def add_endpoint(url: str, model: str) -> ModelEntry:
    """Add an OpenAI-compatible endpoint (its key goes to the keyring: engine/api_keys.py)."""
    base, model = normalise_url(url), (model or "").strip()
    if not model:
        raise InvalidInputError("give the model name the server knows (e.g. llama3.1:8b)")
    entry = ModelEntry(
        id=f"url:{base}#{model}", source=URL, label=f"{model} @ {base}", url=base, model=model,
        added=time.time(),
    )  # fmt: skip
    return _upsert(entry)


def remove(entry: str | ModelEntry) -> bool:
    """Remove an added model by id (or entry); True when something was removed."""
    entry_id = entry.id if isinstance(entry, ModelEntry) else str(entry)
    entries = _load()
    kept = [item for item in entries if item.id != entry_id]
    if len(kept) == len(entries):
        return False
    _save(kept)
    return True


def _upsert(entry: ModelEntry) -> ModelEntry:
    entries = [item for item in _load() if item.id != entry.id]
    _save([*entries, entry])
    return entry


def _load() -> list[ModelEntry]:
    try:
        data = json.loads(catalogue_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = {f.name for f in fields(ModelEntry)}
    entries = []
    for item in data.get("models", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and item.get("id") and item.get("source") in (GGUF, URL):
            entries.append(ModelEntry(**{k: v for k, v in item.items() if k in names}))
    return entries


def _save(entries: list[ModelEntry]) -> None:
    file = catalogue_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_suffix(".json.tmp")
    payload = {"version": 1, "models": [asdict(entry) for entry in entries]}
    temporary.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    os.replace(temporary, file)
