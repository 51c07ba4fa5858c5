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


if __name__ == "__main__":
    sys.exit(main())
