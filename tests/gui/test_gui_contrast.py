"""Contrast and keyboard focus: every coloured text the app draws reads at 4.5:1 (WCAG AA) on
the background it is drawn on, icons at 3:1, in the light and the dark scheme; Tabbing through
Settings lands only on controls that show where the focus is."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QTabBar, QWidget

pytestmark = pytest.mark.gui

SCHEMES = ("light", "dark")


def _luminance(color: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _contrast(one: str | QColor, other: str | QColor) -> float:
    lighter, darker = sorted((_luminance(QColor(one)), _luminance(QColor(other))), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _span_colours(html: str) -> list[str]:
    colours = re.findall(r"color:\s*(#[0-9A-Fa-f]{6})", html)
    assert colours, html
    return colours


def _rule(sheet: str, selector: str) -> dict[str, str]:
    """The properties of the style sheet's rules for exactly `selector` (one of a rule's
    comma-separated selectors), later rules winning, as Qt applies them."""
    found: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", re.sub(r"/\*.*?\*/", "", sheet,
                                                                       flags=re.S)):
        if selector in (part.strip() for part in selectors.split(",")):
            for name, value in re.findall(r"([\w-]+)\s*:\s*([^;]+);?", body):
                found[name] = value.strip()
    assert found, selector
    return found


def _backgrounds() -> dict[str, str]:
    palette = QApplication.palette()
    return {
        "window": palette.color(QPalette.ColorRole.Window).name(),
        "base": palette.color(QPalette.ColorRole.Base).name(),
    }


def _placeholder() -> str:
    """The colour a text field's placeholder ("e.g. llama3.1:8b") is drawn in, on its base:
    the style sheet's text colour at half strength, unless it gives one of its own."""
    from PySide6.QtWidgets import QLineEdit

    field = QLineEdit()
    field.ensurePolished()
    shade, base = field.palette().placeholderText().color(), field.palette().base().color()
    alpha = shade.alphaF()
    mixed = [alpha * one + (1 - alpha) * other for one, other in
             zip(shade.getRgbF()[:3], base.getRgbF()[:3], strict=True)]
    return QColor.fromRgbF(*mixed).name()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_coloured_text_reads_on_the_window_and_fields(qapp, scheme, look_back):
    """The red of errors and "no: ..." verdicts, the amber "▲ Remote: ...", the green "● On
    this computer", "slow", the accent, muted notes: 4.5:1 at least on the window and on a
    field's white (near-black in dark). On dark the red was 3.7:1, the amber 3.0:1."""
    from app import outgoing, theme
    from app.model_picker import SLOW_COLOR

    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    shown = {
        "in_red": _span_colours(theme.in_red("No model file there"))[0],
        "no: verdict": theme.color(theme.ERROR_RED),
        "slow": theme.color(SLOW_COLOR),
        "remote note": _span_colours(outgoing.url_note("https://api.example.com/v1"))[0],
        "local note": _span_colours(outgoing.url_note("http://127.0.0.1:8080/v1"))[0],
        "remote badge": _span_colours(outgoing.remote_badge("api.example.com"))[0],
        "accent": theme.color(theme.ACCENT),
        "muted": theme.color(theme.MUTED),
        "learned": theme.color(theme.LEARNED),
        "text": QApplication.palette().color(QPalette.ColorRole.Text).name(),
        "placeholder": _placeholder(),
    }
    for where, background in _backgrounds().items():
        for what, colour in shown.items():
            ratio = _contrast(colour, background)
            assert ratio >= 4.5, (scheme, what, colour, where, background, round(ratio, 2))


# (text selector, the selector of what it is drawn on, or None: the window)
STYLED_TEXT = [
    ("QLabel#error", None),
    ("QLabel#success", None),
    ("QLabel#hint", None),
    ("QLabel#muted", None),
    ("QLabel#subtitle", None),
    ("QPushButton#danger", "QPushButton#danger"),
    ("QPushButton#danger", "QPushButton#danger:hover"),
    ("QPushButton#stopButton", "QPushButton#stopButton"),
    ("QPushButton#stopButton", "QPushButton#stopButton:hover"),
    ("QPushButton#dangerSolid", "QPushButton#dangerSolid"),
    ("QPushButton#primary", "QPushButton#primary"),
    ("QPushButton#primary", "QPushButton#primary:hover"),
    ("QFrame#notice QLabel", "QFrame#notice"),
    ("QFrame#banner QLabel", "QFrame#banner"),
    ("QFrame#banner QPushButton#bannerLink", "QFrame#banner QPushButton#bannerLink:hover"),
    ("QLabel#keyNote", "QLabel#keyNote"),
    ("QLabel#warnNote", "QLabel#warnNote"),
    ("QLabel#pill", "QLabel#pill"),
    ("QTabBar::tab:selected", "QTabBar::tab:selected"),
    ("QTabBar::tab", None),
    ("QMenu::item:selected", "QMenu::item:selected"),
    ("QMenuBar::item:selected", "QMenuBar::item:selected"),
    ("QToolButton:checked", "QToolButton:checked"),
    ("QStatusBar QLabel", "QStatusBar"),
    ("QHeaderView::section", "QHeaderView::section"),
    ("QLabel#emptyTips", "QLabel#emptyTips"),
    ("QLabel#placeholder", "QLabel#placeholder"),
    ("QToolTip", "QToolTip"),
]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_style_sheet_text_reads_on_its_own_background(qapp, scheme, look_back):
    """Each text colour of resources/style.qss, as the scheme resolves it, on the background
    its rule (or the window) gives it: the danger buttons' red was 3.7:1 on dark, the selected
    tab's indigo 3.0:1, the notice's red 2.8:1."""
    from app import theme

    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    sheet = qapp.styleSheet()
    window = _backgrounds()["window"]
    for text_selector, background_selector in STYLED_TEXT:
        text = _rule(sheet, text_selector)["color"]
        background = (
            _rule(sheet, background_selector)["background"] if background_selector else window
        )
        ratio = _contrast(text, background)
        assert ratio >= 4.5, (scheme, text_selector, text, background, round(ratio, 2))


