"""The desktop app's own settings (model choice, window): one JSON file, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

BUNDLED = "bundled"
GGUF = "gguf"
SERVER = "openai"
MODEL_SOURCES = (BUNDLED, GGUF, SERVER)


@dataclass
class AppSettings:
    """What the person chose in Settings; memory parameters live in the vault instead."""

    vault_name: str = "default"
    model_source: str = BUNDLED
    gguf_path: str = ""
    server_url: str = "http://127.0.0.1:8080/v1"
    server_model: str = ""
    gpu_layers: int = 0
    context_size: int = 4096
    threads: int = 0  # 0 = let llama.cpp decide
    max_tokens: int = 512
    embedder: str = ""  # "" = the bundled all-MiniLM-L6-v2, else a sentence-transformers folder
    allow_plain_http: bool = False  # plain http:// to a server that is not this computer
    auto_lock_minutes: int = 15  # lock the vault after this long without input (0: never)
    window_geometry: str = ""  # hex of QWidget.saveGeometry()
    learned_notices: bool = True  # "Learned: ..." notices in the conversation
    sidebar_visible: bool = True  # the conversations list (Ctrl+B)
    splitter_state: str = ""  # hex of QSplitter.saveState(): the sidebar's width
    color_scheme: str = "system"  # "system" | "light" | "dark"
    text_size: int = 10  # points (Ctrl+= / Ctrl+- / Ctrl+0)
    # The model whose "tiny model" banner was closed (app.demo_banner.banner_key): another
    # tiny model chosen later shows it again.
    banner_closed_for: str = ""
    # The conversation on screen at the last quit (its id, no text): the next start opens it.
    last_conversation: str = ""
    # A vault was created and the model step has not been shown yet: set on the first run, so a
    # first run cut short (closed, crashed) still offers a real model at the next start.
    model_step_due: bool = False
    # The model step was offered (a model chosen, or the one in use kept): the model is the
    # app's, so a vault made later (Switch memory, after an erase) does not offer it again.
    model_step_done: bool = False
    # The memory open before the one open now (Switch memory): erasing this one goes back there.
    previous_vault: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AppSettings:
        """Build from a dict, ignoring unknown keys and values of the wrong type."""
        base = cls()
        values: dict[str, Any] = {}
        for field in fields(cls):
            if field.name not in data:
                continue
            default = getattr(base, field.name)
            try:
                values[field.name] = type(default)(data[field.name])
            except (TypeError, ValueError):
                continue
        settings = cls(**values)
        if settings.model_source not in MODEL_SOURCES:
            settings.model_source = BUNDLED
        if "vault_name" in data and "model_step_done" not in data:  # written before the field:
            # the step was offered unless due (an erase set it due again: a model chosen says
            # it was offered)
            settings.model_step_done = (not settings.model_step_due
                                        or settings.model_source != BUNDLED)
        if settings.model_step_done:
            settings.model_step_due = False  # offered once: never due again
        if settings.color_scheme not in ("system", "light", "dark"):
            settings.color_scheme = "system"
        settings.text_size = max(7, min(20, settings.text_size))
        return settings


def settings_path() -> Path:
    from engine.paths import settings_file

    return settings_file()


def load_settings(path: Path | None = None) -> AppSettings:
    """Read the settings file; a missing or damaged file gives the defaults."""
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return AppSettings()
    return AppSettings.from_dict(data if isinstance(data, dict) else {})


def save_settings(settings: AppSettings, path: Path | None = None) -> Path:
    """Write the settings atomically (temp file in the same folder, fsync, rename)."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_dict(), indent=2, sort_keys=True)
    handle, temp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path
