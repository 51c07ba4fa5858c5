"""The main window: the conversation, the message box, menus, toolbar and status line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.auto_lock import AutoLock
from app.chat_commands import ChatActions
from app.composer import Composer
from app.conversation_view import ConversationView
from app.damage_banner import DamageBanner
from app.demo_banner import DemoBanner
from app.errors import describe, show_message
from app.forget_panel import ForgetPanel
from app.icons import pixmap
from app.learned import LearnedNotices
from app.outgoing import temporary_text
from app.session import Session
from app.settings_store import AppSettings, load_settings, save_settings
from app.status_bar import StatusLine
from app.thinking_fold import ThinkingFolds, ThinkingRouter
from app.used_memories import UsedMemoriesRefresh
from app.widgets import fit_window
from app.window_actions import ActionsWindowMixin
from app.window_chat import ChatWindowMixin
from app.window_conversation import ConversationWindowMixin
from app.window_memory import WINDOW_LEAST, MemoryWindowMixin
from app.window_panels import PanelsWindowMixin
from app.window_session import (
    NOT_SAVED,
    HeldQuestion,
    SessionWindowMixin,
)
from app.workers import WorkerPool

# Asked at a quit while the box holds a message the full disk kept out: it is nowhere else
# Past tense: after Switch memory the box may be asked about in a memory whose disk has room.
NOT_SAVED_QUIT = ("This message was not saved (the disk was full), and it is only in the "
                  "message box. Quit anyway and it is lost.")
NOT_SAVED_QUIT_MORE = ("Cancel to keep it: free some space, then send it again, or copy it "
                       "somewhere safe.")


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


class MainWindow(
    SessionWindowMixin, ActionsWindowMixin, MemoryWindowMixin, ConversationWindowMixin,
    ChatWindowMixin, PanelsWindowMixin, QMainWindow
):
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
        # Where the keyboard was as a conversation began to load / a question was sent:
        # the message box takes it back after only if it is still there (box_takes_keyboard)
        self._focus_at_open: QWidget | None = None
        self._focus_at_ask: QWidget | None = None
        self.panels: dict[str, QWidget] = {}
        # Privacy's deletes and edits still to undo, so its Undo outlives the panel: (session,
        # [(change, what the panel said of it)], newest last); dropped with the vault
        # (app/privacy.py, UNDO_LASTS)
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
        self.damage_banner = DamageBanner()  # the open vault's file is damaged
        self.damage_banner.backup_requested.connect(self.backup_memory)
        self.demo_banner = DemoBanner()
        self.demo_banner.choose_requested.connect(self.open_model_step)
        self.demo_banner.follow(self.view)  # all of it only where the conversation has room
        self.demo_banner.show_for(self.settings)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.damage_banner)
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
        # The question in the message box the window put there (offered back by the vault, or
        # one the full disk kept out), with what the vault holds of it (app/window_session.py)
        self._held_question: HeldQuestion | None = None
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

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_toolbar(measure=False)

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

    def _found_in_search(self, *_: object) -> None:
        """A search result opened: its words, so a long message folded over them unfolds."""
        self.view.found_words = self.sidebar.search.text().split()

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

    def _may_lose_box(self) -> bool:
        """Whether quitting may go on: the box holds no message the full disk kept out, or the
        person chose Quit anyway. Such a message is nowhere else (its exchange was not stored,
        and the failure let its record go, or could not write it), so Cancel is the default."""
        from PySide6.QtWidgets import QMessageBox

        held = self._held_question
        if held is None or held.why != NOT_SAVED:
            return True
        if not held.in_box(self.composer.input.toPlainText()):
            return True
        box = QMessageBox(QMessageBox.Icon.Warning, "MemoryOS", NOT_SAVED_QUIT,
                          QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("notSavedQuitBox")
        box.setInformativeText(NOT_SAVED_QUIT_MORE)
        quit_anyway = box.addButton("Quit anyway", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        box.deleteLater()
        if box.clickedButton() is not quit_anyway:
            self.focus_composer()
            return False
        return True

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Stop the answer, let consolidation finish its step, close the vault, then quit. A
        question whose answer has not begun is kept for the next start (quitting is not the
        person's Stop, which lets it go); one with words is stored with them, as Stop does.
        A message the full disk kept out, still in the box, is asked about first."""
        if not self.closing and not self._may_lose_box():
            event.ignore()
            return
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

