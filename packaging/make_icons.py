"""Render resources/icons/memoryos.svg into the Windows .ico and the macOS .icns (Qt, offscreen)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "resources" / "icons" / "memoryos.svg"
TARGETS = {HERE / "windows" / "memoryos.ico": "ICO", HERE / "macos" / "memoryos.icns": "ICNS"}


def render(size: int) -> object:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(SOURCE)).render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - needed
    for path, kind in TARGETS.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Qt's ico and icns writers store the one image given: 256 px, scaled down by the OS
        if not render(256).save(str(path), kind):  # type: ignore[attr-defined]
            print(f"could not write {path} ({kind} image writer missing?)", file=sys.stderr)
            return 1
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
