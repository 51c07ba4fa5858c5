"""When the app itself crashes (a fault in a library, such as Qt or llama.cpp, or in Python),
the stack of every thread is written to a file, and the next start says so and where it is.

faulthandler writes only on a fatal signal, so the file stays empty on a normal exit. It holds
function names and source lines, never what was said or stored. What was stored before the
crash is safe: every write to the vault is a committed transaction.
"""

from __future__ import annotations

import faulthandler
import time
from pathlib import Path
from typing import IO

from engine.paths import data_dir

LOG_NAME = "crash.log"
_log: IO[str] | None = None  # kept open: faulthandler writes to its file descriptor


def log_path() -> Path:
    return data_dir() / "logs" / LOG_NAME


def previous_crash() -> Path | None:
    """The last run's crash report, kept under a dated name, or None if it ended normally."""
    path = log_path()
    try:
        if path.stat().st_size == 0:
            return None
    except OSError:
        return None
    kept = path.with_name(f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log")
    path.replace(kept)
    return kept


def enable() -> Path | None:
    """Start writing crash reports for this run; returns the last run's report, if any."""
    global _log
    crashed = previous_crash()
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if _log is not None:
            _log.close()
        _log = open(path, "w", encoding="utf-8")  # noqa: SIM115 - open for the whole run
    except OSError:
        return crashed  # a read-only data folder: run without it
    faulthandler.enable(file=_log, all_threads=True)
    return crashed


def message(report: Path) -> str:
    return (
        "MemoryOS stopped unexpectedly last time. What it had stored before is safe: every "
        "change to your memory is saved whole or not at all.\n\n"
        f"The technical details (no conversation text) are in {report}: please attach that "
        "file if you report the problem."
    )
