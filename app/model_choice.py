"""From the person's model settings to the engine's ModelConfig and a loaded chat backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings_store import GGUF, SERVER, AppSettings

BUNDLED_LABEL = "SmolLM2-135M (bundled)"


def remote_host(settings: AppSettings) -> str:
    """The host memories go to when the chosen model is not on this computer, else ""."""
    from engine.network import destination, is_loopback

    if settings.model_source == SERVER and settings.server_url and not is_loopback(
        settings.server_url
    ):
        return destination(settings.server_url)
    return ""


def model_label(settings: AppSettings) -> str:
    """A short name for the status bar, known before the model is loaded."""
    if settings.model_source == GGUF:
        return Path(settings.gguf_path).name or "GGUF file (none chosen)"
    if settings.model_source == SERVER:
        return short_model_name(settings.server_model) or "server model"
    return BUNDLED_LABEL


_MODEL_FILES = (".gguf", ".ggml", ".bin", ".safetensors")


def short_model_name(model_id: str) -> str:
    """A model id as people read it: a file path (llama-cpp-python's server names its model by
    the GGUF's path) becomes the file's stem; names such as "llama3.2:3b" or "org/model" stay."""
    name = (model_id or "").strip()
    last = name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    is_path = name.startswith(("/", "~", "./", "../")) or "\\" in name or (
        len(name) > 2 and name[1] == ":" and name[2] in "/\\"  # C:\models\x.gguf
    )
    if last.lower().endswith(_MODEL_FILES):
        return last.rsplit(".", 1)[0]
    return last if is_path else name


def model_config(settings: AppSettings) -> Any:
    """The engine's ModelConfig for these settings (the one conversion, engine/model_config.py)."""
    from engine.model_config import ModelConfig

    return ModelConfig.from_settings(settings.to_dict())


def load_chat(settings: AppSettings, progress: Any = None) -> Any:
    """Build and load the chat backend (runs in a worker: this can take seconds)."""
    from engine.backends.build import make_chat

    if progress:
        progress(0.0, "Preparing the model")
    chat = make_chat(model_config(settings), allow_plain_http=settings.allow_plain_http)
    chat.load(progress)
    if progress:
        progress(1.0, "Model ready")
    return chat
