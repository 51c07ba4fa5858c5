"""The chat model and the embedder that the reference Memoryos's arguments name (compat.py)."""

from __future__ import annotations

import sys
from pathlib import Path

OPENAI_URL = "https://api.openai.com/v1"
BUNDLED_EMBEDDER_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


# How a library caller allows plain http:// to another computer (the app's refusal says Settings).
ALLOW_PLAIN_HTTP = "pass allow_plain_http=True to Memoryos (memoryos mcp: --allow-plain-http)"


def make_reference_chat(
    openai_api_key: str | None,
    openai_base_url: str | None,
    llm_model: str,
    allow_plain_http: bool = False,
):
    """The chat backend the reference's arguments describe (see the module docstring)."""
    if openai_base_url or openai_api_key:
        from engine.backends.openai_compat import OpenAIChat
        from engine.network import check_address, check_url

        url = openai_base_url or OPENAI_URL
        if openai_base_url:  # the message names the key to correct, and shows an address
            check_address(openai_base_url, f"openai_base_url {openai_base_url!r}")
        check_url(url, allow_plain_http=allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)
        return OpenAIChat(
            url, llm_model, api_key=openai_api_key or None, allow_plain_http=allow_plain_http
        )
    from engine.backends.build import make_chat
    from engine.model_config import ModelConfig

    return make_chat(ModelConfig(source="bundled"))


def make_reference_embedder(name: str, kwargs: dict | None = None):
    """The embedder for the reference's `embedding_model_name`, from local files only."""
    from engine.backends.embedder import SentenceTransformerEmbedder

    if kwargs:
        notice(f"embedding_model_kwargs {sorted(kwargs)} are not applied")
    if not name or name.lower() in BUNDLED_EMBEDDER_NAMES:
        return SentenceTransformerEmbedder()
    folder = Path(name).expanduser()
    if folder.is_dir():
        return SentenceTransformerEmbedder(folder)
    try:
        from huggingface_hub import snapshot_download

        cached = snapshot_download(name, local_files_only=True)
        return SentenceTransformerEmbedder(cached, model_id=name)
    except Exception:
        notice(
            f"embedding model {name!r} is not on this computer (nothing is downloaded); "
            "using the bundled all-MiniLM-L6-v2"
        )
        return SentenceTransformerEmbedder()


def notice(text: str) -> None:
    print(f"Memoryos: {text}", file=sys.stderr)
