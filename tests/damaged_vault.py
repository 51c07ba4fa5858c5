"""A real encrypted vault damaged on disk, as `dd conv=notrunc` over its middle does it."""

from __future__ import annotations

import os
from pathlib import Path

PASSPHRASE = "correct horse battery"
EXCHANGES = 200
PAGE_SIZE = 4096


def said(n: int) -> str:
    return f"Message {n}: my locker code at the climbing gym is zebra-{n:04d}."


def make_vault(path: Path) -> None:
    """A vault of EXCHANGES exchanges (embedder `--embedder fake`), everything in its file."""
    from tests.test_backup import open_fast

    mem = open_fast(path, True, PASSPHRASE)
    try:
        for n in range(EXCHANGES):
            mem.add_memory(said(n), "Noted.", 1_700_000_000.0 + 60 * n)
        mem.vault.checkpoint()
    finally:
        mem.close()


def leaf_page(path: Path, table: str) -> int:
    """The number of a leaf page of `table` in the middle of it (read before any damage)."""
    from tests.test_backup import open_fast

    mem = open_fast(path, False, PASSPHRASE)
    try:
        leaves = [row[0] for row in mem.vault.conn.execute(
            "SELECT pageno FROM dbstat WHERE name=? AND pagetype='leaf' ORDER BY path",
            (table,))]  # fmt: skip
    finally:
        mem.close()
    assert len(leaves) >= 3, f"{table} has too few pages to damage one in its middle"
    return leaves[len(leaves) // 2]


def damage(path: Path, page: int) -> None:
    """Overwrite 64 bytes inside `page` of the file with random ones (the file keeps its size)."""
    with open(path, "r+b") as handle:
        handle.seek((page - 1) * PAGE_SIZE + 1000)
        handle.write(os.urandom(64))
