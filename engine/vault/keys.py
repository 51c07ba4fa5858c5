"""Where a vault's key lives: a random 256-bit key in the OS keyring, or the person's passphrase."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

SERVICE = "memoryos-desktop"


@dataclass(frozen=True)
class KeyringStatus:
    usable: bool
    backend: str  # e.g. "SecretService Keyring", "fail Keyring"
    reason: str  # why it is not usable, or "" when usable


def keyring_status() -> KeyringStatus:
    """Tell whether the OS keyring can hold our key (headless Linux has only `fail`/`null`)."""
    try:
        import keyring

        backend = keyring.get_keyring()
    except Exception as exc:  # a broken keyring install must not stop the program
        return KeyringStatus(
            False, "none", f"the keyring library failed to load: {type(exc).__name__}"
        )
    module = type(backend).__module__
    name = getattr(backend, "name", type(backend).__name__)
    try:
        priority = float(backend.priority)
    except Exception:
        priority = 0.0
    if module.endswith((".fail", ".null")) or priority <= 0:
        return KeyringStatus(
            False,
            str(name),
            "no password store (GNOME Keyring, KWallet) answers on this system",
        )
    return KeyringStatus(True, str(name), "")


def _username(path: Path) -> str:
    return f"vault:{Path(path).resolve()}"


def stored_key(path: Path) -> str | None:
    """The hex key kept in the keyring for this vault file, or None."""
    if not keyring_status().usable:
        return None
    import keyring

    try:
        return keyring.get_password(SERVICE, _username(path))
    except Exception:
        return None


def create_key(path: Path) -> str:
    """Generate a random 256-bit key and store it in the keyring; return it as hex."""
    key = secrets.token_hex(32)
    store_key(path, key)
    return key


def store_key(path: Path, hexkey: str) -> None:
    """Keep `hexkey` in the keyring as the key of the vault file at `path`."""
    import keyring

    keyring.set_password(SERVICE, _username(path), hexkey)


def delete_key(path: Path) -> bool:
    """Remove the vault's key from the keyring; True if there was one."""
    if not keyring_status().usable:
        return False
    import keyring

    try:
        keyring.delete_password(SERVICE, _username(path))
        return True
    except Exception:
        return False
