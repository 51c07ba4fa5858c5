"""The memory inspector: the STM queue, MTM segments by heat with their pages, and the LPM persona."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.errors import describe
from app.outgoing import SentTab
from app.persona_items import status_words
from app.status_bar import ElidedLabel, memory_text
from app.theme import pixels
from app.widgets import WithPlaceholder, fit_window, make_tree, one_line, speakers, when

REFRESH_MS = 250  # engine events come in bursts while consolidation runs
# What the Status column's words mean (a fact's status "candidate" read as jargon).
STATUS_LEGEND = (
    "“As you said it”: kept word for word from what you said, and recalled as it is. When a "
    "capable model analyses its topic, it writes a clean fact that replaces it."
)
# A row's whole text (its cells end in "…"; the tooltips that show it all need the mouse)
FULL_TEXT = Qt.ItemDataRole.UserRole + 1
OPEN_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
OPEN_HINT = "Enter or Space on a row shows it in full."


def snapshot(mem: Any, sent: Any = None) -> dict[str, Any]:
    """Everything the inspector shows, read in a worker; `sent`: what lists the requests sent
    since the app started (Session.sent_log), else this memory's alone."""
    facts = mem.facts()
    return {
        "short": mem.short_term(),
        "segments": mem.segments(),
        "profile": mem.profile(),
        "facts": facts,
        "dated": dated_facts(mem, facts),
        "status": mem.consolidation_status(),
        "settings": mem.settings,
        "sent": sent() if sent is not None else mem.sent_log(),
    }


def dated_facts(mem: Any, facts: list) -> dict[int, str]:
    """By fact id, the text as the model's prompt reads it ("Next Friday [27 November 2026] I
    fly to Lisbon"): the days its relative dates meant when it was said, from the exchange it
    came from; only facts with such a date, one read each."""
    from engine.errors import NotFoundError
    from engine.memory import when as when_said

    out = {}
    for fact in facts:
        if not fact.source_page_ids or not when_said.undated(fact.text):
            continue
        try:
            said = mem.page(fact.source_page_ids[0]).timestamp
        except NotFoundError:  # its exchange was forgotten: no day to say
            continue
        out[fact.id] = when_said.dated(fact.text, said)
    return out


def heat_html(segment: Any, settings: Any) -> str:
    """The heat formula with this segment's numbers: H = α·N_visit + β·L + γ·exp(-Δt/μ)."""
    parts = segment.heat
    return (
        f"<p><b>Heat {parts.heat:.2f}</b> = {settings.heat_alpha:g} × {parts.visits} visits "
        f"+ {settings.heat_beta:g} × {parts.length} pages since last analysis "
        f"+ {settings.heat_gamma:g} × {parts.recency:.3f} recency</p>"
        f"<p style='color:{theme.color(theme.MUTED)}'>Persona analysis runs when heat passes "
        f"{settings.heat_threshold:g}. Last used {escape(when(segment.last_access))}.</p>"
    )


