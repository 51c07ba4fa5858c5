"""The main window's memory-at-work parts: the conversations sidebar, regenerate and edit,
the Remembered list from the keyboard, provenance, colour scheme and text size.

A mixin of MainWindow (kept apart so the window's own module stays small); it uses the
window's view, composer, session, settings and sidebar.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QRect, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from app import theme
from app.icons import themed
from app.sidebar import Sidebar

# Regenerate pressed while the box holds a changed edit of the last question
EDIT_PENDING = ("Your edit of the last question is in the message box: Enter sends it, Esc "
                "cancels it. Then Regenerate answers the question again.")

# The window's minimum size at the normal text size; it grows with the text (fit_to_text).
WINDOW_LEAST = (560, 420)


class SidebarSplitter(QSplitter):
    """The sidebar beside the conversation, never wider than a third of the window and never
    so wide that the conversation gets less than it needs (its message box and Send button
    whole): at the smallest window it took half. A wider width remembered is cut to fit.

    Until the person drags it (or a width they chose is restored), the sidebar takes a
    quarter of the window, between SIDEBAR_LEAST and SIDEBAR_MOST: cut at a small window, it
    stayed that narrow once the window was made larger. A chosen width cut to fit comes back
    as the window grows."""

    SIDEBAR_LEAST, SIDEBAR_MOST = 240, 340

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.chosen: int | None = None  # the sidebar's width the person chose, if they did
        self.splitterMoved.connect(self._dragged)

    def _dragged(self, *_where: int) -> None:
        self.chosen = self.sizes()[0]

    def setSizes(self, sizes: Any) -> None:  # noqa: N802 - Qt override
        super().setSizes(sizes)
        self.chosen = self.sizes()[0] or None

    def saveState(self) -> QByteArray:  # noqa: N802 - Qt override
        """Empty unless the person chose the width: the next start fits it to the window."""
        return super().saveState() if self.chosen else QByteArray()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self.fit_sidebar(event.size().width())
        super().resizeEvent(event)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # the sidebar shown again, say
            self.fit_sidebar(self.width())
        return handled

    def restoreState(self, state: Any) -> bool:  # noqa: N802 - Qt override
        restored = super().restoreState(state)
        if restored:
            self.chosen = self.sizes()[0] or None
        self.fit_sidebar(self.width())
        return restored

    def fit_sidebar(self, width: int) -> None:
        if self.count() < 2:
            return
        sidebar, conversation = self.widget(0), self.widget(1)
        room = width - self.handleWidth() - conversation.minimumSizeHint().width()
        widest = max(sidebar.minimumWidth(), min(width // 3, room))
        if sidebar.maximumWidth() != widest:
            sidebar.setMaximumWidth(widest)
        sizes = self.sizes()
        if not sizes[0]:  # hidden: its width is fitted when it is shown (see event)
            return
        wanted = self.chosen or max(self.SIDEBAR_LEAST, min(self.SIDEBAR_MOST, width // 4))
        fitted = max(sidebar.minimumWidth(), min(wanted, widest))
        # Sizes set wider (a state restored) are not cut by the maximum: the sidebar was drawn
        # narrower than its place, with a gap after it.
        if sizes[0] != fitted:
            QSplitter.setSizes(self, [fitted, sum(sizes) - fitted])

class MemoryWindowMixin:
    """Methods MainWindow gets for the memory-at-work features."""

    def _make_sidebar(self, central: QWidget) -> None:
        self.sidebar = Sidebar()
        self._show_page: int | None = None  # the exchange a search result asked to be shown
        self.sidebar.open_requested.connect(self.open_conversation)
        self.sidebar.found_requested.connect(self.open_conversation)
        self.sidebar.changed.connect(self._sidebar_changed)
        self.splitter = SidebarSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(central)
        self.splitter.setStretchFactor(1, 1)
        QSplitter.setSizes(self.splitter, [240, 740])  # not a width chosen: see fit_sidebar
        self._splitter_restored = False  # restored at the first show, once the window has a size
        self.sidebar.setVisible(self.settings.sidebar_visible)
        # Exchanges written by another process wait for the answer streaming, the redraw or
        # the edit under way, then are read again (show_outside_exchanges).
        self._outside_due = False
        self.answer_finished.connect(self._outside_retry)
        self.conversation_shown.connect(self._outside_retry)

    def _make_memory_actions(self) -> None:
        self.composer.input.escaped.connect(self.cancel_editing)
        self.composer.input.conversation = self.view.browser  # Page Up/Down in the box scroll it
        self.next_pane_action = self._action(
            "Next &pane", lambda: self.focus_pane(+1), "F6", "",
            "Go to the next part of the window: conversations, conversation, message box",
        )
        self.previous_pane_action = self._action(
            "Pre&vious pane", lambda: self.focus_pane(-1), "Shift+F6", "",
            "Go to the previous part of the window",
        )
        self.sidebar_action = self._action(
            "&Conversations",
            self.toggle_sidebar,
            "Ctrl+B",
            "",
            "Show or hide the list of conversations",
        )
        self.sidebar_action.setCheckable(True)
        self.sidebar_action.setChecked(self.settings.sidebar_visible)
        self.search_action = self._action(
            "&Search conversations…",
            self.search_conversations,
            "Ctrl+Shift+F",
            "search",
            "Search all conversations",
        )
        self.regenerate_action = self._action(
            "&Regenerate answer",
            self.regenerate,
            "Ctrl+Shift+R",
            "",
            "Answer the last question again",
        )
        self.edit_action = self._action(
            "&Edit last question",
            self.edit_last_question,
            "Ctrl+Shift+E",
            "",
            "Change the last question and resend it",
        )
        self.remembered_action = self._action(
            "Show what the last answer &remembered",
            self.toggle_last_remembered,
            "Ctrl+Shift+M",
            "",
            "Open or close the last answer's Remembered list",
        )
        self.write_action = self._action(
            "&Write a message", self.focus_composer, "Shift+Esc", "", "Go to the message box"
        )
        self.copy_answer_action = self._action(
            "&Copy last answer", self.copy_last_answer, "Ctrl+Shift+C", "", "Copy the last answer"
        )
        self.copy_code_action = self._action(
            "Copy code &block",
            self.copy_code_block,
            self.view.COPY_CODE_KEY,
            "",
            "Copy the code block of the last answer, or of the one clicked in",
        )
        self.bigger_action = self._action("&Larger text", lambda: self.set_text_size(+1), "Ctrl+=")
        self.bigger_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.smaller_action = self._action(
            "&Smaller text", lambda: self.set_text_size(-1), "Ctrl+-"
        )
        self.reset_size_action = self._action(
            "&Normal text size", lambda: self.set_text_size(0), "Ctrl+0"
        )

    def _add_memory_menus(self, bar: Any) -> None:
        chat_menu = bar.addMenu("&Chat")
        chat_menu.addActions(
            [
                self.write_action,
                self.regenerate_action,
                self.edit_action,
                self.copy_answer_action,
                self.copy_code_action,
                self.remembered_action,
            ]
        )
        view_menu = bar.addMenu("&View")
        view_menu.addActions([self.sidebar_action, self.search_action])
        view_menu.addActions([self.next_pane_action, self.previous_pane_action])
        view_menu.addSeparator()
        view_menu.addActions([self.bigger_action, self.smaller_action, self.reset_size_action])

    def focus_pane(self, step: int) -> None:
        """F6 and Shift+F6: the keyboard goes round the list of conversations, the conversation
        and the message box (the list is shown first if it was hidden). From anywhere else F6
        goes to the list and Shift+F6 to the message box."""
        panes = [self.sidebar, self.view, self.composer]
        focus = QApplication.focusWidget()
        here = next((i for i, pane in enumerate(panes)
                     if focus is not None and (pane is focus or pane.isAncestorOf(focus))), None)
        index = (0 if step > 0 else len(panes) - 1) if here is None else (here + step) % len(panes)
        if index == 0 and not self.sidebar.isVisible():
            self.toggle_sidebar(True)
        # The list, or the search results while a search shows them in its place
        target = [self.sidebar.stack.currentWidget(), self.view.browser, self.composer.input][index]
        reason = Qt.FocusReason.TabFocusReason if step > 0 else Qt.FocusReason.BacktabFocusReason
        target.setFocus(reason)

    def focus_composer(self) -> None:
        """The message box gets the keys, its text kept, the cursor at its end."""
        self.composer.input.setFocus()
        self.composer.input.moveCursor(self.composer.input.textCursor().MoveOperation.End)

    def regenerate(self) -> None:
        """Answer the last question again; the new answer takes the old one's place once it is
        whole (stopped half-way, the old one stays). Not while the conversation is being drawn
        again (after a regeneration the full disk kept out): the exchange on screen then is the
        one that was not stored, and the earlier one it would have replaced comes back."""
        exchange = self.view.last_exchange()
        if not exchange or self.session is None or not self.session.can_answer or self.reloading:
            return
        question, answer = exchange
        if self._editing is not None or self.composer.property("editing"):
            # An edit of this question waits in the box. Changed, it is the person's: kept, and
            # the edit goes on. Unchanged (or emptied), it ends as Esc ends it, and the question
            # is asked again: left on, it pointed at the exchange this answer replaces, gone.
            box = self.composer.input.toPlainText().strip()
            if box and box != question.text.strip():
                self.status.showMessage(EDIT_PENDING, 10000)
                self.focus_composer()
                return
            self.cancel_editing()
        self.view.remove_last_exchange()
        if answer.page_id is None:
            # Never stored (the disk was full, a temporary chat): there is nothing to replace,
            # the question is asked again; put back in the box, it is taken from there.
            self.composer.take_back(question.text)
        self._ask(question.text, answer.page_id)

    def edit_last_question(self) -> None:
        """Put the last question back in the message box; sending it replaces that exchange."""
        exchange = self.view.last_exchange()
        if not exchange or self.session is None or self.session.generating:
            return
        self._editing = exchange[1].page_id
        self._set_editing(True)
        self.composer.input.setPlainText(exchange[0].text)
        self.composer.input.setFocus()
        self.composer.input.moveCursor(self.composer.input.textCursor().MoveOperation.End)

    def cancel_editing(self) -> None:
        """Esc while editing the last question: the box empties and that exchange stays."""
        if self._editing is None and not self.composer.property("editing"):
            return
        self._editing = None
        self._set_editing(False)
        self.composer.input.clear()

    def toggle_last_remembered(self) -> None:
        answers = [
            m for m in self.view.messages if m.role == "assistant" and m.memories is not None
        ]
        if answers:
            self.view.toggle_remembered(answers[-1])
            self.view.scroll_to(answers[-1])

    def copy_last_answer(self) -> None:
        """The last answer to the clipboard; the status line says what happened, as for Copy
        code block (from the keyboard nothing else shows it)."""
        answers = [m for m in self.view.messages if m.role == "assistant"]
        text = answers[-1].text if answers else ""
        if text:
            QGuiApplication.clipboard().setText(text)
            # short: at a larger text size the counts leave the message little room, and
            # "(389 characters)" was cut to "(389 ch"
            said = "Copied the last answer."
        else:
            said = "There is no answer yet to copy."
        self.status.showMessage(said, 5000)

    def copy_code_block(self) -> None:
        """The code block of the last answer (or of the answer clicked in) to the clipboard,
        from the keyboard; the status line says what happened."""
        code = self.view.code_to_copy()
        if code is None:
            said = "There is no answer yet to copy code from."
        elif not code:
            said = "That answer has no code block."
        else:
            QGuiApplication.clipboard().setText(code)
            lines = code.count("\n") + 1
            said = f"Copied the code block ({lines} line{'s' if lines != 1 else ''})."
        self.status.showMessage(said, 5000)

    def _set_editing(self, on: bool) -> None:
        self.composer.setProperty("editing", on)
        self.composer.set_hint(
            "Editing your last question: Enter sends it and replaces that exchange · Esc cancels"
            if on
            else "Enter to send · Shift+Enter for a new line"
        )
        if not on and self._outside_due:  # the edit is sent or cancelled: look again after
            QTimer.singleShot(0, self, self._outside_retry)

    def toggle_sidebar(self, visible: bool | None = None) -> None:
        visible = not self.sidebar.isVisible() if visible is None else bool(visible)
        if not visible and self.sidebar.isVisible():  # its width, for when it comes back
            self.settings.splitter_state = bytes(self.splitter.saveState().toHex()).decode()
        if visible != self.sidebar.isVisible():
            self.view.hold_place()  # the conversation's width changes: same message on top
        self.sidebar.setVisible(visible)
        self.sidebar_action.setChecked(visible)
        self.settings.sidebar_visible = visible

    def set_text_size(self, step: int) -> None:
        """Ctrl+= larger, Ctrl+- smaller, Ctrl+0 back to normal; remembered in the settings."""
        size = theme.BASE_SIZE if step == 0 else self.settings.text_size + step
        self.settings.text_size = max(theme.MIN_SIZE, min(theme.MAX_SIZE, size))
        self._apply_look()
        self._save_settings()

    def _apply_look(self, redraw: bool = True) -> None:
        """Colour scheme and text size from the settings (and the system's scheme)."""
        app = QGuiApplication.instance()
        # Read at its end, the conversation stays there: asked after the new sizes move its
        # lines, the end was "half-way up" and kept there. (A place higher up is taken after
        # them, in the new layout: taken before, it came back a few pixels off.)
        read_at = None if self.view.reading_place() else "end"
        changed = theme.apply_look(app, self.settings.color_scheme, self.settings.text_size)
        if changed:
            for action in self.findChildren(QAction):  # toolbar and menu icons in the new scheme
                if action.property("icon_name"):
                    action.setIcon(themed(action.property("icon_name")))
            self.fit_toolbar()
        self.fit_to_text()
        if changed and redraw and not self.temporary and self.view.message_count:
            # the conversation's colours and sizes are drawn in, where it was read
            self.reload_conversation(keep_place=True, read_at=read_at)

    def fit_to_text(self) -> None:
        """The window's and the sidebar's minimum sizes for the text size now (they were set
        once, at the start: larger text was cut at the smallest window, the sidebar's title
        too). The window's grows as app.widgets.fit_window's `least` does, never past the
        screen (its frame included); the sidebar's stays within a third of it.

        Grown for larger text, the window stays on the screen (it was pushed off its right
        edge); back at a smaller text, a window the app grew and the person left so returns to
        the size and place it had."""
        room = self.screen().availableGeometry()
        least = (
            min(theme.pixels(WINDOW_LEAST[0]), room.width() - 40),
            min(theme.pixels(WINDOW_LEAST[1]), room.height() - 60),
        )
        was = QRect(self.pos(), self.size())
        self.setMinimumSize(*least)  # Qt grows a smaller window to it
        self.sidebar.fit_text(least[0] // 3)
        self.status.fit_text(least[0])  # the vault's name ends in "…" rather than go off
        self.splitter.fit_sidebar(self.splitter.width())
        if not self.isVisible() or self.windowState() & (
            Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen
        ):
            return
        grown = getattr(self, "_grown", None)  # (before, after) the app grew it, or None
        size = was.size().expandedTo(self.minimumSize())
        if size != was.size():  # grown now
            placed = self._on_screen(QRect(was.topLeft(), size), room)
            self._grown = (grown[0] if grown else was, placed)
        elif grown and grown[1].size() == was.size():  # grown, left so: back as far as it goes
            size = grown[0].size().expandedTo(self.minimumSize())
            back = size == grown[0].size()
            moved = was.topLeft() != grown[1].topLeft()  # by the person: it stays there
            where = was.topLeft() if moved or not back else grown[0].topLeft()
            placed = self._on_screen(QRect(where, size), room)
            self._grown = None if back else (grown[0], placed)
        else:
            self._grown = None  # the person sized or moved it since: theirs now
            return
        self.resize(placed.size())
        self.move(placed.topLeft())

    def _on_screen(self, rect: QRect, room: QRect) -> QRect:
        """`rect` (the window's place and size, without its frame) moved to lie on `room`,
        its frame included: the left and top edges stay on it where it is too large."""
        frame = self.frameGeometry().size() - self.geometry().size()
        width, height = rect.width() + frame.width(), rect.height() + frame.height()
        x = max(room.left(), min(rect.x(), room.right() + 1 - width))
        y = max(room.top(), min(rect.y(), room.bottom() + 1 - height))
        return QRect(x, y, rect.width(), rect.height())

    def _system_scheme_changed(self, *_: object) -> None:
        """A bound method (not a lambda): Qt drops the connection with the window."""
        self._apply_look()

    def search_conversations(self) -> None:
        self.toggle_sidebar(True)
        self.sidebar.focus_search()

    def _sidebar_changed(self, what: str) -> None:
        kind, _, conversation_id = what.partition(":")
        if kind != "forgotten" or self.session is None:
            return
        if conversation_id in (*self.shown_conversations, self.session.mem.conversation_id):
            self.new_conversation()  # what was on screen is gone

    def show_provenance(self, item: Any) -> None:
        """Open the privacy panel on a remembered or learned item (exchanges: its conversation)."""
        panel = self.open_privacy()
        if panel is not None:
            panel.show_item(item.kind, item.id, getattr(item, "conversation_id", ""))

    def _restore_splitter(self) -> None:
        visible = self.sidebar.isVisibleTo(self)
        self.sidebar.show()  # a hidden side gets no width from restoreState
        self.splitter.restoreState(QByteArray.fromHex(self.settings.splitter_state.encode()))
        self.sidebar.setVisible(visible)
