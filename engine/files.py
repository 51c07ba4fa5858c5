"""Writing files only the person can read: folders 0700, files 0600, replaced atomically."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) readable only by its owner; tighten it if it exists."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    if sys.platform != "win32":  # Windows folders inherit the profile's ACL instead
        with contextlib.suppress(OSError):
            os.chmod(path, PRIVATE_DIR)
    return path


def private_file(path: Path) -> None:
    """Make an existing file readable and writable only by its owner."""
    if sys.platform != "win32":
        with contextlib.suppress(OSError):
            os.chmod(path, PRIVATE_FILE)


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` as 0600, atomically: the file is either the old one or complete,
    and no partial copy is ever left behind (the temporary file is removed on any failure)."""
    with replacing(path) as temp:
        temp.write_bytes(data)


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """An empty 0600 temporary file beside `path` for the block to write; when the block ends
    without an error it is synced to disk and becomes `path` (0600), else it is removed: `path`
    is either the old file or the complete new one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)  # mkstemp creates it 0600; a writer that keeps the mode keeps it private
    temp = Path(name)
    try:
        yield temp
        with open(temp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    private_file(target)
