"""The `memoryos` command's options and subcommands: the argument parser `memoryos --help`
shows, and the option helpers other entry points (eval, import-reference) share. Runs without
Qt, as engine/cli.py does."""

from __future__ import annotations

import argparse

DESCRIPTION = """\
MemoryOS Desktop: a private assistant that remembers you. Everything it learns stays in one
encrypted file on this computer. Run `memoryos` with no command to open the desktop app:
  memoryos                           on the memory used last
  memoryos --vault NAME              on the memory NAME, as File → Switch memory opens it (a
                                     new name: it offers to make it); once open, it is the
                                     memory used last
  memoryos --vault-path FILE         on the vault FILE in the app's vaults folder
"""


EPILOG = """\
examples:
  memoryos chat                      talk in the terminal (bundled offline model)
  memoryos import chat.json          add a conversation transcript to the memory
  memoryos facts list                what the assistant has learned about you
  memoryos facts delete f12 p3       forget fact 12 and profile entry 3
  memoryos search lisbon flight       the exchanges and facts that hold all these words
  memoryos conversations             your conversations, with the ids `forget` takes
  memoryos conversations --pages ID  the exchanges of one, with the page ids `forget` takes
  memoryos export memory.json        everything, as JSON
  memoryos import memory.json --vault restored --create
                                     restore that export into a new vault
  memoryos doctor                    check keyring, encryption, models and the vault
  memoryos models                    models on this computer, local servers, downloads

environment:
  MEMORYOS_PASSPHRASE                the vault's passphrase where no keyring holds its key
                                     (asked for in a terminal when it is not set)
  MEMORYOS_HOME                      keep the vaults, settings and logs in this folder
"""


def _vault_options(parser: argparse.ArgumentParser, after_action: bool = False) -> None:
    # after_action: the same options on `facts list` etc., so `memoryos facts list --vault bob`
    # works too; SUPPRESS keeps what was given before the action when they are not repeated.
    unset = argparse.SUPPRESS if after_action else None
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--vault",
        metavar="NAME",
        default=unset,
        help="the vault (person) to use (default: default)",
    )
    group.add_argument("--vault-path", metavar="PATH", default=unset, help="a vault file anywhere")
    parser.add_argument(
        "--embedder",
        metavar="MODEL",
        default=argparse.SUPPRESS if after_action else None,
        help="the embedding model the vault uses: default (the bundled all-MiniLM-L6-v2) or a "
        "local sentence-transformers model folder (see `memoryos reembed --to`); without it, "
        "the one chosen in the app's settings, else default",
    )


def _plain_http_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-plain-http",
        action="store_true",
        help="use a server on another computer at a plain http:// address (refused without it: "
        "what is sent, your memories included, would cross the network unencrypted); the "
        "app's setting that allows it applies to the model chosen in the app",
    )


class CommandParser(argparse.ArgumentParser):
    """No abbreviated options: `chat --url X` once silently meant `--url-model X` (a prefix of
    it) and answered with the bundled model. An option no command knows is told with the usage
    of the command it was given to (`memoryos chat --foo` showed `usage: memoryos [-h] ...`).
    Its subcommands' parsers are of this class too."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201 (argparse's own)
        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(unknown)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The parser of the (sub)command `parsed` ran: `facts delete`'s for `facts delete`."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, CommandParser):
                    return chosen._chosen(parsed)
        return self


def positive_int(text: str) -> int:
    """An argparse type: a whole number of 1 or more (0 or -1 tokens, queries... mean nothing)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"give a number of 1 or more, not {text}")
    return number


