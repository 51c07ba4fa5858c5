"""The main window's open vault: attaching and closing a session, the lock screen, the
model's state, locking, Switch memory, and what the vault shows when it opens.

A mixin of MainWindow (kept apart so the window's own module stays small); it uses the
window's view, composer, sidebar, status line, actions, session, settings and worker pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from app.auto_lock import effective_minutes, minutes_text
from app.chat_commands import SHOWN_EXCHANGES, earlier_than, load_conversation
from app.model_choice import remote_host
from app.outgoing import temporary_text
from app.session import FAILED, LOADING, READY, UNREACHABLE, Session

# Above the message box when a message the app was answering as it stopped is put back there:
# after a crash, a quit, Lock now or Switch memory before the answer was stored (before its
# first word, or part-way), or an answer written whole that a full disk kept from being stored.
# The vault's record does not say which, so the notice says only what is true of them all.
UNANSWERED_NOTICE = ("Your last message was not answered, or its answer could not be saved. "
                     "It is back in the box.")

# Above the message box a message the full disk kept out is put back in: its answer was written
# and could not be stored, or (NOT_ASKED_BOX) the question could not be kept while it was
# answered, so it was not asked. In another memory (Switch memory) the box says where it was
# not saved: "your last message" and "send it again" were said of the memory open then.
NOT_SAVED_BOX = ("The disk was full, so your last message and its answer were not saved. "
                 "Free some space, then send it again.")
NOT_ASKED_BOX = ("The disk was full, so your last message could not be saved, and it was not "
                 "answered. Free some space, then send it again.")
NOT_SAVED_ELSEWHERE = ("This message was not saved in “{was}”: the disk was full. Sent now, it "
                       "is asked in “{now}”, the memory open now.")

# Why a question is in the message box (HeldQuestion.why)
OFFERED = "offered"  # offered back by the vault: a crash, a quit, Lock now or Switch memory
NOT_SAVED = "not saved"  # put back by the window: the full disk kept its exchange out


@dataclass(frozen=True)
class HeldQuestion:
    """The question in the message box that the window put there, and what the vault holds
    of it: the record of an unanswered question (engine/unanswered.py), or None."""

    session: Any  # the Session whose vault it belongs to
    record: str | None
    text: str
    why: str  # OFFERED or NOT_SAVED
    memory: str = ""  # the name of the memory it was asked in (Switch memory)

    def in_box(self, box: str) -> bool:
        return box.strip() == self.text.strip()


class SessionWindowMixin:
    """Opens, shows, locks and closes the window's vault (its Session)."""

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
        self.damage_banner.watch(session)  # every page read in a worker: is the file damaged?
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
            self._leave_offered_question()
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
        # The vault keeps it until a message is sent (engine/unanswered.py), so a quit with it
        # in the box offers it again next time; emptying the box is the person's "no"
        self._held_question = HeldQuestion(self.session, waiting.id, waiting.text, OFFERED)
        if not getattr(self, "_watching_offered", False):
            self._watching_offered = True
            self.composer.input.textChanged.connect(self._offered_question_emptied)
        last = self.view.last_exchange()
        if waiting.replaces is not None and last and last[1].page_id == waiting.replaces:
            # An edit of the last question: sent, it replaces that exchange, as it would
            # have before the app stopped (the earlier answer stays until then).
            self._editing = waiting.replaces
            self._set_editing(True)

    def _offered_question_emptied(self) -> None:
        held = self._held_question
        if held is None or held.why != OFFERED or self.composer.input.toPlainText().strip():
            return
        self._held_question = None
        if held.session is self.session and held.session is not None:
            held.session.run(held.session.mem.dismiss_unanswered, held.record)

    def _leave_offered_question(self) -> None:
        """The vault closes (Lock now, the idle lock, Switch memory): a box holding just the
        question it offered back empties with its notice (sent now, it was asked in the memory
        opened next). The vault keeps it and offers it again when it is open here again.
        Anything else in the box stays; so does a question the full disk kept out: the failure
        let its record go where it could, so it may be nowhere else."""
        held = self._held_question
        box = self.composer.input.toPlainText()
        if held is None or held.why != OFFERED or held.session is not self.session:
            return
        if not held.in_box(box):
            return
        self._held_question = None  # not the person's "no": the record stays
        self.session.mem.withdraw_unanswered(held.record)
        self.composer.take_back(box.strip())
        self.composer.notice.hide()
        self._editing = None
        self._set_editing(False)

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
        self._box_to_memory(name)
        # The conversation to come back to belongs to the vault closed: the other one opens
        # at its own most recent conversation.
        self._resume_conversation = self._start_conversation = None
        self.settings.vault_name = name
        self.settings.last_conversation = ""
        self._save_settings()

    def _box_to_memory(self, name: str) -> None:
        """Switch memory to `name`: what stays in the message box is a message for it. An edit
        of the last question ends there (sent, it replaced the exchange of that number in
        `name`, another conversation's), and a message the full disk kept out says which
        memory it was not saved in (back in that one, it says what it said there)."""
        self._editing = None
        self._set_editing(False)
        held = self._held_question
        box = self.composer.input.toPlainText()
        if held is None or held.why != NOT_SAVED or not held.in_box(box):
            return
        if name == held.memory:
            said = NOT_SAVED_BOX if held.record is not None else NOT_ASKED_BOX
        else:
            said = NOT_SAVED_ELSEWHERE.format(was=held.memory, now=name)
        self.composer.input.clear()
        self.composer.put_back(held.text, said)

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
