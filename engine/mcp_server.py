"""`memoryos mcp`: serve one person's vault to other agents over the Model Context Protocol."""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

from engine import unlock
from engine.backends.build import make_embedder
from engine.errors import InvalidInputError, MemoryOSError, PolicyError
from engine.mcp.warm import EmbedderLoad
from engine.network import PlainHttpRefusedError

TOKEN_ENV = "MEMORYOS_MCP_TOKEN"
DEFAULT_PORT = 8765
# Seconds between asking a consolidation model's server that does not answer again, until it
# does: soon at first (a server started just after us), then once a minute.
RECHECK_SECONDS = (5, 10, 20, 40, 60)


def port_number(text: str) -> int:
    """An argparse type: a TCP port a server can listen on (1-65535)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: give a number from 1 to 65535")
    return port


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # a prefix of an option is not that option
        prog="memoryos mcp",
        description="Serve a MemoryOS vault to MCP clients (Claude Desktop, Cline, Cursor...). "
        f"Unlocks with the OS keyring, else the passphrase in ${unlock.PASSPHRASE_ENV}, else "
        "a prompt on the terminal. HTTP clients must send "
        f"'Authorization: Bearer ${TOKEN_ENV}'.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--vault",
        metavar="NAME",
        help=f"the named vault (one per person; default ${unlock.VAULT_ENV} or "
        f"'{unlock.DEFAULT_VAULT}')",
    )
    which.add_argument("--vault-path", metavar="PATH", help="a vault file anywhere")
    parser.add_argument("--create", action="store_true", help="create the vault if missing")
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or streamable HTTP on 127.0.0.1",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP address to bind (default 127.0.0.1; 0.0.0.0 only inside a container whose "
        "port is published to the host's 127.0.0.1)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"HTTP port on 127.0.0.1 (default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--compat",
        choices=("none", "reference"),
        default="none",
        help="'reference': offer exactly the reference MemoryOS-MCP's three tools "
        "(add_memory, retrieve_memory, get_user_profile) and result shapes instead of ours",
    )
    parser.add_argument(
        "--config",
        metavar="JSON",
        help="the reference MemoryOS-MCP's config.json (user_id, data_storage_path, "
        "openai_base_url, llm_model, ...): its vault is <data_storage_path>/users/<user_id>/"
        "vault.memoryos, created if missing; its model consolidates",
    )
    parser.add_argument(
        "--model",
        metavar="MODEL",
        help="a chat model for background consolidation: bundled, gguf:PATH, url:BASE_URL, or "
        "saved (the desktop app's choice); default: none (non-LLM consolidation only)",
    )
    parser.add_argument(
        "--url-model", default="", help="the model name a url: server knows (with --model url:)"
    )
    parser.add_argument(
        "--allow-plain-http",
        action="store_true",
        help="use a server on another computer at a plain http:// address (--model url:, or "
        "the --config file's openai_base_url) "
        "(refused without it: the memories it consolidates would cross the network "
        "unencrypted); the app's setting that allows it applies to --model saved",
    )
    # A vault records its embedder, so every process touching a vault must use the same one
    # ("fake": a deterministic hash embedder for tests and benchmarks).
    parser.add_argument(
        "--embedder",
        metavar="MODEL",
        default=None,
        help="default (the bundled all-MiniLM-L6-v2) or the local sentence-transformers model "
        "folder the vault was moved to (`memoryos reembed --to`, or the app's Settings); "
        "without it, the one chosen in the app's settings, else default",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the server until the client disconnects; 0 on a clean exit, 1 if the vault won't
    open, 2 for what was asked wrongly (a vault name that does not exist, bad options) or what
    the administrator's policy refuses."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:  # the options' own values first, before a vault is looked for or made
        # The administrator's policy before anything is served: a broken one stops us, as it
        # stops the app and the other commands (its error, exit 2), instead of serving without.
        from engine import policy

        policy.current()
        chat = _chat(args.model, args.url_model, args.allow_plain_http)
        _check_embedder(args.embedder)
    except (InvalidInputError, PolicyError) as exc:  # how it was called, or what the
        # administrator's policy refuses (a remote model): exit 2, as `memoryos chat` refuses it
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        return 2
    except MemoryOSError as exc:  # the app's saved model
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        return 1
    try:
        token = unlock.secret_from_env(TOKEN_ENV) or ""
    except MemoryOSError as exc:
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        return 2
    if args.transport == "http" and len(token) < 16:
        print(
            f"memoryos mcp: HTTP needs a secret of 16+ characters in ${TOKEN_ENV} (clients "
            'send it as a bearer token), e.g. from: python -c "import secrets; '
            'print(secrets.token_urlsafe(32))"',
            file=sys.stderr,
        )
        return 2
    if args.config and (args.vault or args.vault_path):
        print(
            "memoryos mcp: --config names the vault; leave out --vault/--vault-path",
            file=sys.stderr,
        )
        return 2
    path = None
    if not args.config:
        from engine.terminal.opening import vault_to_open

        try:  # a name that does not exist is refused as every command refuses it
            path = vault_to_open(args, create=args.create, make_new="memoryos mcp")
        except InvalidInputError as exc:  # the vaults there are, and --create
            print(f"memoryos mcp: {exc}", file=sys.stderr)
            return 2
        except ValueError as exc:  # a name no file can have
            print(f"memoryos mcp: {exc}", file=sys.stderr)
            return 1
    sock = None
    if args.transport == "http":
        # Before the vault is unlocked (and before "serving on"): a busy port is one clear line.
        from engine.mcp.http import PortError, reserve_port

        try:
            sock = reserve_port(args.host, args.port)
        except PortError as exc:  # --host/--port: asked wrongly, exits 2 like a bad option
            print(f"memoryos mcp: {exc}", file=sys.stderr)
            return 2
    try:
        from engine.terminal.opening import embedder_name

        args.embedder = embedder_name(args)
        # Asks for a passphrase only when stdin is a terminal (a person started us): a client
        # launching us over stdio gets a clear error naming $MEMORYOS_PASSPHRASE instead.
        if args.config:
            from engine.mcp.reference import open_from_config

            compat = open_from_config(
                args.config,
                chat=chat,
                embedder=None if args.embedder == "default" else make_embedder(args.embedder),
                allow_plain_http=args.allow_plain_http,
            )
            memory, embedder = compat.memory, compat.memory.embedder
        else:
            embedder = make_embedder(args.embedder)
            memory = unlock.open_memory(path, create=args.create, embedder=embedder, chat=chat)
            compat = None
    except (MemoryOSError, ValueError) as exc:
        if sock is not None:
            sock.close()
        print(f"memoryos mcp: {exc}", file=sys.stderr)
        # asked wrongly (the flag), or refused by the administrator's policy
        return 2 if isinstance(exc, (PlainHttpRefusedError, PolicyError)) else 1
    # Plain one-line log records on stderr (the SDK would install a wide rich handler).
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    model_check: dict[str, str] = {}  # what _check_server_model found wrong, for memory_status
    # A client stopping us with SIGTERM still closes the vault cleanly (finally below).
    signal.signal(signal.SIGTERM, _interrupt)
    interrupted = False
    # The embedding model loads (torch, sentence-transformers: 10-30 s) on a thread of its own
    # from here, while the client connects: initialize and list_tools never wait for it, the
    # first call that embeds waits only for what is left, and memory_status says how far it is.
    # Not sooner: importing is Python work under one GIL with the vault's unlock and the MCP
    # SDK's import. Started before the unlock (the SDK imported first), the first answer came
    # 0-5 s sooner and initialize 0-1 s later, within the noise of `python -m engine.mcp_bench
    # --first-call` on a busy two-core machine, and a wrong passphrase was said 4 s later.
    embedder_load = EmbedderLoad(embedder)
    try:
        if args.compat == "reference":
            from engine.compat import Memoryos
            from engine.mcp.reference import build_reference_server

            name = memory.path.stem if compat is None else compat.user_id
            server = build_reference_server(compat or Memoryos.from_memory(memory, user_id=name))
        else:
            from engine.mcp.tools import build_server

            server = build_server(
                memory,
                session_conversation=memory.new_conversation(),
                model_problem=lambda: model_check.get("problem"),
                advice=functools.cache(lambda: _advice(memory.chat, args.config)),
                embedder_load=embedder_load,
            )
        embedder_load.start()
        if hasattr(memory.chat, "base_url"):  # a server's model: does it take our key?
            threading.Thread(
                target=_check_server_model,
                args=(memory.chat, args.config, model_check),
                name="model-check",
                daemon=True,
            ).start()
        if args.transport == "http":
            from engine.mcp.http import PortError, serve_http

            try:
                serve_http(server, host=args.host, port=args.port, token=token, sock=sock)
            except PortError as exc:  # the port was taken between reserving and listening
                print(f"memoryos mcp: {exc}", file=sys.stderr)
                return 2
        else:
            _serve_stdio(server)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        memory.close()
    if interrupted and args.transport == "stdio":
        _leave(0)
    return 0


def _serve_stdio(server: Any) -> None:
    """Serve over stdin/stdout until the client closes stdin; Ctrl+C stops it too. Started
    by hand in a terminal, it says first what it is for (it would sit there silent)."""
    if sys.stdin is not None and sys.stdin.isatty():
        print(
            "memoryos mcp: this speaks MCP over stdin/stdout and is meant to be started by an "
            "MCP client (Claude Desktop, Cline, Cursor, Claude Code: see README, \"Use your "
            "memory from other agents\"), or use --transport http. Ctrl+C stops it.",
            file=sys.stderr,
            flush=True,
        )
    # Our own SIGINT handler: with Python's default one, asyncio's runner turns Ctrl+C into
    # cancelling the server, which then waits for the line the stdin reader thread is blocked
    # on: it stopped only at Ctrl+D. Raised here, KeyboardInterrupt ends the event loop at once
    # (as SIGTERM does).
    signal.signal(signal.SIGINT, _interrupt)
    server.run("stdio")


def _interrupt(*_: object) -> None:
    """Ctrl+C or SIGTERM: stop serving; main closes the vault."""
    raise KeyboardInterrupt


def _leave(code: int) -> None:
    """End the process now, the vault closed: the SDK's stdin reader may be a thread blocked
    reading stdin (a terminal, a client that keeps it open), which the interpreter's exit
    would wait for (until Ctrl+D)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass  # stdout closed by the client, or gone
    logging.shutdown()
    os._exit(code)


