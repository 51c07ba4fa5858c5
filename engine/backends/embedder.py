"""Sentence embeddings with sentence-transformers on the CPU (the bundled MiniLM by default)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from engine.backends.base import Embedder, Progress
from engine.bundled import bundled_embedder_path
from engine.errors import ModelLoadError

BUNDLED_EMBEDDER_ID = "sentence-transformers/all-MiniLM-L6-v2"


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model folder, loaded offline on first use."""

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        model_id: str | None = None,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        folder = None if model_path is None else Path(model_path).expanduser()
        # The bundled model named by its folder (or a link to it) is the bundled model: the same
        # vectors, so a vault made with it opens whichever way a command names it.
        bundled = folder is None or _is_bundled_folder(folder)
        self.model_path = bundled_embedder_path() if folder is None else folder
        self.model_id = model_id or (BUNDLED_EMBEDDER_ID if bundled else self.model_path.name)
        self.batch_size = batch_size
        self.device = device
        # Known from the config files, so a vault can be opened without loading torch.
        self.dimension = _dimension_from_config(self.model_path)
        self.prompts: dict[str, str] = _prompts_from_config(self.model_path)
        self._model: Any = None
        self._lock = threading.Lock()  # load once; HF tokenizers are not safe across threads

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self, progress: Progress | None = None) -> None:
        with self._lock:
            self._load(progress)

    def _load(self, progress: Progress | None) -> None:
        if self._model is not None:
            return
        report = progress or (lambda fraction, label: None)
        if (
            not (self.model_path / "modules.json").exists()
            and not (self.model_path / "config.json").exists()
        ):
            raise ModelLoadError(f"No sentence-transformers model in {self.model_path}")
        report(0.0, "loading embedding model")
        os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the network
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()
            model = SentenceTransformer(str(self.model_path), device=self.device)
        except ImportError as exc:
            raise ModelLoadError("sentence-transformers is not installed") from exc
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelLoadError(f"Cannot load the embedding model {self.model_id}: {exc}") from exc
        measure = getattr(model, "get_embedding_dimension", None)
        measure = measure or model.get_sentence_embedding_dimension
        dimension = int(measure() or 0)
        if self.dimension and dimension and dimension != self.dimension:
            raise ModelLoadError(
                f"{self.model_id}: the model gives {dimension}-d vectors, its config says "
                f"{self.dimension}"
            )
        self.dimension = dimension or self.dimension
        self.prompts = {k: v for k, v in (model.prompts or {}).items() if v}
        self._model = model
        report(1.0, "ready")

    def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        if kind not in ("document", "query"):
            raise ValueError(f"kind must be 'document' or 'query', not {kind!r}")
        with self._lock:
            self._load(None)
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            options: dict[str, Any] = {}
            if kind in self.prompts:
                options["prompt_name"] = kind
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
                **options,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def _is_bundled_folder(folder: Path) -> bool:
    try:
        return folder.resolve() == bundled_embedder_path().resolve()
    except (OSError, ModelLoadError):  # the bundled package missing or unreadable
        return False


def _dimension_from_config(folder: Path) -> int:
    """The output dimension read from the model's config files (0 when not found)."""
    modules = _read_json(folder / "modules.json")
    dimension = 0
    for module in modules if isinstance(modules, list) else []:
        config = _read_json(folder / module.get("path", "") / "config.json")
        if not isinstance(config, dict):
            continue
        # A Dense layer changes the size after pooling; the last one wins.
        for key in ("out_features", "word_embedding_dimension"):
            if isinstance(config.get(key), int):
                dimension = config[key]
                break
    if not dimension:
        config = _read_json(folder / "config.json")
        if isinstance(config, dict) and isinstance(config.get("hidden_size"), int):
            dimension = config["hidden_size"]
    return dimension


def _prompts_from_config(folder: Path) -> dict[str, str]:
    config = _read_json(folder / "config_sentence_transformers.json")
    prompts = config.get("prompts") if isinstance(config, dict) else None
    return {k: v for k, v in prompts.items() if v} if isinstance(prompts, dict) else {}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
