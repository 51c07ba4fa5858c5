"""What a person reads stays whole and in place: a "Learned" notice beside its answer while
the conversation goes on, the demo banner and the empty conversation's text at the smallest
window and the largest text, the sidebar's title at every text size."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QLabel

pytestmark = pytest.mark.gui


@pytest.fixture
def normal_look_after(qapp):
    """Whatever size a test chose, the next one starts light and at the normal size."""
    yield
    from app import theme

    theme.apply_look(qapp, "light", theme.BASE_SIZE)


def _largest(window) -> None:
    """Ctrl+= until the text is at its largest."""
    from app import theme

    while window.settings.text_size < theme.MAX_SIZE:
        window.bigger_action.trigger()


def _smallest_window(qtbot, window) -> None:
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    qtbot.wait(20)  # the layouts' requests, posted by the resize, are handled


def _whole(widget) -> bool:
    """Shown, and nothing of it cut off by its parents or covered by a neighbour."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def _text_fits(label) -> bool:
    """The label's text, laid out as the label lays it out, fits inside it (not cut)."""
    flags = int(label.alignment()) | (int(Qt.TextFlag.TextWordWrap) if label.wordWrap() else 0)
    area = label.contentsRect()
    needed = label.fontMetrics().boundingRect(area, flags, label.text())
    return area.contains(needed), (label.objectName() or label.text()[:30], area, needed)


def _inside(widget, parent) -> bool:
    """The widget's rectangle lies within `parent`'s."""
    top_left = widget.mapTo(parent, QPoint(0, 0))
    return parent.rect().contains(QRect(top_left, widget.size()))


# --- "Learned" notices ------------------------------------------------------------------


def _left(view, text: str) -> int:
    """Where the first line of `text` starts, in the conversation (pixels from its left)."""
    document = view.browser.document()
    found = document.find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart())
    return view.browser.cursorRect(cursor).x()


def _box_left(view) -> int:
    """Where the tinted box of the (one) answer with notices starts."""
    (message,) = [m for m in view.messages if m.notices_frame is not None]
    layout = view.browser.document().documentLayout()
    x = layout.frameBoundingRect(message.notices_frame).x()
    return round(x) - view.browser.horizontalScrollBar().value()


def _lines(view, message) -> list[str]:
    """The lines of a message as it reads on screen (its speaker and time first)."""
    cursor = QTextCursor(view.browser.document())
    cursor.setPosition(message.frame.firstPosition())
    cursor.setPosition(message.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
    return cursor.selection().toPlainText().splitlines()


STREAMED = "Here is a longer answer, drawn a few words at a time while you read it."


def _while_streaming(qtbot, window, chat, action) -> None:
    """Ask; while the answer streams in, a few words at a time, do `action` and wait for
    it; then wait for the answer's end. It must end whole, as it was said."""
    chat.queue(STREAMED)
    chat.chunk_delay = 0.03
    window.composer.input.setPlainText("What can I cook tonight?")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as finished:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitSignal(window.view.flushed, timeout=5000).wait()  # it is streaming
        action()
    chat.chunk_delay = 0.0
    assert not isinstance(finished.args[0], Exception)
    answer = window.view.messages[-1]
    assert _lines(window.view, answer)[1:2] == [STREAMED]  # whole, nothing more


def test_a_learned_notice_stays_beside_its_answer_as_the_conversation_goes_on(
    qtbot, window, chat, memory, send
):
    """The notice lines up with its answer's text, and stays so when the next answer arrives
    (learned while it streams: the streaming answer lost its frame and never ended), when
    one more follows, and when the conversation is drawn again."""
    chat.queue("Noted, no peanuts.")
    send(window, "I am allergic to peanuts")
    view = window.view
    answer = _left(view, "Noted, no peanuts.")

    def learn():
        with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
            memory.run_consolidation()  # "I am allergic to peanuts" is learned meanwhile

    _while_streaming(qtbot, window, chat, learn)
    qtbot.waitUntil(lambda: "Learned: I am allergic to peanuts" in view.plain_text())
    notice = _left(view, "Learned: ")
    assert _box_left(view) == answer < notice  # its tinted box lines up with the answer

    send(window, "Thanks!")
    assert (_box_left(view), _left(view, "Learned: ")) == (answer, notice)
    assert _left(view, "Noted, no peanuts.") == answer

    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    assert view.plain_text().count("Learned: I am allergic to peanuts") == 1
    assert (_box_left(view), _left(view, "Learned: ")) == (answer, notice)
    assert _left(view, "Noted, no peanuts.") == answer


def test_undo_on_a_notice_while_the_next_answer_streams(qtbot, window, chat, memory, send):
    """Undo clicked while the next answer streams in: the notice said "Forgot: …" at once
    and the streaming answer was drawn over itself (its first words repeated)."""
    send(window, "I am allergic to peanuts")
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    view = window.view
    document = view.browser.document()

    def undo():
        found = document.find("Undo", document.find("Learned: I am allergic to peanuts"))
        cursor = QTextCursor(document)
        cursor.setPosition(found.selectionStart() + 1)
        point = view.browser.cursorRect(cursor).center()
        with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
            qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)

    _while_streaming(qtbot, window, chat, undo)
    assert "Forgot: I am allergic to peanuts" in view.plain_text()
    assert "I am allergic to peanuts" not in [f.text for f in memory.facts()]


