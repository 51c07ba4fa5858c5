"""The `memoryos` command: no arguments start the app, others go to the CLI, quickly."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

pytestmark = pytest.mark.gui


def test_importing_the_launcher_loads_neither_qt_nor_torch():
    code = "import sys, app.launcher; print(sorted(m for m in ('PySide6', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_arguments_go_to_the_terminal_cli(monkeypatch):
    from app import launcher
    from engine import cli

    seen: list = []
    monkeypatch.setattr(cli, "main", lambda argv: seen.append(argv) or 3)
    assert launcher.main(["search", "ramen"]) == 3
    assert seen == [["search", "ramen"]]


def test_self_test_runs_the_packaged_check(monkeypatch):
    import app
    from app import launcher

    fake = types.ModuleType("app.selftest")
    received = []
    fake.main = lambda argv: received.append(argv) or 0
    monkeypatch.setitem(sys.modules, "app.selftest", fake)
    monkeypatch.setattr(app, "selftest", fake, raising=False)
    assert launcher.main(["--self-test", "--only", "window"]) == 0
    assert received == [["--only", "window"]]


def test_no_arguments_start_the_desktop_app(monkeypatch):
    from app import desktop, launcher

    monkeypatch.setattr(desktop, "run", lambda: 7)
    assert launcher.main([]) == 7


def test_the_memoryos_command_with_no_arguments_opens_the_window(monkeypatch):
    from app import desktop
    from engine import cli

    monkeypatch.setattr(desktop, "run", lambda: 7)
    assert cli.main([]) == 7


def test_leaving_writes_out_what_is_buffered_and_returns_the_exit_code(tmp_path):
    """The app ends its process without the interpreter's teardown (where a C extension's
    fault sometimes crashed a clean quit): nothing printed or logged may be lost on the way."""
    from pathlib import Path

    log = tmp_path / "app.log"
    script = (
        "import logging, sys\n"
        f"logging.basicConfig(filename={str(log)!r}, level=logging.INFO)\n"
        "logging.getLogger('memoryos.app').info('closed the vault')\n"
        "print('goodbye', end='')\n"
        "from app.desktop import leave\n"
        "leave(3)\n"
        "print('never')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).parents[2])  # fmt: skip
    assert done.returncode == 3 and done.stdout == "goodbye"
    assert "closed the vault" in log.read_text()
