"""The look of the app: Fusion style, a light palette, resources/style.qss and the app icon."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

ACCENT = "#4F5FE8"
MUTED = "#6B7280"
USER_TINT = "#EEF1FE"
TEXT = "#1F2329"
LEARNED = "#1F7A4D"  # "Learned: ..." notices
LEARNED_TINT = "#EDF7F1"
CODE_TINT = "#F3F4F6"  # code blocks


def style_sheet() -> str:
    from engine.paths import resources_dir

    try:
        text = (resources_dir() / "style.qss").read_text(encoding="utf-8")
    except OSError:
        return ""  # a missing style sheet leaves Fusion's look: plain, but it works
    return text.replace("@ICONS@", (resources_dir() / "icons").as_posix())


def apply(app: QApplication) -> None:
    """Style the whole application once, before the first window is shown."""
    from app.icons import app_icon

    app.setApplicationName("MemoryOS")
    app.setApplicationDisplayName("MemoryOS")
    app.setOrganizationName("MemoryOS")
    app.setDesktopFileName("memoryos")
    app.setStyle("Fusion")
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#F6F7F9"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#FFFFFF"))
    palette.setColor(QPalette.ColorRole.AlternateBase, QColor("#FAFBFC"))
    palette.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.Button, QColor("#FFFFFF"))
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#C9D0FB"))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.Link, QColor(ACCENT))
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor("#9CA3AF"))
    app.setPalette(palette)
    font = QFont(app.font())
    font.setPointSizeF(10)
    app.setFont(font)
    app.setStyleSheet(style_sheet())
    app.setWindowIcon(app_icon())
