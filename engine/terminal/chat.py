"""`memoryos chat`: the conversation in the terminal, its /commands and its line editing."""

from __future__ import annotations

import logging
import sys

from engine import errors
from engine.terminal import wording
from engine.terminal.facts import FACT_PREFIX, PROFILE_PREFIX, _print_facts
from engine.terminal.opening import _open, make_chat, vault_to_open
from engine.thinking import ANSWER, ThinkingSplitter

CHAT_HELP = (
    "Commands: /remember TEXT, /forget WORDS, /new (new conversation), /facts, /status, "
    "/help, /quit. Ctrl+C stops an answer."
)


def _print_memories(memory, items) -> None:
    from engine import remembered

    print(remembered.summary(items), file=sys.stderr)
    # Facts and profile entries dated when they were said, as the app shows them
    for n, item in enumerate(remembered.dated_when_said(memory.vault, items), 1):
        day = wording.day(item.date) + wording.learned_on(item.date, getattr(item, "learned", 0.0))
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


def _unread_lines(stdin) -> list[str]:
    """The lines waiting unread on standard input: piped ones to the end, typed ones the
    terminal already holds (typed ahead while an answer was written)."""
    try:
        if not stdin.isatty():
            return stdin.read().splitlines()
        import select

        lines = []
        while select.select([stdin], [], [], 0)[0] and (line := stdin.readline()):
            lines.append(line.rstrip("\n"))
        return lines
    except (OSError, ValueError):  # closed, or Windows (whose select takes sockets only)
        return []


def _stopped(exc: errors.MemoryOSError, current: str | None, stdin) -> int:
    """`memoryos chat` stops on an error that the next message would meet too (the disk full,
    the vault locked or damaged): going on, each answer would be shown and not stored. What
    was typed or piped and not done is said, to be sent again once that is fixed."""
    if current is not None:
        print(flush=True)  # ends the answer's line ("assistant> …"), if it was begun
    print(f"error: {exc.in_terminal()}", file=sys.stderr)
    waiting = [line for line in _unread_lines(stdin) if line.strip()]
    if current is not None:
        print(
            "Not saved (send it again once this is fixed):\n  "
            + "\n  ".join(current.splitlines()),
            file=sys.stderr,
        )
    if waiting:
        print(
            f"Not sent, {wording.count(len(waiting), 'line')} that chat did not read (send "
            f"{'it' if len(waiting) == 1 else 'them'} again once this is fixed):\n  "
            + "\n  ".join(waiting),
            file=sys.stderr,
        )
    return 1


class _BackgroundErrors(logging.Handler):
    """The background memory building's failures, while `memoryos chat` runs: one plain line
    each, not a traceback between answers, and not again while the same failure lasts (each
    job it fails on logs it)."""

    said = ""

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, errors.MemoryOSError):  # the environment: the disk, the vault
            why = exc.in_terminal()
            then = "it goes on by itself once that is fixed"
        else:  # a bug: what /status shows too
            why = f"{type(exc).__name__}: {exc}" if exc is not None else record.getMessage()
            then = "please report this"
        if why == self.said:
            return
        self.said = why
        print(
            f"(memory building stopped: {why}. Your exchanges are stored; {then}. "
            "/status shows how it stands)",
            file=sys.stderr,
        )
        if record.exc_info and not isinstance(exc, errors.MemoryOSError):
            # a bug: its traceback once, for the report (what the log printed before)
            print(logging.Formatter().formatException(record.exc_info), file=sys.stderr)


def run_chat(args) -> int:
    background = logging.getLogger("engine.consolidation")
    handler = _BackgroundErrors()
    background.addHandler(handler)
    propagate, background.propagate = background.propagate, False
    try:
        return _run_chat(args)
    finally:
        background.removeHandler(handler)
        background.propagate = propagate


def _run_chat(args) -> int:
    vault_to_open(args, create=args.create, first_run=True)  # before anything is loaded
    chat = make_chat(args.model, args.url_model, allow_plain_http=args.allow_plain_http)
    memory = _open(args, create=args.create, first_run=True, chat=chat)
    try:
        print(
            f"MemoryOS — vault {memory.path.name} ({memory.info().key_location}), "
            f"model {chat.model_id}",
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
                "Send it again if you still want an answer (it is kept until you send a "
                "message):\n  "
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
        doing: list[str] = []  # the message or /command being done
        try:
            _converse(memory, args, stdin, doing)
        except errors.MemoryOSError as exc:  # not the person's input (that is said and skipped)
            return _stopped(exc, doing[0] if doing else None, stdin)
    finally:
        memory.close()
    return 0


def _converse(memory, args, stdin, doing: list[str]) -> None:
    """The messages and /commands, one at a time, to the end of the input or /quit; `doing`
    holds the one being done."""
    while True:
        doing.clear()
        line = _read_message(stdin)
        if line is None:  # end of input (Ctrl+D)
            break
        doing.append(line)
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
