"""The vault: one encrypted SQLite file per person. The only package that executes SQL."""

from engine.vault.keys import KeyringStatus, keyring_status
from engine.vault.store import Vault

__all__ = ["KeyringStatus", "Vault", "keyring_status"]
