"""Which other programs have a vault open, read from the file locks SQLite holds on it.

Every SQLite connection in WAL mode holds a read lock on one byte of the vault's -shm file (and
on the database file's shared range) for as long as it is open, idle or not. On Linux the
kernel lists those locks with their process in /proc/locks, so they are read there without
taking any lock (taking one, then closing the file, would drop this process's own SQLite
locks on it). Elsewhere a program still using the file is found by trying to take the lock,
which is only safe once this process has closed the vault; on Windows a file another program
has open cannot be deleted at all.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

PROC_LOCKS = Path("/proc/locks")
SHM_DMS_BYTE = 128  # SQLite's unix VFS: the -shm byte every open connection holds a lock on
SHARED_FIRST = 0x40000002  # the database file's shared-lock range (PENDING_BYTE + 2)
SHARED_SIZE = 510


def _files(path: Path) -> list[Path]:
    return [path, Path(f"{path}-shm")]


def holders(path: str | Path) -> list[int] | None:
    """The ids of the other processes that have the vault at `path` open (this process left
    out), from /proc/locks; None where the system has no such list (not Linux)."""
    try:
        table = PROC_LOCKS.read_text()
    except OSError:
        return None
    wanted: set[tuple[int, int, int]] = set()
    for file in _files(Path(path)):
        try:
            info = file.stat()
        except OSError:
            continue
        wanted.add((os.major(info.st_dev), os.minor(info.st_dev), info.st_ino))
    found: list[int] = []
    for line in table.splitlines():
        # "3: POSIX  ADVISORY  READ 2985 fe:00:2639857 128 128"; a waiting lock has "->"
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] not in ("POSIX", "OFDLCK"):
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            key = (int(major, 16), int(minor, 16), int(inode))
        except ValueError:
            continue
        if key in wanted and pid not in (0, -1, os.getpid()) and pid not in found:
            found.append(pid)
    return found


@dataclass(frozen=True)
class Holder:
    """Another program that has the vault open: its process id (None where it was found by
    its lock, unnamed) and the words of its command line as a person would type them
    (("memoryos", "mcp", "--vault", "work")); empty where they cannot be read."""

    pid: int | None
    command: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """As a person can find it: "`memoryos mcp --vault work` (process 1234)"."""
        if self.pid is None:
            return "another program"
        line = " ".join(self.command)
        if len(line) > 80:
            line = line[:79] + "…"
        return f"`{line}` (process {self.pid})" if line else f"process {self.pid}"

    def __str__(self) -> str:
        return self.text


def describe(pid: int) -> Holder:
    """The process `pid`, with its command line as a person would type it."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return Holder(pid)
    args = [arg for arg in args if arg]
    if args and Path(args[0]).name.startswith("python"):
        args = args[1:]  # "python -m engine.mcp_server ...": the interpreter says nothing
    if args[:2] == ["-m", "engine.mcp_server"]:
        args = ["memoryos", "mcp", *args[2:]]
    elif args and args[0] == "-m":
        args = args[1:]
    elif args and Path(args[0]).name == "memoryos":
        args[0] = "memoryos"
    return Holder(pid, tuple(args))


def _locked_by_another(path: Path) -> bool:
    """Does another program hold SQLite's lock on the vault? Takes the lock for an instant:
    only for a vault this process has closed (not Linux, where /proc/locks is read)."""
    if sys.platform == "win32":
        return False  # deleting the file fails instead: Windows keeps an open file
    import fcntl

    for file, start, size in ((Path(f"{path}-shm"), SHM_DMS_BYTE, 1),
                              (path, SHARED_FIRST, SHARED_SIZE)):  # fmt: skip
        try:
            handle = os.open(file, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB, size, start)
            fcntl.lockf(handle, fcntl.LOCK_UN, size, start)
        except OSError:
            return True
        finally:
            os.close(handle)
    return False


def open_elsewhere(path: str | Path, *, closed_here: bool = False) -> list[Holder]:
    """The other programs that have the vault at `path` open; empty if none. `closed_here`:
    this process has closed the vault, so where the kernel keeps no list the lock may be tried
    ([Holder(None)], "another program", when it is taken)."""
    path = Path(path)
    pids = holders(path)
    if pids is not None:
        return [describe(pid) for pid in pids]
    if closed_here and _locked_by_another(path):
        return [Holder(None)]
    return []
