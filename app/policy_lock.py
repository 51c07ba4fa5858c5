"""The administrator's policy in the window: its settings shown locked, forbidden actions off."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel, QSpinBox, QWidget

from app.theme import pixels
from engine.terminal.wording import count

ADMIN = " (administrator)"


def locked_tip(policy: Any) -> str:
    return f"Set by your administrator ({policy.source}); it cannot be changed here."


def lock_memory_form(form: Any, policy: Any) -> list[str]:
    """Disable the memory settings the policy decides, showing the policy's value. Returns
    the names locked."""
    values = {
        "remote_consolidation": False if policy.remote_forbidden else None,
        "retention_days": policy.retention_days,
        "retention_keeps_facts": policy.retention_keeps_facts,
    }
    locked = []
    for name, value in values.items():
        widget = form.inputs.get(name)
        if widget is None or value is None:
            continue
        if isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
            widget.setText(("Allowed" if value else "Not allowed") + ADMIN)
            widget.setFixedWidth(max(pixels(130), widget.sizeHint().width()))
        elif isinstance(widget, QSpinBox):
            widget.setValue(int(value))
        widget.setEnabled(False)
        widget.setToolTip(locked_tip(policy))
        locked.append(name)
    return locked


def policy_note(policy: Any) -> QLabel | None:
    """A line saying what the administrator decided, for the top of the Settings dialog."""
    parts = []
    if policy.remote_forbidden:
        parts.append("models that are not on this computer are turned off")
    if policy.retention_days is not None:
        kept = "kept" if policy.retention_keeps_facts is not False else "forgotten too"
        parts.append(
            f"exchanges older than {count(policy.retention_days, 'day')} are forgotten "
            f"(facts learned from them are {kept})"
        )
    if policy.export_forbidden:
        parts.append("export is turned off")
    if policy.auto_lock_minutes is not None:
        minutes = count(policy.auto_lock_minutes, "idle minute")
        parts.append(f"the window locks after {minutes} at most")
    if not parts:
        return None
    label = QLabel("Locked by your administrator: " + "; ".join(parts) + ".")
    label.setObjectName("hint")
    label.setWordWrap(True)
    label.setToolTip(locked_tip(policy))
    return label


def turned_off_tip(policy: Any, what: str = "Export") -> str:
    """The tooltip of an entry the policy greys out: what is off, and which file says so."""
    return f"{what} is turned off by your administrator ({policy.source})."


def export_refused_text(policy: Any) -> str:
    """What Export's shortcut says while the policy turns export off (its entry is greyed)."""
    return (f"{turned_off_tip(policy)} Ask them if you need it, or make an encrypted copy "
            "instead with File → Back up memory…")


def disable_if_forbidden(
    widgets: list[QWidget], forbidden: bool, policy: Any, what: str = "Export"
) -> None:
    """Grey out what the policy turns off (`what`: its name in the tooltip; export is the one
    so far). Allowed again (the file changed), a widget gets its own tooltip back; enabling
    it is the caller's, who knows whether the vault is open."""
    for widget in widgets:
        own = widget.property("own_tip")
        if own is None:
            own = widget.toolTip()
            widget.setProperty("own_tip", own)
        if forbidden:
            widget.setEnabled(False)
            widget.setToolTip(turned_off_tip(policy, what))
        else:
            widget.setToolTip(own)
