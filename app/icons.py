"""Icons drawn for MemoryOS (resources/icons/*.svg), optionally tinted, rendered crisp at any size."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

BASE_COLOR = "#374151"  # the stroke colour the SVG files are drawn with


def icons_dir() -> Path:
    from engine.paths import resources_dir

    return resources_dir() / "icons"


@cache
def _svg(name: str) -> str:
    return (icons_dir() / f"{name}.svg").read_text(encoding="utf-8")


def pixmap(name: str, size: int = 20, color: str | None = None, ratio: float = 2.0) -> QPixmap:
    """Render icon `name` at `size` logical pixels, tinted with `color` if given: a colour of
    the light design, drawn as the current scheme shows it (theme.color: the red of "Erase",
    dark on white, reads on the dark scheme's near-black too)."""
    from app import theme

    text = _svg(name)
    if color:
        text = text.replace(BASE_COLOR, theme.color(color))
    renderer = QSvgRenderer(QByteArray(text.encode("utf-8")))
    image = QPixmap(int(size * ratio), int(size * ratio))
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size * ratio, size * ratio))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return image


def icon(name: str, color: str | None = None, disabled_color: str | None = None) -> QIcon:
    """A QIcon; untinted icons render lazily from the SVG file (fast start), tinted ones now."""
    if color is None:
        return QIcon(str(icons_dir() / f"{name}.svg"))
    result = QIcon()
    for size in (16, 20):
        result.addPixmap(pixmap(name, size, color), QIcon.Mode.Normal)
        if disabled_color:
            result.addPixmap(pixmap(name, size, disabled_color), QIcon.Mode.Disabled)
    return result


def themed(name: str) -> QIcon:
    """Icon `name` in the stroke colour of the current scheme (dark grey reads as nothing on a
    dark background)."""
    from app import theme

    return icon(name, BASE_COLOR) if theme.dark else icon(name)  # pixmap() adapts the colour


def app_icon() -> QIcon:
    """The application icon (rendered lazily by Qt's SVG icon engine)."""
    return QIcon(str(icons_dir() / "memoryos.svg"))
