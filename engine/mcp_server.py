"""`memoryos mcp`: serve one person's vault to other agents over the Model Context Protocol."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

from engine import paths
from engine.errors import InvalidInputError, KeyUnavailableError, MemoryOSError, NotFoundError

PASSPHRASE_ENV = "MEMORYOS_PASSPHRASE"
VAULT_ENV = "MEMORYOS_VAULT"
TOKEN_ENV = "MEMORYOS_MCP_TOKEN"
DEFAULT_PORT = 8765


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="memoryos mcp",
        description="Serve a MemoryOS vault to MCP clients (Claude Desktop, Cline, Cursor...). "
        f"Unlocks with the OS keyring, else the passphrase in ${PASSPHRASE_ENV}, else a prompt "
        f"on the terminal. HTTP clients must send 'Authorization: Bearer ${TOKEN_ENV}'.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--vault", metavar="NAME", help="the named vault (one per person)")
    which.add_argument("--vault-path", metavar="PATH", help="a vault file anywhere")
    parser.add_argument("--create", action="store_true", help="create the vault if missing")
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or streamable HTTP on 127.0.0.1",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"HTTP port on 127.0.0.1 (default {DEFAULT_PORT})",
    )
    # Tests and benchmarks: a deterministic hash embedder instead of the bundled MiniLM. A vault
    # records its embedder, so every process touching a vault must use the same one.
    parser.add_argument(
        "--embedder", choices=("default", "fake"), default="default", help=argparse.SUPPRESS
    )
    return parser.parse_args(argv)


def choose_vault(args: argparse.Namespace) -> Path:
    """The vault file from --vault-path, --vault, $MEMORYOS_VAULT, or the only vault there is."""
    if args.vault_path:
        return Path(args.vault_path).expanduser()
    name = args.vault or os.environ.get(VAULT_ENV)
    if name:
        looks_like_path = os.sep in name or name.endswith(".memoryos")
        return Path(name).expanduser() if looks_like_path else paths.vault_path(name)
    found = sorted(paths.vaults_dir().glob("*.memoryos")) if paths.vaults_dir().is_dir() else []
    if len(found) == 1:
        return found[0]
    names = ", ".join(p.stem for p in found) or "none"
    raise InvalidInputError(
        f"choose a vault with --vault NAME or --vault-path PATH (vaults in "
        f"{paths.vaults_dir()}: {names})"
    )


def make_embedder(kind: str) -> Any:
    """One embedder for the whole run (opening may be tried twice: keyring, then passphrase)."""
    if kind == "fake":
        from engine.backends.fake import HashEmbedder

        return HashEmbedder(384)
    from engine.api import default_embedder

    return default_embedder()  # the bundled MiniLM


def open_memory(path: Path, *, create: bool, embedder: Any) -> Any:
    """Open the vault: keyring first, else $MEMORYOS_PASSPHRASE, else a terminal prompt."""
    from engine.api import MemoryOS

    if not create and not path.exists():
        raise NotFoundError(f"no vault at {path}: create it in the app, or pass --create")
    try:
        return MemoryOS.open(path, create=create, embedder=embedder)
    except KeyUnavailableError as exc:
        why = str(exc)
    passphrase = os.environ.get(PASSPHRASE_ENV) or prompt_passphrase(path, why)
    return MemoryOS.open(path, create=create, passphrase=passphrase, embedder=embedder)


def prompt_passphrase(path: Path, why: str) -> str:
    """Ask on the controlling terminal; never on stdin/stdout, which carry the MCP messages."""
    import getpass

    if not _has_terminal():
        raise KeyUnavailableError(
            f"cannot unlock {path}: {why}; set {PASSPHRASE_ENV} in this server's environment "
            "(the MCP client's config), or start it from a terminal to type the passphrase"
        )
    passphrase = getpass.getpass(f"Passphrase for {path.name}: ")
    if not path.exists() and getpass.getpass("Again: ") != passphrase:
        raise KeyUnavailableError("the two passphrases differ")
    if not passphrase:
        raise KeyUnavailableError("an empty passphrase cannot unlock a vault")
    return passphrase


def _has_terminal() -> bool:
    if sys.platform == "win32":
        return sys.stderr.isatty()  # getpass reads the console directly, not stdin
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the server until the client disconnects; 0 on a clean exit, 1 if the vault won't open."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    token = os.environ.get(TOKEN_ENV, "")
    if args.transport == "http" and len(token) < 16:
        print(
            f"memoryos mcp: HTTP needs a secret of 16+ characters in ${TOKEN_ENV} (clients "
            'send it as a bearer token), e.g. from: python -c "import secrets; '
            'print(secrets.token_urlsafe(32))"',
            file=sys.stderr,
        )
        return 2
    try:
        path = choose_vault(args)
        memory = open_memory(path, create=args.create, embedder=make_embedder(args.embedder))
    except (MemoryOSError, ValueError) as exc:
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        return 1
    # A client stopping us with SIGTERM still closes the vault cleanly (finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        from engine.mcp.tools import build_server

        server = build_server(memory, session_conversation=memory.new_conversation())
        if args.transport == "http":
            from engine.mcp.http import serve_http

            serve_http(server, port=args.port, token=token)
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
