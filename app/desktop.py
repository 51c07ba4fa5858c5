"""Start the desktop app: show the window at once, then unlock the vault and load the model."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn


def tune_runtime() -> None:
    """Hand the GIL to the GUI thread sooner: workers (model, consolidation) are Python threads,
    and the default 5 ms switch interval adds up to 5 ms of wait per hand-over."""
    sys.setswitchinterval(0.001)


def build(open_vault: Callable[..., Any] | None = None, settings: Any = None,
          vault: Path | None = None) -> tuple[Any, Any]:
    """The main window and the vault opener wired together (the app, the self-test, tests).

    Once the vault is open the window gets a Session, the model loads in the background and
    the embedder warms up; after "erase everything" another memory opens, or the first run
    starts again when there is none, saying which memory was erased. `vault` (`memoryos
    --vault NAME`): that memory's file in the vaults folder instead of the one used last; it
    opens as Switch memory opens it (a new name: its "new memory" dialog) and, once open, is
    the one used last.
    """
    from app.main_window import MainWindow
    from app.session import Session
    from app.settings_store import load_settings
    from app.vault_opener import VaultOpener, open_default
    from engine.paths import vault_path

    window = MainWindow(settings or load_settings())
    last = vault_path(window.settings.vault_name)
    opener = VaultOpener(vault or last, open_vault or open_default, window.pool, window)
    if vault is not None and Path(vault) != last:
        opener.named = Path(vault).name.removesuffix(".memoryos")
        window._resume_conversation = window._start_conversation = None  # the last one's

    def attach(mem: Any) -> None:
        if window.closing:  # the person quit while the vault was opening
            mem.close()
            return
        previous, opener.switched_from = opener.switched_from, None
        switched = previous is not None
        named, opener.named = opener.named, None
        if named is not None and not switched:  # `memoryos --vault NAME`: as Switch memory
            window.settings.previous_vault = window.settings.vault_name
            window.switch_ended(named)  # no memory is open yet: only the settings change
        erased, opener.erased = opener.erased, None
        if erased is not None:  # its key was in the keyring: it opened with no dialog to say it
            from app.vault_dialogs import erased_text

            window.status.showMessage(f"{erased_text(erased)} “{window.settings.vault_name}” "
                                      "is open now.", 15_000)
        if switched:  # Switch memory: the memory open until now closes only now
            window.settings.previous_vault = previous  # an erase of this one goes back there
            window.switch_ended(opener.path.name.removesuffix(".memoryos"))
        session = Session(mem, window.pool, window.settings, parent=window)
        window.attach(session)
        if window.session is not session:  # closed again at once (a policy that cannot be read)
            return
        if mem.chat is None:
            session.load_model()
        session.warm_up()
        # The app's first vault, or one whose first run ended before this step: offer a real
        # model before the first question. Never once it was offered (the model is the app's,
        # chosen already), nor while Switch memory opens another: its dialogs come first.
        settings = window.settings
        due, opener.first_run = opener.first_run or settings.model_step_due, False
        if due and not switched and not settings.model_step_done:
            settings.model_step_due, settings.model_step_done = False, True
            window._save_settings()
            window.open_model_step()

    def switch(name: str) -> None:
        """File → Switch memory: open the vault `name`; the one open stays open until then."""
        opener.switched_from = window.settings.vault_name
        opener.path = vault_path(name)
        opener.start()

    def cancelled() -> None:
        """The unlock or first-run dialog was closed: quit, unless it was for Switch memory,
        where the memory open before comes back: still open, as it was (its key is not asked
        for again), or asked for if it was locked."""
        previous, opener.switched_from = opener.switched_from, None
        if previous is None or window.closing:
            window.close()
            return
        window.settings.vault_name = previous
        window._save_settings()
        opener.path = vault_path(previous)
        if window.session is not None:
            window.switch_ended(None)
        else:
            opener.go_back()

    def erased() -> None:
        """Erase everything removed the memory open: with others on this computer the one
        used before opens (else the first by name), its key asked for as at any start; the
        settings never name the erased one then. It was the only one: the first run again."""
        from app.vault_switch import vault_files

        gone = opener.path.name.removesuffix(".memoryos")
        others = sorted((v.name for v in vault_files(opener.path.parent) if v.name != gone),
                        key=str.lower)
        if others:
            previous = window.settings.previous_vault
            name = previous if previous in others else others[0]
            window.settings.vault_name, window.settings.previous_vault = name, ""
            window.settings.last_conversation = ""  # it was the erased memory's
            window._resume_conversation = window._start_conversation = None
            window._save_settings()
            opener.path = vault_path(name)
        opener.erased = gone  # the dialog that follows (or the status line) says so
        opener.start()

    opener.opened.connect(attach)
    opener.cancelled.connect(cancelled)
    window.vault_switch_requested.connect(switch)
    window.vault_erased.connect(erased)
    window.locked.connect(opener.after_lock)  # auto-lock: the key is asked for again
    window.reopen_requested.connect(opener.start)  # a new embedder: open with it
    return window, opener


def policy_readable() -> bool:
    """A broken administrator's policy stops the app with its reason (it must not silently
    mean "no policy")."""
    from PySide6.QtWidgets import QMessageBox

    from engine import errors, policy

    try:
        policy.current()
    except errors.MemoryOSError as error:
        QMessageBox.critical(None, "MemoryOS cannot start", f"{str(error)[:1].upper()}{str(error)[1:]}.")
        return False
    return True


def run(argv: list[str] | None = None, *, on_ready: Callable[[Any], None] | None = None,
        vault: Path | None = None) -> int:
    """Run the app until it quits; `on_ready(window)` is called once the window is up (bench).
    `vault`: open that memory instead of the one used last (`memoryos --vault NAME`)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app import crash_log, theme

    tune_runtime()
    crashed = crash_log.enable()
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    theme.apply(app)  # type: ignore[arg-type]
    if not policy_readable():
        return 1
    window, opener = build(vault=vault)
    window.show()
    QTimer.singleShot(0, lambda: begin(window, opener, crashed))
    if on_ready is not None:
        QTimer.singleShot(0, lambda: on_ready(window))
    code = app.exec()
    if on_ready is None:
        leave(code)
    return code


def begin(window: Any, opener: Any, crashed: Path | None) -> None:
    """Open the memory (its unlock or welcome dialog); after a crash, say so first and open
    it once that is read: shown at once, the welcome dialog covered the crash report."""
    if crashed is None:
        opener.start()
        return
    from app import crash_log
    from app.errors import show_message

    box = show_message(window, "MemoryOS", crash_log.message(crashed), warning=True)
    box.finished.connect(opener.start)


def leave(code: int) -> NoReturn:
    """End the process once the window has closed (the vault closed, settings saved): what
    is buffered is written out, then the interpreter's teardown is skipped. In that teardown a
    C extension's reference counting fault sometimes crashed a clean quit ("Fatal Python error:
    bool_dealloc ... Python runtime state: finalizing"), 1 quit in 6 after switching models.
    (That fault was PySide6 6.12.0 losing references to None/True/False, now excluded in
    pyproject.toml; skipping the teardown stays, as a guard against the next such fault.)"""
    import logging

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass  # no console (a windowed build), or it is gone
    logging.shutdown()
    os._exit(code)
