"""Small helpers shared by engine tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def raw_bytes(vault_path: Path) -> bytes:
    """The bytes of the vault file and its -wal/-shm companions, as they are on disk."""
    data = b""
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(f"{vault_path}{suffix}")
        if candidate.exists():
            data += candidate.read_bytes()
    return data


def run_cli(*args: str, home: Path, passphrase: str | None = "correct horse battery", stdin: str | bytes | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m engine.cli ...` in a child process with its own home and passphrase."""
    env = dict(os.environ, MEMORYOS_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    if passphrase is not None:
        env["MEMORYOS_PASSPHRASE"] = passphrase
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], input=data, capture_output=True,
                          env=env, cwd=ROOT, timeout=timeout)
