"""The status line: which model and whether it is loaded, which vault, what consolidation is doing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QStatusBar,
    QStyle,
    QStyleOption,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.icons import pixmap
from app.session import FAILED, LOADING, NO_MODEL, READY, UNREACHABLE
from app.theme import pixels
from engine.terminal.wording import count

# Colours of the light design (theme.color gives them in the current scheme): 3:1 at least on
# the white line, as a graphic needs (the paler green, amber and grey were 2.4 to 2.6:1).
DOTS = {
    READY: "#079455",
    LOADING: "#DC6803",
    FAILED: "#D92D20",
    UNREACHABLE: "#D92D20",
    NO_MODEL: "#667085",
}
BUSY_DOT, IDLE_DOT = theme.ACCENT, DOTS[NO_MODEL]  # consolidation running, or not
LOCK_COLOR = theme.MUTED
# What to do when the chosen server stops answering, under its message in the tooltip.
UNREACHABLE_TIP = (
    "Start the server again and send your message again, or choose another model "
    "(Tools → Choose a model, Ctrl+M)."
)


# What the counts are: an answer's "Used N memories" also counts the exchanges just before the
# question ("recent exchanges"), which need not all be in the short-term queue any more.
MEMORY_TIP = (
    "recent: exchanges in the short-term queue, kept word for word until they move to a topic\n"
    "topics: mid-term segments, ranked by heat\n"
    "facts and profile entries: what Privacy (Ctrl+P) lists: {facts} and {profile}\n"
    "Memory → Inspector (Ctrl+I) shows each tier."
)


def memory_tip(status: Any) -> str:
    """MEMORY_TIP with the long-term count split as Privacy shows it."""
    return MEMORY_TIP.format(
        facts=count(status.facts, "fact or note of what the assistant said",
                    "facts and notes of what the assistant said"),
        profile=count(status.profile, "profile entry", "profile entries"),
    )


def memory_text(status: Any) -> str:
    """'12 recent · 3 topics · 5 facts · 2 profile entries · consolidating (2 jobs)' from a
    ConsolidationStatus. Work that is no queued job (the short-term queue moving to a topic)
    shows as plain "consolidating": it read "consolidating (0 jobs left)" for as long as it
    took. Facts and profile entries are counted apart, as the Privacy panel lists them and
    `memoryos status` and /status say them: it said "12 facts" where those said "7 facts"."""
    return " · ".join(memory_parts(status))


def memory_parts(status: Any) -> tuple[str, str]:
    """memory_text in two: the counts, and what consolidation is doing ("consolidating (2
    jobs) · 1 failed"), which a short line keeps whole while the counts end in "…"."""
    from engine.chat_commands import known_text

    counts = " · ".join([
        f"{status.short_term_pages} recent",
        f"{status.segments} topic{'s' if status.segments != 1 else ''}",
        known_text(status),
    ])
    jobs = f"{status.pending_jobs} job{'s' if status.pending_jobs != 1 else ''}"
    paused = paused_because(status)
    if paused:
        doing = [f"memory building paused: {paused}"]
    elif status.running:
        doing = [f"consolidating ({jobs})" if status.pending_jobs else "consolidating"]
    elif status.pending_jobs:
        doing = [f"{jobs} queued"]
    else:
        doing = ["up to date"]
    if status.failed_jobs:
        doing.append(f"{status.failed_jobs} failed")
    return counts, " · ".join(doing)


# Why memory building waits, by the class of the error it waits out (status.paused_by)
PAUSES = {
    "DiskFullError": "the disk is full: free some space",
    "VaultLockedError": "the vault is busy in another program",
}


def paused_because(status: Any) -> str:
    """Why memory building waits, with what to do, when the environment stopped it (it
    retries by itself): it said "1 job queued" for as long as the disk was full. "" if not.
    Read from which error paused it, not from words of its message (a wording changed, or
    another error's message naming a full disk, would change what the line says)."""
    if not status.pending_jobs or status.running:
        return ""
    return PAUSES.get(getattr(status, "paused_by", "") or "", "")


