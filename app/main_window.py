"""The main window: the conversation, the message box, menus, toolbar and status line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.auto_lock import AutoLock, effective_minutes, minutes_text
from app.chat_commands import SHOWN_EXCHANGES, ChatActions, earlier_than, load_conversation
from app.composer import Composer
from app.conversation_view import READING_CHARS, ConversationView
from app.demo_banner import DemoBanner
from app.errors import describe, show_message
from app.forget_panel import ForgetPanel
from app.icons import pixmap, themed
from app.learned import LearnedNotices
from app.model_choice import remote_host
from app.outgoing import temporary_text
from app.session import FAILED, LOADING, READY, UNREACHABLE, Answer, Session, length_note
from app.settings_store import AppSettings, load_settings, save_settings
from app.status_bar import StatusLine
from app.theme import pixels
from app.thinking_fold import ThinkingFolds, ThinkingRouter
from app.used_memories import UsedMemoriesRefresh
from app.widgets import fit_window
from app.window_memory import WINDOW_LEAST, MemoryWindowMixin
from app.window_panels import PanelsWindowMixin
from app.workers import WorkerPool

# Above the message box when a message the app was answering as it stopped is put back there.
# After a crash, a quit, Lock now or Switch memory before the answer's first word
UNANSWERED_NOTICE = ("Your last message was not answered: the answer stopped before it began. "
                     "It is back in the box.")


class _Mark(QLabel):
    """A banner's icon, drawn again after a scheme change (it kept the old scheme's colour)."""

    def __init__(self, name: str, color: str) -> None:
        super().__init__()
        self.icon_name, self.color, self._dark = name, color, theme.dark
        self.setPixmap(pixmap(name, 16, color))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            self._dark = theme.dark
            self.setPixmap(pixmap(self.icon_name, 16, self.color))


def _banner(name: str, icon_name: str, color: str, text: str) -> tuple[QFrame, QLabel, QHBoxLayout]:
    frame = QFrame(objectName=name)
    row = QHBoxLayout(frame)
    row.setContentsMargins(20, 8, 20, 8)
    mark = _Mark(icon_name, color)
    label = QLabel(text)
    label.setWordWrap(True)
    row.addWidget(mark)
    row.addWidget(label, 1)
    frame.hide()
    return frame, label, row


class MainWindow(MemoryWindowMixin, PanelsWindowMixin, QMainWindow):
    """Chat with the assistant; everything slow goes through the Session's workers."""

    answer_finished = Signal(object)  # an Answer, or the exception that ended the generation
    session_attached = Signal()
    vault_erased = Signal()  # the vault is gone: the launcher opens another, or the first run
    locked = Signal()  # auto-lock closed the vault: the launcher asks for the key again
    reopen_requested = Signal()  # the vault moved to another embedder: the launcher opens it again
    conversation_shown = Signal(str)  # a conversation was (re)drawn from the vault
    # Switch memory: the launcher opens the vault named; this one stays open until it is
    vault_switch_requested = Signal(str)

    def __init__(self, settings: AppSettings | None = None, pool: WorkerPool | None = None) -> None:
        super().__init__()
        self.settings = settings or load_settings()
        self.pool = pool or WorkerPool(parent=self)
        self.session: Session | None = None
        self.temporary = False
        self.closing = False  # set once the window starts quitting: late results are dropped
        self._new_after_answer = False
        self.panels: dict[str, QWidget] = {}
        # Privacy's last delete or edit, so its Undo outlives the panel: (session, change,
        # what the panel said of it); dropped with the vault (app/privacy.py, UNDO_LASTS)
        self.privacy_undo: tuple | None = None
        # Stored conversations drawn above the current one (the last one, when the window opened)
        self.shown_conversations: list[str] = []
        self._history_due = False  # attach's conversation is still to be drawn (and continued)
        # The conversation the window was in when its vault was closed (auto-lock): unlocking
        # goes back to it. None: none yet, the vault's most recent conversation is shown.
        self._resume_conversation: str | None = None
        # At start: the conversation on screen at the last quit (if the vault still has it).
        self._start_conversation: str | None = self.settings.last_conversation or None
        self.setWindowTitle("MemoryOS")
        self.view = ConversationView()
        self.thinking_folds = ThinkingFolds(self.view.browser)
        self._router: ThinkingRouter | None = None
        self.composer = Composer()
        self.composer.send_requested.connect(self.send)
        self.composer.input.setAccessibleName("Message")
        self.composer.send_button.setAccessibleName("Send")
        self.composer.stop_button.setAccessibleName("Stop the answer")
        self.composer.stop_requested.connect(self.stop)
        self.composer.measure_requested.connect(self._measure_message)
        self.temporary_banner, self.temporary_text, _ = _banner(
            "banner", "temporary", "#7A5300", temporary_text(""))
        self.notice, self.notice_text, notice_row = _banner("notice", "model", "#8A1F1F", "")
        fix = QPushButton("Model settings…")
        fix.clicked.connect(self.open_settings)
        notice_row.addWidget(fix)
        self.demo_banner = DemoBanner()
        self.demo_banner.choose_requested.connect(self.open_model_step)
        self.demo_banner.follow(self.view)  # all of it only where the conversation has room
        self.demo_banner.show_for(self.settings)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.notice)
        layout.addWidget(self.demo_banner)
        layout.addWidget(self.temporary_banner)
        layout.addWidget(self.view, 1)
        self.forget_panel = ForgetPanel(room_from=self.view)  # the conversation gives way
        layout.addWidget(self.forget_panel)
        layout.addWidget(self.composer)
        self._make_sidebar(central)
        self.setCentralWidget(self.splitter)
        self.chat_actions = ChatActions(self)  # /remember, /forget, message context menu
        self.sidebar.found_requested.connect(self._found_in_search)
        self.learned_notices = LearnedNotices(self)
        self.used_memories = UsedMemoriesRefresh(self)  # "Used N memories" follows deletes
        self.view.memory_opened.connect(self.show_provenance)
        self.view.learned_manage_requested.connect(self.show_provenance)
        self.view.regenerate_requested.connect(self.regenerate)
        self.view.edit_requested.connect(self.edit_last_question)
        self.view.earlier_requested.connect(self.show_earlier)
        self._editing: int | None = None  # the page an edited question replaces
        # The answer streaming now replaces this page (regenerate, edit): (page id, the edited
        # question or None). Stopped, the engine keeps the old exchange; the window shows it
        # again, and an edited question goes back into the message box (_restore_edit).
        self._replacing: tuple[int, str | None] | None = None
        self._restore_edit: tuple[int, str] | None = None
        self.status = StatusLine()
        self.setStatusBar(self.status)
        self.auto_lock = AutoLock(0, self)
        self.auto_lock.idle.connect(self.lock)
        self._apply_look(redraw=False)
        fit_window(self, 980, 720, least=WINDOW_LEAST)  # for the text size just applied
        if self.settings.window_geometry:
            self.restoreGeometry(QByteArray.fromHex(self.settings.window_geometry.encode()))
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_scheme_changed)
        self._make_actions()
        self._make_menus()
        self._make_toolbar()
        self._lock_after_answer = False  # Lock now pressed while an answer streamed
        self.status.vault_icon.installEventFilter(self)  # a click on the padlock: Lock now
        self.view.browser.installEventFilter(self)  # typing in the conversation: a message
        self._show_locked("Opening your memory…", "Unlocking the encrypted vault.")

    @classmethod
    def for_memory(
        cls, mem: Any, chat: Any = None, settings: AppSettings | None = None,
        chat_factory: Any = None,
    ) -> MainWindow:
        """A window on an already-open MemoryOS (tests, screenshots): no dialogs, no model load."""
        window = cls(settings or AppSettings())
        window.attach(Session(mem, window.pool, window.settings, chat=chat, parent=window,
                              chat_factory=chat_factory))
        return window

    # --- building ----------------------------------------------------------------------
    def _action(self, text: str, slot: Any, shortcut: str = "", icon_name: str = "", tip: str = "") -> QAction:
        action = QAction(text, self)
        if icon_name:
            action.setIcon(themed(icon_name))
            action.setProperty("icon_name", icon_name)  # drawn again when the scheme changes
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(f"{tip or text.replace('…', '')} ({shortcut})" if shortcut else tip or text)
        action.triggered.connect(slot)
        return action

    def _make_actions(self) -> None:
        self.new_action = self._action("&New conversation", self.new_conversation, "Ctrl+N", "new",
                                       "Start a new conversation")
        self.temporary_action = self._action("&Temporary chat", self.set_temporary, "Ctrl+T",
                                             "temporary", "Chat without saving anything")
        self.temporary_action.setCheckable(True)
        self.import_action = self._action("&Import conversations…", self.import_conversations, "",
                                          "", "Add conversation transcripts (JSON) to memory")
        self.import_reference_action = self._action(
            "Import from the &reference MemoryOS…", self.import_reference, "", "",
            "Bring in the memory of the reference MemoryOS (BAI-LAB): its data folder")
        self.export_action = self._action("&Export memory…", self.export_memory, "Ctrl+E", "export",
                                          "Save everything MemoryOS remembers to a JSON file")
        self.backup_action = self._action("&Back up memory…", self.backup_memory, "", "",
                                          "Save an encrypted copy of this memory's vault file")
        self.lock_action = self._action("&Lock now", self.lock_now, "Ctrl+L", "lock",
                                        "Close the vault now; its key is asked for again")
        # from Privacy and the inspector too: they show everything remembered
        self.lock_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.switch_action = self._action("S&witch memory…", self.switch_vault, "Ctrl+Shift+O",
                                          "", "Open another person's or purpose's memory, or "
                                          "start a new one")
        self.quit_action = self._action("&Quit", self.close, "Ctrl+Q")
        self.settings_action = self._action("&Settings…", self.open_settings, "Ctrl+,", "settings",
                                            "Model and memory settings")
        # Ctrl+M is this window action's (Tools menu, listed by F1), whether or not the demo
        # banner, whose button opens the same step, is showing.
        self.model_action = self._action("Choose a &model…", self.open_model_step, "Ctrl+M",
                                         "model", "Models on this computer, local servers, "
                                         "downloads")
        self.inspector_action = self._action("Memory &inspector", self.open_inspector, "Ctrl+I",
                                             "inspector", "See the memory tiers")
        self.privacy_action = self._action("&Privacy…", self.open_privacy, "Ctrl+P", "privacy",
                                           "See, correct and erase what MemoryOS knows about you")
        self.about_action = self._action("&About MemoryOS", self.about)
        self.shortcuts_action = self._action("&Keyboard shortcuts and commands",
                                             self.show_shortcuts, "F1")
        self._make_memory_actions()  # sidebar, search, chat, text size (window_memory.py)
        self.vault_actions = [self.new_action, self.temporary_action, self.export_action,
                              self.backup_action,
                              self.import_action, self.import_reference_action,
                              self.inspector_action, self.privacy_action, self.search_action,
                              self.lock_action, self.switch_action]

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.setToolTipsVisible(True)  # why an entry is greyed out (the policy's file)
        file_menu.addActions([self.new_action, self.temporary_action])
        file_menu.addSeparator()
        file_menu.addAction(self.import_action)
        file_menu.addAction(self.import_reference_action)
        file_menu.addAction(self.export_action)
        file_menu.addAction(self.backup_action)
        file_menu.addSeparator()
        file_menu.addAction(self.switch_action)
        file_menu.addAction(self.lock_action)
        file_menu.addAction(self.quit_action)
        self._add_memory_menus(bar)
        memory_menu = bar.addMenu("&Memory")
        memory_menu.addActions([self.inspector_action, self.privacy_action])
        tools = bar.addMenu("&Tools")
        tools.addActions([self.model_action, self.settings_action])
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.shortcuts_action)
        help_menu.addSeparator()
        help_menu.addAction(self.about_action)

    def _make_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setMovable(False)
        bar.setIconSize(QSize(18, 18))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addActions([self.new_action, self.temporary_action])
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addActions([self.inspector_action, self.privacy_action, self.settings_action])
        self.addToolBar(bar)
        self.toolbar = bar
        self._labelled_width = 0  # the bar's width with labels, at the text size measured

    def fit_toolbar(self, measure: bool = True) -> None:
        """Labels beside the icons where they fit, icons alone (names in tooltips) where they
        do not: at large text sizes Privacy and Settings fell off the end of the bar. The
        labelled width is measured when the text size changes (`measure`), not on every step
        of a resize, which only compares it with the window's width."""
        bar = getattr(self, "toolbar", None)
        if bar is None:  # the look is applied before the bar is made
            return
        if measure or not self._labelled_width:
            bar.setIconSize(QSize(pixels(18), pixels(18)))
            bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self._labelled_width = bar.sizeHint().width()
        style = (
            Qt.ToolButtonStyle.ToolButtonTextBesideIcon
            if self._labelled_width <= self.width()
            else Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        if bar.toolButtonStyle() != style:
            bar.setToolButtonStyle(style)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_toolbar(measure=False)

    # --- the session -------------------------------------------------------------------
    def attach(self, session: Session) -> None:
        """Show an open vault: its last conversation, model state and memory activity."""
        from app.vault_switch import window_title

        self.session = session
        self.setWindowTitle(window_title(self.settings.vault_name))  # which memory is open
        session.model_state.connect(self._on_model_state)
        session.model_progress.connect(self.status.set_progress)
        session.status_changed.connect(self.status.set_memory)
        self.learned_notices.watch(session)
        self.used_memories.watch(session)
        session.outside_written.connect(self.show_outside_exchanges)  # another process wrote
        self.sidebar.attach(session)
        self.demo_banner.watch(session, self.settings)  # a served model's size: once loaded
        for action in self.vault_actions:
            action.setEnabled(True)
        self._padlock(True)
        self._history_due = True  # nothing of it drawn yet (a close keeps the earlier one)
        if not self._apply_policy():  # a policy that cannot be read: closed again, saying why
            return
        self.view.clear()
        self.shown_conversations = []
        self.view.set_empty_text(*self.view.default_empty_text())
        self._on_model_state(session.state, session.state_text)
        session.refresh_status()
        resume, fallback = self._resume_conversation, False
        if resume is None and self._start_conversation:
            resume, fallback, self._start_conversation = self._start_conversation, True, None
        session.run(_vault_summary, session.mem, resume, fallback,
                    on_result=self._show_history, on_error=self._show_error)
        # What is typed next is a message: with no focus set, the window gave it to its first
        # control when the unlock or first-run dialog closed, the conversation search.
        self.composer.input.setFocus()
        self.session_attached.emit()

    def detach(self) -> None:
        """Close the session's vault (waits for running work) and go back to the locked look."""
        for panel in list(self.panels.values()):
            panel.close()
        self.panels.clear()
        self.privacy_undo = None  # deleted text held for an Undo goes with the decrypted vault
        self.sidebar.detach()
        self.learned_notices.reset()  # they belong to the vault that learned them
        if self.session is not None:
            session, self.session = self.session, None
            session.close()  # waits for running work: a New chat or a continue has happened
            if not self._history_due:  # else nothing was shown yet: keep the earlier one
                self._resume_conversation = session.mem.conversation_id
            session.deleteLater()
        self._show_locked("MemoryOS is locked", "")

    def _show_locked(self, title: str, hint: str) -> None:
        self.setWindowTitle("MemoryOS")  # no memory open: none named
        self.view.clear()
        self.shown_conversations = []
        self.view.set_empty_text(title, hint, locked=True)
        self.composer.set_busy(False)
        self.composer.set_ready(False, "The vault is not open yet")
        self.status.vault.setText("Vault locked")
        self.demo_banner.hide()  # "you are talking to…" is not true of a locked window
        for action in self.vault_actions:
            action.setEnabled(False)
        self._padlock(False)

    def _padlock(self, open_: bool) -> None:
        """The status line's padlock: while the vault is open a click on it locks."""
        icon = self.status.vault_icon
        key = self.lock_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        icon.setToolTip(f"Lock now ({key})" if open_ else "")
        if open_:
            icon.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            icon.unsetCursor()

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """A left click on the padlock does what Lock now does; text typed while the
        conversation has the focus (after a click in it, or Tab) goes into the message box."""
        if watched is self.view.browser and event.type() == QEvent.Type.KeyPress:
            plain = not event.modifiers() & ~(
                Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
            )
            if plain and event.text().isprintable() and event.text().strip():
                self.focus_composer()
                self.composer.input.insertPlainText(event.text())
                return True
        if (
            watched is self.status.vault_icon
            and event.type() == QEvent.Type.MouseButtonRelease
            and event.button() == Qt.MouseButton.LeftButton
            and self.lock_action.isEnabled()
        ):
            self.lock_action.trigger()
            return True
        return super().eventFilter(watched, event)

    def _show_history(self, summary: dict) -> None:
        if self.session is None:  # locked or closed meanwhile: nothing decrypted on screen
            return
        info = summary["info"]
        self.status.set_vault(self.settings.vault_name, info.key_location)
        due, self._history_due = self._history_due, False  # not after New chat meanwhile
        from engine.remembered import saved_list

        pages = summary["pages"]
        if due and pages and self.view.message_count == 0 and not self.temporary:
            self.shown_conversations = sorted({p.conversation_id for p in pages})
            self.show_earlier_note(summary.get("earlier", 0), SHOWN_EXCHANGES)
            for page in pages:
                # No saved list (imported, or from before lists were saved): no line at all.
                self.view.add_exchange(page, saved_list(page, summary["memories"]),
                                       self.stored_note(page))
            # What is on screen is what the next message continues (the engine opened on a
            # fresh conversation): the last exchange's, as a click in the sidebar would.
            # Set here, not in the pool: the pool's threads run in no fixed order, and a New
            # chat pressed meanwhile must not be undone by a late continue.
            self.session.mem.continue_conversation(pages[-1].conversation_id, check=False)
            self.sidebar.set_current(pages[-1].conversation_id)
        self._offer_unanswered(summary.get("unanswered"))

    def _given_back(self, taken: tuple[Any, dict | None]) -> None:
        """A cancelled Switch memory: the conversation drawn again as the vault holds it, then
        the stopped question in the box. It was drawn with "Stopped" under it as well, an
        exchange never stored, above the same question waiting to be sent."""
        waiting, drawn = taken
        if drawn is not None:
            self._reloaded(drawn, "")
        else:
            self._reloads -= 1
        self._offer_unanswered(waiting)

    def _offer_unanswered(self, waiting: Any) -> None:
        """A question whose answer was stopped before its first word by a quit, a crash, Lock
        now or Switch memory: in the box, for the person to send."""
        if waiting is None or self.session is None:
            return
        self.composer.put_back(waiting.text, UNANSWERED_NOTICE)
        last = self.view.last_exchange()
        if waiting.replaces is not None and last and last[1].page_id == waiting.replaces:
            # An edit of the last question: sent, it replaces that exchange, as it would
            # have before the app stopped (the earlier answer stays until then).
            self._editing = waiting.replaces
            self._set_editing(True)

    def _on_model_state(self, state: str, text: str) -> None:
        self.status.set_model(state, text)
        self.show_remote()
        self.notice.setVisible(state == FAILED)
        self.notice_text.setText(f"The model could not be loaded. {text}")
        ready = state in (READY, UNREACHABLE)  # a silent server may be back for the next one
        why = {LOADING: "The model is still loading", FAILED: "No model is loaded"}.get(state, "")
        self.composer.set_ready(ready, why)
        if state == LOADING:
            self.composer.set_hint("The model is loading in the background; you can start typing.")
        else:
            self.composer.set_hint("Enter to send · Shift+Enter for a new line")

    def _apply_policy(self) -> bool:
        """What the administrator's policy turns off is off here too (engine enforces it).

        A policy that cannot be read (the file was edited while the app ran) must not mean
        "no policy": export on, no idle lock. The vault closes again, as at Lock now, the
        policy's error is shown (the file, ask the administrator, as when the app refuses to
        start), and once it is read the key is asked for again: fixed, the next unlock opens.
        Returns False then."""
        from PySide6.QtGui import QShortcut
        from PySide6.QtWidgets import QMessageBox

        from app.policy_lock import disable_if_forbidden
        from engine.errors import MemoryOSError
        from engine.policy import current

        try:
            policy = current()
        except MemoryOSError as error:
            said = f"{str(error)[:1].upper()}{str(error)[1:]}."
            self._lock_after_answer = False
            self.auto_lock.stop()
            if self.session is not None:
                self.detach()
            self._show_locked("MemoryOS closed your memory",
                              f"{said}\nUnlock it again once the policy is fixed.")
            box = QMessageBox(QMessageBox.Icon.Critical, "MemoryOS cannot open your memory",
                              f"{said}\n\nYour memory was closed again: MemoryOS does not run "
                              "without the policy. Unlock it once the file is fixed.",
                              QMessageBox.StandardButton.Close, self)  # fmt: skip
            box.setObjectName("policyBox")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.finished.connect(lambda *_: None if self.closing else self.locked.emit())
            box.open()
            return False
        disable_if_forbidden([self.export_action], policy.export_forbidden, policy)
        # A greyed entry's shortcut does nothing: while export is off, this one says why.
        refusal = getattr(self, "_export_refusal", None)
        if refusal is None:
            refusal = self._export_refusal = QShortcut(self.export_action.shortcut(), self,
                                                       self.export_memory)
        refusal.setEnabled(policy.export_forbidden)
        self.auto_lock.set_minutes(
            effective_minutes(self.settings.auto_lock_minutes, policy.auto_lock_minutes)
        )
        return True

    def lock(self) -> None:
        """Idle too long: close the vault (dropping what was decrypted) and ask for the key."""
        if self.session is None:
            return
        if self.session.generating:  # never cut an answer short; look again later
            self.auto_lock.restart()
            return
        self._close_and_ask(
            "MemoryOS locked itself",
            f"Nobody used it for {minutes_text(self.auto_lock.minutes)}, so the vault was "
            "closed.\n"
            "Unlock it to go on.",  # two lines: the unlock dialog over it covers them whole
        )

    def lock_now(self) -> None:
        """Lock now (Ctrl+L, or a click on the padlock): what the idle lock does, at once. An
        answer still streaming is stopped first (what it said is kept), then the vault locks.
        A question with no word of answer yet is kept as quitting keeps it (not the person's
        Stop): after the unlock it is back in the box."""
        if self.session is None:
            return
        if self.session.generating:
            self._lock_after_answer = True
            self.session.mem.mark_quitting()
            self.stop()
            return
        self._close_and_ask("MemoryOS is locked", "You locked it.\nUnlock it to go on.")

    def switch_vault(self) -> None:
        """File → Switch memory: pick another vault (or name a new one); this one closes once
        it is open."""
        from app.vault_switch import SwitchVaultDialog

        if self.session is None:
            return
        dialog = SwitchVaultDialog(self.settings.vault_name, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._switch_to(dialog.chosen()))
        dialog.open()

    def _switch_to(self, name: str) -> None:
        if self.session is None or not name or name == self.settings.vault_name:
            return
        if self.session.generating:  # what it said so far is kept; then the switch goes on
            self.answer_finished.connect(lambda *_: self._switch_to(name),
                                         Qt.ConnectionType.SingleShotConnection)
            # A question with no word of answer yet stays with this memory, as at a quit:
            # back in the box when it is opened again (or at once if the switch is cancelled).
            self.session.mem.mark_quitting()
            self.stop()
            return
        # This memory stays open, its conversation shown, until the other one is open: a
        # Cancel on the other's dialog comes back here as it was, without asking for its key.
        for action in self.vault_actions:
            action.setEnabled(False)
        self.composer.set_ready(False, f"Opening the memory “{name}”…")
        self.vault_switch_requested.emit(name)

    def switch_ended(self, name: str | None) -> None:
        """Switch memory: the memory `name` is open now and the one open until now closes
        (unless auto-lock closed it meanwhile); None: cancelled, this one goes on as it was."""
        if name is None:
            if self.session is not None:
                for action in self.vault_actions:
                    action.setEnabled(True)
                if not self._apply_policy():  # it cannot be read: closed, saying why
                    return
                self._on_model_state(self.session.state, self.session.state_text)
                mem = self.session.mem
                if mem.quitting:  # an answer the switch stopped: its question is back here
                    mem.mark_quitting(False)
                    ids = None if self.temporary else self._conversation_ids()
                    self._reloads = getattr(self, "_reloads", 0) + 1
                    self.session.run(_taken_back, mem, ids, on_result=self._given_back,
                                     on_error=self._reload_failed)
            return
        if self.session is not None:
            self.detach()
        # The conversation to come back to belongs to the vault closed: the other one opens
        # at its own most recent conversation.
        self._resume_conversation = self._start_conversation = None
        self.settings.vault_name = name
        self.settings.last_conversation = ""
        self._save_settings()

    def _close_and_ask(self, title: str, hint: str) -> None:
        """Close the vault (dropping what was decrypted), say why, and have the key asked for."""
        self._lock_after_answer = False
        self.auto_lock.stop()
        self.detach()
        self._show_locked(title, hint)
        self.locked.emit()

    def show_remote(self) -> None:
        """Mark a model that is not on this computer wherever it is in use (issue #15)."""
        host = remote_host(self.settings)
        self.status.set_remote(host)
        self.temporary_text.setText(temporary_text(host))

    # --- chatting ----------------------------------------------------------------------
    def send(self, text: str) -> None:
        from engine.chat_commands import parse

        command = parse(text)
        if command is not None and self.session is not None:
            if command.name == "unknown":  # a typo loses nothing: the text goes back in the box
                self.composer.input.setPlainText(text)
            self.chat_actions.run(command)  # a command, never a question for the model
            return
        session = self.session
        if session is None or not session.can_answer:
            self.composer.input.setPlainText(text)
            return
        replaces, self._editing = self._editing, None
        if replaces is not None or self.composer.property("editing"):
            self.view.remove_last_exchange()
            self._set_editing(False)
        self._ask(text, replaces, edited=replaces is not None)

    def _ask(self, text: str, replaces: int | None, edited: bool = False) -> None:
        session = self.session
        replacing = replaces is not None and not self.temporary
        self._replacing = (replaces, text if edited else None) if replacing else None
        self.view.add_user_message(text)
        self.view.begin_answer(reading=len(text) >= READING_CHARS)
        self._router = ThinkingRouter(self.view.append_chunk)  # <think> text is folded apart
        worker = session.ask(
            text, temporary=self.temporary, on_chunk=self._feed_answer,
            on_done=self._answer_done, on_error=self._answer_failed,
            replaces=None if self.temporary else replaces,
        )
        if worker is None:
            self.view.end_answer("Could not start the answer.")
            return
        self.composer.set_busy(True)
        self.temporary_action.setEnabled(False)

    def _feed_answer(self, chunk: str) -> None:
        if self._router is not None:
            self._router.feed(chunk)
        self.view.writing_started()  # it has read the message ("Reading…" no more)

    def _found_in_search(self, *_: object) -> None:
        """A search result opened: its words, so a long message folded over them unfolds."""
        self.view.found_words = self.sidebar.search.text().split()

    def _measure_message(self, text: str) -> None:
        """A long text in the message box: say so beside Send if the model cannot read it
        whole (counted in a worker)."""
        if self.session is not None:
            self.session.measure(text, lambda note: self.composer.show_length(text, note))

    def stop(self) -> None:
        if self.session is not None:
            self.session.stop()

    def _answer_done(self, answer: Answer) -> None:
        replacing, self._replacing = self._replacing, None
        if replacing is not None and answer.stopped and answer.page is None:
            self._keep_replaced(*replacing)
            self.answer_finished.emit(answer)
            return
        note = "Stopped" if answer.stopped else ""
        if answer.cut_short and not answer.stopped:  # it ends mid-sentence: say why
            note = length_note(self.settings, self.session.mem.chat if self.session else None)
        if self.temporary:
            note = f"{note} · not saved" if note else "Not saved (temporary chat)"
        thinking = self._router.finish() if self._router is not None else ""
        self._router = None
        self.view.end_answer(note)
        page_id = answer.page.id if answer.page is not None else None
        self.view.finish_last_answer(page_id, list(answer.memories))
        if answer.page is not None:
            self.sidebar.set_current(answer.page.conversation_id)
        if thinking:
            self.thinking_folds.add(thinking)
        self._answer_ended()
        self.answer_finished.emit(answer)

    def _keep_replaced(self, page_id: int, edited: str | None) -> None:
        """A regeneration or an edit was stopped: the earlier exchange is still stored (the
        engine keeps a whole answer over a part), so it is drawn again, and an edited question
        waits in the message box to be sent again (stopped by Lock now or Switch memory, the
        engine keeps it, and it is offered when the vault is open here again)."""
        if self.session is not None and self.session.mem.quitting:
            edited = None
        self._router = None
        self.view.end_answer()
        self._answer_ended()
        if edited is not None:
            self._restore_edit = (page_id, edited)
        self.reload_conversation("Stopped: the earlier answer is kept.")

    def _answer_failed(self, error: Exception) -> None:
        self._replacing = None
        self._router = None
        self.view.end_answer(f"⚠ {describe(error)}")
        self._answer_ended()
        self.answer_finished.emit(error)

    def _answer_ended(self) -> None:
        self.composer.set_busy(False)
        self.temporary_action.setEnabled(True)
        self.composer.input.setFocus()
        if self._lock_after_answer:
            self._new_after_answer = False
            self.lock_now()
            return
        if self._new_after_answer:
            self._new_after_answer = False
            self.new_conversation()

    def new_conversation(self) -> None:
        if self.session is None:
            return
        if self.session.generating:  # stop first; the stopped answer belongs to this conversation
            self._new_after_answer = True
            self.stop()
            return
        if self.temporary:  # "New conversation" is a saved one: it leaves the temporary chat
            self.set_temporary(False)
            self.sidebar.set_current(None)
            self.composer.input.setFocus()
            return
        self.view.clear()
        self.shown_conversations = []
        self._history_due = False
        self._editing = None
        self._set_editing(False)
        if not self.temporary:
            self.session.mem.new_conversation()  # no I/O: in order with what follows
        self.sidebar.set_current(None)
        self.composer.input.setFocus()

    def set_temporary(self, on: bool) -> None:
        """Temporary chat: answers use memory but nothing is written (get_response temporary)."""
        if self.session is not None and self.session.generating:
            self.temporary_action.setChecked(self.temporary)
            return
        self.temporary = bool(on)
        self.temporary_action.setChecked(self.temporary)
        self.temporary_banner.setVisible(self.temporary)
        self.sidebar.set_current(None)  # none of the saved ones is on screen
        self.view.clear()
        self.shown_conversations = []
        self._history_due = False
        if self.temporary:
            self.view.set_empty_text(
                "Temporary chat",
                "Nothing you say here is saved, and MemoryOS won't learn from it.\n"
                "Ctrl+T or New conversation (Ctrl+N) leaves it for a new, saved conversation.",
            )
            self.composer.set_placeholder("Message MemoryOS (temporary: not saved)")
        else:
            self.view.set_empty_text(*self.view.default_empty_text())
            self.composer.set_placeholder("Message MemoryOS")
            if self.session is not None:
                self.session.mem.new_conversation()  # no I/O: in order with what follows

    def _show_error(self, error: Exception) -> None:
        show_message(self, "MemoryOS", describe(error), warning=True)

    # --- quitting ----------------------------------------------------------------------
    def _save_settings(self) -> None:
        try:
            save_settings(self.settings)
        except OSError as error:
            self._show_error(error)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._splitter_restored:
            self._splitter_restored = True
            if self.settings.splitter_state:  # once the window has its restored size
                QTimer.singleShot(0, self, self._restore_splitter)

    def _conversation_on_screen(self) -> str:
        """The conversation the next start opens: the one on screen ("" for a new chat with
        nothing in it yet: the most recent one then), or where a locked window was."""
        if self.session is None:
            return self._resume_conversation or ""
        if self.temporary:
            return self.settings.last_conversation
        if self._history_due or not self.view.message_count:
            return ""
        return self.session.mem.conversation_id

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Stop the answer, let consolidation finish its step, close the vault, then quit. A
        question whose answer has not begun is kept for the next start (quitting is not the
        person's Stop, which lets it go); one with words is stored with them, as Stop does."""
        self.closing = True
        if self.session is not None:
            self.session.mem.mark_quitting()
        self.settings.last_conversation = self._conversation_on_screen()
        self.settings.window_geometry = bytes(self.saveGeometry().toHex()).decode()
        self.settings.sidebar_visible = self.sidebar.isVisibleTo(self)
        if self.settings.sidebar_visible:
            self.settings.splitter_state = bytes(self.splitter.saveState().toHex()).decode()
        try:
            save_settings(self.settings)
        except OSError:
            pass  # losing the window size is not worth blocking the quit
        self.hide()
        self.detach()
        self.pool.wait(15000)
        event.accept()


def _taken_back(mem: Any, ids: list[str] | None) -> tuple[Any, dict | None]:
    """Read in a worker once a cancelled Switch memory leaves this vault open: the question of
    the answer it stopped, handed back (MemoryOS.take_unanswered), or None; with it the
    conversations `ids` as the vault holds them, without that question (None: not read)."""
    mem.release_unanswered()
    waiting = mem.take_unanswered()
    drawn = load_conversation(mem, ids) if waiting is not None and ids is not None else None
    return waiting, drawn


# How many of the most recent conversations the first start looks through for one that is not
# an agent's (a vault an agent used for weeks before the app: a new chat then)
AGENT_CONVERSATIONS_PASSED = 20


def _latest_of_the_app(mem: Any, conversations: list) -> str | None:
    """The most recent conversation that is not an agent's (its newest exchange stored through
    the MCP server): the app opened on the agent's conversation, and the person's first message
    went into it. None when the recent ones are all agents' (a new chat)."""
    recent = sorted(conversations, key=lambda c: c.last_ts or 0, reverse=True)
    for conversation in recent[:AGENT_CONVERSATIONS_PASSED]:
        newest = mem.pages(conversation_id=conversation.id, limit=1, newest=True)
        if not newest or (newest[0].meta or {}).get("source") != "mcp":
            return conversation.id
    return None


def _vault_summary(mem: Any, resume: str | None = None, fallback: bool = False) -> dict:
    """Read in a worker: vault info and the pages of the conversation to show: `resume` (the
    one the window was in before it locked: no pages if it was a new chat or is gone since),
    else the most recent one. With `fallback` (`resume` is the last quit's), a conversation the
    vault does not hold (gone since, another vault) gives the most recent one. A question the
    app was killed while answering ("unanswered") is shown in its own conversation."""
    info = mem.info()
    pages: list = []
    waiting = mem.take_unanswered()
    if waiting is not None:  # a new chat's first question: no pages, an empty new chat
        resume, fallback = waiting.conversation_id, False
    shown = resume
    conversations = mem.conversations() if shown is None or fallback else []
    if fallback and shown not in {c.id for c in conversations}:
        shown = None
    if shown is None and conversations:
        shown = _latest_of_the_app(mem, conversations)
    if shown:
        # Its most recent exchanges (the first 200 of a longer one left out how it went on)
        pages = sorted(mem.pages(conversation_id=shown, limit=SHOWN_EXCHANGES, newest=True),
                       key=lambda p: p.timestamp)
    return {"info": info, "pages": pages, "memories": mem.memories_used([p.id for p in pages]),
            "unanswered": waiting,
            "earlier": earlier_than(mem, [shown], len(pages)) if shown else 0}