def _stroke(image) -> QColor:
    """The icon's colour: its most opaque pixel."""
    best = max(
        ((x, y) for x in range(image.width()) for y in range(image.height())),
        key=lambda point: image.pixelColor(*point).alpha(),
    )
    return image.pixelColor(*best)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_red_icons_read_on_their_buttons(qapp, scheme, look_back):
    """The red erase and stop icons of the danger buttons (Privacy's Erase, Delete, Forget
    conversation; Stop) at 3:1 at least on the button, as drawn in each scheme."""
    from app import theme
    from app.icons import pixmap

    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    sheet = qapp.styleSheet()
    for name, button in (("erase", "QPushButton#danger"), ("stop", "QPushButton#stopButton")):
        stroke = _stroke(pixmap(name, 20, "#B42318").toImage())
        assert stroke.alpha() == 255
        for state in (button, f"{button}:hover"):
            background = _rule(sheet, state)["background"]
            ratio = _contrast(stroke, background)
            assert ratio >= 3, (scheme, name, stroke.name(), background, round(ratio, 2))
            # and red stays red: the hue of the light design's red
            assert stroke.hslHue() < 15 or stroke.hslHue() > 345, stroke.name()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_send_and_stop_icons_read_on_their_buttons(qapp, scheme, look_back):
    """The composer's Send icon, also while Send is disabled (it was white on the pale
    disabled button, and near-black on the dark one once icons followed the scheme), and its
    Stop icon: 3:1 at least on the button."""
    from app import theme
    from app.composer import Composer

    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    sheet = qapp.styleSheet()
    composer = Composer()
    for button, selector, mode in (
        (composer.send_button, "QPushButton#sendButton", QIcon.Mode.Normal),
        (composer.send_button, "QPushButton#sendButton:disabled", QIcon.Mode.Disabled),
        (composer.stop_button, "QPushButton#stopButton", QIcon.Mode.Normal),
    ):
        stroke = _stroke(button.icon().pixmap(QSize(16, 16), 2.0, mode).toImage())
        background = _rule(sheet, selector)["background"]
        ratio = _contrast(stroke, background)
        assert ratio >= 3, (scheme, selector, stroke.name(), background, round(ratio, 2))
    composer.deleteLater()


def _grab(widget: QWidget):
    QApplication.processEvents()
    return widget.grab().toImage().scaled(widget.size())


def _luminances(image) -> np.ndarray:
    """WCAG's relative luminance of each pixel of a grab."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    row = image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8, count=row * image.height())
    rgb = raw.reshape(image.height(), row)[:, : image.width() * 3]
    rgb = rgb.reshape(image.height(), image.width(), 3) / 255.0
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def _largest_change(before, after) -> float:
    """The largest contrast ratio between two grabs of one widget, pixel by pixel: 1 where
    nothing changed."""
    one, other = _luminances(before), _luminances(after)
    if one.shape != other.shape:  # it changed size with the focus: plain to see
        return 21.0
    return float(((np.maximum(one, other) + 0.05) / (np.minimum(one, other) + 0.05)).max())


def _unmarked(qtbot, start: QWidget, limit: int = 80) -> list[str]:
    """Tab from `start` until focus comes back to it; the controls landed on that look the
    same with the focus as right after it left them (for `start`, which has no Tab stop
    inside the page)."""
    unmarked: list[str] = []
    for _ in range(limit):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        widget = QApplication.focusWidget()
        if widget is start:
            return unmarked
        name = f"{type(widget).__name__} {widget.objectName()}".strip()
        QApplication.processEvents()
        if not widget.isVisible():  # the focus on something not shown at all
            unmarked.append(f"{name} (hidden)")
            continue
        focused = _grab(widget)
        start.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(start.hasFocus)
        if _largest_change(focused, _grab(widget)) < 3:
            unmarked.append(name)
        widget.setFocus(Qt.FocusReason.TabFocusReason)  # on from there
        qtbot.waitUntil(widget.hasFocus)
    raise AssertionError(f"Tab did not come back in {limit} steps")


def test_tab_through_settings_lands_only_where_focus_shows(qtbot, qapp, window, look_back):
    """Settings → Model: a Tab stop on the page's scroll area showed nothing, a keyboard user
    was nowhere to be seen (Memory's too, with a memory open). On every page, every control
    Tab lands on looks different while it has the focus (dark scheme, where the marks were
    hardest to see)."""
    from app import theme

    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    dialog = window.open_settings()
    dialog.activateWindow()
    qtbot.waitExposed(dialog)
    assert dialog.memory_scroll.isEnabled()  # a memory is open: its fields take the focus
    bar = dialog.tabs.findChild(QTabBar)
    unmarked = {}
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        bar.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(bar.hasFocus)
        unmarked[dialog.tabs.tabText(index)] = _unmarked(qtbot, bar)
    assert unmarked == {page: [] for page in unmarked}
    dialog.pool.wait(5000)
