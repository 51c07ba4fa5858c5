"""`memoryos --self-test`: the headless engine checks plus the desktop window, opened and closed."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from engine.selftest import HEADLESS_CHECKS, Report, describe_environment, isolated_home

IMPORTED_AT = time.monotonic()
WINDOW_TIMEOUT_MS = 120_000
# Platform plugins a desktop session needs, and the one the self-test itself runs on.
QT_PLATFORMS = {"xcb": "libqxcb.so", "wayland": "libqwayland.so", "offscreen": "libqoffscreen.so"}
USAGE = """usage: memoryos --self-test [--only CHECK[,CHECK...]]
checks: window, qt, llama, sqlite-vec, embedder, vault, embedder-process, bundle (default: all)
exit status 0 when every check passes, 1 otherwise"""


def seconds_since_process_start() -> float:
    """Wall time since this process started (Linux: /proc), else since this module was imported."""
    try:
        stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return uptime - int(stat[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - IMPORTED_AT


def use_offscreen_without_display() -> None:
    """Qt's offscreen platform when there is no display (CI, ssh); a given choice is kept."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif os.environ.get("MEMORYOS_SELFTEST_ONSCREEN") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # don't flash a window on a desktop


def check_window(report: Report) -> str:
    """Start the app the way `memoryos` does, wait for the main window, grab it, close it."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app import desktop

    app = QApplication.instance() or QApplication(sys.argv[:1])
    seen: dict[str, Any] = {}

    def ready(window: Any) -> None:
        seen["after_start"] = seconds_since_process_start()
        seen["visible"] = window.isVisible()
        image = window.grab()  # forces a full paint: style sheet, icons, fonts
        seen["size"] = (image.width(), image.height())
        seen["blank"] = image.isNull()
        window.close()
        app.quit()

    def give_up() -> None:
        seen["timeout"] = True
        app.quit()

    QTimer.singleShot(WINDOW_TIMEOUT_MS, give_up)
    desktop.run(sys.argv[:1], on_ready=ready)
    if seen.get("timeout"):
        raise TimeoutError(f"the main window did not show within {WINDOW_TIMEOUT_MS // 1000} s")
    if not seen.get("visible") or seen.get("blank"):
        raise RuntimeError(f"the main window was not shown or painted nothing ({seen})")
    width, height = seen["size"]
    platform = QApplication.platformName()
    report.shared["window_after_start"] = seen["after_start"]
    return (
        f"shown {seen['after_start']:.2f} s after process start, painted {width}x{height}, "
        f"closed ({platform})"
    )


def check_qt_plugins(report: Report) -> str:
    """The Qt platform plugins a desktop needs are present (they load only on that desktop)."""
    from PySide6.QtCore import QLibraryInfo, qVersion

    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    missing = [name for name, file in QT_PLATFORMS.items() if not (folder / file).exists()]
    if sys.platform.startswith("linux") and missing:
        raise FileNotFoundError(f"Qt platform plugins missing from {folder}: {', '.join(missing)}")
    return f"Qt {qVersion()}, platform plugins {', '.join(sorted(QT_PLATFORMS))} in {folder}"


def check_embedder_process(report: Report) -> str:
    """The app embeds in a helper process (`memoryos --embedder-process` when frozen): start it,
    embed, compare with the in-process vectors, stop it."""
    from app.embedder_process import ProcessEmbedder, helper_command

    sentences = ["The cat sat on the mat.", "A kitten was lying on the rug."]
    embedder = ProcessEmbedder()
    try:
        embedder.load()
        rows = embedder.embed(sentences)
    finally:
        embedder.close()
    local = report.shared.get("embedder")
    if local is not None:
        agreement = float(rows[0] @ local.embed(sentences[:1])[0])
        if agreement < 0.999:
            raise RuntimeError(f"helper and in-process vectors differ (cos {agreement:.4f})")
        compared = f"same vectors as in-process (cos {agreement:.4f})"
    else:
        compared = f"cos related {float(rows[0] @ rows[1]):.2f}"
    command = " ".join([Path(helper_command()[0]).name, *helper_command()[1:]])
    return f"`{command}` answered: dim {rows.shape[1]}, {compared}"


GUI_CHECKS = [
    ("window", "main window", check_window),
    ("qt", "Qt platform plugins", check_qt_plugins),
]


def all_checks() -> list[tuple[str, str, Any]]:
    """Window first (its time is the cold start), the bundle check last (it sees all that loaded)."""
    headless = [check for check in HEADLESS_CHECKS if check[0] != "bundle"]
    last = [check for check in HEADLESS_CHECKS if check[0] == "bundle"]
    process = ("embedder-process", "embedder process", check_embedder_process)
    return GUI_CHECKS + headless + [process] + last


def parse_only(args: list[str]) -> set[str] | None:
    """The checks named after --only (None: all); raises ValueError on an unknown name."""
    names: set[str] = set()
    for index, arg in enumerate(args):
        if arg.startswith("--only="):
            names |= set(arg.split("=", 1)[1].split(","))
        elif arg == "--only" and index + 1 < len(args):
            names |= set(args[index + 1].split(","))
    known = {key for key, _, _ in all_checks()}
    unknown = names - known
    if unknown:
        raise ValueError(f"unknown check(s): {', '.join(sorted(unknown))}")
    return names or None


def main(argv: list[str] | None = None) -> int:
    """Run every check (or those named after --only), print the report, return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "-h" in args or "--help" in args:
        print(USAGE)
        return 0
    try:
        only = parse_only(args)
    except ValueError as exc:
        print(f"memoryos --self-test: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    use_offscreen_without_display()
    print(describe_environment(), flush=True)
    report = Report(echo=lambda line: print(line, flush=True))
    with isolated_home():
        for key, name, check in all_checks():
            if only is None or key in only:
                report.run(name, check)
    print(report.summary(), flush=True)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