class ElidedLabel(QLabel):
    """One line of plain text that, short of room, ends in "…" instead of being cut through a
    letter or pushed out of the window; the whole text is then in its tooltip. `keep`, an
    ending such as " · keyring", stays whole while it fits. It keeps `least` pixels of its
    text (all of it, if narrower) and gives up the rest when the line is short of room."""

    def __init__(self, least: int = 0, parent: QWidget | None = None,
                 whole_parts: str = "") -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.least = least
        # A separator (" · "): the text gives up whole parts, never a part's end: the counts
        # read "7 recent · 7 topics · 1…", and "1…" was taken for "1 fact" (there were 10)
        self.whole_parts = whole_parts
        self._head = self._keep = self._tip = ""

    def set_text(self, head: str, keep: str = "") -> None:
        self._head, self._keep = head, keep
        self.setAccessibleName(self.full_text())  # read whole, even when shown shortened
        self._elide()
        self._relayout()

    def _relayout(self) -> None:
        """Ask for the room the text needs and lay the line out now: shortened against the
        width the old text had ("tiny"), a new state read "S…" until the next layout pass."""
        self.updateGeometry()
        parent = self.parentWidget()
        layout = parent.layout() if parent is not None else None
        if layout is not None and self.isVisible():
            layout.activate()  # resizes this label (resizeEvent shortens it again) if it must

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self.set_text(text)

    def full_text(self) -> str:
        return self._head + self._keep

    def setToolTip(self, tip: str) -> None:  # noqa: N802 - Qt's name
        self._tip = tip
        self._show_tip()

    def set_least(self, least: int) -> None:
        self.least = least
        self._relayout()

    def _width(self, text: str) -> int:
        return self.fontMetrics().horizontalAdvance(text)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Room for the whole text (QLabel measures the text shown, maybe shortened)."""
        hint = super().sizeHint()
        return QSize(hint.width() + self._width(self.full_text()) - self._width(self.text()),
                     hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = self.sizeHint()
        frame = hint.width() - self._width(self.full_text())  # margins and padding
        least = max(self.least, self._width("…"))
        return QSize(min(hint.width(), frame + least), super().minimumSizeHint().height())

    def _elide(self) -> None:
        full, room = self.full_text(), self.contentsRect().width() - 2 * self.margin()
        shown = full
        if self.isVisible() and self._width(full) > room:  # hidden: not laid out yet
            shown = self._shortened(full, room)
            if self._keep and self._width(self._keep + "…") <= room:  # "Family p… · keyring"
                left = room - self._width(self._keep)
                head = self._shortened(self._head, left)
                if head and self._width(head + self._keep) <= room:
                    shown = head + self._keep
        super().setText(shown)
        self._show_tip()

    def _shortened(self, text: str, room: int) -> str:
        """`text` ending in "…" within `room` pixels: cut anywhere, or by whole parts."""
        if not self.whole_parts:
            return self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)
        parts = text.split(self.whole_parts)
        for keep in range(len(parts) - 1, 0, -1):
            shown = self.whole_parts.join([*parts[:keep], "…"])
            if self._width(shown) <= room:
                return shown
        return "…" if self._width("…") <= room else ""

    def _show_tip(self) -> None:
        whole = self.text() == self.full_text()
        tip = self._tip if whole else "\n".join(t for t in (self.full_text(), self._tip) if t)
        super().setToolTip(tip)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._elide()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._elide()  # a new text size
            self.updateGeometry()


class Dot(QLabel):
    """The coloured dot before the model's name and the counts, a space from its label (the
    status line pads its labels 8 pixels a side): the label after it can shorten, the dot
    stays. Plain text, so it takes only the dot's width."""

    def __init__(self, label: ElidedLabel) -> None:
        super().__init__("●")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setIndent(0)
        self.color = ""  # of the light design
        self.shown = ""  # as the scheme shows it
        label.setStyleSheet("padding-left: 0px;")
        label.setIndent(1)  # with the line's spacing: as "●&nbsp; " read in one label

    def set_color(self, color: str) -> None:
        """`color` of the light design; set_color(self.color) again after a scheme change."""
        self.color = color
        shown = theme.color(color)
        if shown != self.shown:  # a style sheet is applied again only when it changes
            self.shown = shown
            self.setStyleSheet(f"color: {shown}; font-size: 11pt; padding: 0 0 0 12px;")


