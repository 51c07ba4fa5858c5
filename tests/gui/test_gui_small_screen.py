"""Every dialog fits a short screen: a 1024x560 netbook, a 1366x768 laptop at the largest text
(Ctrl+= until it is). The dialogs are opened and looked at by short_screen_dialogs.py, in a
child process whose only screen is the short one: on a 1024x560 netbook Settings and the
model step were 620 px tall, their buttons under the screen's edge, and the first run cut its
warning to half a line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui

HERE = Path(__file__).resolve().parent
SHORT_SCREENS = [((1024, 560), False), ((1366, 768), True)]


@pytest.mark.parametrize(("screen", "largest"), SHORT_SCREENS,
                         ids=["1024x560", "1366x768 at the largest text"])
def test_every_dialog_fits_a_short_screen(tmp_path, screen, largest):
    from app import theme

    width, height = screen
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{
        "name": "short", "x": 0, "y": 0, "width": width, "height": height,
        "logicalDpi": 96, "logicalBpp": 32, "dpr": 1}]}))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}",
               MEMORYOS_TEST_SCREEN=f"{width}x{height}",
               MEMORYOS_TEST_TEXT_SIZE=str(theme.MAX_SIZE if largest else theme.BASE_SIZE))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rxs", "-p", "no:randomly",
         "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "child"),
         str(HERE / "short_screen_dialogs.py")],
        cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout  # it did look at them
