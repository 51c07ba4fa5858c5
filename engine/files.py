"""Writing files only the person can read: folders 0700, files 0600, replaced atomically."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
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
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:  # mkstemp creates it 0600
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    private_file(target)
