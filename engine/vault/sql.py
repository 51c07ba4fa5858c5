"""Small SQL helpers shared by the vault's table modules."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np

from engine.vault.connection import mapped_errors


def locked(method):
    """Run a Vault method under the vault's lock, with SQLite errors mapped to typed ones."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock, mapped_errors():
            return method(self, *args, **kwargs)

    return wrapper


def blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def placeholders(items: Iterable[Any]) -> str:
    return ",".join("?" for _ in items)
