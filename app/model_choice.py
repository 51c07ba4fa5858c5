"""From the person's model settings to a models.catalogue ModelConfig (imported lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings

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
        return settings.server_model or "server model"
    return BUNDLED_LABEL


def model_config(settings: AppSettings) -> Any:
    """The catalogue's ModelConfig for these settings."""
    from models.catalogue import BUNDLED as CATALOGUE_BUNDLED
    from models.catalogue import GGUF as CATALOGUE_GGUF
    from models.catalogue import URL, ModelConfig

    source = {BUNDLED: CATALOGUE_BUNDLED, GGUF: CATALOGUE_GGUF, SERVER: URL}[settings.model_source]
    return ModelConfig(
        source=source,
        gguf_path=settings.gguf_path if settings.model_source == GGUF else "",
        n_gpu_layers=settings.gpu_layers,
        n_ctx=settings.context_size,
        n_threads=settings.threads,
        url=settings.server_url if settings.model_source == SERVER else "",
        url_model=settings.server_model if settings.model_source == SERVER else "",
    )


def load_chat(settings: AppSettings, progress: Any = None) -> Any:
    """Build and load the chat backend (runs in a worker: this can take seconds)."""
    from models.catalogue import make_chat

    if progress:
        progress(0.0, "Preparing the model")
    chat = make_chat(model_config(settings), allow_plain_http=settings.allow_plain_http)
    chat.load(progress)
    if progress:
        progress(1.0, "Model ready")
    return chat
