"""`memoryos --self-test` from the source install: every check passes, failures are reported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import selftest

ROOT = Path(__file__).resolve().parent.parent


def run_self_test(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMORYOS_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "app.launcher", "--self-test", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.slow  # a child process loads both models and opens the window
@pytest.mark.real_models
@pytest.mark.gui
def test_self_test_passes_with_the_bundled_models(tmp_path):
    done = run_self_test(home=tmp_path / "home")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    names = ["main window", "Qt platform plugins", "llama.cpp generation", "sqlite-vec extension",
             "MiniLM embedding", "encrypted vault", "embedder process"]  # fmt: skip
    for name in names:
        assert any(line.startswith("OK") and name in line for line in lines), done.stdout
    assert "SELF-TEST PASSED" in lines[-1]


@pytest.mark.gui
def test_self_test_never_touches_the_persons_data(tmp_path):
    home = tmp_path / "home"
    done = run_self_test("--only", "window,sqlite-vec", home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shown" in done.stdout and "after process start" in done.stdout
    assert not home.exists() or not any(home.rglob("*")), "the self-test wrote to MEMORYOS_HOME"


def test_unknown_check_is_a_usage_error(tmp_path):
    done = run_self_test("--only", "warp-drive", home=tmp_path)
    assert done.returncode == 2
    assert "unknown check(s): warp-drive" in done.stderr


def test_a_failing_check_is_reported_with_its_reason_and_fails_the_run(monkeypatch, capsys):
    def broken(report: selftest.Report) -> str:
        raise FileNotFoundError("vec0.so is not in the bundle")

    checks = [("ok", "fine check", lambda report: "all good"), ("bad", "broken check", broken)]
    monkeypatch.setattr(selftest, "HEADLESS_CHECKS", checks)
    assert selftest.main() == 1
    out = capsys.readouterr().out
    assert "OK   fine check" in out
    assert "FAIL broken check" in out and "FileNotFoundError: vec0.so is not in the bundle" in out
    assert "SELF-TEST FAILED: 1 of 2 checks failed (broken check)" in out


def test_isolated_home_restores_the_previous_home(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMORYOS_HOME", str(tmp_path))
    with selftest.isolated_home() as folder:
        assert os.environ["MEMORYOS_HOME"] == str(folder) != str(tmp_path)
    assert os.environ["MEMORYOS_HOME"] == str(tmp_path)
    assert not folder.exists()
