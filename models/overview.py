"""Everything the model step lists: files on disk, local servers, recommended downloads."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from engine import paths
from engine.errors import ModelLoadError
from models.discovery import FoundModel, find_models
from models.download import downloads_dir, partial_downloads
from models.fit import Fit, fit_model, shape_of
from models.machine import Machine, this_machine
from models.probe import FoundServer, probe_servers
from models.recommended import Recommended, recommendations, suggested


@dataclass
class Overview:
    machine: Machine
    gpu_offload: bool
    files: list[FoundModel] = field(default_factory=list)
    servers: list[FoundServer] = field(default_factory=list)
    recommended: list[tuple[Recommended, Fit]] = field(default_factory=list)
    paused: list[dict] = field(default_factory=list)  # downloads that can be resumed
    file_fits: dict[str, Fit] = field(default_factory=dict)  # path -> how it would run here

    def to_dict(self) -> dict:
        return {
            "machine": self.machine.to_dict(),
            "gpu_offload": self.gpu_offload,
            "files": [
                {
                    **model.to_dict(),
                    "fit": fit.to_dict() if (fit := self.file_fits.get(model.path)) else None,
                }
                for model in self.files
            ],
            "servers": [server.to_dict() for server in self.servers],
            "recommended": [
                {**model.__dict__, "url": model.url, "fit": fit.to_dict()}
                for model, fit in self.recommended
            ],
            "paused_downloads": self.paused,
            "suggested": pick[0].name if (pick := suggested(self.recommended)) else None,
        }


def folders_file() -> Path:
    return paths.config_dir() / "model_folders.json"


def picked_folders() -> list[str]:
    """Folders the person added to the search, in the order added."""
    try:
        data = json.loads(folders_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(item) for item in data if isinstance(item, str)] if isinstance(data, list) else []


def add_folder(folder: str | os.PathLike) -> list[str]:
    """Remember one more folder to search for GGUF files; returns the new list."""
    folder = str(Path(folder).expanduser().resolve())
    folders = [item for item in picked_folders() if item != folder] + [folder]
    file = folders_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_suffix(".tmp")
    temporary.write_text(json.dumps(folders, indent=2), encoding="utf-8")
    os.replace(temporary, file)
    return folders


def gpu_offload() -> bool:
    """llama_supports_gpu_offload() of the installed llama.cpp (False when it is missing)."""
    from models.machine import gpu_offload_supported

    try:
        return bool(gpu_offload_supported())
    except Exception:  # a broken llama.cpp install must not hide the other two sources
        return False


def overview(
    home: Path | None = None,
    folders: list[str] | None = None,
    probe: bool = True,
    ports: list[int] | None = None,
    environ: dict | None = None,
) -> Overview:
    """Look everywhere at once: the disk scan and the port probe run side by side."""
    folders = picked_folders() if folders is None else folders
    # first and alone: the memory bandwidth it measures (once a process) is read while nothing
    # else runs; beside the scan and the probe it read 14.2 GB/s where alone it reads 16-18
    machine = this_machine()
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="overview") as pool:
        servers = pool.submit(probe_servers, ports) if probe else None
        offload = pool.submit(gpu_offload)
        files = find_models(home=home, folders=folders, environ=environ, downloads=downloads_dir())
        result = Overview(machine=machine, gpu_offload=offload.result(), files=files)
        result.servers = servers.result() if servers else []
    result.recommended = recommendations(machine, result.gpu_offload)
    for model in files:
        if model.info is not None:
            try:
                shape = shape_of(model.path)
            except (ModelLoadError, OSError):
                continue
            result.file_fits[model.path] = fit_model(shape, machine, result.gpu_offload)
    result.paused = partial_downloads()
    return result
