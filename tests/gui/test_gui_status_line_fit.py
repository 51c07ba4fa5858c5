"""The status line reads whole at the smallest window and the largest text: what the model and
consolidation are doing is never cut; what gives way ends in "…" with the whole in the
tooltip, and what still does not fit goes on a second line."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QRect, Qt

from app.session import FAILED, LOADING, READY, UNREACHABLE
from app.status_bar import ElidedLabel

pytestmark = pytest.mark.gui

MODELS = [
    (READY, "lmstudio-community/SmolLM2-135M-Instruct-GGUF", ""),
    (LOADING, "SmolLM2-135M-Instruct-Q4_1", "Loading"),
    (UNREACHABLE, "http://127.0.0.1:9/v1", "Server not answering"),
    (FAILED, "no such file", "Model not loaded"),
]
COPIED = "Copied the last answer."
ERASED = "The memory “Family notes” was erased: its file and key are gone. “default” is open now."


def _place(widget, status) -> QRect:
    return QRect(widget.mapTo(status, widget.rect().topLeft()), widget.size())


def _problems(window) -> list[str]:
    """What a person could not read on the status line now."""
    status = window.status
    found = []
    if status.width() > window.width():
        found.append(f"the line is {status.width()} px in a {window.width()} px window")
    message = getattr(status, "message", None)  # QStatusBar drew it, cut, before
    shown = [w for w in (message, status.model, status.remote, status.memory,
                         status.vault) if w is not None and w.isVisible() and w.text()]
    for widget in shown:
        place = _place(widget, status)
        if not status.rect().contains(place):
            found.append(f"{widget.text()[:30]!r} at {place.getRect()} is off the line")
        for other in shown[shown.index(widget) + 1:]:
            if place.intersects(_place(other, status)):
                found.append(f"{widget.text()[:30]!r} lies over {other.text()[:30]!r}")
        room = widget.contentsRect()
        if widget.wordWrap():
            if widget.heightForWidth(widget.width()) > widget.height():
                found.append(f"{widget.text()[:30]!r} is cut: {widget.height()} px tall")
            continue
        if widget.textFormat() == Qt.TextFormat.PlainText:
            wide = widget.fontMetrics().horizontalAdvance(widget.text())
            if wide > room.width():
                found.append(f"{widget.text()!r}: {wide} px in {room.width()} px")
        elif widget.width() < widget.sizeHint().width():  # the remote model's line
            found.append(f"{widget.text()!r}: {widget.width()} px of {widget.sizeHint()}")
        if isinstance(widget, ElidedLabel):
            if widget.text() != widget.full_text() and widget.full_text() not in widget.toolTip():
                found.append(f"{widget.full_text()!r} is not whole in the tooltip")
    return found


def _wait_readable(qtbot, window, where) -> None:
    """Until the line is laid out for its new texts (the message at the next layout pass)."""
    try:
        qtbot.waitUntil(lambda: not _problems(window), timeout=2_000)
    except qtbot.TimeoutError:
        assert _problems(window) == [], where


@pytest.mark.parametrize("size", [12, 20])  # the default +2 (Ctrl+= twice), the largest
def test_the_status_line_reads_whole_at_the_smallest_window(qtbot, window, memory, look_back,
                                                            size):
    """At +2 and 760 px the counts read "12 rec…": "consolidating (2 jobs)" and "1 failed"
    were gone, and at the largest text the line was wider than the window."""
    from app import theme

    window.set_text_size(size - window.settings.text_size)
    assert theme.scale == size / theme.BASE_SIZE
    status = window.status
    busy = replace(memory.consolidation_status(), running=True, pending_jobs=2, failed_jobs=1,
                   short_term_pages=12, segments=3, facts=5, profile=2)
    # The window reads the memory's status again now and then, and a read of the real, idle
    # memory landing between set_memory and the check said "up to date": only this test's
    # status is shown here
    window.session.status_changed.disconnect(status.set_memory)
    for width in (760, window.minimumSize().width()):
        window.resize(width, window.height())
        qtbot.waitUntil(lambda w=width: window.width() == max(w, window.minimumWidth()))
        for remote in ("", "192.168.100.200:8080"):
            status.set_remote(remote)
            for state, name, words in MODELS:
                status.set_model(state, name)
                status.set_memory(busy)
                status.showMessage(ERASED if remote else COPIED)
                where = (size, window.width(), state, remote)
                _wait_readable(qtbot, window, where)
                assert status.model.text().startswith(words), where
                if state != READY and state != LOADING:
                    assert status.model.text() == words, where
                assert status.memory.text().endswith(" · consolidating (2 jobs) · 1 failed"), where
                assert status.vault.text().endswith(" · keyring"), where
                said = ERASED if remote else COPIED
                assert status.message.text() == said and status.message.isVisible(), where
                if remote:
                    assert remote in status.remote.text() and status.remote.isVisible()
    status.showMessage("")
    qtbot.waitUntil(lambda: not status.message.isVisible())


def test_the_counts_give_up_whole_counts_never_a_count_cut_short(qtbot):
    """Short of room the counts read "7 recent · 7 topics · 1…", and "1…" was taken for
    "1 fact" (the memory held 10 facts). They now give up whole counts: "7 recent · …"."""
    label = ElidedLabel(whole_parts=" · ")
    qtbot.addWidget(label)
    counts = "7 recent · 7 topics · 10 facts · 4 profile entries"
    label.set_text(counts, " · up to date")
    label.show()
    qtbot.waitExposed(label)
    whole = set(counts.split(" · "))
    seen = set()
    for width in range(40, label.sizeHint().width() + 40, 7):
        label.resize(width, label.height())
        shown = label.text()
        seen.add(shown)
        if shown == label.full_text():
            continue
        if shown.endswith(" · up to date"):
            shown = shown[: -len(" · up to date")]
        parts = shown.split(" · ")
        assert parts[-1] == "…" and set(parts[:-1]) <= whole, label.text()
        assert counts in label.toolTip()
    assert "7 recent · 7 topics · … · up to date" in seen  # not all or nothing
