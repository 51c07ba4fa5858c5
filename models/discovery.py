"""Find GGUF models already on this computer, in the folders other local-AI apps use."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ModelLoadError
from engine.gguf import GGUFInfo, gguf_info

LMSTUDIO, GPT4ALL, JAN, HUGGINGFACE, OLLAMA, FOLDER, DOWNLOADED = (
    "lmstudio", "gpt4all", "jan", "huggingface", "ollama", "folder", "downloaded",
)  # fmt: skip
TOOL_NAMES = {
    LMSTUDIO: "LM Studio", GPT4ALL: "GPT4All", JAN: "Jan", HUGGINGFACE: "Hugging Face cache",
    OLLAMA: "Ollama", FOLDER: "Chosen folder", DOWNLOADED: "Downloaded by MemoryOS",
}  # fmt: skip
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
_MAX_DEPTH = 6  # LM Studio nests publisher/repo/file; deeper trees are not model folders
# Only the first file of a split model is a model; projector files belong to vision models.
_SHARD = re.compile(r"-(\d+)-of-\d+\.gguf$", re.I)


@dataclass
class FoundModel:
    """A GGUF model found on disk, with the app it belongs to and its metadata."""

    source: str  # one of TOOL_NAMES
    name: str  # what the person recognises: "llama3.2:3b", "Qwen/Qwen2.5-7B-Instruct-GGUF"...
    path: str
    info: GGUFInfo | None = None
    error: str = ""  # why the metadata could not be read (the file is still listed)
    also_in: list[str] = field(default_factory=list)  # the same file seen by other tools

    @property
    def tool(self) -> str:
        return TOOL_NAMES.get(self.source, self.source)

    def to_dict(self) -> dict:
        return {
            "source": self.source, "tool": self.tool, "name": self.name, "path": self.path,
            "info": self.info.to_dict() if self.info else None, "error": self.error,
            "also_in": list(self.also_in),
        }  # fmt: skip


def model_folders(home: Path | None = None, environ: dict | None = None) -> list[tuple[str, Path]]:
    """(source, folder) for every place a known app keeps GGUF files, existing or not."""
    home = Path(home) if home else Path.home()
    env = os.environ if environ is None else environ
    if sys.platform == "darwin":
        app_data = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        app_data = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    else:
        app_data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    hf_home = Path(env.get("HF_HOME") or home / ".cache" / "huggingface")
    folders = [
        (LMSTUDIO, home / ".lmstudio" / "models"),
        (LMSTUDIO, home / ".cache" / "lm-studio" / "models"),
        (GPT4ALL, app_data / "nomic.ai" / "GPT4All"),
        (JAN, home / "jan" / "models"),  # Jan before 0.5
        (JAN, app_data / "Jan" / "data" / "models"),
        (JAN, app_data / "Jan" / "data" / "llamacpp" / "models"),  # Jan 0.6+
        (HUGGINGFACE, Path(env.get("HF_HUB_CACHE") or hf_home / "hub")),
    ]
    return folders


def ollama_folder(home: Path | None = None, environ: dict | None = None) -> Path:
    env = os.environ if environ is None else environ
    home = Path(home) if home else Path.home()
    return Path(env.get("OLLAMA_MODELS") or home / ".ollama" / "models")


def find_models(
    home: Path | None = None,
    folders: Iterable[str | os.PathLike] = (),
    environ: dict | None = None,
    downloads: str | os.PathLike | None = None,
) -> list[FoundModel]:
    """Every GGUF model in the usual places and in `folders`; each file once (by real path)."""
    candidates: list[tuple[str, str, Path]] = []
    if downloads:
        candidates += [(DOWNLOADED, _plain_name(p), p) for p in _gguf_files(Path(downloads))]
    for source, folder in model_folders(home, environ):
        for path in _gguf_files(folder):
            name = _hf_name(folder, path) if source == HUGGINGFACE else _plain_name(path)
            candidates.append((source, name, path))
    candidates += [(OLLAMA, n, p) for n, p in ollama_models(ollama_folder(home, environ))]
    for folder in folders:
        candidates += [(FOLDER, _plain_name(p), p) for p in _gguf_files(Path(folder))]
    found: dict[str, FoundModel] = {}
    for source, name, path in candidates:
        # Ollama names are what people type (`ollama run x`): two names of one blob stay two.
        key = f"ollama:{name}" if source == OLLAMA else _real(path)
        if key in found:
            if source != found[key].source and source not in found[key].also_in:
                found[key].also_in.append(source)
            continue
        found[key] = _describe(source, name, path)
    return list(found.values())


def ollama_models(root: Path) -> Iterator[tuple[str, Path]]:
    """(name:tag, blob path) for each Ollama manifest whose model layer is on disk."""
    manifests = root / "manifests"
    if not manifests.is_dir():
        return
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()):
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        layers = data.get("layers") if isinstance(data, dict) else None
        digest = next(
            (layer.get("digest", "") for layer in layers or [] if isinstance(layer, dict)
             and layer.get("mediaType") == OLLAMA_MODEL_LAYER), "",
        )  # fmt: skip
        blob = root / "blobs" / digest.replace(":", "-")
        if digest and blob.is_file():
            yield _ollama_name(manifest.relative_to(manifests).parts), blob


def _ollama_name(parts: tuple[str, ...]) -> str:
    """registry.ollama.ai/library/llama3.2/3b -> llama3.2:3b; other namespaces keep theirs."""
    *host_and_path, tag = parts
    host, *path = host_and_path
    if host == "registry.ollama.ai":
        if path[:1] == ["library"]:
            path = path[1:]
        return f"{'/'.join(path)}:{tag}"
    return f"{host}/{'/'.join(path)}:{tag}"


def _gguf_files(folder: Path) -> Iterator[Path]:
    if not folder.is_dir():
        return
    for top, dirs, files in os.walk(folder, followlinks=True):
        depth = len(Path(top).relative_to(folder).parts)
        if depth >= _MAX_DEPTH:
            dirs[:] = []
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(files):
            lower = name.lower()
            # A download in progress ends in .part: it is never a model.
            if not lower.endswith(".gguf") or lower.startswith("mmproj"):
                continue
            shard = _SHARD.search(name)
            if shard and int(shard.group(1)) > 1:
                continue
            yield Path(top) / name


def _hf_name(cache: Path, path: Path) -> str:
    """models--Qwen--Qwen2.5-7B-GGUF/snapshots/<rev>/x.gguf -> Qwen/Qwen2.5-7B-GGUF/x.gguf."""
    parts = path.relative_to(cache).parts
    if parts and parts[0].startswith("models--") and len(parts) >= 4:
        repo = parts[0].removeprefix("models--").replace("--", "/")
        return f"{repo}/{'/'.join(parts[3:])}"
    return path.name


def _plain_name(path: Path) -> str:
    return path.stem


def _real(path: Path) -> str:
    try:
        return str(path.resolve())
    except OSError:
        return str(path)


def _describe(source: str, name: str, path: Path) -> FoundModel:
    try:
        return FoundModel(source, name, str(path), info=gguf_info(path))
    except ModelLoadError as exc:
        return FoundModel(source, name, str(path), error=str(exc))
    except OSError as exc:
        return FoundModel(source, name, str(path), error=f"cannot read: {exc.strerror}")
