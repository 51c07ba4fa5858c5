"""Colours the app draws itself (the conversation's times and day labels, the status line's dots
and lock, Privacy's and the inspector's HTML and icons) read on their background in the light
and the dark scheme, and follow a switch of scheme in Settings while they are on screen."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QPalette, QTextFormat, QTextFrame
from PySide6.QtWidgets import QApplication, QLabel

from tests.gui_steps import privacy_row

pytestmark = pytest.mark.gui

SCHEMES = ("light", "dark")
LOVED = "I really love spicy Thai food."
NO_LONGER = "I no longer like spicy food."
TIME = re.compile(r"^\d\d:\d\d$")


@pytest.fixture
def talked(qtbot, tmp_path, memory_keyring, embedder, chat, send, look_back):
    """A window with a conversation on screen, over a vault with a topic (the short-term queue
    holds 2) and a fact that replaced another, consolidated."""
    from app.main_window import MainWindow
    from engine.api import MemoryOS
    from engine.settings import MemorySettings

    mem = MemoryOS.open(tmp_path / "vault.memoryos", create=True, embedder=embedder, chat=chat,
                        settings=MemorySettings(stm_capacity=2, stm_evict_batch=2),
                        background=False)
    for said in ("I work as a nurse in Krakow.", "My dog is called Pixel.", LOVED, NO_LONGER):
        mem.add_memory(said, "Noted.")
    mem.run_consolidation()
    window = MainWindow.for_memory(mem, chat)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    send(window, "Where do I work?")
    yield window
    window.close()
    mem.close()


def _choose_scheme(qtbot, window, scheme: str, from_vault: bool = True) -> None:
    """Settings → Conversation → Colours, then Save, as a person does; the conversation is
    drawn again when the scheme changed."""
    from app import theme

    dialog = window.open_settings()
    page = dialog.conversation_page
    page.scheme.setCurrentIndex(page.scheme.findData(scheme))
    changes = from_vault and theme.dark != (scheme == "dark")
    with qtbot.waitSignal(window.conversation_shown, timeout=10_000, raising=changes):
        with qtbot.waitSignal(dialog.applied):
            dialog.save()


def _sheet_background(selector: str) -> str:
    sheet = QApplication.instance().styleSheet()
    # the selector alone or first in a list ("QTextBrowser#detail, QTextBrowser#shortcuts {")
    rule = re.search(re.escape(selector) + r"(\s*,[^{}]*)?\s*\{[^}]*?background:\s*(#[0-9A-Fa-f]{6})",
                     sheet)
    assert rule, selector
    return rule.group(2)


def _texts(view) -> list[tuple[str, str, str]]:
    """(text, its colour, the colour it is drawn on) for each run of text in the conversation:
    on the nearest frame with a background of its own (a question, a Learned notice), else
    on the view's. Text with no colour of its own is in the view's text colour."""
    page = _sheet_background("QTextBrowser#conversation")
    plain = view.browser.palette().color(QPalette.ColorRole.Text).name()
    out = []
    block = view.browser.document().begin()
    while block.isValid():
        frame = view.browser.document().frameAt(block.position())
        ground = page
        while isinstance(frame, QTextFrame):
            brush = frame.frameFormat().background()
            if brush.style().value:  # not Qt.NoBrush
                ground = brush.color().name()
                break
            frame = frame.parentFrame()
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            text = fragment.text().strip()
            shape = fragment.charFormat()
            colour = (shape.foreground().color().name()
                      if shape.hasProperty(QTextFormat.Property.ForegroundBrush) else plain)
            if text and not set(text) <= set("·▸▾ \u2028"):
                out.append((text, colour, ground))
            it += 1
        block = block.next()
    return out


def _expand_memories(qtbot, view) -> None:
    """Open the last answer's "Used N memories" list (its labels were #9CA3AF)."""
    message = next(m for m in reversed(view.messages) if m.memories)
    view.toggle_remembered(message)
    qtbot.waitUntil(lambda: message.expanded)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_text_in_the_conversation_reads_on_its_background(qtbot, talked, scheme):
    """The times beside the speakers and the day labels were #9CA3AF: 2.5:1 in light, 2.7:1 in
    dark (a question's time on its tint less still); the labels of a "Used N memories" list too.
    Every run of text of the conversation, as drawn, reads at 4.5:1."""
    from app import theme

    _choose_scheme(qtbot, talked, scheme)
    assert theme.dark == (scheme == "dark")
    _expand_memories(qtbot, talked.view)
    texts = _texts(talked.view)
    times = [t for t in texts if TIME.match(t[0])]
    assert len(times) >= 2 and any(t[0] == "Today" for t in texts), texts
    assert any(ground != _sheet_background("QTextBrowser#conversation")
               for text, _, ground in times)  # the question's, on its tint
    low = [(text[:30], colour, ground, round(theme.contrast(colour, ground), 2))
           for text, colour, ground in texts if theme.contrast(colour, ground) < 4.5]
    assert low == []
    # muted stays muted: a grey, not a colour
    assert all(QColor(colour).hslSaturationF() < 0.2 for text, colour, _ in times)


