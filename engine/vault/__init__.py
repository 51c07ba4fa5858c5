"""The vault: one encrypted SQLite file per person. The only package that executes SQL.

`Vault` and `keyring_status` are loaded on first use (PEP 562), not when the package is: its
modules import each other (store -> schema -> quantized, a submodule of this package), and
with the package's own import running `store`, two threads importing a vault module at the
same moment (the app's workers: the unlock and the Models tab) could each hold half of the
cycle, and one got a partly made module: "A part of MemoryOS is missing (engine.vault.schema)".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.vault.keys import KeyringStatus, keyring_status
    from engine.vault.store import Vault

__all__ = ["KeyringStatus", "Vault", "keyring_status"]


def __getattr__(name: str) -> Any:
    if name in ("KeyringStatus", "keyring_status"):
        from engine.vault import keys

        return getattr(keys, name)
    if name == "Vault":
        from engine.vault.store import Vault

        return Vault
    raise AttributeError(f"module 'engine.vault' has no attribute {name!r}")
