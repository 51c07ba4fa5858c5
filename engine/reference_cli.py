"""`memoryos import-reference PATH`: a reference MemoryOS data folder into a vault (or --dry-run)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import errors

COUNT_LABELS = {
    "short_term_pages": "short-term pages",
    "segments": "mid-term sessions (segments)",
    "mid_term_pages": "mid-term pages",
    "analysed_pages": "  of them analysed",
    "profile": "user profile",
    "user_knowledge": "user knowledge (facts)",
    "assistant_knowledge": "assistant knowledge",
    "skipped_empty_pages": "empty pages (skipped)",
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    from engine.cli_parser import _vault_options

    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # a prefix of an option is not that option
        prog="memoryos import-reference",
        description="Import the memory of the reference MemoryOS (BAI-LAB/MemoryOS): short-term "
        "pages, mid-term sessions with their pages and heat counters, the user profile, user and "
        "assistant knowledge. All or nothing: a bad file is an error naming it and the vault is "
        "left as it was. Importing the same folder again adds nothing twice.",
    )
    parser.add_argument("path", help="the reference's data_storage_path (it holds users/)")
    parser.add_argument("--user", metavar="USER_ID", help="which user (default: the only one)")
    parser.add_argument(
        "--assistant",
        metavar="ASSISTANT_ID",
        action="append",
        help="whose assistant knowledge to bring (repeatable; default: every assistant)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="read and check everything, report counts, write nothing",
    )
    parser.add_argument(
        "--no-consolidate", action="store_true", help="do not organise the memory afterwards"
    )
    parser.add_argument(
        "--data-folder",
        metavar="FOLDER",
        help="import into a data folder of the compatibility class (engine.compat.Memoryos): the "
        "user's vault FOLDER/users/<user>/vault.memoryos, and each assistant's knowledge into "
        "FOLDER/assistants/<assistant>/vault.memoryos, shared by every user of that assistant "
        "(instead of --vault/--vault-path, where it goes into that one vault)",
    )
    _vault_options(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _run(args)
    except errors.InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except errors.MemoryOSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT
    from engine.reference_files import find_users, not_found_note, read_reference
    from engine.reference_import import import_steps, vault_counts
    from engine.terminal.wording import count

    if args.data_folder and (args.vault or args.vault_path):  # before reading any file
        raise errors.InvalidInputError("give either --data-folder or --vault/--vault-path")
    if not Path(args.path).expanduser().exists():
        raise errors.InvalidInputError(f"no folder at {args.path}")
    if args.user is None:
        users = find_users(args.path)
        if len(users) > 1:
            raise errors.InvalidInputError(
                f"{args.path} holds {len(users)} users ({', '.join(users)}): choose one with "
                f"--user, e.g. --user {users[0]}"
            )
    data = read_reference(args.path, args.user, args.assistant)
    found = data.counts()
    print(f"Reference memory of user {data.user_id!r} in {data.folder}:")
    entries = {"user_knowledge": data.knowledge_entries.get(USER_FACT, 0),
               "assistant_knowledge": data.knowledge_entries.get(ASSISTANT_KNOWLEDGE, 0)}
    for key, label in COUNT_LABELS.items():
        merged = ""
        if entries.get(key, 0) > found[key]:  # the reference writes each analysis again
            merged = f" (from {entries[key]} entries in its files: the same fact once)"
        print(f"  {label:32} {found[key]}{merged}")
    if data.recovered:
        pages = count(data.recovered, "mid-term page")
        lost = "it" if data.recovered == 1 else "them"
        print(
            f"  {pages} only in chroma.sqlite3 (the reference's own JSON lost {lost}): "
            "imported too"
        )
    if data.assistants:
        print(f"  assistants: {', '.join(data.assistants)}")
    note = not_found_note(data.not_found)
    if args.dry_run:
        if note:
            print(note)
        print("Dry run: nothing was written.")
        return 0
    from tqdm import tqdm

    from engine.terminal.import_export import _consolidate_with_progress
    from engine.terminal.opening import _exists, _open, vault_to_open

    shared: dict = {}
    if args.data_folder:
        memory, shared, new = _open_data_folder(args, data)
    else:
        new = not _exists(vault_to_open(args, create=True))
        memory = _open(args, create=True, background=False)
    try:
        if new:  # made now, by this command: say so, and where
            print(f"Created the new vault {memory.path.name} at {memory.path}.")
        before = vault_counts(memory)
        steps = import_steps(memory, data, shared)
        _, first_total = next(steps)  # what is left to import: the folder less what was before
        with tqdm(total=first_total, desc="Importing", unit="item", file=sys.stderr) as bar:
            while True:
                try:
                    done, total = next(steps)
                except StopIteration as finished:
                    added = finished.value
                    break
                bar.total = total
                bar.update(done - bar.n)
        for aid, store in shared.items():
            store.sync(memory)  # the user's copy of the assistant's knowledge
            knowledge = count(len(store.entries()), "piece", "pieces")
            print(f"Assistant {aid!r}: {knowledge} of knowledge in {store.vault.path}")
        after = vault_counts(memory)
        print(f"Vault {memory.path.name}:")  # a name of any length leaves the columns be
        print(f"  {'':22} {'before':>6} {'after':>6}")
        for key in after:
            print(f"  {key:22} {before[key]:6} {after[key]:6}")
        if added.nothing:
            print("Already in this vault: nothing new was added.")
        else:
            print(f"Added {added.summary()}.")
            if added.already_pages:
                already = count(added.already_pages, "page")
                print(f"Already in this vault, not added again: {already}.")
        if note:
            print(note)
        if not args.no_consolidate:
            _consolidate_with_progress(memory)
    finally:
        memory.close()
        for store in shared.values():
            store.close()
    return 0


def _open_data_folder(args: argparse.Namespace, data) -> tuple:
    """The user's vault in a compat data folder and the shared vault of each assistant imported;
    one key for all (the keyring, else one passphrase, as engine.compat.Memoryos does), and
    whether the user's vault was made now."""
    from engine import unlock
    from engine.api import MemoryOS
    from engine.backends.build import make_embedder
    from engine.compat import vault_path
    from engine.shared_knowledge import SharedKnowledge
    from engine.terminal.opening import embedder_name
    from engine.vault import keyring_status

    path = vault_path(args.data_folder, data.user_id)
    embedder = make_embedder(embedder_name(args))
    passphrase = unlock.env_passphrase()
    exists = path.exists() and path.stat().st_size > 0
    if passphrase is None and not keyring_status().usable:
        passphrase = (
            unlock._ask(f"Passphrase for {path}: ") if exists else unlock.ask_new_passphrase()
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    memory = MemoryOS.open(
        path, create=True, passphrase=passphrase, embedder=embedder, background=False
    )
    shared = {}
    try:
        for aid in data.assistants:
            shared[aid] = SharedKnowledge.open(args.data_folder, aid, embedder, passphrase)
    except BaseException:
        memory.close()
        for store in shared.values():
            store.close()
        raise
    return memory, shared, not exists


if __name__ == "__main__":
    sys.exit(main())
