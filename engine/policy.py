"""The administrator's policy: one JSON file, system-wide, that settings cannot override.

Where it is read from: the system file, whenever it exists,
- Linux and other Unix: /etc/memoryos/policy.json
- macOS: /Library/Application Support/MemoryOS/policy.json
- Windows: C:\\ProgramData\\MemoryOS\\policy.json (the ProgramData folder as Windows knows it,
  not the %PROGRAMDATA% variable, which any person can set to another folder for themselves)
else $MEMORYOS_POLICY_FILE (tests; or an administrator who deploys it elsewhere). The system
file wins so that no person can turn the policy off by pointing the variable at another file.

Keys (all optional):
  "remote_models": false        no model that is not on this computer, for anything
  "retention_days": 90          forget exchanges older than this (the person cannot change it;
                                1 or more: leave the key out for no rule)
  "retention_keeps_facts": true keep what was learned from them (false: forget that too)
  "export": false               no export of the memory (app, CLI, MCP); backups stay
                                allowed: an encrypted copy, like the vault file itself
  "auto_lock_minutes": 5        lock the app after at most this many idle minutes (1 or more)
A file that exists but cannot be read or is not valid stops the program with a clear error:
a broken policy must not silently mean "no policy".
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from engine import errors

POLICY_ENV = "MEMORYOS_POLICY_FILE"
KEYS = {
    "remote_models": bool,
    "retention_days": int,
    "retention_keeps_facts": bool,
    "export": bool,
    "auto_lock_minutes": int,
}


@dataclass(frozen=True)
class Policy:
    """What the administrator decided; None means "not decided: the person chooses"."""

    remote_models: bool | None = None
    retention_days: int | None = None
    retention_keeps_facts: bool | None = None
    export: bool | None = None
    auto_lock_minutes: int | None = None
    source: str = ""  # the file it came from ("" when there is none)

    @property
    def remote_forbidden(self) -> bool:
        return self.remote_models is False

    @property
    def export_forbidden(self) -> bool:
        return self.export is False

    def locked(self, name: str) -> bool:
        """Whether a setting of that name is decided by the policy (shown locked)."""
        aliases = {"remote_consolidation": "remote_models"}
        return getattr(self, aliases.get(name, name), None) is not None


def system_policy_path() -> Path:
    """Where an administrator puts the policy on this platform."""
    if sys.platform == "win32":
        return windows_program_data() / "MemoryOS" / "policy.json"
    if sys.platform == "darwin":
        return Path("/Library/Application Support/MemoryOS/policy.json")
    return Path("/etc/memoryos/policy.json")


def windows_program_data() -> Path:
    """Windows' ProgramData folder, asked of Windows (SHGetKnownFolderPath). Not %PROGRAMDATA%:
    a person can set that variable for their own programs, and the policy would then be read
    from a folder they write to, or from none; C:\\ProgramData where Windows cannot say."""
    fallback = Path(r"C:\ProgramData")
    try:
        import ctypes
        from ctypes import wintypes

        class Guid(ctypes.Structure):
            _fields_ = [("data1", wintypes.DWORD), ("data2", wintypes.WORD),
                        ("data3", wintypes.WORD), ("data4", ctypes.c_ubyte * 8)]

        # FOLDERID_ProgramData, {62AB5D82-FDC1-4DC3-A9DD-070D1D495D97}
        folder_id = Guid(0x62AB5D82, 0xFDC1, 0x4DC3,
                         (ctypes.c_ubyte * 8)(0xA9, 0xDD, 0x07, 0x0D, 0x1D, 0x49, 0x5D, 0x97))
        found = ctypes.c_wchar_p()
        windll = ctypes.windll  # type: ignore[attr-defined]  # only on Windows
        if windll.shell32.SHGetKnownFolderPath(ctypes.byref(folder_id), 0, None,
                                               ctypes.byref(found)) != 0:
            return fallback
        try:
            return Path(found.value) if found.value else fallback
        finally:
            windll.ole32.CoTaskMemFree(found)
    except (AttributeError, ImportError, OSError, ValueError):  # not Windows, or no shell32
        return fallback


def _present(path: Path) -> bool:
    """Is there something at `path`? A file this account may not look at counts as there: it is
    then read, and its error said, rather than taken for "no policy"."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def policy_path() -> Path:
    """The policy file in force: the system file whenever it exists, else $MEMORYOS_POLICY_FILE
    when it is set, else the system file's place (nothing there: no policy)."""
    system = system_policy_path()
    override = os.environ.get(POLICY_ENV)
    if override and not _present(system):
        return Path(override)
    return system


def load_policy(path: Path | None = None) -> Policy:
    """The policy in force (an empty Policy when no file exists)."""
    path = path or policy_path()
    if not _present(path):
        return Policy()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise errors.InvalidInputError(
            f"the administrator's policy {path} cannot be read ({exc}): ask your administrator"
        ) from None
    if not isinstance(data, dict):
        raise errors.InvalidInputError(f"the administrator's policy {path} is not a JSON object")
    values: dict = {}
    for key, value in data.items():
        kind = KEYS.get(key)
        if kind is None:
            raise errors.InvalidInputError(
                f"the administrator's policy {path} has an unknown key {key!r} "
                f"(known: {', '.join(KEYS)})"
            )
        # 0 is refused, not taken for "no rule": the app would say "forgotten after 0 days"
        if type(value) is not kind or (kind is int and value < 1):
            raise errors.InvalidInputError(
                f"the administrator's policy {path}: {key} must be "
                + ("true or false" if kind is bool else "a whole number of 1 or more (leave the "
                   "key out for no rule)")
            )
        values[key] = value
    return Policy(**values, source=str(path))


_cached: tuple[str, float, Policy] | None = None


def current() -> Policy:
    """The policy, re-read when the file changes (an administrator may update it)."""
    global _cached
    path = policy_path()
    try:
        stamp = path.stat().st_mtime
    except OSError:
        stamp = -1.0
    if _cached is None or _cached[0] != str(path) or _cached[1] != stamp:
        _cached = (str(path), stamp, load_policy(path))
    return _cached[2]


def describe(rules: Policy) -> str:
    """The rules of a policy in a few words: "remote models off, export off, exchanges
    forgotten after 5 days (facts too), locks after 1 idle minute"."""
    from engine.terminal.wording import count

    said = []
    if rules.remote_models is not None:
        said.append(f"remote models {'allowed' if rules.remote_models else 'off'}")
    if rules.export is not None:
        said.append(f"export {'allowed' if rules.export else 'off'}")
    facts = {None: "", True: " (facts kept)", False: " (facts too)"}[rules.retention_keeps_facts]
    if rules.retention_days is not None:
        said.append(f"exchanges forgotten after {count(rules.retention_days, 'day')}{facts}")
    elif rules.retention_keeps_facts is not None:
        said.append(f"exchanges forgotten by the person's setting{facts}")
    if rules.auto_lock_minutes is not None:
        said.append(f"locks after {count(rules.auto_lock_minutes, 'idle minute')}")
    return ", ".join(said) or "no rules"


def summary() -> str:
    """Which policy is in force, for `memoryos status` and `doctor` (InvalidInputError when its
    file is broken)."""
    rules = current()
    if not rules.source:
        return f"no administrator's policy ({policy_path()} does not exist)"
    return f"Administrator's policy ({rules.source}): {describe(rules)}"