class MemoryInspector(QDialog):
    """Live view of the three memory tiers; refreshes as consolidation changes them."""

    refreshed = Signal()  # a snapshot was drawn (tests wait on it)

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = theme.dark  # the scheme its colours were drawn in (see changeEvent)
        self.session = session
        self.data: dict[str, Any] = {}
        self.selected_segment: int | None = None
        self.setWindowTitle("Memory inspector")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        fit_window(self, 980, 640)
        title = QLabel("What MemoryOS remembers", objectName="title")
        # the counts end in "…" (all of them in the tooltip) rather than widen the window: in
        # full beside the title, at the largest text, they made it wider than a 1366 px screen
        self.status = ElidedLabel(least=pixels(120))
        self.status.setObjectName("pill")
        header = QHBoxLayout()
        header.addWidget(title)
        header.addStretch(1)
        header.addWidget(self.status)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._short_tab(), "Short-term")
        self.tabs.addTab(self._mid_tab(), "Mid-term")
        self.tabs.addTab(self._long_tab(), "Long-term")
        self.sent_tab = SentTab()
        self.tabs.addTab(self.sent_tab, "Sent")
        self.sent_tab.tree.setAccessibleName("Requests sent to a model")
        for tree in (self.short_tree, self.profile_tree, self.fact_tree):
            tree.installEventFilter(self)
            tree.setAccessibleDescription(OPEN_HINT)
            tree.itemDoubleClicked.connect(lambda item, _column: self.show_full(item))
        self.full_text: QDialog | None = None  # the row shown in full, while open
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(12)
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)
        # Tab needs a second stop: on an empty vault each list is a placeholder that takes no
        # focus, and Tab and Shift+Tab went from the tab bar back to the tab bar.
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)  # closed, not hidden: the window forgets it
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        layout.addWidget(buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        session.memory_changed.connect(self._timer.start)
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            self._dark = theme.dark
            # the topic's HTML in the new scheme's colours (it kept the old one's)
            if self.selected_segment is None:
                self.segment_detail.setHtml(_no_topic_html())
            else:
                self._show_segment(self.selected_segment)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Enter or Space on a row of a list whose cells end in "…": its whole text."""
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(watched, QTreeWidget)
            and event.key() in OPEN_KEYS
            and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            and watched.currentItem() is not None
        ):
            self.show_full(watched.currentItem())
            return True
        return super().eventFilter(watched, event)

    def show_full(self, item: QTreeWidgetItem) -> QDialog | None:
        """A row's whole text in a small window, to read and select from the keyboard."""
        text = item.data(0, FULL_TEXT)
        if not text:
            return None
        if self.full_text is not None:
            self.full_text.close()
        dialog = QDialog(self)
        dialog.setWindowTitle("The whole entry")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        browser = QTextBrowser(objectName="detail")
        browser.setAccessibleName("The whole entry")
        browser.setHtml(text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(browser, 1)
        layout.addWidget(buttons)
        fit_window(dialog, 560, 420)
        dialog.destroyed.connect(lambda: setattr(self, "full_text", None))
        self.full_text = dialog
        dialog.open()
        browser.setFocus()
        return dialog

    # --- tabs --------------------------------------------------------------------------
    def _short_tab(self) -> QWidget:
        self.short_tree = make_tree(["When", "You said", "MemoryOS answered"], stretch=1)
        self.short_tree.setAccessibleName("Short-term memory: the latest exchanges")
        self.short_tree.header().setSectionResizeMode(2, self.short_tree.header().ResizeMode.Stretch)
        self.short_hint = QLabel(objectName="hint")
        self.short_hint.setWordWrap(True)
        self.short_box = WithPlaceholder(
            self.short_tree, "Nothing in short-term memory yet. Your latest exchanges appear here."
        )
        return _page(self.short_hint, self.short_box)

    def _mid_tab(self) -> QWidget:
        self.segment_tree = make_tree(["Heat", "Topic", "Pages", "Visits"], stretch=1)
        self.segment_tree.itemSelectionChanged.connect(self._segment_selected)
        self.segment_box = WithPlaceholder(
            self.segment_tree,
            "No topics yet. When short-term memory fills up, the oldest exchanges are grouped "
            "into topics here, hottest first.",
        )
        self.segment_tree.setAccessibleName("Mid-term memory: topics by heat")
        self.segment_detail = QTextBrowser(objectName="detail")
        self.segment_detail.setAccessibleName("The selected topic and its pages")
        self.segment_detail.setOpenLinks(False)
        self.segment_detail.setHtml(_no_topic_html())
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.segment_box)
        splitter.addWidget(self.segment_detail)
        splitter.setSizes([520, 420])
        hint = QLabel(
            "Topics (segments) ranked by heat: how often they are recalled, how much they hold "
            "and how recently they were used. The coldest topic leaves when memory is full.",
            objectName="hint",
        )
        hint.setWordWrap(True)
        return _page(hint, splitter)

    def _long_tab(self) -> QWidget:
        self.profile_tree = make_tree(["Category", "Name", "Value", "Updated"], stretch=2)
        self.fact_tree = make_tree(["Kind", "Fact", "Status", "Learned"], stretch=1)
        self.fact_tree.headerItem().setToolTip(2, STATUS_LEGEND)
        self.profile_tree.setAccessibleName("Long-term memory: profile")
        self.fact_tree.setAccessibleName("Long-term memory: facts and assistant knowledge")
        self.profile_box = WithPlaceholder(
            self.profile_tree, "No profile yet: it grows as hot topics are analysed."
        )
        self.fact_box = WithPlaceholder(
            self.fact_tree,
            "No facts yet. Things you say about yourself (\"I work as…\", \"I like…\") show "
            "up here after consolidation.",
        )
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.setSpacing(8)
        layout.addWidget(QLabel("Profile", objectName="sectionTitle"))
        layout.addWidget(self.profile_box, 2)
        layout.addSpacing(6)
        layout.addWidget(QLabel("Facts and assistant knowledge", objectName="sectionTitle"))
        layout.addWidget(self.fact_box, 3)
        self.status_legend = QLabel(f"{STATUS_LEGEND} {OPEN_HINT}", objectName="hint")
        self.status_legend.setWordWrap(True)
        layout.addWidget(self.status_legend)
        return page

    # --- data --------------------------------------------------------------------------
    def refresh(self) -> None:
        self.session.run(snapshot, self.session.mem, getattr(self.session, "sent_log", None),
                         on_result=self._draw, on_error=self._failed)

    def _failed(self, error: Exception) -> None:
        self.status.setText(describe(error))

    def _draw(self, data: dict[str, Any]) -> None:
        self.data = data
        settings = data["settings"]
        self.status.setText(memory_text(data["status"]))
        self._draw_short(data["short"], settings)
        self._draw_segments(data["segments"])
        self._draw_long(data["profile"], data["facts"], data["dated"])
        self.tabs.setTabText(0, f"Short-term ({len(data['short'])}/{settings.stm_capacity})")
        self.tabs.setTabText(1, f"Mid-term ({len(data['segments'])})")
        self.tabs.setTabText(2, f"Long-term ({len(data['profile']) + len(data['facts'])})")
        self.sent_tab.draw(data["sent"])
        self.refreshed.emit()

    def _draw_short(self, pages: list, settings: Any) -> None:
        self.short_hint.setText(
            f"The {settings.stm_capacity} most recent exchanges, word for word. When the queue "
            f"is full, the oldest {settings.stm_evict_batch} move to mid-term memory together. "
            f"{OPEN_HINT}"
        )
        self.short_tree.clear()
        for page in sorted(pages, key=lambda p: p.timestamp, reverse=True):
            item = QTreeWidgetItem([when(page.timestamp), one_line(page.user_input),
                                    one_line(page.agent_response)])
            item.setToolTip(1, page.user_input[:2000])
            item.setToolTip(2, page.agent_response[:2000])
            user, agent = speakers(page)
            item.setData(0, FULL_TEXT, _full_html(
                when(page.timestamp), [(user, page.user_input), (agent, page.agent_response)]))
            self.short_tree.addTopLevelItem(item)
        self.short_box.set_empty(not pages)

    def _draw_segments(self, segments: list) -> None:
        self.segment_tree.blockSignals(True)
        self.segment_tree.clear()
        chosen = None
        for segment in segments:
            item = QTreeWidgetItem([f"{segment.heat.heat:.2f}", one_line(segment.summary or
                                    ", ".join(segment.keywords[:6]) or "(untitled topic)"),
                                    str(segment.page_count), str(segment.visit_count)])
            item.setData(0, Qt.ItemDataRole.UserRole, segment.id)
            item.setToolTip(1, segment.summary)
            for column in (0, 2, 3):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.segment_tree.addTopLevelItem(item)
            if segment.id == self.selected_segment:
                chosen = item
        self.segment_tree.blockSignals(False)
        self.segment_box.set_empty(not segments)
        if chosen is not None:
            chosen.setSelected(True)
            self._show_segment(self.selected_segment)
        elif segments and self.selected_segment is None:
            self.segment_tree.topLevelItem(0).setSelected(True)

    def _draw_long(self, profile: list, facts: list, dated: dict[int, str]) -> None:
        self.profile_tree.clear()
        for slot in profile:
            name, value = slot.columns  # "cat", "Miso", not "cat: Miso" twice
            item = QTreeWidgetItem([slot.category, name, one_line(value), when(slot.updated)])
            item.setToolTip(2, value)
            item.setData(0, FULL_TEXT, _full_html(
                f"{slot.category} · updated {when(slot.updated)}", [(name, value)]))
            self.profile_tree.addTopLevelItem(item)
        self.profile_box.set_empty(not profile)
        self.fact_tree.clear()
        for fact in facts:
            kind = "About you" if fact.kind == "user_fact" else "Assistant"
            status, meaning = status_words(fact.status, fact.origin)
            text = dated.get(fact.id, fact.text)  # with the days it meant, as the prompt
            item = QTreeWidgetItem([kind, one_line(text), status, when(fact.created)])
            item.setToolTip(1, text)
            item.setToolTip(2, meaning)
            item.setData(0, FULL_TEXT, _full_html(
                f"{kind} · learned {when(fact.created)}", [("", text), (status, meaning)]))
            self.fact_tree.addTopLevelItem(item)
        self.fact_box.set_empty(not facts)

    # --- one segment -------------------------------------------------------------------
    def _segment_selected(self) -> None:
        items = self.segment_tree.selectedItems()
        if items:
            self.selected_segment = items[0].data(0, Qt.ItemDataRole.UserRole)
            self._show_segment(self.selected_segment)

    def _show_segment(self, segment_id: int | None) -> None:
        if segment_id is None:
            return
        self.session.run(self.session.mem.segment_pages, segment_id,
                         on_result=self._draw_segment, on_error=self._failed)

    def _draw_segment(self, pages: list) -> None:
        segment_id = self.selected_segment
        if pages and pages[0].segment_id != segment_id:
            return  # an older selection's answer arrived late
        segment = next((s for s in self.data.get("segments", []) if s.id == segment_id), None)
        if segment is None:
            return
        pill = f"background:{theme.color('#EEF0FD')}; color:{theme.color('#2F3BB5')}"
        keywords = " ".join(
            f"<span style='{pill}'>&nbsp;{escape(k)}&nbsp;</span>" for k in segment.keywords
        )
        html = [
            f"<h3 style='margin:0'>{escape(segment.summary or '(no summary yet)')}</h3>",
            f"<p>{keywords or '<i>no keywords</i>'}</p>",
            heat_html(segment, self.data["settings"]),
            f"<p><b>{len(pages)} page{'s' if len(pages) != 1 else ''}</b></p>",
        ]
        for page in sorted(pages, key=lambda p: p.timestamp):
            user, agent = speakers(page)
            html.append(
                f"<p style='margin-bottom:8px'><span style='color:{theme.color(theme.MUTED)}'>"
                f"{escape(when(page.timestamp))}</span><br><b>{escape(user)}:</b> "
                f"{escape(one_line(page.user_input, 400))}<br><b>{escape(agent)}:</b> "
                f"{escape(one_line(page.agent_response, 400))}</p>"
            )
        self.segment_detail.setHtml("".join(html))


def _full_html(heading: str, parts: list[tuple[str, str]]) -> str:
    """A row's whole text: a muted heading, then each part (its label in bold, if any), the
    lines kept as they were."""
    html = [f"<p style='color:{theme.color(theme.MUTED)}'>{escape(heading)}</p>"]
    for label, text in parts:
        if not text:
            continue
        body = escape(text).replace("\n", "<br>")
        html.append(f"<p><b>{escape(label)}:</b> {body}</p>" if label else f"<p>{body}</p>")
    return "".join(html)


def _no_topic_html() -> str:
    return f"<p style='color:{theme.color(theme.MUTED)}'>Select a topic to see its pages.</p>"


def _page(hint: QWidget, body: QWidget) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(14, 14, 14, 14)
    layout.setSpacing(10)
    layout.addWidget(hint)
    layout.addWidget(body, 1)
    return page
