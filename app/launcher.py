"""The desktop side of `memoryos` (engine/cli.py is the entry point): the window, the self-test.

`python -m app.launcher ARGS` and the frozen app's entry script still start here; terminal
commands are handed back to engine.cli.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Nothing heavy at module level: `memoryos <command>` must start fast, so Qt and torch are
# imported only on the branch that needs them.


def main(argv: list[str] | None = None) -> int:
    """Start the desktop app (no arguments, or --vault NAME / --vault-path FILE), the self-test,
    or hand the arguments to the CLI."""
    from engine.cli import opens_app  # argparse and the errors module only: quick to import

    args = list(sys.argv[1:] if argv is None else argv)
    if opens_app(args):
        vault, problem = chosen_vault(args) if args else (None, "")
        if problem:  # before the display check: a wrong option is said anywhere, no window
            print(f"error: {problem}", file=sys.stderr)
            return 2
        if not has_display():
            print(
                "memoryos: no display here (neither DISPLAY nor WAYLAND_DISPLAY is set): the "
                "window needs a desktop session. The terminal commands work without one: "
                "memoryos chat, memoryos mcp (see memoryos --help).",
                file=sys.stderr,
            )
            return 2
        missing = missing_xcb_libraries()
        if missing:
            print(missing_libraries_text(missing), file=sys.stderr)
            return 2
        from app.desktop import run

        return run(vault=vault) if vault is not None else run()
    if args[0] == "--embedder-process":  # the helper process of the frozen app
        from app.embedder_process import serve

        return serve(args[2] if args[1:2] == ["--model"] else None)
    if args[0] == "--self-test":
        try:
            from app import selftest
        except ModuleNotFoundError as error:
            if error.name != "app.selftest":
                raise
            print("memoryos: the self-test is not part of this build", file=sys.stderr)
            return 2
        return int(selftest.main(args[1:]) or 0)
    from engine.cli import main as cli_main

    return int(cli_main(args) or 0)


def chosen_vault(args: list[str]) -> tuple[Path | None, str]:
    """The vault `--vault NAME` / `--vault-path FILE` asks for (None: the one used last), or
    why it cannot be opened. A new name must be one Switch memory would make."""
    from engine import errors
    from engine.cli import app_vault

    try:
        vault = app_vault(args)
    except errors.MemoryOSError as error:
        return None, error.in_terminal()
    if vault is None or vault.exists():
        return vault, ""
    from app.vault_switch import name_problem

    name = vault.name.removesuffix(".memoryos")
    problem = name_problem(name)
    if problem:
        return None, (f"--vault {name!r}: there is no memory by that name, and a new one "
                      f"cannot have it. {problem}")
    return vault, ""


def has_display() -> bool:
    """Can Qt open a window? On Linux without DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM
    (a server, an SSH session) Qt aborts the process (exit 134), which the next start would
    report as a crash."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


# The system libraries Qt's X11 plugin (xcb) loads that pip does not install, with their
# Debian/Ubuntu packages (README's apt-get line). Without one, Qt prints 'Could not load the Qt
# platform plugin "xcb"' and aborts (exit 134), naming the library only under
# QT_DEBUG_PLUGINS=1; since Qt 6.5 it checks libxcb-cursor itself, the others are the xcb
# plugin's own dependencies (ldd of PySide6's libqxcb.so).
XCB_LIBRARIES = (
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libEGL.so.1", "libegl1"),
    ("libfontconfig.so.1", "libfontconfig1"),
)


def missing_xcb_libraries() -> list[tuple[str, str]]:
    """The XCB_LIBRARIES that cannot be loaded, where Qt will open the window through X11: on
    Linux with DISPLAY and without WAYLAND_DISPLAY (Qt prefers Wayland where there is one) or
    QT_QPA_PLATFORM (a platform the person chose is left to Qt: the way around this check)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return []
    if os.environ.get("WAYLAND_DISPLAY") or not os.environ.get("DISPLAY"):
        return []
    return [(name, package) for name, package in XCB_LIBRARIES if not _loadable(name)]


def _loadable(name: str) -> bool:
    """Can the dynamic loader find `name`? A frozen build's own copies count (its folder)."""
    import ctypes

    bundled = getattr(sys, "_MEIPASS", None)
    if bundled and (Path(bundled) / name).exists():
        return True
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def missing_libraries_text(missing: list[tuple[str, str]]) -> str:
    names = ", ".join(name for name, _ in missing)
    packages = " ".join(package for _, package in missing)
    return (
        f"memoryos: the window cannot open: Qt's X11 support needs system libraries that are "
        f"not installed ({names}). Install them, on Debian or Ubuntu with\n"
        f"  sudo apt-get install {packages}\n"
        "and start memoryos again (other systems: the packages that hold these files). The "
        "terminal commands work without them: memoryos chat, memoryos mcp (see memoryos --help)."
    )


if __name__ == "__main__":
    sys.exit(main())
