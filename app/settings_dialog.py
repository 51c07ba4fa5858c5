"""Settings: the dialog that holds the Model, Models, Memory and Conversation tabs, and Save:
checking the values, asking what needs asking, then applying them."""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.embedder_choice import EmbedderSwitcher
from app.errors import describe
from app.policy_lock import policy_note
from app.settings_added_models import forget_models, remember_model
from app.settings_appearance import ConversationPage
from app.settings_lookups import KeyRefused, ask_server, save_api_key
from app.settings_memory_tab import MemoryTab, retention_question, retention_tightened
from app.settings_model_tab import ModelTab
from app.settings_store import BUNDLED, GGUF, SERVER, AppSettings
from app.widgets import WheelGuard, enter_presses, fit_window, no_default_buttons
from app.workers import WorkerPool, while_open
from engine.policy import current as current_policy

MODEL_KEYS = ("model_source", "gguf_path", "server_url", "server_model", "gpu_layers",
              "context_size", "threads", "allow_plain_http")


class Forwarded:
    """`dialog.<name>`: the attribute of that name on one of the dialog's tabs (`part`, a
    dotted path from the dialog), where the main window and the tests reach it."""

    def __init__(self, part: str) -> None:
        self.part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self.get = attrgetter(f"{self.part}.{name}")

    def __get__(self, dialog: Any, owner: type | None = None) -> Any:
        return self if dialog is None else self.get(dialog)


class FocusShown(QObject):
    """A field that gets the keyboard in one of the dialog's scrolled pages is scrolled into
    view, wherever the focus came from. (A page scrolls by itself only for Tab from a field
    already in it: Tab from the tab bar went to "Bundled" with the page left at its bottom.)
    A click is left alone (the field is under the pointer, seen already): told by the focus
    event's reason, which the application's event filter sees while the dialog is shown. The
    mouse buttons held were asked before, and a press whose release went elsewhere (a double
    click that opened a dialog) left every later Tab unscrolled."""

    def __init__(self, dialog: QWidget) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        dialog.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if watched is self.dialog and kind in (QEvent.Type.Show, QEvent.Type.Hide):
            app = QApplication.instance()
            if kind == QEvent.Type.Show:
                app.installEventFilter(self)
            else:
                app.removeEventFilter(self)
        elif (kind == QEvent.Type.FocusIn and isinstance(watched, QWidget)
              and event.reason() != Qt.FocusReason.MouseFocusReason):
            self.show_focused(watched)
        return False

    def show_focused(self, new: QWidget) -> None:
        for area in self.dialog.findChildren(QScrollArea):
            page = area.widget()
            if page is not None and page.isAncestorOf(new):
                area.ensureWidgetVisible(new)


