"""API keys of OpenAI-compatible servers, kept in the OS keyring only (never in a file)."""

from __future__ import annotations

from engine.errors import BackendError
from engine.network import normalise_url

KEYRING_SERVICE = "memoryos-desktop-api"


class ApiKeyError(BackendError):
    """The API key cannot be stored or read: no usable keyring on this system."""


def set_api_key(url: str, key: str | None) -> None:
    """Store the API key for the server at `url` in the OS keyring (None or "" removes it)."""
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    user = normalise_url(url)
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, user, key)
        else:
            try:
                keyring.delete_password(KEYRING_SERVICE, user)
            except PasswordDeleteError:
                pass
    except KeyringError as exc:
        raise ApiKeyError(_keyring_text(exc)) from None


def get_api_key(url: str) -> str | None:
    """The stored API key for the server at `url`, None when there is none."""
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, normalise_url(url)) or None
    except KeyringError as exc:
        raise ApiKeyError(_keyring_text(exc)) from None


def _keyring_text(exc: Exception) -> str:
    import keyring

    backend = type(keyring.get_keyring()).__name__
    return (
        f"No usable system keyring ({backend}: {type(exc).__name__}), so the API key cannot be "
        "kept safely. Install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, "
        "Windows Credential Manager)."
    )
