"""The sidebar's full-text search: the search box's keys, the results drawn, opening one."""

from __future__ import annotations

import datetime as dt
from html import escape
from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl
from PySide6.QtGui import QTextCursor

from app import theme
from app.conversation_view import day_label
from engine import conversations
from engine.conversations import MARK_END, MARK_START

HIGHLIGHT = "#FFE58F"


def in_app_words(snippet: str) -> str:
    """The stored text names the speakers "User:" and "Assistant:" at the start of their
    lines; the conversation says "You" and "MemoryOS" (widgets.speakers), so results do too."""
    import re

    from app.widgets import speakers

    names = dict(zip(("User", "Assistant"), speakers(None), strict=True))
    marks = f"[{MARK_START}{MARK_END}]*"
    return re.sub(
        rf"(^|\n)(…?{marks})(User|Assistant)({marks}):",
        lambda found: f"{found[1]}{found[2]}{names[found[3]]}{found[4]}:",
        snippet,
    )


def highlighted(snippet: str) -> str:
    """A search snippet as HTML, its matching words highlighted, its speakers as the
    conversation names them."""
    text = escape(" ".join(in_app_words(snippet).split()))
    style = f"background-color:{theme.color(HIGHLIGHT)}; font-weight:600"
    return text.replace(MARK_START, f"<span style='{style}'>").replace(MARK_END, "</span>")


class SearchMixin:
    """The search box and its results: a mixin of Sidebar (kept apart so the list's module
    stays small); it uses the sidebar's search box, results pane, stack, search timer and
    signals."""

    def _search_key(self, key: int) -> bool:
        """Down in the search box goes to the first result (the first conversation when there
        is no search); Enter opens the first result. True when the key was used here."""
        searching = bool(self.search.text().strip())
        if key == Qt.Key.Key_Down:
            if searching and self.stack.currentWidget() is self.results:
                self.results.setFocus(Qt.FocusReason.TabFocusReason)
            elif not searching and self.rows():
                self.tree.setFocus(Qt.FocusReason.TabFocusReason)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and searching:
            if self._search_timer.isActive() or self.stack.currentWidget() is not self.results:
                self._open_first = True  # typed just now: opened once the results are drawn
                self._search_timer.stop()
                self.run_search()
            else:
                self._open_first_result()
            return True
        return False

    def _results_key(self, event: QEvent) -> bool:
        """In the results: Esc clears the search, here and not in the chat (it cancelled an
        open /forget panel there); Shift+Tab goes back to the search field (it stayed on the
        first result); Up and Down go from result to result. True when the key was used."""
        key = event.key()  # type: ignore[attr-defined]
        if key == Qt.Key.Key_Escape:
            event.accept()  # a ShortcutOverride taken: no window shortcut gets this Esc
            if event.type() == QEvent.Type.KeyPress:
                self.search.clear()
                self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return True
        if event.type() != QEvent.Type.KeyPress:
            return False
        if key == Qt.Key.Key_Backtab:
            self.search.setFocus(Qt.FocusReason.BacktabFocusReason)
            return True
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(key)
        if step is None or event.modifiers() not in (  # type: ignore[attr-defined]
                Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
            return False
        firsts: list[QTextCursor] = []  # each result's first link (its title)
        for link in self._result_links():
            if not firsts or link.charFormat().anchorHref() != firsts[-1].charFormat().anchorHref():
                firsts.append(link)
        if not firsts:
            return True
        position = self.results.textCursor().selectionStart()
        at = max((n for n, link in enumerate(firsts) if link.selectionStart() <= position),
                 default=0)
        at = min(max(at + step, 0), len(firsts) - 1)
        self.results.setTextCursor(firsts[at])
        self.results.ensureCursorVisible()
        return True

    def _result_links(self) -> list[QTextCursor]:
        """The results' links, each selected, in order (a result has two: title, snippet)."""
        links: list[QTextCursor] = []
        block = self.results.document().begin()
        while block.isValid():
            part = block.begin()
            while not part.atEnd():
                fragment = part.fragment()
                href = fragment.charFormat().anchorHref()
                if href:
                    cursor = QTextCursor(self.results.document())
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(fragment.position() + fragment.length(),
                                       QTextCursor.MoveMode.KeepAnchor)
                    same = links and links[-1].selectionEnd() == fragment.position()
                    if same and links[-1].charFormat().anchorHref() == href:
                        links[-1].setPosition(cursor.selectionEnd(),
                                              QTextCursor.MoveMode.KeepAnchor)
                    else:
                        links.append(cursor)
                part += 1
            block = block.next()
        return links

    def _focus_result(self, last: bool = False) -> None:
        """The first result's link (`last`: the last one's) takes the keyboard: Enter opens
        it at once (the pane itself had the focus, and Down and Enter did nothing there)."""
        links = self._result_links()
        if links and not self.results.textCursor().hasSelection():
            self.results.setTextCursor(links[-1] if last else links[0])

    def _open_first_result(self) -> None:
        links = self._result_links()
        if links:
            self._result_clicked(QUrl(links[0].charFormat().anchorHref()))

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def run_search(self) -> None:
        text = self.search.text().strip()
        if not text:
            self.stack.setCurrentWidget(self.tree)
            return
        if self.session is not None:
            self.session.run(
                conversations.find,
                self.session.mem,
                text,
                on_result=self._draw_results,
                on_error=self._failed,
            )

    def _draw_results(self, found: Any) -> None:
        """The count and order first ("The first 50 of 212 exchanges in 40 conversations, best
        match first"), then each exchange found: its conversation, when, and the words."""
        open_first, self._open_first = self._open_first, False
        if self.session is None or not self.search.text().strip():  # locked or cleared since
            return
        hits = found.hits
        muted = theme.color(theme.MUTED)
        if not hits:
            html = f"<p style='color:{muted}'>No conversation mentions this.</p>"
        else:
            parts = [f"<p style='color:{muted}; font-size:small'>{escape(found.summary())}</p>"]
            plain = f"text-decoration:none; color:{theme.color(theme.TEXT)}"
            for hit in hits:
                when = dt.datetime.fromtimestamp(hit.timestamp)
                # the title and the snippet both open the conversation at this exchange
                link = f"found:{hit.page_id}:{escape(hit.conversation_id)}"
                parts.append(
                    f"<p style='margin-bottom:10px'><a href='{link}' "
                    f"style='text-decoration:none; font-weight:600'>{escape(hit.title or '(untitled)')}"
                    f"</a><br><span style='color:{theme.color(theme.MUTED)}; font-size:small'>"
                    f"{escape(day_label(when))} {when:%H:%M}</span><br>"
                    f"<a href='{link}' style='{plain}'>{highlighted(hit.snippet)}</a></p>"
                )
            html = "".join(parts)
        self.results.setHtml(html)
        self.stack.setCurrentWidget(self.results)
        self.searched.emit()
        if open_first:
            self._open_first_result()

    def _result_clicked(self, url: QUrl) -> None:
        scheme, _, rest = url.toString().partition(":")
        page, _, conversation_id = rest.partition(":")
        if scheme == "found" and page.isdigit() and conversation_id:
            self.found_requested.emit(conversation_id, int(page))
