"""`memoryos status`, `reembed`, `rekey` and `doctor`: looking after a vault."""

from __future__ import annotations

import sys
import time

from engine import errors
from engine.backends.build import make_embedder
from engine.terminal.opening import _open, embedder_name, vault_to_open


def run_status(args) -> int:
    from engine import chat_commands, policy
    from engine.terminal.wording import size
    from engine.vault.damage import damaged_message, naming_vault

    in_force = policy.summary()  # a broken policy stops here, with its error, before unlocking
    path = vault_to_open(args)
    try:
        memory = _open(args, background=False)
    except errors.VaultCorruptError as exc:  # damaged where opening reads: say which vault
        raise naming_vault(exc, path) from exc
    try:
        info, status = memory.info(), memory.consolidation_status()
        print(
            f"vault      {info.path}\nkey        {info.key_location}\n"
            f"embedder   {info.embedder_id} ({info.embedder_dimension} d)\n"
            f"size       {size(info.size_bytes)}\n"
            f"pages      {info.pages} ({status.short_term_pages} short-term, "
            f"{status.mid_term_pages} mid-term)\nsegments   {status.segments}\n"
            f"long-term  {chat_commands.known_text(status)}\n"
            f"vocabulary {status.words} words\n"
            f"jobs       {status.pending_jobs} pending, {status.failed_jobs} failed"
        )
        if status.last_error:
            print(f"last error {status.last_error}")
        print(f"policy     {in_force}")
        health = memory.vault.health()  # reads every page: the figures above read only a few
    except errors.VaultCorruptError as exc:
        raise naming_vault(exc, path) from exc
    finally:
        memory.close()
    if health.damaged:
        print(f"health     DAMAGED: {health.summary()}")
        print(damaged_message(capital=True, path=path), file=sys.stderr)
        return 1
    print("health     ok (every page of the file was read)")
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
