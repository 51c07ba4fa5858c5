"""`memoryos import` (chat transcripts, or an export restored) and `memoryos export`."""

from __future__ import annotations

import json
import sys
import time

from engine.terminal.opening import _open


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

        total = len(exchanges)
        # imported before (a run stopped part-way): skipped, and their conversations continued
        exchanges, already, conversations = transcripts.held(memory, exchanges)
        if already and exchanges:
            print(transcripts.resumed_note(already, total), file=sys.stderr)
        note = forgetting.retention_note(
            memory.retention()[0], [e.timestamp for e in exchanges], time.time()
        )
        if note:
            print(note, file=sys.stderr)
            from engine.unlock import confirm

            if sys.stdin.isatty() and not confirm("Import anyway? [y/N] "):
                print("Nothing was imported.", file=sys.stderr)
                return 1

        added, into = 0, set()
        if exchanges:  # all held already: no empty "Importing: 0exchange [00:00, ?exchange/s]"
            with tqdm(
                total=len(exchanges), desc="Importing", unit="exchange", file=sys.stderr
            ) as bar:
                for added in transcripts.store(memory, exchanges, conversations, into=into):
                    bar.update(added - bar.n)
        summary = transcripts.held_summary(added, already, memory.path.name, len(into))
        print(summary, file=sys.stderr)
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


def run_export(args) -> int:
    from engine.export import check_target, unreadable_text
    from engine.records import SUPERSEDED

    if args.file != "-":
        check_target(args.file)  # before the passphrase is asked: a missing folder is refused
    memory = _open(args, background=False)
    try:
        if args.file == "-":
            data = memory.export_json()
            json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
            print()
        else:
            data = memory.export_json(args.file)
            # `facts list` shows current facts only: say how many of these are replaced ones
            replaced = sum(fact["status"] == SUPERSEDED for fact in data["facts"])
            of_them = f" ({replaced} of them replaced by a newer one)" if replaced else ""
            print(
                f"Exported {len(data['pages'])} pages and {len(data['facts'])} facts{of_them} "
                f"to {args.file}.\n"
                "This copy is not encrypted (only your account can open it): delete it when done.",
                file=sys.stderr,
            )
    finally:
        memory.close()
    damaged = unreadable_text(data)
    if damaged:  # the export holds what could be read; exit 1 so a script does not take it whole
        print(damaged, file=sys.stderr)
        return 1
    return 0
