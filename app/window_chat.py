"""Chatting in the main window: a message sent, its answer ended, a new or temporary chat."""

from __future__ import annotations

from typing import Any

from app.conversation_view import READING_CHARS
from app.errors import describe
from app.session import Answer, length_note
from app.thinking_fold import ThinkingRouter
from app.window_session import NOT_ASKED_BOX, NOT_SAVED, NOT_SAVED_BOX, HeldQuestion

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


class ChatWindowMixin:
    """A message sent and its answer, from its first words to its end (stored, stopped,
    failed, or not saved on a full disk), and a new or temporary conversation: a mixin of
    MainWindow (kept apart so the window's own module stays small); it uses the window's view,
    composer, sidebar, session, settings and temporary chat action."""

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
