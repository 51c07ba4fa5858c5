"""The one place that builds backends: a chat model from a ModelConfig, an embedder from a name.

Nothing is loaded here (backends load lazily, in a worker); a bad choice is an InvalidInputError
that says what to give instead.
"""

from __future__ import annotations

from pathlib import Path

from engine import errors
from engine.backends.base import ChatBackend, Embedder
from engine.model_config import BUNDLED, URL, ModelConfig

DEFAULT_EMBEDDER = "default"  # the bundled all-MiniLM-L6-v2


def make_chat(config: ModelConfig, *, allow_plain_http: bool = False) -> ChatBackend:
    """The chat backend for `config`, not loaded yet (call .load(progress) in a worker).
    Plain http:// to a server that is not this computer is refused unless allowed."""
    config.validate()
    if config.source == URL:
        from engine.api_keys import ApiKeyError, get_api_key
        from engine.backends.openai_compat import OpenAIChat

        try:
            key = get_api_key(config.url)
        except ApiKeyError:
            key = None  # many local servers need no key; a 401 will say so clearly
        return OpenAIChat(
            config.url, config.url_model, api_key=key, allow_plain_http=allow_plain_http
        )
    from engine.backends.llama import LlamaChat
    from engine.bundled import bundled_gguf_path

    path = bundled_gguf_path() if config.source == BUNDLED else Path(config.gguf_path)
    return LlamaChat(
        path, n_gpu_layers=config.n_gpu_layers, n_ctx=config.n_ctx, n_threads=config.n_threads
    )


def is_default_embedder(name: str | None) -> bool:
    """Does `name` mean the bundled MiniLM ("", "default", "bundled")?"""
    return not name or name in (DEFAULT_EMBEDDER, BUNDLED)


def embedder_folder(name: str) -> Path:
    """The sentence-transformers model folder `name` names; InvalidInputError if it is none."""
    folder = Path(name).expanduser()
    if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
        raise errors.InvalidInputError(
            f"{name!r} is not a sentence-transformers model folder (no modules.json or "
            "config.json there): choose the folder a model was saved to, or the bundled model"
        )
    return folder


def make_embedder(name: str | None = DEFAULT_EMBEDDER) -> Embedder:
    """The bundled MiniLM ("default"), a local sentence-transformers model folder (its path), or
    (tests, benchmarks) the deterministic hash embedder ("fake"). Nothing is downloaded."""
    if name == "fake":
        from engine.backends.fake import HashEmbedder

        return HashEmbedder(384)
    from engine.backends.embedder import SentenceTransformerEmbedder

    if is_default_embedder(name):
        return SentenceTransformerEmbedder()
    folder = embedder_folder(str(name))
    embedder = SentenceTransformerEmbedder(folder)
    if not embedder.dimension:
        raise errors.InvalidInputError(f"cannot read the embedding size of the model in {folder}")
    return embedder