def _chat(model: str | None, url_model: str, allow_plain_http: bool = False):
    """The consolidation model named by --model (not loaded until consolidation needs it)."""
    if not model or model == "none":
        return None
    from engine.terminal.opening import make_chat

    chosen = None if model == "saved" else model
    return make_chat(chosen, url_model, allow_plain_http=allow_plain_http)


def _check_embedder(name: str | None) -> None:
    """--embedder, when given: the bundled model, "fake" or a model folder (InvalidInputError
    naming the option otherwise). Not loaded here; one chosen in the app's settings is checked
    when the vault opens."""
    from engine.backends.build import embedder_folder, is_default_embedder

    if name is None or name == "fake" or is_default_embedder(name):
        return
    try:
        embedder_folder(name)
    except InvalidInputError as exc:
        raise InvalidInputError(f"--embedder: {exc}") from None


def _check_server_model(chat: Any, config: str | None, found: dict[str, str]) -> None:
    """Ask the consolidation model's server for its models (as its first use would): a key it
    needs or refuses is said on stderr and by memory_status, with what to do here. The
    backend's own message says what to do in the app ("the model settings") or a terminal.
    A server that does not answer is said the same way and asked again (RECHECK_SECONDS)
    until it answers, which clears what memory_status said."""
    import copy

    from engine.errors import ServerNotAnsweringError

    waits = iter(RECHECK_SECONDS)
    while True:
        try:
            # On a copy: a check must not change how consolidation will use the model (a load
            # also judges a served GGUF file, and consolidation's first call goes on before
            # that).
            copy.copy(chat).load()
        except ServerNotAnsweringError as exc:  # down or not started yet: say so, ask again
            if "problem" not in found:
                found["problem"] = (
                    f"{exc.problem}; consolidation runs without the model until the server "
                    "answers (it is asked again, at least once a minute)"
                )
                print(f"memoryos mcp: {found['problem']}", file=sys.stderr, flush=True)
            time.sleep(next(waits, RECHECK_SECONDS[-1]))
            continue
        except MemoryOSError as exc:
            # A fix for where there are no model settings is given only for the key (401, 403).
            if getattr(exc, "terminal_fix", ""):
                problem = f"{exc.problem}: {_key_advice(chat.base_url, config)}"
            else:
                problem = str(exc)
            found["problem"] = f"{problem}; until then consolidation runs without the model"
            print(f"memoryos mcp: {found['problem']}", file=sys.stderr, flush=True)
            return
        if found.pop("problem", None):
            print(
                f"memoryos mcp: the server at {chat.base_url} answers now: consolidation uses "
                "its model",
                file=sys.stderr,
                flush=True,
            )
        return


