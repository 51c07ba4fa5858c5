"""What this computer offers a model: free RAM, free GPU memory, physical cores, memory
bandwidth, free disk."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.terminal import wording

# The block read to measure memory bandwidth: far larger than any CPU cache, small enough to
# allocate on a machine with little free RAM (at most 1/16 of what is free).
BANDWIDTH_BLOCK = 256 * 1024 * 1024


@dataclass(frozen=True)
class Machine:
    """A snapshot of the resources a local model can use (bytes; 0 when unknown)."""

    total_ram: int
    free_ram: int
    free_vram: int  # free memory of the largest GPU; 0 without a GPU we can query
    gpu_name: str
    physical_cores: int
    logical_cores: int
    memory_bandwidth: int = 0  # bytes a second read from RAM by all cores; 0 when not measured

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def described(self, gpu_offload: bool) -> list[str]:
        """The facts a model's fit rests on, in words, for the model table's line above it and
        `memoryos models` (each joins them its own way)."""
        gpu = (
            f"{self.gpu_name}, {wording.size(self.free_vram)} free"
            if self.free_vram
            else "no GPU memory found"
        )
        rate = self.memory_bandwidth  # bounds how fast a model writes on the CPU
        return [
            f"{wording.size(self.free_ram)} of {wording.size(self.total_ram)} RAM free",
            f"{self.physical_cores} physical cores",
            *([f"memory read at {rate / 1e9:.1f} GB/s"] if rate else []),
            gpu,
            f"GPU offload {'supported' if gpu_offload else 'not in this llama.cpp build'}",
        ]


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


@lru_cache(maxsize=4)
def memory_bandwidth(threads: int) -> int:
    """`measure_bandwidth` once per process (0.5-0.9 s here, mostly filling the block), and the
    fastest reading this computer has given: a reading taken while other programs were busy
    comes out lower, and the suggested download changed from one start or screen to the next
    (Qwen2.5 1.5B, then Llama 3.2 3B). Kept in the data folder's machine.json, by thread count,
    RAM size and processor."""
    measured = measure_bandwidth(threads, min(BANDWIDTH_BLOCK, free_ram()[1] // 16))
    path, key = _readings_file(), _machine_key(threads)
    readings = _readings(path)
    if measured > readings.get(key, 0):
        readings[key] = measured
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_suffix(".part")
            part.write_text(json.dumps(readings, indent=1), encoding="utf-8")
            os.replace(part, path)
        except OSError:
            pass  # a read-only home: this process's reading still counts
    return readings.get(key, measured)


def _readings_file() -> Path:
    from engine.paths import data_dir

    return data_dir() / "machine.json"


def _machine_key(threads: int) -> str:
    """What the bandwidth belongs to: another processor or more RAM is another machine."""
    processor = platform.processor() or platform.machine()
    return f"{threads} threads · {free_ram()[0]} bytes · {processor} · {os.cpu_count()} cpus"


def _readings(path: Path) -> dict[str, int]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, int) and v > 0}


def measure_bandwidth(threads: int, block: int = BANDWIDTH_BLOCK) -> int:
    """Bytes a second that `threads` threads read from RAM: the best of five sums over a
    block of `block` bytes, far larger than the caches.

    A model generating text reads all its weights for every token, so this bounds its speed on
    the CPU. On the 2-core machine this was written on: 16.7 GB/s with 2 threads (7.3 with
    one), and llama.cpp generating with 2 threads read 13.0-15.0 GB/s of model a second
    (models/fit.py SPEED_EFFICIENCY)."""
    import numpy as np

    threads = max(1, threads)
    values = np.ones(max(block // 4, threads * 1024), dtype=np.float32)
    parts = np.array_split(values, threads)
    best = float("inf")
    with ThreadPoolExecutor(threads, thread_name_prefix="bandwidth") as pool:
        for _ in range(5):  # numpy releases the GIL while it sums: the threads read at once
            start = time.perf_counter()
            list(pool.map(np.sum, parts))
            best = min(best, time.perf_counter() - start)
    return int(values.nbytes / best)


def free_disk(path: str | os.PathLike) -> int:
    """Free bytes on the disk that holds `path` (its nearest existing parent)."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def this_machine() -> Machine:
    """Read the machine now (a few milliseconds; nvidia-smi may add ~100 ms where present, and
    the first call of a process up to ~1 s to measure the memory bandwidth)."""
    total, available = free_ram()
    vram, gpu = free_vram()
    cores = physical_cores()
    return Machine(
        total_ram=total, free_ram=available, free_vram=vram, gpu_name=gpu,
        physical_cores=cores, logical_cores=os.cpu_count() or 1,
        memory_bandwidth=memory_bandwidth(cores),
    )  # fmt: skip


def gpu_offload_supported() -> bool:
    """True when the installed llama-cpp-python build can offload layers to a GPU."""
    try:
        import llama_cpp
    except ImportError:
        return False
    return bool(llama_cpp.llama_supports_gpu_offload())