def version() -> str:
    """The installed package's version (a source checkout that is not installed: engine's)."""
    from importlib import metadata

    try:
        return metadata.version("memoryos-desktop")
    except metadata.PackageNotFoundError:
        from engine import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="memoryos",
        # No usage= of two lines here: each command's usage starts with this one's, and
        # "usage: memoryos chat …" became three lines naming the app's --vault form
        # (DESCRIPTION lists `memoryos --vault NAME`, which opens the app)
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    chat = commands.add_parser(
        "chat",
        help="chat in the terminal",
        description="Talk with the assistant in the terminal. Each line is one message. In a "
        "terminal, a paste of several lines is one message where the terminal marks pastes "
        "(most do; it needs Python's readline, which also gives line editing and Up for the "
        "messages sent before, kept in memory only). Piped input is one message a line. To "
        'send several lines as one message, put them between two lines that hold only """.',
    )
    _vault_options(chat)
    chat.add_argument(
        "--model",
        default=None,
        help="bundled | gguf:PATH | url:BASE_URL (default: the app's setting, else bundled)",
    )
    chat.add_argument(
        "--url",
        metavar="BASE_URL",
        default=None,
        help="an OpenAI-compatible server: the same as --model url:BASE_URL",
    )
    chat.add_argument(
        "--url-model", default="", metavar="NAME", help="model name on an OpenAI-compatible server"
    )
    _plain_http_option(chat)
    chat.add_argument("--temporary", action="store_true", help="remember nothing from this chat")
    chat.add_argument(
        "--create",
        action="store_true",
        help="create the vault if it is missing (without it, a vault name that does not exist is "
        "refused, except the default vault on a computer that has none yet)",
    )
    chat.add_argument(
        "--max-tokens",
        type=positive_int,
        default=512,
        metavar="N",
        help="the longest answer, in tokens (default 512; a small model may stop sooner)",
    )
    chat.add_argument(
        "--show-memory",
        action="store_true",
        help="after each answer, list the memories its prompt used",
    )

    imp = commands.add_parser(
        "import",
        help="add a conversation transcript (JSON) to the memory, or restore an export",
        description="Add a conversation transcript to an existing vault, or restore a file "
        "written by `memoryos export` (the app's Export everything). The vault must exist: "
        "pass --create to make a new one, so a typo never starts an empty memory.",
    )
    _vault_options(imp)
    imp.add_argument(
        "file",
        help="JSON: a list of {user, assistant, timestamp?, conversation?} or of chat messages "
        "{role, content, timestamp?, conversation?}, a LoCoMo-shaped file, or an export "
        "(memoryos-export/1) to restore. Items with the same conversation (a name or number) "
        "go into one conversation, in file order; those without one into one of their own",
    )
    imp.add_argument("--create", action="store_true", help="create the vault if it is missing")
    imp.add_argument("--no-consolidate", action="store_true", help="do not wait for consolidation")
    imp.add_argument(
        "--include-forgotten",
        action="store_true",
        help="restoring an export: also bring back what was forgotten after the export was made "
        "(in this vault, or in the one a newer export came from; left out by default)",
    )

    facts = commands.add_parser("facts", help="list, add or delete what was learned about you")
    _vault_options(facts)
    facts_cmd = facts.add_subparsers(dest="action", metavar="ACTION")
    listing = facts_cmd.add_parser(
        "list",
        help="list facts (f12), assistant knowledge (f14) and profile entries (p3)",
        description="Each line starts with its id: f12 is a fact or assistant knowledge, p3 a "
        "profile entry; `memoryos facts delete` takes these ids.",
    )
    listing.add_argument(
        "--search",
        default=None,
        metavar="TEXT",
        help="only the lines that show TEXT (any case): words, a date, an id",
    )
    listing.add_argument("--all", action="store_true", help="include superseded facts")
    listing.add_argument(
        "--json",
        action="store_true",
        help='as JSON: {"profile": [...], "facts": [...]}, one object per item',
    )
    delete = facts_cmd.add_parser(
        "delete",
        help="delete facts and profile entries by id (f12, p3; a bare 12 is fact 12)",
        description="Delete what `memoryos facts list` shows, by its id: f12 (or `fact 12`, or "
        "just 12) is a fact or assistant knowledge, p3 (or `profile 3`) a profile entry. The "
        "exchanges they were learned from stay; `memoryos forget conversation ID` forgets "
        "those. In a terminal it lists the items and asks first (--yes does not ask).",
    )
    delete.add_argument("ids", nargs="+", metavar="ID", help="f12, p3, `profile 3` or 12")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add = facts_cmd.add_parser("add", help="tell the assistant a fact")
    add.add_argument("text", help="the fact, in your words (quote it: \"I am vegan\")")
    for action in (listing, delete, add):
        _vault_options(action, after_action=True)

    conversations = commands.add_parser(
        "conversations",
        help="list the conversations, newest first, with the ids `memoryos forget` takes",
        description="One line per conversation, newest first: its id (what `memoryos forget "
        "conversation ID` takes), the dates of its first and last exchange, how many exchanges "
        "it holds, and its title.",
    )
    _vault_options(conversations)
    conversations.add_argument("--json", action="store_true", help="as JSON, one object each")
    conversations.add_argument(
        "--pages",
        metavar="ID",
        help="list the exchanges of conversation ID instead, oldest first, each with its page "
        "id (what `memoryos forget page ID` takes) and what was said",
    )

    search = commands.add_parser(
        "search",
        help="find exchanges, facts and profile entries that hold all the words given",
        description="The exchanges of every conversation that hold all of WORDS (the last word "
        "may be the start of one: 'lisb'), best first, each with its conversation, date and "
        "page id (what `memoryos forget page ID` takes), the words marked; then the facts and "
        "profile entries that hold them, with their refs (what `memoryos facts delete` takes).",
    )
    _vault_options(search)
    search.add_argument("words", nargs="+", metavar="WORDS", help="what to look for")
    search.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N exchanges (default 20)"
    )
    search.add_argument("--json", action="store_true", help='as JSON: {"exchanges": [...], '
                        '"facts": [...]}')

    export = commands.add_parser("export", help="export everything to JSON")
    _vault_options(export)
    export.add_argument("file", help="output file, or - for standard output")

    backup = commands.add_parser(
        "backup",
        help="copy the whole vault, encrypted, to FILE (also while the app has it open)",
        description="Write a copy of the whole vault to FILE: encrypted with the same key or "
        "passphrase (or, with --passphrase, a new one for the copy), and complete even while "
        "the app, `memoryos mcp` or a chat has it open "
        "(copying the file by hand then misses the newest exchanges). To use it on another "
        "computer, put it in that computer's vaults folder as NAME.memoryos with MemoryOS "
        "closed, or give it to a command with --vault-path FILE.",
    )
    _vault_options(backup)
    backup.add_argument("file", help="the copy to write (for example: memory-backup.memoryos)")
    backup.add_argument("--force", action="store_true", help="replace FILE if it exists")
    backup.add_argument(
        "--passphrase", action="store_true",
        help="protect the copy with a new passphrase, asked twice (or $MEMORYOS_NEW_PASSPHRASE), "
        "so that it opens on any computer; the vault keeps its own key",
    )  # fmt: skip

    forget = commands.add_parser(
        "forget", help="delete a page, segment, conversation, or everything"
    )
    _vault_options(forget)
    forget.add_argument(
        "what",
        choices=("page", "segment", "conversation", "everything"),
        help="what to forget: a page (one exchange), a segment (a topic), a conversation, or "
        "everything",
    )
    forget.add_argument(
        "id",
        nargs="?",
        default=None,
        help="which one: a page is one exchange (`memoryos conversations --pages "
        "CONVERSATION_ID` lists them with their ids), a segment a topic (the app's Memory "
        "inspector), a conversation its id (`memoryos conversations` lists them); not needed "
        "for everything",
    )
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    status = commands.add_parser("status", help="vault and consolidation status")
    _vault_options(status)

    reembed = commands.add_parser(
        "reembed", help="move a vault to another embedding model (resumable)"
    )
    _vault_options(reembed)
    reembed.add_argument(
        "--to",
        metavar="MODEL",
        default="default",
        help="the new embedder: default (the bundled all-MiniLM-L6-v2) or a local "
        "sentence-transformers model folder; afterwards pass the same --embedder to every command",
    )

    rekey = commands.add_parser(
        "rekey",
        help="re-encrypt the vault under a (new) passphrase with the strong key derivation",
        description="Re-encrypt every page of the vault under a passphrase (the same one or a "
        "new one; asked for, or from $MEMORYOS_NEW_PASSPHRASE) with the strong key derivation. "
        "A vault whose key was in the keyring moves to the passphrase and its keyring key is "
        "deleted; backups made under the old key are deleted. Close the app and `memoryos mcp` "
        "first.",
    )
    _vault_options(rekey)

    doctor = commands.add_parser(
        "doctor", help="check keyring, encryption, sqlite-vec, models, vault"
    )
    _vault_options(doctor)

    for name, text in (
        ("mcp", "serve the memory to other agents (Model Context Protocol)"),
        ("import-reference", "import a reference MemoryOS data folder (BAI-LAB/MemoryOS)"),
        ("eval", "evaluate on LoCoMo (memoryos eval locomo --help)"),
        ("bench", "latency, throughput and size benchmarks"),
        ("models", "models on this computer, local servers, recommended downloads"),
    ):
        commands.add_parser(name, help=text, add_help=False)
    return parser
