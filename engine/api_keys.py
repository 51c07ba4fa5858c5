"""API keys of OpenAI-compatible servers: in the OS keyring, never in a file. Where no keyring
is usable (headless Linux), a key typed in is held in this process's memory for the session,
and the key in $MEMORYOS_API_KEY is used for any server that has no key of its own."""

from __future__ import annotations

import os
import threading

from engine.errors import BackendError
from engine.network import normalise_url

KEYRING_SERVICE = "memoryos-desktop-api"
# The API key for the chosen server where the keyring holds none for it (a headless box, a
# container): read at each model load, never written anywhere.
API_KEY_ENV = "MEMORYOS_API_KEY"

# Keys kept for this session only (no usable keyring): by normalised URL, in memory, gone at
# exit. Without them a server needing a key could not be used from the app on headless Linux.
_SESSION_KEYS: dict[str, str] = {}
_SESSION_LOCK = threading.Lock()


class ApiKeyError(BackendError):
    """The API key cannot be stored or read: no usable keyring on this system."""


def set_api_key(url: str, key: str | None) -> None:
    """Store the API key for the server at `url` in the OS keyring (None or "" removes it, and
    any key kept for this session). ApiKeyError when no keyring is usable: keep_for_session."""
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    user = normalise_url(url)
    with _SESSION_LOCK:
        _SESSION_KEYS.pop(user, None)
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


def keep_for_session(url: str, key: str) -> None:
    """Hold the API key for the server at `url` in this process's memory until it ends, where
    no keyring can keep it: never written to disk, asked for again at the next start."""
    if key:
        with _SESSION_LOCK:
            _SESSION_KEYS[normalise_url(url)] = key


# Where the key for a server comes from, in the order get_api_key looks: a key kept for this
# session, then the keyring's, then $MEMORYOS_API_KEY.
KEY_FOR_SESSION, KEY_FROM_KEYRING, KEY_FROM_ENVIRONMENT = "session", "keyring", "environment"


def get_api_key(url: str) -> str | None:
    """The API key for the server at `url`: one typed in this session (no keyring), else the
    keyring's, else $MEMORYOS_API_KEY; None when there is none. ApiKeyError only when the
    keyring cannot be read and nothing else gives a key."""
    return api_key_source(url)[0]


def api_key_source(url: str) -> tuple[str | None, str]:
    """(the key get_api_key gives for `url`, where it comes from: KEY_FOR_SESSION,
    KEY_FROM_KEYRING or KEY_FROM_ENVIRONMENT); (None, "") when there is none. ApiKeyError only
    when the keyring cannot be read and nothing else gives a key."""
    import keyring
    from keyring.errors import KeyringError

    user = normalise_url(url)
    with _SESSION_LOCK:
        if user in _SESSION_KEYS:
            return _SESSION_KEYS[user], KEY_FOR_SESSION
    from_env = os.environ.get(API_KEY_ENV, "").strip() or None
    try:
        in_keyring = keyring.get_password(KEYRING_SERVICE, user)
    except KeyringError as exc:
        if not from_env:
            raise ApiKeyError(_keyring_text(exc)) from None
        in_keyring = None
    if in_keyring:
        return in_keyring, KEY_FROM_KEYRING
    if from_env:
        return from_env, KEY_FROM_ENVIRONMENT
    return None, ""


def _keyring_text(exc: Exception) -> str:
    import keyring

    backend = type(keyring.get_keyring()).__name__
    return (
        f"No usable system keyring ({backend}: {type(exc).__name__}), so the API key cannot be "
        "kept safely. Install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, "
        "Windows Credential Manager)."
    )
