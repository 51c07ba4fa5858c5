"""Small SQL helpers shared by the vault's table modules."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np

from engine import errors
from engine.vault.connection import mapped_errors


def locked(method):
    """Run a Vault method under the vault's lock, with SQLite errors mapped to typed ones."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock, mapped_errors():
            if self.conn is None:
                raise closed()
            return method(self, *args, **kwargs)

    return wrapper


def closed() -> errors.VaultClosedError:
    """What a read or write of a closed vault raises. A background read the app began before a
    Lock or Switch memory ended in "AttributeError: 'NoneType' object has no attribute
    'execute'", logged as a bug and said as "Something went wrong inside MemoryOS"."""
    return errors.VaultClosedError(
        "the memory was closed (locked, switched or quit) before this was done; nothing was "
        "changed"
    )


def blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def placeholders(items: Iterable[Any]) -> str:
    return ",".join("?" for _ in items)
