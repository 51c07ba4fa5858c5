"""What each `memoryos` terminal command does (argument parsing lives in cli.py)."""

from __future__ import annotations

import json
import os
import sys
import time

from engine import errors, paths
from engine.backends.build import make_embedder
from engine.thinking import ANSWER, ThinkingSplitter
from engine.unlock import DEFAULT_VAULT, choose_vault, open_memory

VAULT_SUFFIX = ".memoryos"


def _open(
    args,
    *,
    create: bool = False,
    first_run: bool = False,
    chat=None,
    background: bool = True,
    make_new: str = "memoryos chat",
):
    path = vault_to_open(args, create=create, first_run=first_run, make_new=make_new)
    return open_memory(
        path,
        create=create or not _exists(path),  # only where vault_to_open allowed a new one
        embedder=make_embedder(embedder_name(args)),
        chat=chat,
        background=background,
    )


def _exists(path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def vault_names() -> list[str]:
    """The vaults in the vault folder, by name."""
    folder = paths.vaults_dir()
    found = folder.glob(f"*{VAULT_SUFFIX}") if folder.is_dir() else []
    return sorted((p.name[: -len(VAULT_SUFFIX)] for p in found if _exists(p)), key=str.lower)


def vault_to_open(
    args, *, create: bool = False, first_run: bool = False, make_new: str = "memoryos chat"
):
    """The vault file a command opens. One that does not exist is refused, with the vaults that
    do (a typo never starts an empty memory), unless `create` (--create) or, with `first_run`,
    it is the default vault on a computer that has no vault yet: `memoryos chat` just works on
    the first run. `make_new`: the command that makes a new vault, for the message."""
    import shlex

    name, given_path = getattr(args, "vault", None), getattr(args, "vault_path", None)
    path = choose_vault(name, given_path)
    if create or _exists(path):
        return path
    named = not given_path and path.parent == paths.vaults_dir()
    existing = vault_names()
    default = name is None or name == DEFAULT_VAULT  # no --vault: $MEMORYOS_VAULT or `default`
    if first_run and named and not existing and default:
        return path
    if not named:
        raise errors.InvalidInputError(
            f"No vault at {path}. To make a new one: {make_new} --vault-path "
            f"{shlex.quote(str(path))} --create"
        )
    vault = path.name[: -len(VAULT_SUFFIX)]
    if existing:
        here = f"Vaults here: {', '.join(existing)}. To make a new one:"
    else:
        here = "There is no vault here yet. To make one:"
    if not existing and default and make_new == "memoryos chat":
        how = make_new  # the first `memoryos chat` makes the default vault
    elif not existing and default:
        how = f"{make_new} --create"
    else:
        how = f"{make_new} --vault {shlex.quote(vault)} --create"
    raise errors.InvalidInputError(f"No memory named {vault!r}. {here} {how}")


def _app_settings() -> dict:
    """The desktop app's settings file as a dict ({} when there is none or it is damaged)."""
    try:
        data = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def saved_model_config():
    """The model picked in the desktop app's settings (bundled when there is none)."""
    from engine.model_config import ModelConfig

    return ModelConfig.from_settings(_app_settings())


def embedder_name(args) -> str:
    """--embedder, else the embedding model chosen in the app's settings, else the bundled one:
    the terminal opens the vault with the model its vectors came from."""
    given = getattr(args, "embedder", None)
    return given if given is not None else str(_app_settings().get("embedder") or "default")


# The terminal's end of the plain-http refusal (the app's says "in Settings").
ALLOW_PLAIN_HTTP = "add --allow-plain-http to the command"


def make_chat(model: str | None, url_model: str = "", *, allow_plain_http: bool = False):
    """A chat backend from a `--model` spec (bundled | gguf:PATH | url:BASE_URL), or the app's
    saved choice when None (not loaded yet). Plain http:// to another computer needs
    `allow_plain_http` (--allow-plain-http), or for the app's saved server its own setting."""
    from engine.backends.build import make_chat as build
    from engine.model_config import GGUF, URL, ModelConfig
    from engine.network import check_address, check_url, url_problem

    if model is None:
        config = saved_model_config()
        allow_plain_http = allow_plain_http or _app_settings().get("allow_plain_http") is True
        problem = url_problem(config.url) if config.source == URL else ""
        if problem:  # not how the command was typed: exits 1, pointing at where it was chosen
            raise errors.ServerError(
                f"the server address chosen in the app's Settings: {problem}. Change it there, "
                "or give the model with --model"
            )
    else:
        config = ModelConfig.parse(model, url_model)
        if config.source == URL:  # a bad option: exits 2, with what an address looks like
            check_address(config.url, f"--model {model!r}")
            check_bare_host(config.url, f"--model {model!r}")
            # Where it points before the model name: one try shows what blocks the address.
            check_url(config.url, allow_plain_http=allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)
        if config.source == URL and config.url and not config.url_model:
            raise errors.InvalidInputError(
                "give the name of the model on that server with --url-model NAME (`memoryos "
                "models` lists the models that local servers offer)"
            )
        if config.source == GGUF and config.gguf_path:
            _check_model_file(config.gguf_path)  # refused now, not at every message
    if config.source == URL:  # checked here so that the refusal names the terminal's way
        config.validate()
        check_url(config.url, allow_plain_http=allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)
    return build(config, allow_plain_http=allow_plain_http)


def check_bare_host(url: str, given_as: str) -> None:
    """An address typed as one word ("notaurl") is refused as not an address, with one that
    is: taken for http://notaurl, it was refused as plain http to another computer, naming
    --allow-plain-http. A host:port ("localhost:11434"), a dotted name and localhost pass."""
    from engine.network import EXAMPLE_URL

    text = url.strip()
    if "://" in text or ":" in text or "." in text or text.split("/")[0].lower() == "localhost":
        return
    raise errors.InvalidInputError(
        f"{given_as}: Not a valid address: it must start with http:// or https:// (for example "
        f"{EXAMPLE_URL}, or http://{text.split('/')[0]}:8080/v1 for a server on that computer)"
    )


def _check_model_file(path: str) -> None:
    """--model gguf:PATH names an existing, complete GGUF file; InvalidInputError otherwise."""
    from pathlib import Path

    from engine.gguf import check_gguf_file

    file = Path(path).expanduser()
    if not file.exists():
        raise errors.InvalidInputError(
            f"no model file at {file}: give --model gguf:PATH with the path of a .gguf file "
            "(`memoryos models` lists those on this computer)"
        )
    try:
        check_gguf_file(file)
    except errors.ModelLoadError as exc:
        raise errors.InvalidInputError(f"--model gguf:{path}: {exc}") from None


# ---- chat -------------------------------------------------------------------------------

CHAT_HELP = (
    "Commands: /remember TEXT, /forget WORDS, /new (new conversation), /facts, /status, "
    "/help, /quit. Ctrl+C stops an answer."
)


def _print_memories(memory, items) -> None:
    from engine import remembered

    print(remembered.summary(items), file=sys.stderr)
    # Facts and profile entries dated when they were said, as the app shows them
    for n, item in enumerate(remembered.dated_when_said(memory.vault, items), 1):
        day = _day(item.date) + _learned_on(item.date, getattr(item, "learned", 0.0))
        score = "" if item.score is None else f" · score {item.score:.3f}"
        text = "(forgotten)" if item.forgotten else " ".join(item.text.split())
        if len(text) > 100:
            text = text[:99] + "…"
        print(f"  {n}. [{_item_ref(item)} · {item.tier} · {day}{score}] {text}", file=sys.stderr)


def _item_ref(item) -> str:
    """A remembered item named as the other commands name it: `fact f12` and `profile p3` as
    `facts list` shows them (what `facts delete` takes), `exchange 7` as `forget page` takes."""
    from engine import remembered

    prefixes = {remembered.PROFILE: PROFILE_PREFIX, remembered.EXCHANGE: ""}
    prefix = prefixes.get(item.kind, FACT_PREFIX)  # a fact and assistant knowledge: f12
    return f"{item.kind} {prefix}{item.id}"


def _chat_command(memory, command, stdin, temporary: bool = False) -> None:
    """/remember, /forget (with a y/N confirmation) and /help in the terminal."""
    from engine import chat_commands

    if command.name == chat_commands.HELP:
        print(chat_commands.help_text(), file=sys.stderr)
        print("Also: /new (new conversation), /facts, /status, /quit.", file=sys.stderr)
        return
    if command.name == chat_commands.UNKNOWN:
        print(f"unknown command {command.typed}: /help lists the commands", file=sys.stderr)
        return
    if command.name == chat_commands.REMEMBER and temporary:
        print("Temporary chat: nothing is written, so /remember is off here.", file=sys.stderr)
        return
    try:
        if command.name == chat_commands.REMEMBER:
            fact = chat_commands.remember(memory, command.argument)
            print(f"Remembered (fact {FACT_PREFIX}{fact.id}): {fact.text}", file=sys.stderr)
            return
        matches = chat_commands.find_matches(memory, command.argument)
    except errors.InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return
    if not matches:
        print(f"Nothing matches {command.argument!r}; nothing was forgotten.", file=sys.stderr)
        return
    found = [m for m in matches if not m.consequence]
    also = [m for m in matches if m.consequence]
    items = "This item matches" if len(found) == 1 else f"These {len(found)} items match"
    print(f"{items} {command.argument!r}:", file=sys.stderr)
    for n, match in enumerate(found, 1):
        text = " ".join(match.text.split())
        text = text if len(text) <= 100 else text[:99] + "…"
        print(f"  {n}. [{match.label()}] {text}", file=sys.stderr)
    if also:
        print("Also forgotten, learned only from these exchanges:", file=sys.stderr)
        for match in also:
            print(f"  - [{match.label()}] {' '.join(match.text.split())[:100]}", file=sys.stderr)
    question = "Forget it?" if len(matches) == 1 else "Forget all of them?"
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = (input() if stdin.isatty() else stdin.readline()).strip().lower()
    except EOFError:  # Ctrl+D: a no
        print(file=sys.stderr)
        answer = ""
    if stdin.isatty() and answer:
        _drop_from_history()  # Up brings back messages, not this y or n
    if answer not in ("y", "yes"):
        print("Cancelled; nothing was forgotten.", file=sys.stderr)
        return
    count = chat_commands.forget_matches(memory, matches)
    print(f"Forgot {count} item{'' if count == 1 else 's'}.", file=sys.stderr)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def status_text(status) -> str:
    """A ConsolidationStatus as a person reads it (`/status` in `memoryos chat`)."""
    from engine import chat_commands

    if status.running:
        work = "running"
    elif status.pending_jobs:
        work = "waiting to run"
    else:
        work = "idle"
    lines = [
        f"Memory: {chat_commands.memory_counts(status)}.",
        f"Background work: {work} ({status.pending_jobs} waiting, {status.failed_jobs} failed).",
    ]
    if status.last_error:
        lines.append(f"Last error: {status.last_error}")
    return "\n".join(lines)


def _cut_short_note(chat, max_tokens: int) -> str:
    """What to do about an answer that stopped at the length limit."""
    from engine.prompt import answer_limit

    limit = answer_limit(chat, max_tokens)
    if limit < max_tokens:  # the demo-sized model's cap, whatever --max-tokens says
        return (
            f"(stopped at the length limit: a model this small writes at most {limit} tokens; "
            "a bigger one (--model) writes longer answers)"
        )
    return f"(stopped at the length limit of {limit} tokens — raise it with --max-tokens)"


def _dim(text: str, stream) -> str:
    """`text` dimmed where `stream` is a terminal; as it is in a pipe or a file (no escape
    codes in what a script reads) and where $NO_COLOR is set (no-color.org)."""
    import os

    if os.environ.get("NO_COLOR") or not getattr(stream, "isatty", lambda: False)():
        return text
    return f"\x1b[2m{text}\x1b[0m"


# A line with only this starts a message of several lines; the next such line sends it.
BLOCK = '"""'


def _line_editing(stdin):
    """Line editing (Left, Right...) and history (Up, Down) for `memoryos chat` in a terminal:
    the readline module, where Python has it (not on Windows); None where it does not."""
    if not stdin.isatty():
        return None
    try:
        import readline  # here only: no other command edits lines
    except ImportError:
        return None
    if "libedit" not in (readline.__doc__ or ""):  # GNU readline's setting; libedit has none
        # A paste of several lines is one message where the terminal marks pastes (bracketed
        # paste); Python turns this off because its own prompt runs each line as it comes.
        readline.parse_and_bind("set enable-bracketed-paste on")
    # The history is kept in memory only and never written to a file (nothing calls
    # write_history_file): it holds what the person said, which is kept encrypted or not at all.
    return readline


def _drop_from_history() -> None:
    """Take the line just typed out of the chat's history (readline adds every line)."""
    readline = sys.modules.get("readline")
    if readline is not None and readline.get_current_history_length() > 0:
        readline.remove_history_item(readline.get_current_history_length() - 1)


def _read_line(stdin, prompt: str) -> str | None:
    """One line typed (with line editing where there is readline) or piped; None at the end
    of input."""
    if stdin.isatty():
        try:
            return input(prompt)
        except EOFError:  # Ctrl+D: what comes next starts on a line of its own
            print(file=sys.stderr)
            return None
    line = stdin.readline()
    return None if line == "" else line.rstrip("\n")


def _read_message(stdin) -> str | None:
    """The next message: one line, or the lines between two lines that hold only \"\"\" sent
    as one (piped input is one message a line; so is a paste where the terminal does not mark
    it). None at the end of input."""
    line = _read_line(stdin, "you> ")
    if line is None or line.strip() != BLOCK:
        return line
    lines: list[str] = []
    while (more := _read_line(stdin, "...  ")) is not None and more.strip() != BLOCK:
        lines.append(more)
    if more is None and lines:  # sent, not lost
        print(f"(the input ended before a closing {BLOCK}: sending what came)", file=sys.stderr)
    return "\n".join(lines)


def run_chat(args) -> int:
    vault_to_open(args, create=args.create, first_run=True)  # before anything is loaded
    chat = make_chat(args.model, args.url_model, allow_plain_http=args.allow_plain_http)
    memory = _open(args, create=args.create, first_run=True, chat=chat)
    try:
        print(
            f"MemoryOS — vault {memory.path.name} ({memory.info().key_location}), model {chat.model_id}",
            file=sys.stderr,
        )
        if args.temporary:
            print(
                "Temporary chat: nothing from this conversation is written to disk.",
                file=sys.stderr,
            )
        if chat.remote:
            print(
                f"Remote model: your questions and the memories used to answer them are sent "
                f"to {chat.destination}, which is not this computer. Background memory work "
                f"is sent there only if allowed (remote_consolidation).",
                file=sys.stderr,
            )
        print(CHAT_HELP, file=sys.stderr)
        waiting = memory.take_unanswered()
        if waiting is not None:  # offered, never sent again by itself
            print(
                "Your last message was not answered: MemoryOS stopped while answering it. "
                "Send it again if you still want an answer:\n  "
                + "\n  ".join(waiting.text.splitlines()),
                file=sys.stderr,
            )
            if waiting.replaces is not None:  # an edit in the app: the exchange it replaced
                print(
                    "It was an edit of an earlier question; that exchange is kept as it was.",
                    file=sys.stderr,
                )
        stdin = sys.stdin
        try:
            stdin.reconfigure(errors="surrogateescape")  # bad bytes: a clear error, not a crash
        except (AttributeError, OSError):
            # not a text stream, or read already: a new passphrase was typed on it (getpass
            # reads standard input where the terminal is not this process's own)
            pass
        history = _line_editing(stdin)
        if waiting is not None and history is not None:
            history.add_history(waiting.text)  # Up brings the unanswered question back
        while True:
            line = _read_message(stdin)
            if line is None:  # end of input (Ctrl+D)
                break
            if not line.strip():
                continue
            if line.strip() in ("/quit", "/exit"):
                break
            if line.strip() == "/new":
                memory.new_conversation()
                print("(new conversation)", file=sys.stderr)
                continue
            if line.strip() == "/facts":
                _print_facts(memory, None, False)
                continue
            if line.strip() == "/status":
                print(status_text(memory.consolidation_status()), file=sys.stderr)
                continue
            from engine import chat_commands

            command = chat_commands.parse(line)
            if command is not None:
                _chat_command(memory, command, stdin, args.temporary)
                continue
            try:
                stream = memory.get_response(
                    line, max_tokens=args.max_tokens, temporary=args.temporary
                )
            except errors.InvalidInputError as exc:
                print(f"error: {exc}", file=sys.stderr)
                continue
            print("assistant> ", end="", flush=True)
            splitter = ThinkingSplitter()
            # Ctrl+C while it answers stops the answer (what was written is stored, as Stop in
            # the app): it used to end the stream with an error, and the exchange was lost.
            stream.stop_on_interrupt = True
            try:
                for chunk in stream:
                    for kind, text in splitter.feed(chunk):
                        # A reasoning model's thinking goes to stderr, dimmed: not the answer.
                        if kind == ANSWER:
                            print(text, end="", flush=True)
                        else:
                            print(_dim(text, sys.stderr), end="", file=sys.stderr, flush=True)
                for kind, text in splitter.finish():
                    print(
                        text, end="", flush=True, file=sys.stdout if kind == ANSWER else sys.stderr
                    )
                if stream.cancelled:
                    print(" [stopped]", end="")
            except KeyboardInterrupt:
                stream.cancel()
                for _ in stream:
                    pass
                print(" [stopped]", end="")
            except errors.BackendError as exc:
                print(f"\nerror: {exc.in_terminal()} (nothing was stored)", file=sys.stderr)
            print()
            if stream.cut_short:
                note = _cut_short_note(memory.chat, args.max_tokens)
                print(_dim(note, sys.stderr), file=sys.stderr)  # dim: about, not of, the answer
            if args.show_memory:
                _print_memories(memory, stream.memories)
    finally:
        memory.close()
    return 0


# ---- import -----------------------------------------------------------------------------


def _open_for_import(args, *, create: bool):
    """The vault to import into: it must exist unless --create (a typo never starts an empty
    memory), as `memoryos mcp` does."""
    import shlex

    return _open(
        args, create=create, background=False, make_new=f"memoryos import {shlex.quote(args.file)}"
    )


def run_import(args) -> int:
    from engine import forgetting, restore, transcripts

    data = transcripts.load(args.file)  # checked before any vault is opened or created
    if restore.is_export(data):
        return _run_restore(args, restore.read_export(data))
    exchanges = transcripts.exchanges_of(data)
    memory = _open_for_import(args, create=args.create)
    try:
        from tqdm import tqdm

        exchanges, already = transcripts.split_held(memory, exchanges)  # imported before
        note = forgetting.retention_note(
            memory.retention()[0], [e.timestamp for e in exchanges], time.time()
        )
        if note:
            print(note, file=sys.stderr)
            from engine.unlock import confirm

            if sys.stdin.isatty() and not confirm("Import anyway? [y/N] "):
                print("Nothing was imported.", file=sys.stderr)
                return 1

        conversations: dict[str | None, str] = {}
        added = 0
        for exchange in tqdm(exchanges, desc="Importing", unit="exchange", file=sys.stderr):
            if exchange.conversation not in conversations:
                conversations[exchange.conversation] = memory.new_conversation()
            memory.add_memory(
                exchange.user_input,
                exchange.agent_response,
                exchange.timestamp,
                exchange.meta,
                conversation_id=conversations[exchange.conversation],
                source="import",
            )
            added += 1
        print(transcripts.held_summary(added, already, memory.path.name), file=sys.stderr)
        if not args.no_consolidate:
            _consolidate_with_progress(memory)
    finally:
        memory.close()
    return 0


def _run_restore(args, export) -> int:
    """`memoryos import EXPORT.json`: an export (engine/export.py) back into a vault."""
    from tqdm import tqdm

    from engine import restore

    memory = _open_for_import(args, create=args.create)
    try:
        print(
            f"Restoring the export {args.file} ({restore.FORMAT}) into {memory.path.name}.",
            file=sys.stderr,
        )
        # "Restoring: 0/? exchanges", not the default "0exchange [00:00, ?exchange/s]"
        shape = "{desc}: {n_fmt}/{total_fmt} exchanges [{elapsed}]"
        with tqdm(desc="Restoring", bar_format=shape, file=sys.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()

            report = restore.restore(
                memory, export, progress, include_forgotten=args.include_forgotten
            )
        for line in report.lines():
            print(line, file=sys.stderr)
        if report.forgotten and not args.include_forgotten:
            print(
                "To bring them back too, run the same command with --include-forgotten.",
                file=sys.stderr,
            )
        if not args.no_consolidate:
            _consolidate_with_progress(memory)
    finally:
        memory.close()
    return 0


def _consolidate_with_progress(memory) -> None:
    from tqdm import tqdm

    # Jobs queue jobs as they run (the short-term overflow, each time the queue fills again), so
    # the bar is the share done, in percent, never less than it showed: a count of jobs had its
    # total raised part-way (0/60, 48/61, 62/62) and could move back.
    done = 0
    # no rate: "314651.46%/s" says nothing (the default format's rate, with percent as unit)
    shape = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"
    with tqdm(total=100, desc="Organising memory", bar_format=shape, file=sys.stderr) as bar:
        while True:
            ran = memory.run_consolidation(max_jobs=16)
            if not ran:
                break
            done += ran
            left = memory.consolidation_status().pending_jobs
            bar.update(max(0, 100 * done // (done + left) - bar.n))
        bar.update(100 - bar.n)
    from engine import chat_commands

    status = memory.consolidation_status()
    print(
        f"Memory: {chat_commands.memory_counts(status)}.",
        file=sys.stderr,
    )


# ---- facts ------------------------------------------------------------------------------


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def _learned_on(said: float, learned: float) -> str:
    """', learned 2026-11-27' after the day an item was said, when it was learned another day
    (history imported today); '' when it was learned that day."""
    return f", learned {_day(learned)}" if learned and _day(learned) != _day(said) else ""


FACT_PREFIX, PROFILE_PREFIX = "f", "p"  # ids as `facts list` prints and `facts delete` takes


def _learned_from(page_ids, origin: str) -> str:
    """'from exchange 4', 'from exchanges 1, 4', 'added by you': where an item came from (the
    exchange ids `memoryos forget page` takes)."""
    if page_ids:
        return f"from exchange{'s' if len(page_ids) > 1 else ''} {', '.join(map(str, page_ids))}"
    if origin == "user":
        return "added by you"
    return origin if origin.startswith("imported") else "no exchange kept"


def _one_line(text: str) -> str:
    """An item on one line of `facts list` (one item a line, for grep and eyes): its line
    breaks shown as ⏎ (a fact remembered from a multi-paragraph message has them)."""
    return " ⏎ ".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _slot_name(slot) -> str:
    """"category/name: " before a profile entry's value. An imported profile is its own text:
    its name only says where it came from, which its line says at its end."""
    return "" if slot.category == "imported" else f"{slot.category}/{slot.name}: "


def _listed(memory, include_all: bool) -> list[tuple[str, object, str]]:
    """Every item `facts list` shows, as (kind, item, the line printed for it): profile entries,
    then facts as the prompt reads them. --search matches these lines: what is shown (a
    resolved date, an id, a category) is what can be found."""
    from engine.remembered import said_at
    from engine.retrieval import dated_facts

    out: list[tuple[str, object, str]] = []
    for slot in memory.profile(include_superseded=include_all):
        mark = "" if slot.status == "active" else f" [{slot.status}]"
        named = _slot_name(slot)
        line = (
            f"profile {PROFILE_PREFIX + str(slot.id):>6}  {named}"
            f"{_one_line(slot.value)}{mark}  ({_learned_from(slot.evidence_page_ids, slot.origin)})"
        )
        out.append(("profile", slot, line))
    facts = memory.facts(include_superseded=include_all)
    # Dated when said: the first of its exchanges still stored, as the app dates it
    sources = sorted({i for fact in facts for i in fact.source_page_ids})
    times = {page.id: page.timestamp for page in memory.vault.pages(sources)}
    # As the prompt reads them: "Next Friday [4 December 2026] I fly to Lisbon", from when said
    for fact, dated in zip(facts, dated_facts(memory.vault, facts), strict=True):
        mark = "" if fact.status == "active" else f" [{fact.status}]"
        label = "knows  " if fact.kind == "assistant_knowledge" else "fact   "
        said = said_at(times, fact.source_page_ids, fact.created)
        line = (
            f"{label} {FACT_PREFIX + str(fact.id):>6}  {_one_line(dated.text)}{mark}  "
            f"({_when(said)}{_learned_on(said, fact.created)}, "
            f"{_learned_from(fact.source_page_ids, fact.origin)})"
        )
        out.append(("fact", fact, line))
    return out


def _matching(items: list[tuple[str, object, str]], search: str | None):
    """The items whose printed line contains `search` (any case); all of them without one."""
    if not search:
        return items
    return [item for item in items if search.lower() in item[2].lower()]


def _print_facts(memory, search: str | None, include_all: bool) -> None:
    items = _listed(memory, include_all)
    shown = _matching(items, search)
    if not items:
        print("Nothing learned yet.")
    elif not shown:
        print(f"Nothing learned matches {search!r}.")
    for _, _, line in shown:
        print(line)


def parse_item_ids(tokens: list[str]) -> list[tuple[str, int]]:
    """`facts delete` ids: f12 / fact 12 / 12 (a fact or assistant knowledge, as before),
    p3 / profile 3 (a profile entry). Returns (kind, id) pairs in order, without repeats."""
    import re

    out: list[tuple[str, int]] = []
    word: str | None = None
    for token in tokens:
        text = token.strip().lower()
        if text in ("fact", "profile"):
            if word is not None:
                raise errors.InvalidInputError(f"{word!r} needs an id after it, e.g. {word} 3")
            word = text
            continue
        found = re.fullmatch(r"(f|p|fact|profile)?(\d+)", text)
        if not found or (word is not None and found.group(1)):
            raise errors.InvalidInputError(
                f"{token!r} is not an id: use what `memoryos facts list` shows, f12 for a fact "
                "or p3 for a profile entry (a bare number is a fact)"
            )
        kind = "profile" if (word or found.group(1) or "f").startswith("p") else "fact"
        word = None
        if (kind, int(found.group(2))) not in out:
            out.append((kind, int(found.group(2))))
    if word is not None:
        raise errors.InvalidInputError(f"{word!r} needs an id after it, e.g. {word} 3")
    return out


def _delete_items(memory, args) -> int:
    """`facts delete`: every id checked first (nothing goes if one is unknown); the items are
    listed and the app's privacy-panel question asked, unless --yes (run_facts refuses to
    delete without it where there is no terminal to ask in, as `forget` does)."""
    from engine import forgetting

    chosen = parse_item_ids(args.ids)
    items = []
    for kind, item_id in chosen:
        if kind == "profile":
            slot = memory.vault.slot(item_id)  # NotFoundError: no profile slot with id N
            items.append((kind, item_id, f"{_slot_name(slot)}{slot.value}", slot))
        else:
            fact = memory.fact(item_id)  # NotFoundError: no fact with id N
            items.append((kind, item_id, fact.text, fact))
    if not args.yes:
        for kind, item_id, text, _ in items:
            prefix = PROFILE_PREFIX if kind == "profile" else FACT_PREFIX
            print(f"  {prefix}{item_id}  {' '.join(text.split())[:100]}")
        from engine.unlock import confirm

        if not confirm(f"{forgetting.delete_question(len(items))} [y/N] "):
            print("Nothing was deleted.")
            return 1
    facts = [item_id for kind, item_id, _, _ in items if kind == "fact"]
    if facts:
        memory.delete_facts(facts)
    for kind, item_id, _, _ in items:
        if kind == "profile":
            memory.delete_profile_slot(item_id)  # what the app's privacy panel calls
    profile = len(items) - len(facts)
    parts = [_count(len(facts), "fact")] if facts else []
    parts += [f"{profile} profile entr{'y' if profile == 1 else 'ies'}"] if profile else []
    print(f"Deleted {' and '.join(parts)}.")
    sources = any(
        (item.evidence_page_ids if kind == "profile" else item.source_page_ids)
        for kind, _, _, item in items
    )
    if sources:
        print(
            f"{forgetting.sources_stay(len(items))}; `memoryos forget conversation ID` forgets "
            "those too."
        )
    return 0


def run_facts(args) -> int:
    if args.action == "delete":
        parse_item_ids(args.ids)  # a mistyped id is told before anything else
        if not args.yes and not sys.stdin.isatty():
            raise errors.InvalidInputError("add --yes to confirm (no terminal to ask)")
    memory = _open(args, background=False)
    try:
        action = args.action or "list"
        if action == "list":
            if getattr(args, "json", False):
                # the same items as the listing: --search matches their printed lines
                shown = _matching(_listed(memory, args.all), args.search)
                data = {
                    "profile": [
                        {**s.__dict__, "ref": f"{PROFILE_PREFIX}{s.id}"}
                        for kind, s, _ in shown
                        if kind == "profile"
                    ],
                    "facts": [
                        {**f.__dict__, "ref": f"{FACT_PREFIX}{f.id}"}
                        for kind, f, _ in shown
                        if kind == "fact"
                    ],
                }
                print(json.dumps(data, indent=1, ensure_ascii=False))
            else:
                _print_facts(memory, getattr(args, "search", None), getattr(args, "all", False))
        elif action == "delete":
            return _delete_items(memory, args)
        elif action == "add":
            fact = memory.add_fact(args.text)
            print(f"Added fact {FACT_PREFIX}{fact.id}.")
    finally:
        memory.close()
    return 0


# ---- conversations ----------------------------------------------------------------------


def run_conversations(args) -> int:
    """Each conversation with the id `memoryos forget conversation ID` takes, newest first."""
    if getattr(args, "pages", None) is not None:
        return _conversation_pages(args)
    memory = _open(args, background=False)
    try:
        conversations = memory.conversations()  # newest last exchange first
        if getattr(args, "json", False):
            data = [
                {"id": c.id, "title": c.title, "first_ts": c.first_ts, "last_ts": c.last_ts,
                 "first": iso(c.first_ts), "last": iso(c.last_ts), "exchanges": c.pages}
                for c in conversations
            ]  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
        elif not conversations:
            print("No conversations yet.")
        else:
            width = max(len(c.id) for c in conversations)
            for c in conversations:
                title = " ".join(c.title.split()) or "(untitled)"
                title = title if len(title) <= 70 else title[:69] + "…"
                print(
                    f"{c.id:<{width}}  {_when(c.first_ts)} – {_when(c.last_ts)}  "
                    f"{_count(c.pages, 'exchange'):>13}  {title}"
                )
    finally:
        memory.close()
    return 0


def run_search(args) -> int:
    """`memoryos search WORDS`: what the app's sidebar search finds (every word, the last one a
    prefix), then the facts and profile entries holding all the words."""
    from engine import conversations as past
    from engine.vault.search import MARK_END, MARK_START

    text = " ".join(args.words).strip()
    if not text:
        raise errors.InvalidInputError("say what to look for: memoryos search WORDS")
    if args.limit < 1:
        raise errors.InvalidInputError(f"--limit {args.limit}: give a number of 1 or more")
    memory = _open(args, background=False)
    try:
        hits = past.search(memory, text, limit=args.limit)
        words = [w.casefold() for w in text.split()]
        items = [
            (ref, item_text)
            for ref, item_text in _persona_lines(memory)
            if all(w in item_text.casefold() for w in words)
        ]
        if args.json:
            data = {
                "exchanges": [
                    {"page_id": h.page_id, "conversation_id": h.conversation_id,
                     "title": h.title, "timestamp": h.timestamp, "date": iso(h.timestamp),
                     "snippet": h.snippet.replace(MARK_START, "").replace(MARK_END, "")}
                    for h in hits
                ],
                "facts": [{"ref": ref, "text": item_text} for ref, item_text in items],
            }  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
            return 0
        if not hits and not items:
            print(f"Nothing holds {text!r}.")
            return 1
        bold = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        start, end = ("\033[1m", "\033[0m") if bold else ("[", "]")
        for hit in hits:
            title = " ".join(hit.title.split()) or "(untitled)"
            title = title if len(title) <= 50 else title[:49] + "…"
            snippet = " ".join(hit.snippet.split()).replace(MARK_START, start)
            print(f"page {hit.page_id}  {_when(hit.timestamp)}  {title}  "
                  f"({hit.conversation_id})")
            print(f"    {snippet.replace(MARK_END, end)}")
        if len(hits) == args.limit:
            print(f"(the first {args.limit}: --limit N for more)")
        if items:
            print("Facts and profile entries:")
            for ref, item_text in items:
                print(f"  {ref:>5}  {item_text}")
    finally:
        memory.close()
    return 0


def _persona_lines(memory) -> list[tuple[str, str]]:
    """Every current fact, note of what the assistant said and profile entry, with the ref
    `memoryos facts delete` takes (f12, p3), as `facts list` shows them."""
    lines = [(f"f{fact.id}", fact.text) for fact in memory.facts()]
    lines += [(f"p{slot.id}", slot.text) for slot in memory.profile()]
    return lines


def iso(timestamp: float) -> str:
    """Epoch seconds as ISO 8601 UTC (2026-11-27T03:26:50Z), as `memoryos mcp` gives dates;
    --json keeps the number beside it for scripts that read it."""
    from datetime import datetime, timezone

    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _conversation_pages(args) -> int:
    """`conversations --pages ID`: the exchanges of one conversation, oldest first, with the
    page ids `memoryos forget page ID` takes (export may be off by policy, and the app shows
    no ids)."""
    conversation_id = args.pages.strip()
    memory = _open(args, background=False)
    try:
        pages = sorted(memory.pages(conversation_id=conversation_id, limit=1_000_000),
                       key=lambda p: (p.timestamp, p.id))
        if not pages:
            raise errors.NotFoundError(
                f"no conversation with id {conversation_id!r} in this vault: "
                "`memoryos conversations` lists the ids")
        if getattr(args, "json", False):
            data = [
                {"id": p.id, "timestamp": p.timestamp, "date": iso(p.timestamp),
                 "user": p.user_input, "assistant": p.agent_response}
                for p in pages
            ]  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
        else:
            width = max(len(str(p.id)) for p in pages)
            for p in pages:
                said = " ".join(p.user_input.split()) or "(nothing said)"
                said = said if len(said) <= 70 else said[:69] + "…"
                print(f"{p.id:>{width}}  {_when(p.timestamp)}  {said}")
    finally:
        memory.close()
    return 0


# ---- export, forget, status -------------------------------------------------------------


def run_export(args) -> int:
    from engine.export import check_target

    if args.file != "-":
        check_target(args.file)  # before the passphrase is asked: a missing folder is refused
    memory = _open(args, background=False)
    try:
        if args.file == "-":
            json.dump(memory.export_json(), sys.stdout, ensure_ascii=False, indent=1)
            print()
        else:
            data = memory.export_json(args.file)
            print(
                f"Exported {len(data['pages'])} pages and {len(data['facts'])} facts to {args.file}.\n"
                "This copy is not encrypted (only your account can open it): delete it when done.",
                file=sys.stderr,
            )
    finally:
        memory.close()
    return 0


def run_forget(args) -> int:
    if args.what != "everything" and args.id is None:
        raise errors.InvalidInputError(f"say which {args.what}: memoryos forget {args.what} ID")
    if not args.yes and not sys.stdin.isatty():
        raise errors.InvalidInputError("add --yes to confirm (no terminal to ask)")
    if args.what == "everything":  # before the passphrase and the question: it would be refused
        from engine.api import EVERYTHING_ALSO, refuse_while_open_elsewhere

        refuse_while_open_elsewhere(
            vault_to_open(args), "nothing was forgotten", "forget everything again",
            closed_here=True, also=EVERYTHING_ALSO,
        )  # fmt: skip
    memory = _open(args, background=False)
    try:
        if args.what == "everything":
            target, preview = f"EVERYTHING in {_holding(memory)}", None
        else:
            target = f"{args.what} {args.id}"
            preview = {
                "page": lambda: memory.preview_forget_page(_int(args.id)),
                "segment": lambda: memory.preview_forget_segment(_int(args.id)),
                "conversation": lambda: memory.preview_forget_conversation(args.id),
            }[args.what]()  # NotFoundError before asking anything
        if not args.yes:
            from engine.unlock import confirm

            if preview is not None:  # what else goes, before the person confirms
                print("This will: " + "; ".join(preview.lines()) + ".")
                for line in _quoted(memory, preview):
                    print(line)
            if not confirm(f"Forget {target}? This cannot be undone. [y/N] "):
                print("Nothing was deleted.")
                return 1
        if args.what == "page":
            done = memory.forget_page(_int(args.id))
        elif args.what == "segment":
            done = memory.forget_segment(_int(args.id))
        elif args.what == "conversation":
            done = memory.forget_conversation(args.id)
        else:
            memory.forget_everything()
            done = None
        print("Forgotten" + (": " + "; ".join(done.lines()) if done else "") + ".")
    finally:
        memory.close()
    return 0


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


QUOTED = 5  # exchanges, then learned items, quoted before a forget; the rest are counted


def _quoted(memory, preview) -> list[str]:
    """What a forget removes, quoted: each exchange's first words, and the facts' and profile
    entries' text (a count says what went was all that was shown before)."""
    out: list[str] = []
    for page_id in preview.pages[:QUOTED]:
        said = _short(memory.page(page_id).user_input) or "(nothing said)"
        out.append(f"  exchange {page_id}: {said}")
    if len(preview.pages) > QUOTED:
        out.append(f"  and {_count(len(preview.pages) - QUOTED, 'more exchange')}")
    learned = [*preview.fact_texts, *preview.slot_texts]
    out += [f"  learned: {_short(text)}" for text in learned[:QUOTED]]
    if len(learned) > QUOTED:
        out.append(f"  and {len(learned) - QUOTED} more learned")
    return out


def _holding(memory) -> str:
    """'the vault work.memoryos (12 exchanges in 3 conversations, 7 facts · 5 profile
    entries)': which vault `forget everything` empties, and how much goes."""
    from engine import chat_commands

    conversations = len(memory.conversations())
    held = (
        f"{_count(memory.info().pages, 'exchange')} in {_count(conversations, 'conversation')}, "
        f"{chat_commands.known_text(memory.consolidation_status())}"
    )
    return f"the vault {memory.path.name} at {memory.path} ({held})"


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise errors.InvalidInputError(f"{value!r} is not a number") from None


def run_status(args) -> int:
    from engine import chat_commands

    memory = _open(args, background=False)
    try:
        info, status = memory.info(), memory.consolidation_status()
        print(
            f"vault      {info.path}\nkey        {info.key_location}\nembedder   {info.embedder_id} "
            f"({info.embedder_dimension} d)\nsize       {info.size_bytes / 1e6:.1f} MB\n"
            f"pages      {info.pages} ({status.short_term_pages} short-term, {status.mid_term_pages} "
            f"mid-term)\nsegments   {status.segments}\n"
            f"long-term  {chat_commands.known_text(status)}\n"
            f"vocabulary {status.words} words\n"
            f"jobs       {status.pending_jobs} pending, {status.failed_jobs} failed"
        )
        if status.last_error:
            print(f"last error {status.last_error}")
    finally:
        memory.close()
    return 0


def run_reembed(args) -> int:
    from tqdm import tqdm

    from engine.unlock import open_vault_only
    from engine.vault.reembed import reembed

    path = vault_to_open(args)
    embedder = make_embedder(args.to)
    vault = open_vault_only(path)
    try:
        if _embedded_with(vault, embedder):  # re-embedding would give the same vectors again
            print(
                f"{path.name} is already embedded with {embedder.model_id}: nothing to do. "
                "To move it to another model: memoryos reembed --to DIR",
                file=sys.stderr,
            )
            return 0
        with tqdm(desc="Re-embedding", unit="text", file=sys.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()

            reembed(vault, embedder, progress)
        print(
            f"The vault now uses {embedder.model_id} ({embedder.dimension} dimensions).",
            file=sys.stderr,
        )
    finally:
        vault.close()
    return 0


def _embedded_with(vault, embedder) -> bool:
    """Are all the vault's vectors from `embedder` (no move to another model half done)?"""
    return (
        vault.get_meta("embedder_id") == embedder.model_id
        and int(vault.get_meta("embedder_dimension") or 0) == embedder.dimension
        and vault.get_meta("reembed_target") is None
    )


NEW_PASSPHRASE_ENV = "MEMORYOS_NEW_PASSPHRASE"


def run_rekey(args) -> int:
    """Re-encrypt every page under a passphrase (the same one or a new one) with the strong
    key derivation; a keyring vault moves to the passphrase and its keyring key is deleted."""
    import os

    from engine.unlock import ask_new_passphrase, open_vault_only
    from engine.vault import cipher, keys

    path = vault_to_open(args)
    try:
        vault = open_vault_only(path)
        try:
            was = vault.key_location
            new = os.environ.pop(NEW_PASSPHRASE_ENV, None) or ask_new_passphrase(NEW_PASSPHRASE_ENV)
            started = time.perf_counter()
            vault.rekey(new)
            took = time.perf_counter() - started
        finally:
            vault.close()
    except errors.VaultLockedError:
        raise errors.VaultLockedError(
            "the vault is open in another program (the app or `memoryos mcp`): close it, then "
            "try again"
        ) from None
    if was.startswith("keyring"):
        keys.delete_key(path)
    print(
        f"Re-encrypted {path.name} in {took:.1f} s. {_protected_before(was)}; it is now "
        f"protected by the passphrase you gave ({cipher.CIPHER}, PBKDF2-HMAC-SHA256 with "
        f"{cipher.PASSPHRASE_KDF_ITER:,} iterations). Older backups were deleted.",
        file=sys.stderr,
    )
    return 0


def _protected_before(key_location: str) -> str:
    """What protected the vault before `rekey`, from its key location as unlocked."""
    if key_location.startswith("keyring"):
        backend = key_location.removeprefix("keyring").strip()  # "(SecretService ...)"
        return " ".join(["The vault's key was in the keyring", backend]).strip() + ", now deleted"
    if key_location != "passphrase":  # an old vault: "passphrase (older, faster key ...)"
        return "The vault was protected by a passphrase with the older, faster key derivation"
    return "The vault was protected by a passphrase"


def run_doctor(args) -> int:
    from engine.doctor import run_checks

    # first_run: on a computer with no vault yet, the checks run and say so (none is made)
    return run_checks(vault_to_open(args, first_run=True), make_embedder(embedder_name(args)))