# --- the demo banner and the empty conversation, at the smallest window -------------------


@pytest.mark.parametrize("largest", [False, True], ids=["normal text", "largest text"])
def test_the_demo_banner_and_the_empty_conversation_read_whole_at_the_smallest_window(
    qtbot, window, largest, normal_look_after
):
    """At the window's minimum size the banner's text was cut (squeezed beside its button)
    and so was the empty conversation's hint (lines too long for the width, no height left);
    at the largest text the window's minimum did not grow with it."""
    from app import theme

    if largest:
        _largest(window)
        room = window.screen().availableGeometry()
        assert window.minimumWidth() == min(theme.pixels(560), max(560, room.width() - 40))
    _smallest_window(qtbot, window)
    banner, empty = window.demo_banner, window.view.empty
    assert banner.isVisible() and window.view.currentWidget() is empty

    assert _whole(banner.text) and _inside(banner.text, banner)
    assert _text_fits(banner.text)[0], _text_fits(banner.text)[1]
    button = banner.button
    assert _whole(button) and _inside(button, banner)
    assert button.width() >= button.sizeHint().width()  # its label is not cut
    center = button.rect().center()
    assert window.childAt(button.mapTo(window, center)) is button  # nothing covers it
    with qtbot.waitSignal(banner.choose_requested):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=center)
    window.panels["model_step"].reject()

    assert _whole(empty.hint) and _inside(empty.hint, empty)
    assert _text_fits(empty.hint)[0], _text_fits(empty.hint)[1]
    for part in (empty.logo, empty.title, empty.tips):
        if part.isVisible():  # what is shown is shown whole
            assert _whole(part) and _inside(part, empty), part.objectName()
    if empty.title.isVisible():
        assert _text_fits(empty.title)[0], _text_fits(empty.title)[1]


def test_with_room_the_empty_conversation_shows_all_of_it(qtbot, window):
    """The logo and the tips go only where there is no room: at the usual size they are
    there, the tips on one line beside each other where they fit."""
    window.demo_banner.hide()
    window.resize(1000, 720)
    qtbot.wait(20)
    empty = window.view.empty
    for part in (empty.logo, empty.title, empty.hint, empty.tips):
        assert _whole(part) and _inside(part, empty), part.objectName()
    room = window.screen().availableGeometry()
    if room.width() >= 1000:  # a screen wide enough: the tips on one line
        assert empty.tips.height() < 2.5 * empty.tips.fontMetrics().lineSpacing()


# --- the sidebar's title --------------------------------------------------------------


def test_the_sidebar_title_reads_whole_at_every_text_size(qtbot, window, normal_look_after):
    """The sidebar's minimum width was set once at the start: at large text sizes its title
    was cut. It follows the text size now, within a third of the window."""
    from app import theme

    window.toggle_sidebar(True)
    sidebar = window.sidebar
    title = sidebar.findChild(QLabel, "sidebarTitle")
    for _size in range(theme.BASE_SIZE, theme.MAX_SIZE + 1):
        _smallest_window(qtbot, window)
        assert _whole(title) and _inside(title, sidebar)
        assert _text_fits(title)[0], (window.settings.text_size, _text_fits(title))
        assert sidebar.width() <= window.width() / 3, (sidebar.width(), window.width())
        window.bigger_action.trigger()
    window.reset_size_action.trigger()  # back to normal: narrow as before
    assert sidebar.minimumWidth() == 160 and window.minimumSize().toTuple() == (560, 420)


# --- the status line's vault name -----------------------------------------------------


def _shown_whole(label, window) -> bool:
    """On screen in full, inside the window, and its text fits it (no letter cut)."""
    return _whole(label) and _inside(label, window) and _text_fits(label)[0]


@pytest.mark.parametrize("name", ["default", "Family photos and taxes"])
def test_the_vault_name_in_the_status_line_stays_whole_at_the_largest_text(
    qtbot, memory, chat, name, normal_look_after
):
    """At the largest text in the smallest window the status line was wider than the window:
    the vault's name (which memory is open) was cut, or pushed off altogether. The parts of the
    line that do not fit go to a row below, so a long name is shown whole; where even a row of
    its own is too narrow it ends in "…", the whole of it in the tooltip."""
    from app.main_window import MainWindow
    from app.settings_store import AppSettings

    window = MainWindow.for_memory(memory, chat, settings=AppSettings(vault_name=name))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    status = window.status
    qtbot.waitUntil(lambda: status.vault.text().startswith(name))  # the whole name, with room
    _largest(window)
    _smallest_window(qtbot, window)
    qtbot.waitUntil(lambda: _shown_whole(status.vault, window), timeout=2000)
    vault = status.vault
    assert vault.text().endswith(" · keyring")  # where its key is, still said
    if name == "default":
        assert vault.text() == "default · keyring"
    else:
        assert vault.text() == f"{name} · keyring"  # on a row with room for it
    assert _inside(status, window) and status.width() <= window.width()
    for label in (status.model, status.memory):  # what gave way is shortened, not cut
        assert _shown_whole(label, window), label.text()
    window.reset_size_action.trigger()
    window.resize(1000, 720)
    qtbot.waitUntil(lambda: vault.text() == f"{name} · keyring")  # room again: all of it
    assert vault.toolTip().startswith("Encrypted vault")
    window.close()