class StatusLine(QStatusBar):
    """Model (with load progress), remote model, memory activity and vault, left to right.
    Short of room (large text, a small window) the model's name and the counts end in "…"
    first; the vault's name keeps half the window (see fit_text). What still does not fit
    goes on a second line, so that what the model and consolidation are doing stays whole: at
    the text size +2 and 760 pixels the counts were cut to "12 rec…", "consolidating" gone.
    A message (showMessage) is shown in its own label, wrapped when it is longer than the
    line: QStatusBar drew it in one line left of the counts and cut it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = theme.dark  # the scheme its colours were drawn in (see changeEvent)
        self.setSizeGripEnabled(False)
        self._model_least = 0
        self._model_state = NO_MODEL
        self.model = ElidedLabel()
        self.model_dot = Dot(self.model)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(pixels(120))
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.vault_icon = QLabel()
        self._remote_host = ""
        self.vault_icon.setPixmap(pixmap("lock", 14, LOCK_COLOR))
        self.vault = ElidedLabel()
        self.memory = ElidedLabel(whole_parts=" · ")
        self.memory_dot = Dot(self.memory)
        self.line = QWidget()  # holds the parts, in rows (_arrange)
        self.remote = QLabel(self.line)  # shown only while the model is not on this computer
        self.remote.setTextFormat(Qt.TextFormat.RichText)
        self.remote.hide()
        self.message = QLabel(self.line)  # what showMessage says, for its few seconds
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.hide()
        # The line asks for no width: the status line never makes the window wider.
        self.line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.rows = QVBoxLayout(self.line)
        self.rows.setContentsMargins(0, 0, 0, 0)
        self.rows.setSpacing(2)
        self.parts = [
            self._group(self.model_dot, self.model, self.progress),
            self.remote,
            self._group(self.memory_dot, self.memory),
            self._group(self.vault_icon, self.vault),
        ]
        self._arranged: list[list[QWidget]] = []
        self.line.installEventFilter(self)  # the remote's and the message's requests
        self.addPermanentWidget(self.line, 1)
        self.messageChanged.connect(self._show_message)
        self.set_model(NO_MODEL, "")
        self.vault.setText("Vault locked")
        self.set_memory(None)
        self.fit_text(560)
        self._arrange()

    def _group(self, *widgets: QWidget) -> QWidget:
        """Widgets that stay together on one row (a dot and its label)."""
        group = QWidget(self.line)
        row = QHBoxLayout(group)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        for widget in widgets:
            row.addWidget(widget)
        group.installEventFilter(self)  # a part shown, hidden or with a new text
        return group

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LayoutRequest:
            self._arrange()  # its room asked for changed: the rows may change
        return super().eventFilter(watched, event)

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        self._arrange()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """The panel only: the message is in self.message (QStatusBar drew it again, cut)."""
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter,
                                   self)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._arrange()

    def _lay_out_now(self) -> None:
        """Rows and widths for the new texts now, not at the next layout pass (a state read
        "S…", shortened against the room the old text had, until then): the parts' own
        layouts, the line's, the rows', and the parts' again in the room they get."""
        if not self.isVisible():
            return
        groups = [part.layout() for part in self.parts if part.layout() is not None]
        for layout in groups:
            layout.activate()
        self._arrange()
        for layout in (self.layout(), self.rows, *groups):
            layout.activate()

    def _shown_parts(self) -> list[QWidget]:
        """The parts with something to show, a message first."""
        parts = [self.message] if self.message.text() else []
        return parts + [part for part in self.parts if part.isVisibleTo(self)]

    def _arrange(self) -> None:
        """The parts in as few rows as keep each at its least width (ElidedLabel.least):
        all in one row when their whole texts fit, the model's left and the memory's right."""
        room = self.line.width() if self.line.width() > 0 else self.width()
        spacing = pixels(12)
        parts = self._shown_parts()
        # the message whole on its row, in more lines only when longer than the line
        self.message.ensurePolished()  # in the text size now: hidden, it had the old one
        self.message.setWordWrap(False)  # wrapped, it broke before the end of a line's width
        said = self.message.sizeHint().width()  # in one line, the style's padding included
        self.message.setWordWrap(said > room)
        self.message.setMinimumWidth(min(said, room))
        self.message.setMaximumWidth(max(room, 1))
        whole = sum(part.sizeHint().width() for part in parts) + spacing * (len(parts) - 1)
        if whole <= room:
            rows = [parts]
        else:
            rows, used = [], 0
            for part in parts:
                least = min(part.minimumSizeHint().width(), room)
                if rows and used + spacing + least <= room:
                    rows[-1].append(part)
                    used += spacing + least
                else:
                    rows.append([part])
                    used = least
        if self.message.wordWrap():
            self.message.setMinimumHeight(self.message.heightForWidth(room))
        else:
            self.message.setMinimumHeight(0)
        if rows == self._arranged:
            return
        self._arranged = rows
        while self.rows.count():
            item = self.rows.takeAt(0)
            layout = item.layout()
            while layout is not None and layout.count():
                layout.takeAt(0)
        right = set(self.parts[2:])  # the memory's and the vault's parts keep to the right
        for parts_of_row in rows:
            row = QHBoxLayout()
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(spacing)
            stretched = False
            for part in parts_of_row:
                if part in right and not stretched:
                    row.addStretch(1)
                    stretched = True
                row.addWidget(part, 0 if part is not self.message else 1)
            if not stretched:
                row.addStretch(1)
            self.rows.addLayout(row)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and theme.dark != self._dark:
            self._follow_scheme()
        built = getattr(self, "parts", None) is not None  # not while __init__ sets its font
        if built and event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_least()  # the least widths in the new text size
            self._arrange()

    def _follow_scheme(self) -> None:
        """Dots, lock and Remote line in the new scheme's colours: they were drawn in the
        old one's (a dark grey lock on the dark line)."""
        self._dark = theme.dark
        for dot in (self.model_dot, self.memory_dot):
            if dot.color:  # the memory's has none until a vault is open
                dot.set_color(dot.color)
        self.vault_icon.setPixmap(pixmap("lock", 14, LOCK_COLOR))
        self.set_remote(self._remote_host)

    def fit_text(self, width: int) -> None:
        """What each part keeps of its text when the window, `width` pixels wide at least,
        is short of room: the vault's name half of it, the model's name a sixth."""
        self.vault.set_least(width // 2)  # which memory is open: it matters most
        self._model_least = width // 6
        self._fit_least()
        self._lay_out_now()

    def _fit_least(self) -> None:
        """The model's and the memory's least widths, for their texts in the text size now.
        A model's name may end in "…" (it is whole in the tooltip), what the model is doing
        may not: "Server not answering" read "Server not answ…" once the counts grew longer.
        "Loading" stays, the name after it gives way as a ready model's does. The counts may
        end in "…", what consolidation is doing may not."""
        label = self.model.full_text()
        least = self.model._width(label)
        if self._model_state == READY:
            least = self._model_least
        elif self._model_state == LOADING:
            least = min(least, self.model._width("Loading …") + self._model_least)
        self.model.set_least(least)
        doing = self.memory._keep
        self.memory.set_least(self.memory._width(f"…{doing}") if doing else 0)

    def set_model(self, state: str, text: str) -> None:
        from app.model_choice import short_model_name

        label = {
            READY: short_model_name(text) or "Model ready",  # the whole id is in the tooltip
            LOADING: f"Loading {text}…" if text else "Loading the model…",
            FAILED: "Model not loaded",
            UNREACHABLE: "Server not answering",
            NO_MODEL: "No model",
        }[state]
        self.model_dot.set_color(DOTS[state])
        self.model.setText(label)
        self._model_state = state
        self._fit_least()
        tips = {READY: text, LOADING: text, FAILED: text,
                UNREACHABLE: f"{text}\n{UNREACHABLE_TIP}"}
        self.model.setToolTip(tips.get(state, ""))
        self.progress.setVisible(state == LOADING)
        if state == LOADING:
            self.progress.setRange(0, 0)  # busy until the backend reports a fraction
        self._lay_out_now()

    def set_remote(self, host: str) -> None:
        from app.outgoing import remote_badge, remote_tooltip

        self._remote_host = host
        self.remote.setText(remote_badge(host))
        self.remote.setToolTip(remote_tooltip(host) if host else "")
        self.remote.setVisible(bool(host))
        self._lay_out_now()

    def set_progress(self, fraction: float, label: str) -> None:
        self.progress.setRange(0, 100)
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(label)

    def set_vault(self, name: str, key_location: str) -> None:
        where = "passphrase" if "passphrase" in key_location else "keyring"
        self.vault.set_text(name, f" · {where}")  # a long name ends in "…", not the key's place
        self.vault.setToolTip(f"Encrypted vault; key: {key_location}")
        self._lay_out_now()

    def set_memory(self, status: Any) -> None:
        """Show a ConsolidationStatus; None (the vault was locked or closed) clears the counts."""
        if status is None:
            self.memory_dot.hide()
            self.memory.setText("")
            self.memory.set_least(0)
            self.memory.setToolTip("")
            self._lay_out_now()
            return
        busy = status.running
        self.memory_dot.set_color(BUSY_DOT if busy else IDLE_DOT)
        self.memory_dot.show()
        counts, doing = memory_parts(status)
        self.memory.set_text(counts, f" · {doing}")  # the counts end in "…", never the work
        self._fit_least()
        tip = memory_tip(status)
        tip += f"\n\nLast error: {status.last_error}" if status.last_error else ""
        self.memory.setToolTip(tip)
        self._lay_out_now()
