"""What this computer offers a model: free RAM, free GPU memory, physical cores, free disk."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    """A snapshot of the resources a local model can use (bytes; 0 when unknown)."""

    total_ram: int
    free_ram: int
    free_vram: int  # free memory of the largest GPU; 0 without a GPU we can query
    gpu_name: str
    physical_cores: int
    logical_cores: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def free_ram() -> tuple[int, int]:
    """(total, available) RAM in bytes."""
    import psutil

    memory = psutil.virtual_memory()
    return int(memory.total), int(memory.available)


def physical_cores() -> int:
    """Physical CPU cores (llama.cpp runs best with one thread per physical core)."""
    import psutil

    return int(psutil.cpu_count(logical=False) or os.cpu_count() or 1)


def free_vram() -> tuple[int, str]:
    """(free bytes, name) of the GPU with the most free memory; (0, "") when none is known.

    NVIDIA through nvidia-smi. Apple silicon shares its memory with the GPU, and Metal lets
    a process use about three quarters of it, so there it is the free RAM within that share.
    """
    if sys.platform == "darwin" and platform.machine() == "arm64":
        total, available = free_ram()
        return min(available, total * 3 // 4), "Apple GPU (unified memory)"
    tool = shutil.which("nvidia-smi")
    if not tool:
        return 0, ""
    try:
        out = subprocess.run(
            [tool, "--query-gpu=memory.free,name", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=3, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return 0, ""
    best = (0, "")
    for line in out.splitlines():
        free, _, name = line.partition(",")
        try:
            best = max(best, (int(float(free)) * 1024 * 1024, name.strip()))
        except ValueError:
            continue
    return best


def free_disk(path: str | os.PathLike) -> int:
    """Free bytes on the disk that holds `path` (its nearest existing parent)."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def this_machine() -> Machine:
    """Read the machine now (a few milliseconds; nvidia-smi may add ~100 ms where present)."""
    total, available = free_ram()
    vram, gpu = free_vram()
    return Machine(
        total_ram=total, free_ram=available, free_vram=vram, gpu_name=gpu,
        physical_cores=physical_cores(), logical_cores=os.cpu_count() or 1,
    )  # fmt: skip


def gpu_offload_supported() -> bool:
    """True when the installed llama-cpp-python build can offload layers to a GPU."""
    try:
        import llama_cpp
    except ImportError:
        return False
    return bool(llama_cpp.llama_supports_gpu_offload())
