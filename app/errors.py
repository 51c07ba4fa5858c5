"""Turn exceptions from workers into short messages a person can act on."""

from __future__ import annotations

import logging

log = logging.getLogger("memoryos.app")


def describe(error: BaseException) -> str:
    """One or two sentences for the person; bugs are logged with their traceback."""
    from engine import errors

    if isinstance(error, errors.WrongKeyError):
        return "That passphrase does not unlock this memory vault. Nothing was changed."
    if isinstance(error, errors.DiskFullError):
        return "The disk is full, so the last change was not saved. Free some space and retry."
    if isinstance(error, errors.VaultLockedError):
        return "Another MemoryOS program is using this vault. Close it and try again."
    if isinstance(error, errors.VaultTooNewError):
        return f"{error} Update MemoryOS to open it."
    if isinstance(error, errors.GenerationCancelled):
        return "Stopped."
    if isinstance(error, errors.MemoryOSError):
        return str(error) or type(error).__name__
    if isinstance(error, MemoryError):
        return "The computer ran out of memory. Try a smaller model or a shorter context."
    if isinstance(error, ImportError):
        log.error("missing module", exc_info=(type(error), error, error.__traceback__))
        return f"A part of MemoryOS is missing from this installation ({error.name or error})."
    if isinstance(error, OSError):
        return f"A file could not be read or written: {error.strerror or error}."
    log.error("unexpected error in a worker", exc_info=(type(error), error, error.__traceback__))
    return f"Something went wrong inside MemoryOS ({type(error).__name__}: {error})."


def show_message(parent: object, title: str, text: str, *, warning: bool = False) -> object:
    """A window-modal message box that does not block the event loop (never exec())."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    kind = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
    box = QMessageBox(kind, title, text, QMessageBox.StandardButton.Ok, parent)  # type: ignore[arg-type]
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    box.open()
    return box
