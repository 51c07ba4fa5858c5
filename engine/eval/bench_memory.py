"""This process's memory (resident set and its peak) and the machine's load, for the bench."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def reset_peak() -> bool:
    """Start a new peak-RSS measure (Linux: clear_refs 5 resets VmHWM); False elsewhere."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _status_mb(field: str) -> float | None:
    """A memory figure of this process from /proc/self/status ("VmRSS", "VmHWM") in MiB;
    None where there is no /proc."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_since_reset_mb() -> float:
    """VmHWM (the peak since the last reset) in MiB; the whole run's peak where unknown."""
    peak = _status_mb("VmHWM")
    return peak_rss_mb() if peak is None else peak


def current_rss_mb() -> float | None:
    return _status_mb("VmRSS")


def load_average() -> float | None:
    """The machine's 1-minute load average (None where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
