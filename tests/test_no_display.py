"""`memoryos` (the window) on Linux with no display (a server, an SSH session: neither DISPLAY
nor WAYLAND_DISPLAY, nor QT_QPA_PLATFORM): one clear line naming the terminal commands, exit 2,
and no crash log. Qt aborted (exit 134, "xcb-cursor0 ... needed") and left a crash.log, so
the next real start said "MemoryOS stopped unexpectedly last time"."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is how Linux says it")
@pytest.mark.parametrize("entry", ["engine.cli", "app.launcher"])
def test_no_display_says_so_and_leaves_no_crash_log(home, entry):
    env = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARIABLES}
    env |= {"MEMORYOS_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", entry], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "DISPLAY" in done.stderr and "memoryos chat" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert not list(home.rglob("crash*.log")), "a crash log was written"
