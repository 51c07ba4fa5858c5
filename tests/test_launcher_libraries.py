"""The window needs system libraries pip does not install (Qt's X11 plugin): where one is
missing, `memoryos` names it and the package that holds it and exits 2, before Qt aborts the
process with 'Could not load the Qt platform plugin "xcb"' (exit 134, the library named only
under QT_DEBUG_PLUGINS=1)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

X11 = {"DISPLAY": ":97", "WAYLAND_DISPLAY": "", "QT_QPA_PLATFORM": ""}
# The launcher as `memoryos` runs it, with one library in its list that no system has
START_WITH_A_MISSING_LIBRARY = (
    "import sys, app.launcher as launcher;"
    "launcher.XCB_LIBRARIES += (('libmemoryos-absent.so.7', 'libmemoryos-absent7'),);"
    "code = launcher.main([]);"
    "print('Qt imported' if 'PySide6.QtWidgets' in sys.modules else 'Qt not imported');"
    "sys.exit(code)"
)


def _start(home, env: dict) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, MEMORYOS_HOME=str(home), **env)
    return subprocess.run([sys.executable, "-c", START_WITH_A_MISSING_LIBRARY], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_a_missing_library_is_named_with_its_package_before_qt_starts(tmp_path):
    done = _start(tmp_path / "home", X11)
    assert done.returncode == 2, done.stderr
    assert "libmemoryos-absent.so.7" in done.stderr
    assert "sudo apt-get install" in done.stderr and "libmemoryos-absent7" in done.stderr
    assert "memoryos chat" in done.stderr  # what works without them
    assert "Qt not imported" in done.stdout
    assert not (tmp_path / "home").exists()  # nothing made: no vault, no settings


def test_a_platform_the_person_chose_or_wayland_is_left_to_qt(monkeypatch):
    from app import launcher

    monkeypatch.setattr(launcher, "XCB_LIBRARIES", (("libmemoryos-absent.so.7", "absent"),))
    monkeypatch.setattr(sys, "platform", "linux")
    for name, value in X11.items():
        monkeypatch.setenv(name, value)
    assert launcher.missing_xcb_libraries() == [("libmemoryos-absent.so.7", "absent")]
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")  # chosen: the way around the check
    assert launcher.missing_xcb_libraries() == []
    monkeypatch.setenv("QT_QPA_PLATFORM", "")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")  # Qt opens the window there
    assert launcher.missing_xcb_libraries() == []


def test_a_library_the_system_has_is_found():
    from app import launcher

    assert launcher._loadable("libc.so.6")
    assert not launcher._loadable("libmemoryos-absent.so.7")
