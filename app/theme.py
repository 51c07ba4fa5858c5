"""The look of the app: Fusion style (with a focus ring), a light or dark palette,
resources/style.qss and the app icon."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QPushButton, QStyle, QStyleFactory

ACCENT = "#4F5FE8"
MUTED = "#6B7280"
# Muted text on a tinted frame (a question's, a "Learned" notice's) and the times beside
# the speakers: MUTED a shade darker, 4.5:1 on those tints too (MUTED is 4.3:1 on a
# question's tint).
MUTED_ON_TINT = "#666D7A"
USER_TINT = "#EEF1FE"
TEXT = "#1F2329"
LEARNED = "#1F7A4D"  # "Learned: ..." notices
LEARNED_TINT = "#EDF7F1"
CODE_TINT = "#F3F4F6"  # code blocks
# Errors and "no: ..." verdicts: dark on the light scheme; color() makes it light enough to
# read on the dark one (the design's #B42318 stayed too dark there, about 2.6:1).
ERROR_RED = "#8B0000"
# The lightest surface text sits on in the dark scheme (the window is #1D1F22, a hovered button
# #212226): color() makes text light enough for 4.5:1 on it.
DARK_SURFACE = "#2A2C30"


# The look now: light or dark, and the text size (points); see apply_look.
SCHEMES = {"system": "Follow the system", "light": "Light", "dark": "Dark"}
BASE_SIZE = 10
MIN_SIZE, MAX_SIZE = 7, 20
dark = False
scale = 1.0
_LIGHT = {"ACCENT": ACCENT, "MUTED": MUTED, "USER_TINT": USER_TINT, "TEXT": TEXT}

# Where keyboard focus is: Fusion's focus box (drawn in the highlight colour) vanished on the
# dark scheme. FocusRing draws a ring in the control's text colour instead: it reads wherever
# the text does. A radio button's focus box is the whole button: a little room keeps the ring
# off its circle. A tool button takes focus from Tab only (never a click): its ring is a border
# while it has focus.
FOCUS_RULES = """
QRadioButton { padding: 2px 0 2px 3px; }
QToolButton:focus { border: 1px solid #1F2329; }
QFrame#banner QToolButton#bannerClose:focus { border: 1px solid #6B4A00; padding: 0 5px; }
"""
# Buttons whose own look in resources/style.qss wins over :default's solid accent
OWN_LOOK = {"primary", "sendButton", "danger", "dangerSolid", "stopButton", "bannerLink"}


class FocusRing(QProxyStyle):
    """Fusion, with the focus box a 2 px ring in the control's text colour. As Fusion's box, it
    shows once the keyboard moved focus in the window (Tab, a shortcut), not after a click."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802
        if element != QStyle.PrimitiveElement.PE_FrameFocusRect:
            super().drawPrimitive(element, option, painter, widget)
            return
        if not option.state & QStyle.StateFlag.State_KeyboardFocusChange:
            return
        ring = option.palette.color(QPalette.ColorRole.ButtonText)
        if isinstance(widget, QPushButton) and widget.isDefault():
            if widget.objectName() not in OWN_LOOK:  # solid accent, its text not in the palette
                ring = QColor(color("#FFFFFF"))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(ring, 2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(QRectF(option.rect).adjusted(1, 1, -1, -1), 3, 3)
        painter.restore()


def color(light: str, in_dark: bool | None = None) -> str:
    """A colour of the light design, as the current scheme shows it (or the dark one if
    `in_dark`, the light one if False).

    Dark: lightness mirrored (white surfaces become near-black, dark text light grey), hue and
    saturation kept; strong colours (accent, danger) stay bright enough to read on dark. A
    colour that reads on white (text, icons: 3:1 and more) keeps that contrast on the dark
    surfaces, up to 4.5:1 (WCAG AA for text)."""
    if not (dark if in_dark is None else in_dark):
        return light
    value = QColor(light)
    hue, saturation, lightness, alpha = value.getHslF()
    if saturation > 0.4 and 0.3 < lightness < 0.7:
        lightness = min(0.75, lightness + 0.12)
    else:
        if lightness > 0.85:  # pale tints become quiet dark surfaces, not deep saturated ones
            saturation *= 0.35
        lightness = 0.1 + 0.82 * (1.0 - lightness)
    hue = max(hue, 0.0)
    wanted = min(4.5, contrast(light, "#FFFFFF"))
    if wanted >= 3.0:  # text or an icon: lighter (same hue) until it reads on dark
        while lightness < 0.97 and contrast(_hsl(hue, saturation, lightness),
                                            DARK_SURFACE) < wanted:
            lightness += 0.01
    return _hsl(hue, saturation, lightness, alpha)


def _hsl(hue: float, saturation: float, lightness: float, alpha: float = 1.0) -> str:
    return QColor.fromHslF(hue, saturation, min(lightness, 1.0), alpha).name().upper()


def luminance(value: str) -> float:
    """WCAG's relative luminance of a colour (#RRGGBB): 0 black, 1 white."""
    shade = QColor(value)

    def channel(part: float) -> float:
        return part / 12.92 if part <= 0.04045 else ((part + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(shade.redF()) + 0.7152 * channel(shade.greenF())
            + 0.0722 * channel(shade.blueF()))


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two colours: 1 (the same) to 21 (black on white)."""
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def in_red(text: str) -> str:
    """`text` (HTML) in the error red of the current scheme."""
    return f"<span style='color:{color(ERROR_RED)}'>{text}</span>"


def points(size: float) -> float:
    """A point size of the design at the current text size."""
    return round(size * scale, 1)


def pixels(size: int) -> int:
    """A width or height of the design (pixels at the base text size) at the current text
    size: what holds text grows with it."""
    return round(size * scale)


def style_sheet() -> str:
    import re

    from engine.paths import resources_dir

    try:
        text = (resources_dir() / "style.qss").read_text(encoding="utf-8")
    except OSError:
        return ""  # a missing style sheet leaves Fusion's look: plain, but it works
    text = text.replace("@ICONS@", (resources_dir() / "icons").as_posix()) + FOCUS_RULES
    if dark:
        text = re.sub(r"#[0-9A-Fa-f]{6}\b", lambda m: color(m.group(0)), text)
    if scale != 1.0:
        text = re.sub(r"(\d+(?:\.\d+)?)pt", lambda m: f"{points(float(m.group(1)))}pt", text)
    return text


def system_is_dark() -> bool:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_look(app: QApplication, scheme: str = "system", text_size: int = BASE_SIZE) -> bool:
    """Switch to `scheme` ("system", "light", "dark") and a text size; True if it changed.
    Widgets drawn from the theme's colours (the conversation) must be drawn again."""
    global dark, scale
    want_dark = scheme == "dark" or (scheme == "system" and system_is_dark())
    want_scale = max(MIN_SIZE, min(MAX_SIZE, int(text_size))) / BASE_SIZE
    if want_dark == dark and want_scale == scale and app.property("memoryos_look"):
        return False
    dark, scale = want_dark, want_scale
    app.setProperty("memoryos_look", True)
    _palette(app)
    app.setStyleSheet(style_sheet())
    return True


def apply(app: QApplication) -> None:
    """Style the whole application once, before the first window is shown."""
    from app.icons import app_icon

    app.setApplicationName("MemoryOS")
    app.setApplicationDisplayName("MemoryOS")
    app.setOrganizationName("MemoryOS")
    app.setDesktopFileName("memoryos")
    global dark, scale
    dark, scale = False, 1.0  # the base look; apply_look switches scheme and size after
    app.setStyle(FocusRing(QStyleFactory.create("Fusion")))
    _palette(app)
    app.setStyleSheet(style_sheet())
    app.setProperty("memoryos_look", True)
    app.setWindowIcon(app_icon())


def _palette(app: QApplication) -> None:
    palette = QPalette()
    for role, light in (
        (QPalette.ColorRole.Window, "#F6F7F9"),
        (QPalette.ColorRole.Base, "#FFFFFF"),
        (QPalette.ColorRole.AlternateBase, "#FAFBFC"),
        (QPalette.ColorRole.Text, _LIGHT["TEXT"]),
        (QPalette.ColorRole.WindowText, _LIGHT["TEXT"]),
        (QPalette.ColorRole.ButtonText, _LIGHT["TEXT"]),
        (QPalette.ColorRole.Button, "#FFFFFF"),
        (QPalette.ColorRole.Highlight, "#C9D0FB"),
        (QPalette.ColorRole.HighlightedText, _LIGHT["TEXT"]),
        (QPalette.ColorRole.Link, _LIGHT["ACCENT"]),
        # muted, not a paler grey: "e.g. llama3.1:8b" is text to read (#9CA3AF was 2.5:1)
        (QPalette.ColorRole.PlaceholderText, _LIGHT["MUTED"]),
    ):
        palette.setColor(role, QColor(color(light)))
    app.setPalette(palette)
    font = QFont(app.font())
    font.setPointSizeF(points(BASE_SIZE))
    app.setFont(font)