def _drawn(widget) -> QColor:
    """The colour a small widget (a dot, an icon) is drawn in: of its pixels, the one farthest
    from its background (the top-left corner)."""
    QApplication.processEvents()
    image = widget.grab().toImage()
    corner = image.pixelColor(0, 0)
    pixels = [image.pixelColor(x, y) for x in range(image.width())
              for y in range(image.height())]
    return max(pixels, key=lambda c: sum((a - b) ** 2 for a, b in zip(
        c.getRgb()[:3], corner.getRgb()[:3], strict=True)))


def _status_checks(status, scheme: str) -> None:
    """Each dot of the status line at 3:1 on it (a graphic beside its label), in its hue."""
    from app import theme
    from app.session import LOADING, NO_MODEL, READY
    from engine.records import ConsolidationStatus

    line = _sheet_background("QStatusBar")
    hues = {READY: (100, 170), LOADING: (20, 45)}
    for state in (READY, LOADING, NO_MODEL):
        status.set_model(state, "fake/chat")
        shown = _drawn(status.model_dot)
        assert theme.contrast(shown.name(), line) >= 3, (scheme, state, shown.name(), line)
        assert shown.name().upper() == theme.color(status.model_dot.color), (scheme, state)
        if state in hues:
            low, high = hues[state]
            assert low <= shown.hslHue() <= high, (state, shown.name())
        else:
            assert shown.hslSaturationF() < 0.25, shown.name()  # no model: grey
    for running in (False, True):
        status.set_memory(ConsolidationStatus(0, running, 0, None, 2, 1, 1, 1))
        shown = _drawn(status.memory_dot)
        assert theme.contrast(shown.name(), line) >= 3, (scheme, running, shown.name())
    lock = _drawn(status.vault_icon)
    assert theme.contrast(lock.name(), line) >= 3, (scheme, "lock", lock.name(), line)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_status_dots_read_on_the_status_line(qtbot, talked, scheme):
    """The green, amber and grey dots were 2.4 to 2.6:1 on the white line (a graphic needs
    3:1, though a word is beside each)."""
    _choose_scheme(qtbot, talked, scheme)
    _status_checks(talked.status, scheme)


def _html_colours(browser) -> set[str]:
    text = browser.toHtml()  # text colours, not background-color
    return {c.upper() for c in re.findall(r"(?<![-\w])color:\s*(#[0-9A-Fa-f]{6})", text)}


def _icon_colour(button) -> QColor:
    image = button.icon().pixmap(QSize(16, 16), 2.0).toImage()
    return max((image.pixelColor(x, y) for x in range(image.width())
                for y in range(image.height())), key=lambda c: c.alpha())


def _panels_read(privacy, inspector, scheme: str) -> None:
    """Privacy's source and replaced rows, its icons, and the inspector's topic: each colour as
    the scheme shows it, reading on its background."""
    from app import theme

    detail = _sheet_background("QTextBrowser#detail")
    muted = theme.color(theme.MUTED)
    assert muted in _html_colours(privacy.source)
    for colour in _html_colours(privacy.source) | _html_colours(inspector.segment_detail):
        assert theme.contrast(colour, detail) >= 4.5, (scheme, colour, detail)
    pill = re.search(r"background-color:\s*(#[0-9A-Fa-f]{6})", inspector.segment_detail.toHtml())
    assert pill and theme.contrast(pill.group(1), detail) < 1.5, scheme  # a quiet tint of it
    replaced = privacy_row(privacy, LOVED)
    assert replaced is not None and replaced.foreground(1).color().name().upper() == muted
    assert theme.contrast(muted, _sheet_background("QListWidget")) >= 4.5  # the lists' rule
    for button, selector in ((privacy.delete_button, "QPushButton#danger"),
                             (privacy.forget_conversations_button, "QPushButton#danger"),
                             (privacy.edit_button, "QPushButton")):
        stroke = _icon_colour(button).name()
        background = _sheet_background(selector)
        assert theme.contrast(stroke, background) >= 3, (scheme, button.text(), stroke)


