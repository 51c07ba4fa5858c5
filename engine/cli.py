"""The `memoryos` command: the terminal commands, and (with no command) the desktop app.

Everything here runs without Qt; only opening a window (no command, `--self-test`, the frozen
app's `--embedder-process`) reaches `app/`, imported by name at that moment, so a server with no
display or no PySide6 runs the CLI and `memoryos mcp`.
"""

from __future__ import annotations

import sys

from engine import errors
from engine.cli_parser import CommandParser, build_parser

# The module of engine/terminal with each command's run_COMMAND (imported when it runs).
RUN_IN = {
    "chat": "chat",
    "import": "import_export",
    "export": "import_export",
    "backup": "backup",
    "facts": "facts",
    "conversations": "conversations",
    "search": "conversations",
    "forget": "conversations",
    "status": "maintenance",
    "reembed": "maintenance",
    "rekey": "maintenance",
    "doctor": "maintenance",
}

# Arguments that belong to the desktop app (app/launcher.py), not to the terminal CLI.
APP_ARGUMENTS = ("--self-test", "--embedder-process")
# With no command, these open the desktop app on a vault (app_vault reads them).
APP_VAULT_OPTIONS = ("--vault", "--vault-path")


def opens_app(argv: list[str]) -> bool:
    """Do these arguments open the window: none, or --vault/--vault-path before any command?"""
    return not argv or argv[0].split("=", 1)[0] in APP_VAULT_OPTIONS


def app_vault(argv: list[str]):  # noqa: ANN201 (a Path; pathlib is imported when it runs)
    """The vault file `memoryos --vault NAME` or `--vault-path FILE` opens the app on (None: the
    one used last). A name may be new (the app makes it, as Switch memory does); a file must
    be a vault, in the app's vaults folder: the app knows its memories by name. InvalidInputError
    (or NotAVaultError) says what is wrong; an option argparse refuses exits 2 with the usage."""
    from engine import paths
    from engine.unlock import choose_vault

    parser = CommandParser(prog="memoryos", usage="memoryos [--vault NAME | --vault-path FILE]")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--vault", metavar="NAME")
    group.add_argument("--vault-path", metavar="FILE")
    parsed, rest = parser.parse_known_args(argv)
    if rest:
        # `memoryos --vault bob chat`: the command's own --vault comes after its name
        hint = f" (give it after the command: memoryos {rest[0]} --vault NAME)"
        parser.error(f"unrecognized arguments: {' '.join(rest)}{hint if rest[0] in RUN_IN else ''}")
    if parsed.vault_path is None:
        return None if parsed.vault is None else choose_vault(parsed.vault)
    from engine.terminal.opening import vault_to_open  # its model backends: 0.3 s to import

    path = vault_to_open(parsed)  # missing: the terminal commands' refusal and its wording
    from engine.vault.connection import check_header

    try:
        check_header(path)  # not a vault: refused as the commands refuse it at open
    except OSError as exc:
        raise errors.InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    folder = paths.vaults_dir()
    if path.suffix == ".memoryos" and path.resolve().parent == folder.resolve():
        return paths.vault_path(path.stem)
    raise errors.InvalidInputError(
        f"--vault-path {path}: the desktop app opens the memories in its vaults folder "
        f"({folder}), by name. Copy the file there as NAME.memoryos with MemoryOS closed and "
        f"run `memoryos --vault NAME`; the terminal commands take it where it is (memoryos chat "
        f"--vault-path {path})"
    )


def open_app(argv: list[str]) -> int:
    """Hand over to the desktop app; a clear error where PySide6 (or Qt's libraries) is missing."""
    import importlib

    try:
        launcher = importlib.import_module("app.launcher")  # by name: the engine never imports app/
        return int(launcher.main(argv) or 0)
    except ImportError as error:
        # error.name is None when Qt's own libraries (libEGL, xcb) fail to load
        if error.name and not error.name.startswith(("PySide6", "shiboken6")):
            raise
        print(
            f"memoryos: the desktop app cannot start here ({error}). The terminal commands and "
            "`memoryos mcp` work without it: see `memoryos --help`.",
            file=sys.stderr,
        )
        return 2


def main(argv: list[str] | None = None) -> int:
    """Run one terminal command; no arguments open the desktop app."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if opens_app(argv) or argv[0] in APP_ARGUMENTS:
        return open_app(argv)
    passthrough = {
        "mcp": ("engine.mcp_server", "main"),
        "import-reference": ("engine.reference_cli", "main"),
        "eval": ("engine.eval.cli", "eval_main"),
        "bench": ("engine.eval.cli", "bench_main"),
        "models": ("models.cli", "main"),
    }
    if argv and argv[0] in passthrough:
        import importlib

        module, function = passthrough[argv[0]]
        if argv[0] in ("eval", "bench"):
            return _run_evaluation(module, function, argv[1:])
        return getattr(importlib.import_module(module), function)(argv[1:]) or 0
    parser = build_parser()
    args = parser.parse_args(argv)
    from engine.unlock import Cancelled

    try:
        # chat --url BASE_URL: short for --model url:BASE_URL ("--url ''" is refused, not
        # taken for no --url at all, which chose the app's model)
        if getattr(args, "url", None) is not None:
            if args.model is not None:
                raise errors.InvalidInputError(
                    "give the server as --url BASE_URL or as --model url:BASE_URL, not both"
                )
            from engine.network import check_address

            check_address(args.url, f"--url {args.url!r}")
            from engine.terminal.opening import check_bare_host

            check_bare_host(args.url, f"--url {args.url!r}")
            args.model = f"url:{args.url}"
        import importlib

        module = importlib.import_module(f"engine.terminal.{RUN_IN[args.command]}")
        return getattr(module, f"run_{args.command}")(args) or 0
    except errors.InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except errors.PolicyError as exc:  # the administrator's refusal exits as a broken policy does
        print(f"error: {exc.in_terminal()}", file=sys.stderr)
        return 2
    except Cancelled as exc:  # Ctrl+D at a passphrase: stopped, as Ctrl+C stops it
        print(f"cancelled: {exc}", file=sys.stderr)
        return 1
    except errors.MemoryOSError as exc:
        print(f"error: {exc.in_terminal()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except EOFError:  # Ctrl+D at a question asked some other way: stopped, not a traceback
        print("\ncancelled: the input ended (Ctrl+D)", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


# Third-party modules only evaluation and benchmarks use: the `eval` extra installs them.
EVAL_EXTRA = ("nltk", "matplotlib")


def _installed(name: str) -> bool:
    """Is the module there, without importing it (nltk takes seconds to import)?"""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken or blocked install counts as missing
        return False


def _run_evaluation(module: str, function: str, argv: list[str]) -> int:
    """`memoryos eval` / `bench`: imported only now, so nothing else ever loads engine/eval."""
    import importlib

    missing = [name for name in EVAL_EXTRA if not _installed(name)]
    if missing and {"-h", "--help"} & set(argv):
        # The options need no extra to be read: the help is shown, and what to install.
        print(f"(to run it, install the evaluation extra: {' and '.join(missing)} are missing)")
        return getattr(importlib.import_module(module), function)(argv) or 0
    if missing:
        print(
            f"memoryos: evaluation and benchmarks need {' and '.join(missing)}, not installed "
            "here. Install the evaluation extra: pip install 'memoryos-desktop[eval]' (from a "
            "source checkout: pip install -e '.[eval]')",
            file=sys.stderr,
        )
        return 2
    return getattr(importlib.import_module(module), function)(argv) or 0


if __name__ == "__main__":
    sys.exit(main())
