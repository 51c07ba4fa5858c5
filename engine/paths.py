"""Every path the program uses comes from here; MEMORYOS_HOME overrides all of them (tests)."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "MemoryOS"


def home() -> Path | None:
    value = os.environ.get("MEMORYOS_HOME")
    return Path(value) if value else None


def data_dir() -> Path:
    """Where vaults live. Not created here: callers create what they write."""
    override = home()
    if override:
        return override / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    override = home()
    if override:
        return override / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def vaults_dir() -> Path:
    return data_dir() / "vaults"


def vault_path(name: str) -> Path:
    """The file of the vault called `name` (one vault per person)."""
    safe = "".join(ch for ch in name if ch.isalnum() or ch in "-_ .").strip()
    if not safe:
        raise ValueError(f"invalid vault name {name!r}: use letters, digits, '-', '_'")
    return vaults_dir() / f"{safe}.memoryos"


def settings_file() -> Path:
    return config_dir() / "settings.json"


def resources_dir() -> Path:
    """resources/ of the source tree or of the frozen app."""
    import sys

    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"
