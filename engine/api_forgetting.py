"""Forgetting, from one exchange to the whole vault (erase_vault), and export and backup."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine import errors, forgetting, unanswered
from engine.export import export_json
from engine.forgetting import ForgetPreview
from engine.vault import keys
from engine.vault.holders import Holder


def vault_open_elsewhere(path: str | Path) -> list[Holder]:
    """The other programs (the MCP server, another window) that have the vault at `path` open,
    each with its process and command so a person can find and stop it; empty if none is
    known."""
    from engine.vault.holders import open_elsewhere

    return open_elsewhere(path)


def refuse_while_open_elsewhere(
    path: str | Path, refused: str, then: str, *, closed_here: bool = False, also: str = ""
) -> None:
    """VaultLockedError, "<refused>: the vault 'work' is open in another program (`memoryos mcp
    --vault work` (process 1234))... then <then>", while another program has the vault open:
    for what that program would undo or lose (it goes on with what it holds in memory).
    `closed_here`: as open_elsewhere takes it; `also`: a last sentence (what works meanwhile)."""
    from engine.vault.holders import open_elsewhere

    path = Path(path)
    others = open_elsewhere(path, closed_here=closed_here)
    if others:
        raise errors.VaultLockedError(
            f"{refused}: the vault {path.stem!r} is open in another program "
            f"({', '.join(map(str, others))}). Stop it (an MCP server stops when the agent that "
            f"started it is closed or its server is turned off), then {then}"
            + (f". {also}" if also else "")
        )


def erase_vault(path: str | Path) -> None:
    """Delete a vault for good: the file, its WAL/SHM/backups, and its key in the keyring.
    Call it once this process has closed the vault. Refused (VaultLockedError, nothing
    deleted) while another program has it open: that program would go on answering from the
    memories and writing into a deleted file, where what it wrote is lost."""
    path = Path(path)
    refuse_while_open_elsewhere(path, "nothing was erased", "erase again", closed_here=True)
    try:
        path.unlink(missing_ok=True)  # first: on Windows a file open elsewhere cannot go
    except PermissionError:
        if os.name != "nt":  # elsewhere an open file can be deleted: this is the folder's rights
            raise
        raise errors.VaultLockedError(
            f"nothing was erased: the vault {path.stem!r} is open in another program (the app "
            "or `memoryos mcp`). Stop it, then erase again"
        ) from None
    for candidate in [
        Path(f"{path}-wal"),
        Path(f"{path}-shm"),
        *path.parent.glob(f"{path.name}.backup-*"),
    ]:
        if candidate.exists():
            candidate.unlink()
    keys.delete_key(path)


# What a person can do while another program has the vault open (forget everything refused).
EVERYTHING_ALSO = (
    "Forgetting a conversation or a page works meanwhile (`memoryos forget conversation ID`, "
    "`memoryos forget page ID`)"
)


class ForgettingMixin:
    """Methods expect to run inside MemoryOS (engine/api.py: self.ctx, self.vault, self._notify)."""

    # ---- forgetting (engine/forgetting.py) -------------------------------------------------
    # Every forget (page, segment, conversation, retention, MCP, chat) goes through forget_pages.

    def preview_forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """What forgetting these pages would also remove or rewrite. Changes nothing."""
        return forgetting.preview(self.ctx, [int(i) for i in page_ids])

    def forget_pages(self, page_ids: list[int]) -> ForgetPreview:
        """Forget pages and everything derived from them; returns what was done."""
        done = forgetting.forget(self.ctx, [int(i) for i in page_ids])
        for event in ("pages", "segments", "facts"):
            self._notify(event)
        return done

    def _forget_pages(self, page_ids: list[int]) -> None:
        self.forget_pages(page_ids)

    def preview_forget_page(self, page_id: int) -> ForgetPreview:
        return self.preview_forget_pages([self.page(page_id).id])

    def forget_page(self, page_id: int) -> ForgetPreview:
        return self.forget_pages([self.page(page_id).id])

    def preview_forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.preview_forget_pages(forgetting.pages_of_segment(self.ctx, segment_id))

    def forget_segment(self, segment_id: int) -> ForgetPreview:
        return self.forget_pages(forgetting.pages_of_segment(self.ctx, segment_id))

    def preview_forget_conversation(self, conversation_id: str) -> ForgetPreview:
        return self.preview_forget_pages(
            forgetting.pages_of_conversation(self.ctx, conversation_id)
        )

    def forget_conversation(self, conversation_id: str) -> ForgetPreview:
        done = self.forget_pages(forgetting.pages_of_conversation(self.ctx, conversation_id))
        unanswered.drop_where(self.vault, conversation_id)  # a question it never got answered
        return done

    def preview_retention(self, days: int, keep_facts: bool) -> ForgetPreview:
        """What a retention of `days` would forget at the next consolidation. Changes nothing."""
        return forgetting.retention_preview(self.ctx, int(days), bool(keep_facts), time.time())

    def forget_everything(self) -> None:
        """Delete every memory (the vault, its schema and key stay). Refused (VaultLockedError,
        nothing deleted) while another program has the vault open: it goes on with what it
        holds and can store again what was said before (an answer under way, an agent's
        conversation). A page or conversation forgotten is seen by it at once."""
        refuse_while_open_elsewhere(
            self.path, "nothing was forgotten", "forget everything again", also=EVERYTHING_ALSO
        )
        forgetting.everything(self.ctx)
        unanswered.drop_where(self.vault)  # questions never answered are memories too
        for event in ("pages", "segments", "facts", "jobs"):
            self._notify(event)

    def export_json(self, path: str | Path | None = None) -> dict:
        """Everything the vault holds about the person, as JSON (written to `path` if given)."""
        return export_json(self.ctx, self.info(), path)

    def backup(self, path: str | Path, *, force: bool = False, passphrase: str | None = None):
        """A consistent, encrypted copy of the whole vault at `path`, made while it is open here
        and elsewhere (engine/vault/backup.py); an existing file is replaced only with `force`.
        With `passphrase` the copy opens with it, on any computer; the vault keeps its key.
        Returns a vault.backup.Backup: where it went and what opens it."""
        from engine.vault.backup import backup

        self.flush_visits()  # what was read so far is in the copy too
        return backup(self.vault, path, force=force, passphrase=passphrase)
