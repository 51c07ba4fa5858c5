"""A crash of the app itself leaves a report with every thread's stack, and the next start
says where it is; a normal run leaves nothing to report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMORYOS_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_crash_is_reported_at_the_next_start(home):
    from app import crash_log

    crashed = _run("from app import crash_log\n"
                   "assert crash_log.enable() is None\n"
                   "import faulthandler; faulthandler._sigsegv()", home)
    assert crashed.returncode != 0
    report = crash_log.log_path().read_text(encoding="utf-8")
    assert "Fatal Python error: Segmentation fault" in report and "<string>" in report

    kept = crash_log.previous_crash()  # the next start
    assert kept is not None and kept.read_text(encoding="utf-8") == report
    assert not crash_log.log_path().exists()  # kept under a dated name, not reported twice
    assert str(kept) in crash_log.message(kept)
    assert crash_log.previous_crash() is None


def test_a_normal_run_leaves_nothing_to_report(home):
    from app import crash_log

    ended = _run("from app import crash_log\nassert crash_log.enable() is None", home)
    assert ended.returncode == 0, ended.stderr
    assert crash_log.log_path().exists() and crash_log.log_path().stat().st_size == 0
    assert crash_log.previous_crash() is None
