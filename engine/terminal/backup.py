"""`memoryos backup FILE`: an encrypted copy of the whole vault, made while it may be open."""

from __future__ import annotations

import os
import sys

from engine.terminal.opening import _open, vault_to_open


def run_backup(args) -> int:
    from engine.terminal.maintenance import NEW_PASSPHRASE_ENV
    from engine.terminal.wording import size
    from engine.unlock import ask_new_passphrase
    from engine.vault.backup import check_target

    # refused before the passphrase is asked: a missing folder, the vault itself, a file there
    check_target(args.file, vault_to_open(args, make_new="memoryos chat"), force=args.force)
    # --passphrase: a new one for the copy, as `memoryos rekey` takes it; read from the
    # environment before the vault opens, so no helper process started then inherits it
    new = os.environ.pop(NEW_PASSPHRASE_ENV, None) if args.passphrase else None
    memory = _open(args, background=False)
    try:
        if args.passphrase and not new:
            new = ask_new_passphrase(NEW_PASSPHRASE_ENV)
        done = memory.backup(args.file, force=args.force, passphrase=new)
        name = memory.path.name
    finally:
        memory.close()
    print(
        f"Backed up {name} ({size(done.size_bytes)}) to {done.path}.\n"
        f"{done.how_to_open()}",
        file=sys.stderr,
    )
    return 0