def test_switching_the_scheme_redraws_what_was_on_screen(qtbot, talked):
    """Settings → Conversation → Colours while the conversation, the status line, Privacy and
    the inspector are on screen: each shows the new scheme's colours, not the old one's (the
    status dots, the lock, Privacy's source and icons, the inspector's topic, the banners'
    icons kept theirs), and back again."""
    from app import theme

    window = talked
    privacy = window.open_privacy()
    privacy.superseded.setChecked(True)
    qtbot.waitUntil(lambda: privacy_row(privacy, LOVED) is not None)
    privacy_row(privacy, NO_LONGER).setSelected(True)
    qtbot.waitUntil(lambda: "Noted." in privacy.source.toPlainText())
    inspector = window.open_inspector()
    inspector.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: inspector.segment_tree.topLevelItemCount() >= 1)
    inspector.segment_tree.topLevelItem(0).setSelected(True)
    qtbot.waitUntil(lambda: "Heat" in inspector.segment_detail.toPlainText())
    _panels_read(privacy, inspector, "light")

    for scheme in ("dark", "light"):
        _choose_scheme(qtbot, window, scheme)
        assert theme.dark == (scheme == "dark")
        muted = theme.color(theme.MUTED)
        qtbot.waitUntil(lambda m=muted: m in _html_colours(privacy.source))
        qtbot.waitUntil(lambda m=muted: m in _html_colours(inspector.segment_detail))
        qtbot.waitUntil(lambda m=muted: privacy_row(privacy, LOVED) is not None and privacy_row(
            privacy, LOVED).foreground(1).color().name().upper() == m)
        _panels_read(privacy, inspector, scheme)
        shown = _drawn(window.status.model_dot).name().upper()
        assert shown == theme.color(window.status.model_dot.color), (scheme, shown)
        lock = _drawn(window.status.vault_icon).name()
        assert theme.contrast(lock, _sheet_background("QStatusBar")) >= 3, (scheme, lock)
        for frame, colour in ((window.temporary_banner, "#7A5300"), (window.notice, "#8A1F1F")):
            mark = next(label for label in frame.findChildren(QLabel) if label.pixmap())
            image = mark.pixmap().toImage()
            stroke = max((image.pixelColor(x, y) for x in range(image.width())
                          for y in range(image.height())), key=lambda c: c.alpha())
            assert theme.contrast(stroke.name(), theme.color(colour)) < 1.1, (scheme, colour)
        times = [t for t in _texts(window.view) if TIME.match(t[0])]
        assert times and all(colour.upper() == theme.color(theme.MUTED_ON_TINT)
                             for _, colour, _ in times), (scheme, times)


def test_the_status_line_follows_a_scheme_change_from_the_system(qtbot, window, qapp,
                                                                 look_back):
    """The system's scheme changing (the window applies it, with no Settings to save) redraws
    the Remote line, the dots and the lock too: the Remote line kept the light amber."""
    from app import theme
    from app.outgoing import REMOTE_COLOR

    status = window.status
    status.set_remote("api.example.com")
    before = _drawn(status.model_dot).name().upper()
    theme.apply_look(qapp, "dark", theme.BASE_SIZE)  # as window._apply_look does then
    remote = re.search(r"color:\s*(#[0-9A-Fa-f]{6})", status.remote.text())
    assert remote and remote.group(1).upper() == theme.color(REMOTE_COLOR)
    assert _drawn(status.model_dot).name().upper() == theme.color(status.model_dot.color) != before
    _status_checks(status, "dark")


def test_a_temporary_chat_follows_a_scheme_change(qtbot, window, send, look_back):
    """A temporary chat is not drawn again from the vault: after Settings → Colours → Dark it
    kept the light scheme's colours (the question's pale tint on the dark window, the times
    and names dark on dark). Its colours are switched where they are, and back again."""
    from app import theme

    window.temporary_action.trigger()
    assert window.temporary
    send(window, "Hello there")
    for scheme in ("dark", "light"):
        _choose_scheme(qtbot, window, scheme, from_vault=False)
        assert theme.dark == (scheme == "dark")
        texts = _texts(window.view)
        assert "Hello there" in [text for text, _, _ in texts]
        assert theme.color(theme.USER_TINT).lower() in {ground for _, _, ground in texts}
        low = [(text[:30], colour, ground, round(theme.contrast(colour, ground), 2))
               for text, colour, ground in texts if theme.contrast(colour, ground) < 4.5]
        assert low == [], scheme
        times = [colour.upper() for text, colour, _ in texts if TIME.match(text)]
        assert times and set(times) == {theme.color(theme.MUTED_ON_TINT)}, scheme


def test_the_sidebars_day_headers_read_in_both_schemes(qtbot, talked):
    """The sidebar's day headers ("Today") were Qt's grey, 2.6:1 on white, and stayed in the
    scheme they were drawn in: now the muted grey of the scheme on screen, after a switch too."""
    from app import theme

    window = talked
    tree = window.sidebar.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() >= 1)
    for scheme in ("light", "dark", "light"):
        if theme.dark != (scheme == "dark"):
            _choose_scheme(qtbot, window, scheme)
        header = tree.topLevelItem(0).foreground(0).color().name()
        ground = tree.palette().color(QPalette.ColorRole.Base).name()
        assert header.upper() == theme.color(theme.MUTED), (scheme, header)
        assert theme.contrast(header, ground) >= 4.5, (scheme, header, ground)