class SettingsDialog(QDialog):
    """Model and memory settings; `applied(settings, model_changed)` when the person saves."""

    applied = Signal(object, bool)
    reopen_needed = Signal()  # a re-embedding stopped half-way: the memory must be opened again
    loaded = Signal()  # the background look-ups (GPU support, file metadata) have answered
    models_listed = Signal()  # the server at the URL typed answered (or not) with its models

    # the Model tab's fields
    source_group = Forwarded("model_tab")
    bundled = Forwarded("model_tab")
    gguf = Forwarded("model_tab")
    server = Forwarded("model_tab")
    gguf_path = Forwarded("model_tab")
    gguf_info = Forwarded("model_tab")
    gguf_box = Forwarded("model_tab")
    server_url = Forwarded("model_tab")
    server_model_box = Forwarded("model_tab")
    server_model = Forwarded("model_tab")
    server_models_note = Forwarded("model_tab")
    api_key = Forwarded("model_tab")
    server_box = Forwarded("model_tab")
    url_note = Forwarded("model_tab")
    allow_plain_http = Forwarded("model_tab")
    key_note = Forwarded("model_tab")
    keyring_usable = Forwarded("model_tab")
    gpu_layers = Forwarded("model_tab")
    gpu_note = Forwarded("model_tab")
    context_size = Forwarded("model_tab")
    context_note = Forwarded("model_tab")
    threads = Forwarded("model_tab")
    max_tokens = Forwarded("model_tab")
    local_form = Forwarded("model_tab")
    demo_limit = Forwarded("model_tab")
    auto_lock = Forwarded("model_tab")
    fit_note = Forwarded("model_tab")
    embedder_factory = Forwarded("model_tab")
    embedder_box = Forwarded("model_tab")
    list_server_models = Forwarded("model_tab")
    browse = Forwarded("model_tab")
    # 'Models you added', on the Model tab
    recent_row = Forwarded("model_tab")
    recent = Forwarded("model_tab.recent_row")
    recent_menu = Forwarded("model_tab.recent_row")
    remove_recent = Forwarded("model_tab.recent_row")
    removed_note = Forwarded("model_tab.recent_row")
    remove_added = Forwarded("model_tab.recent_row")
    # the Memory tab's
    memory_form = Forwarded("memory_scroll")
    reset_button = Forwarded("memory_scroll")
    reset_note = Forwarded("memory_scroll")
    locked = Forwarded("memory_scroll")
    reset_memory = Forwarded("memory_scroll")

    def __init__(self, settings: AppSettings, session: Any = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = settings
        self.session = session
        self.pool: WorkerPool = session.pool if session is not None else WorkerPool(parent=self)
        self.setWindowTitle("Settings")
        fit_window(self, 960, 680, least=(800, 620))  # wider where it fits: the Models table
        self.policy = current_policy()  # the administrator's: its settings are shown locked
        # "the server does not answer (or refused the key): use it?"
        self.silent_box: QMessageBox | None = None
        self.retention_box: QMessageBox | None = None  # "N exchanges will be forgotten?"
        self.tabs = QTabWidget()
        self.model_tab = ModelTab(settings, self.pool, session, self.policy)
        self.model_tab.loaded.connect(self.loaded)
        self.model_tab.models_listed.connect(self.models_listed)
        self.tabs.addTab(self.model_tab, "Model")
        self.tabs.addTab(self._models_page(), "Models")
        self.memory_scroll = MemoryTab(session, self.policy)
        self.memory_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # as the Model page's
        self.tabs.addTab(self.memory_scroll, "Memory")
        self.conversation_page = ConversationPage()
        self.tabs.addTab(self.conversation_page, "Conversation")
        # No scroll arrows: when the selected tab was bold its bar came out a pixel short, and
        # the arrows, shown for that pixel, took a Tab stop and then hid (focus nowhere).
        # The four tabs fit at the largest text on a 1024 px screen.
        self.tabs.tabBar().setUsesScrollButtons(False)
        self.error = QLabel(objectName="error")
        self.error.setWordWrap(True)
        self.error.hide()
        self.error_is_choice = False  # it refuses the model chosen: gone once that changes
        self.model_tab.choice_changed.connect(self._choice_changed)
        self.recent_row.refused.connect(self._refused)
        self.memory_scroll.problems_cleared.connect(self.error.hide)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.wheel_guard = WheelGuard(self)  # the wheel scrolls the page, not the field under it
        self.wheel_guard.guard(self.tabs)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(12)
        note = policy_note(self.policy)
        if note is not None:
            layout.addWidget(note)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        # Enter in a field saves, wherever the focus is and whichever button Tab passed over
        # (Cancel, once passed, took Enter: the changes were thrown away); no button in the
        # pages becomes the default by being clicked (Reset did, and Enter then reset again)
        enter_presses(self, buttons.button(QDialogButtonBox.StandardButton.Save))
        self.tabs.currentChanged.connect(lambda *_: no_default_buttons(self.tabs))
        # Tab into a page from its tab, Cancel or Shift+Tab from Save: the field shown
        self.focus_shown = FocusShown(self)
        self.set_values(settings)
        self.model_tab.look_up()

    def _models_page(self) -> QWidget:
        from app.models_page import ModelsPage

        self.models_page = ModelsPage(self.pool, current=self.original)
        self.models_page.picker.chosen.connect(self.use_choice)
        return self.models_page

    def use_choice(self, choice: Any) -> None:
        """A model picked on the Models page is used at once, as in the first-run model step:
        the Model tab takes it, then Save's checks and questions run. Where they stop it, the
        Model tab keeps it and says why (Esc then drops it knowingly, not silently)."""
        self.set_values(dataclasses.replace(self.values(), **choice.values))
        lines = [f"<b>{name}</b> {choice.reasons[key]}" for key, name in (
            ("gpu_layers", "GPU layers"), ("context", "Context"), ("threads", "Threads"))
            if key in choice.reasons]
        self.fit_note.setText("Suggested for this computer:<br>" + "<br>".join(lines))
        self.fit_note.setVisible(bool(lines))
        self.models_page.note.setText(f"Chosen: {choice.label}.")
        self.tabs.setCurrentIndex(0)
        self.save()

    def _refused(self, problem: str) -> None:
        self._show_error(problem)

    def _show_error(self, problem: str, choice: bool = False) -> None:
        """The dialog's error line; `choice`: about the model chosen (hidden when it changes)."""
        self.error.setText(problem)
        self.error.show()
        self.error_is_choice = choice

    def _choice_changed(self) -> None:
        if self.error_is_choice:
            self.error.hide()

    # --- values ------------------------------------------------------------------------
    def set_values(self, settings: AppSettings) -> None:
        self.model_tab.set_values(settings)
        self.conversation_page.set_values(settings)

    def values(self) -> AppSettings:
        return dataclasses.replace(self.original, **self.model_tab.values(),
                                   **self.conversation_page.values())

    # --- saving ------------------------------------------------------------------------
    def save(self) -> None:
        """Check, then apply: memory settings to the vault, model settings to the app."""
        settings = self.values()
        problem = self._problem(settings)
        about_choice = bool(problem)
        if self.embedder_box.folder.isChecked() and not settings.embedder:
            problem = "Choose the embedding model's folder, or pick the bundled model."
            about_choice = False
        memory = self.memory_form.settings() if self.session is not None else None
        if not problem and memory is not None:
            try:
                memory.validate()
            except ValueError as error:
                problem = str(error)
        if memory is not None:  # said under each field; nothing typed is lost
            conflicts = memory.conflicts()
            first = self.memory_form.show_problems(conflicts)
            if first is not None and not problem:
                problem = ("Not saved: some memory settings contradict each other. The Memory "
                           "tab says which, under the field.")
                self.tabs.setCurrentWidget(self.memory_scroll)
                self.memory_scroll.ensureWidgetVisible(first)
                first.setFocus()
        changed = self._model_changed(settings)
        if not problem and changed and settings.model_source == GGUF:
            # a file known not to load is not saved: the model in use is kept
            refusal = self.model_tab.gguf_problem(settings.gguf_path)
            if refusal:  # said under the file's field, the one place: not again down here
                self.model_tab.show_gguf_problem(refusal)
                self.error.hide()
                self.tabs.setCurrentIndex(0)
                self.model_tab.ensureWidgetVisible(self.gguf_info)
                self.gguf_path.setFocus()
                return
        if problem:
            self._show_error(problem, choice=about_choice)
            return
        self.error.hide()
        if (memory is not None and "retention_days" not in self.locked
                and retention_tightened(self.session.mem.settings, memory)):
            # what it would forget now is counted in the vault before anything is saved
            self.setEnabled(False)
            self.session.run(self.session.mem.preview_retention, memory.retention_days,
                             memory.retention_keeps_facts, on_error=self._failed,
                             on_result=while_open(self, lambda found: self._retention_counted(
                                 found, settings, memory, changed)))
            return
        self._check_server(settings, memory, changed)

    def _retention_counted(self, found: Any, settings: AppSettings, memory: Any,
                           changed: bool) -> None:
        self.setEnabled(True)
        if not found.pages:
            self._check_server(settings, memory, changed)
            return
        box = retention_question(self, found, memory)
        forget = next(button for button in box.buttons()
                      if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole)
        box.finished.connect(lambda *_: self._retention_answered(
            box.clickedButton() is forget, settings, memory, changed))
        self.retention_box = box
        box.open()

    def _retention_answered(self, forget: bool, settings: AppSettings, memory: Any,
                            changed: bool) -> None:
        if forget:
            self._check_server(settings, memory, changed)
            return
        before = self.session.mem.settings
        days = self.memory_form.inputs["retention_days"]
        days.setValue(before.retention_days)
        self.memory_form.inputs["retention_keeps_facts"].setChecked(before.retention_keeps_facts)
        self._show_error(f"Not saved, and your exchanges are kept: “Forget exchanges after” is "
                         f"back to {days.text()}. Save again to keep your other changes.")
        self.tabs.setCurrentWidget(self.memory_scroll)

    def _check_server(self, settings: AppSettings, memory: Any, changed: bool) -> None:
        # a key typed is checked as a new address is: the model in use (on this same server)
        # is reloaded with it at Save, and a wrong one would stop it answering
        if (changed or self.api_key.text().strip()) and settings.model_source == SERVER:
            # does anything answer there? (a worker: a remote server can take seconds)
            self.setEnabled(False)
            self.pool.run(ask_server, settings.server_url, self.api_key.text().strip(),
                          on_result=while_open(self, lambda answer: self._server_checked(
                              answer, settings, memory)))
            return
        self._proceed(settings, memory)

    def _model_changed(self, settings: AppSettings) -> bool:
        return any(getattr(settings, k) != getattr(self.original, k) for k in MODEL_KEYS)

    def _server_checked(self, answer: tuple, settings: AppSettings, memory: Any) -> None:
        error = answer[2]
        self.setEnabled(True)
        url = settings.server_url
        if isinstance(error, KeyRefused):
            # a model there would not answer either: the model in use goes only if asked to
            self.model_tab.show_key_problem(str(error))
            text = (f"{error}\n\nSaving replaces the model in use with one that cannot "
                    "answer. Use it anyway?")
            box = QMessageBox(QMessageBox.Icon.Warning, "The server refused the API key", text,
                              QMessageBox.StandardButton.Cancel, self)
            box.setObjectName("keyRefused")
        elif isinstance(error, OSError):
            box = QMessageBox(QMessageBox.Icon.Question, "The server does not answer",
                              f"The server at {url} does not answer. Use it anyway?",
                              QMessageBox.StandardButton.Cancel, self)
            box.setObjectName("serverSilent")
        else:
            self._proceed(settings, memory)  # the model load says what is wrong
            return
        use = box.addButton("Use it anyway", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda *_: self._silent_answered(box.clickedButton() is use,
                                                              settings, memory, error))
        self.silent_box = box
        box.open()

    def _silent_answered(self, use: bool, settings: AppSettings, memory: Any,
                         error: Exception) -> None:
        if use:
            self._proceed(settings, memory)
            return
        self.tabs.setCurrentIndex(0)
        if isinstance(error, KeyRefused):
            self._show_error(f"Not saved: the server at {settings.server_url} refused the API "
                             f"key (HTTP {error.status}), so the model in use is kept. The "
                             "API key field says more.", choice=True)
            self.model_tab.ensureWidgetVisible(self.api_key)
            self.api_key.setFocus()
            return
        self._show_error(f"Not saved: the server at {settings.server_url} does not answer, so "
                         "the model in use is kept.", choice=True)
        self.server_url.setFocus()

    def _proceed(self, settings: AppSettings, memory: Any) -> None:
        self.setEnabled(True)
        if settings.embedder != self.original.embedder and self.session is not None:
            # the vault must move to the new model first; the rest is saved once it has
            self.switcher = EmbedderSwitcher(
                self, self.session, self.embedder_factory,
                lambda ok: self._embedder_switched(ok, settings, memory))
            self.switcher.start(settings.embedder)
            return
        self._apply(settings, memory)

    def _embedder_switched(self, ok: bool, settings: AppSettings, memory: Any) -> None:
        if ok:
            self._apply(settings, memory)
            return
        self._show_error(self.switcher.message)
        if self.switcher.worker is not None:  # stopped half-way: resumable, the old model stays
            self.reopen_needed.emit()

    def _apply(self, settings: AppSettings, memory: Any) -> None:
        if memory is not None and memory != self.session.mem.settings:
            self.session.run(self.session.mem.update_settings, memory, on_error=self._failed)
        changed = self._model_changed(settings)
        if changed and settings.model_source != BUNDLED:
            self.pool.run(remember_model, settings)  # a bad file is reported by the model load
        if self.recent_row.removed:  # taken off 'Models you added' in the dialog
            self.pool.run(forget_models, sorted(self.recent_row.removed), on_error=self._failed)
        self._pending = settings
        if settings.model_source == SERVER and self.api_key.text():
            # The key must be in the keyring before the model is loaded with it.
            self.setEnabled(False)
            self.pool.run(save_api_key, settings.server_url, self.api_key.text(),
                          on_result=self._key_saved, on_error=self._failed)
            return
        self.applied.emit(settings, changed)
        self.accept()

    def _key_saved(self, _result: object) -> None:
        self.applied.emit(self._pending, True)
        self.accept()

    def _failed(self, error: Exception) -> None:
        self.setEnabled(True)
        self._show_error(describe(error))

    @staticmethod
    def _problem(settings: AppSettings) -> str:
        if settings.model_source == GGUF and not settings.gguf_path:
            return "Choose a GGUF file, or pick another model source."
        if settings.model_source == SERVER:
            from app.settings_lookups import server_url_problem

            # what is wrong with the address typed comes first: the field says the same
            problem = settings.server_url and server_url_problem(
                settings.server_url, settings.allow_plain_http
            )
            if problem:
                return problem
            if not (settings.server_url and settings.server_model):
                return "A server needs both a base URL and a model name."
        return ""