def _key_advice(url: str, config: str | None) -> str:
    """Where memoryos mcp takes the API key for `url` from: the --config file's
    openai_api_key; else the keyring's (saved from the app), else $MEMORYOS_API_KEY."""
    from engine.api_keys import API_KEY_ENV, KEY_FROM_KEYRING, ApiKeyError, api_key_source

    if config:
        return f"set openai_api_key in {config} to the server's key and restart memoryos mcp"
    try:
        source = api_key_source(url)[1]
    except ApiKeyError:  # no usable keyring, and no key in the environment
        source = ""
    if source == KEY_FROM_KEYRING:
        return (
            "the key sent is the one saved in this computer's keyring from the desktop app's "
            f"Settings (it comes before {API_KEY_ENV}): save the right one there and restart "
            "memoryos mcp"
        )
    return (
        f"give memoryos mcp the server's key in {API_KEY_ENV} (from an MCP client: in the "
        '"env" of its entry in the client\'s configuration) and restart it, or save the key '
        "in the desktop app's Settings on a computer with a keyring"
    )


def _advice(chat: Any, config: str | None) -> Any:
    """What memory_status and tool errors tell an agent's operator in the place of the app's
    model settings (engine.mcp.wording): only a server's model says them. memoryos mcp has no
    context size to set: it fits a server model's prompts to chat.context_window tokens."""
    from engine.mcp.wording import GENERAL, Advice

    if not hasattr(chat, "base_url"):
        return GENERAL
    return Advice(
        key=_key_advice(chat.base_url, config),
        context=f"start the server with a context of at least {chat.context_window:,} tokens "
        "(memoryos mcp fits its prompts to that many)",
    )


if __name__ == "__main__":
    sys.exit(main())
