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
from app.conversation_view import READING_CHARS, ConversationView
from app.damage_banner import DamageBanner
from app.demo_banner import DemoBanner
from app.errors import describe, show_message
from app.forget_panel import ForgetPanel
from app.icons import pixmap
from app.learned import LearnedNotices
from app.outgoing import temporary_text
from app.session import Answer, Session, length_note
from app.settings_store import AppSettings, load_settings, save_settings
from app.status_bar import StatusLine
from app.thinking_fold import ThinkingFolds, ThinkingRouter
from app.used_memories import UsedMemoriesRefresh
from app.widgets import fit_window
from app.window_actions import ActionsWindowMixin
from app.window_conversation import ConversationWindowMixin
from app.window_memory import WINDOW_LEAST, MemoryWindowMixin
from app.window_panels import PanelsWindowMixin
from app.window_session import (
    NOT_ASKED_BOX,
    NOT_SAVED,
    NOT_SAVED_BOX,
    HeldQuestion,
    SessionWindowMixin,
)
from app.workers import WorkerPool

# The disk was full when an exchange was to be stored: under its answer, above the message
# box the question is put back in, and over the earlier exchange a regeneration kept.
NOT_SAVED_NOTE = ("Not saved: the disk is full. Free some space, then send your message "
                  "again: it is back in the box.")
# The question itself could not be kept while it was answered (engine/unanswered.py), so it
# was not asked: no answer began, and the answer's place says only this
NOT_ASKED_NOTE = ("Not answered and not saved: the disk is full, so your message could not be "
                  "kept while it was answered. Free some space, then send it again: it is back "
                  "in the box.")
NOT_SAVED_REPLACING = ("The disk is full, so the new answer was not saved; the earlier one is "
                       "kept. Free some space, then send the question again.")
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
    PanelsWindowMixin, QMainWindow
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
        else:
            last = self.view.last_exchange()
            if last and last[0].not_saved and last[0].text == text:
                self.view.remove_last_exchange()  # sent again: its unsaved copy goes
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
        self._focus_at_ask = self.focusWidget()  # the box gets it back at the end if still there

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
        self._let_go_unsaved(answer.page)
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
        from engine.errors import DiskFullError

        replacing, self._replacing = self._replacing, None
        self._router = None
        if isinstance(error, DiskFullError):
            self._not_saved(error, replacing)
        else:
            self.view.end_answer(f"⚠ {describe(error)}")
            self._answer_ended()
        self.answer_finished.emit(error)

    def _not_saved(self, error: Exception, replacing: tuple[int, str | None] | None) -> None:
        """The disk was full: the exchange on screen was not stored. It says so, and the
        question waits in the message box to be sent again (never sent from here). A
        regeneration or an edit left the earlier exchange stored: it is drawn again, and the
        question waits to replace it, as after a Stop."""
        exchange = self.view.last_exchange()
        question = exchange[0].text if exchange else ""
        # The record written as it was asked (None: the full disk kept that out too, or a
        # regeneration, whose question the earlier exchange holds). The failure let the record
        # go where it could, so the vault may hold no copy of the question either way.
        kept = getattr(error, "kept_question", None)
        if question and (kept is not None or replacing is None or replacing[1] is not None):
            self._held_question = HeldQuestion(self.session, kept, question, NOT_SAVED,
                                               self.settings.vault_name)
        if replacing is not None:
            self.view.end_answer()
            self._answer_ended()
            self._restore_edit = (replacing[0], replacing[1] or question)
            self.reload_conversation(f"⚠ {NOT_SAVED_REPLACING}")
            return
        # No record: the question could not be kept, so it was not asked and no answer began
        # (an answer's empty place said "(no answer)", as if the model had said nothing)
        asked = kept is not None
        self.view.end_answer(f"⚠ {NOT_SAVED_NOTE if asked else NOT_ASKED_NOTE}", begun=asked)
        for message in exchange:
            message.not_saved = True
        self._answer_ended()
        if question:
            self.composer.put_back(question, NOT_SAVED_BOX if asked else NOT_ASKED_BOX)

    def _let_go_unsaved(self, page: Any) -> None:
        """A question the disk was too full to store is stored now (sent again). Its record
        goes too if the failure could not drop it: the new exchange's transaction drops only
        the record of the question just sent, and this program's other records stay while it
        runs, so the next start would offer this one back."""
        held = self._held_question
        if page is None or held is None or held.why != NOT_SAVED or self.session is None:
            return
        if page.user_input == held.text:
            self._held_question = None
            if held.record is not None and held.session is self.session:  # not another vault's
                self.session.run(self.session.mem.dismiss_unanswered, held.record,
                                 on_error=lambda _error: None)  # offered at the next start then

    def _answer_ended(self) -> None:
        self.composer.set_busy(False)
        self.temporary_action.setEnabled(True)
        self.box_takes_keyboard(self._focus_at_ask)
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

