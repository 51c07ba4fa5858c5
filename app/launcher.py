"""The desktop side of `memoryos` (engine/cli.py is the entry point): the window, the self-test.

`python -m app.launcher ARGS` and the frozen app's entry script still start here; terminal
commands are handed back to engine.cli.
"""

from __future__ import annotations

import sys

# Nothing heavy at module level: `memoryos <command>` must start fast, so Qt and torch are
# imported only on the branch that needs them.


def main(argv: list[str] | None = None) -> int:
    """Start the desktop app (no arguments), the self-test, or hand the arguments to the CLI."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        from app.desktop import run

        return run()
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


if __name__ == "__main__":
    sys.exit(main())
