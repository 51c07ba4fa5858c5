"""Child process for the disk-full tests: `memoryos chat` (engine.cli) on a vault that has no
room left to grow, as on a disk that is full (SQLite's max_page_count: its real error)."""

from __future__ import annotations

import sys

import engine.terminal.chat as terminal_chat
from engine import cli


def main() -> int:
    opened = terminal_chat._open

    def full(*args, **kwargs):
        memory = opened(*args, **kwargs)
        conn = memory.vault.conn
        pages = conn.execute("PRAGMA page_count").fetchall()[0][0]
        conn.execute(f"PRAGMA max_page_count={pages}")
        return memory

    terminal_chat._open = full
    return cli.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
