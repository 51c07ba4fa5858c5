"""Build the frozen MemoryOS app, prove it runs, pack the Linux tar.gz and report the sizes."""

from __future__ import annotations

import argparse
import os
import platform
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import manifest  # noqa: E402 - lives next to this script, not in an installed package

DEFAULT_BUILD_DIR = Path(os.environ.get("MEMORYOS_BUILD_DIR", "/tmp/memoryos-build"))
MB = 1_000_000


def log(text: str) -> None:
    print(f"[build] {text}", flush=True)


def ensure_pyinstaller() -> None:
    """Install PyInstaller into this venv if missing (it is in pyproject's `package` extra)."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        log("PyInstaller is missing: installing it into this venv")
        subprocess.run([sys.executable, "-m", "pip", "install", "pyinstaller>=6.10"], check=True)


def build(build_dir: Path) -> float:
    """Run PyInstaller on packaging/memoryos.spec; returns the seconds it took."""
    ensure_pyinstaller()
    start = time.monotonic()
    subprocess.run(
        [
            sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
            "--log-level", os.environ.get("MEMORYOS_PYINSTALLER_LOG", "WARN"),
            "--workpath", str(build_dir / "work"), "--distpath", str(build_dir / "dist"),
            str(HERE / "memoryos.spec"),
        ],
        cwd=ROOT, check=True,
    )  # fmt: skip
    return time.monotonic() - start


def clean_env(home: Path) -> dict[str, str]:
    """An environment without the venv or the source tree: what a person's machine gives."""
    if sys.platform.startswith("linux"):
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    else:  # Windows and macOS need their system variables (SYSTEMROOT, ...): drop Python's
        unwanted = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX")
        env = {k: v for k, v in os.environ.items() if k not in unwanted}
    env.update(HOME=str(home), MEMORYOS_HOME=str(home / "memoryos"), QT_QPA_PLATFORM="offscreen")
    for name in ("TMPDIR", "MEMORYOS_SELFTEST_TRACEBACK"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def executable(app_dir: Path) -> Path:
    return app_dir / (f"{manifest.APP_NAME}.exe" if sys.platform == "win32" else manifest.APP_NAME)


def self_test(app_dir: Path, *extra: str) -> tuple[int, str]:
    """Run the frozen `memoryos --self-test` in a clean environment, from another folder."""
    with tempfile.TemporaryDirectory(prefix="memoryos-frozen-home-") as home:
        done = subprocess.run(
            [str(executable(app_dir)), "--self-test", *extra],
            cwd=home,
            env=clean_env(Path(home)),
            capture_output=True,
            text=True,
            timeout=900,
        )
    return done.returncode, done.stdout + done.stderr


def smoke(app_dir: Path, seconds: float = 8.0) -> tuple[bool, str]:
    """The README's first command, `memoryos`: the app must start and still be up after a while."""
    with tempfile.TemporaryDirectory(prefix="memoryos-frozen-home-") as home:
        process = subprocess.Popen(
            [str(executable(app_dir))], cwd=home, env=clean_env(Path(home)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            process.wait(timeout=seconds)
            alive = False
        except subprocess.TimeoutExpired:
            alive = True
            process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    ok = alive and "Traceback" not in output
    return ok, f"still running after {seconds:.0f} s: {alive}; exit {process.returncode}\n{output}"


def cli_help(app_dir: Path) -> tuple[bool, str]:
    """`memoryos --help` goes through the terminal CLI: it must answer and exit 0."""
    with tempfile.TemporaryDirectory(prefix="memoryos-frozen-home-") as home:
        done = subprocess.run(
            [str(executable(app_dir)), "--help"], cwd=home, env=clean_env(Path(home)),
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    return done.returncode == 0, done.stdout + done.stderr


def archive_name() -> str:
    machine = platform.machine().lower() or "x86_64"
    return f"{manifest.APP_NAME}-{manifest.version()}-linux-{machine}.tar.gz"


def make_archive(app_dir: Path, out_dir: Path) -> Path:
    """memoryos-<version>-linux-<arch>.tar.gz: the app folder, a .desktop file, the icon."""
    linux = HERE / "linux"
    extras = {
        "memoryos.desktop": linux / "memoryos.desktop",
        "memoryos.svg": ROOT / "resources" / "icons" / "memoryos.svg",
        "install-desktop-entry.sh": linux / "install-desktop-entry.sh",
        "README.txt": linux / "README.txt",
    }
    path = out_dir / archive_name()
    top = f"{manifest.APP_NAME}-{manifest.version()}"
    with tarfile.open(path, "w:gz", compresslevel=6) as tar:
        tar.add(app_dir, arcname=f"{top}/{manifest.APP_NAME}")
        for name, source in extras.items():
            tar.add(source, arcname=f"{top}/{name}")
    return path


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def size_report(app_dir: Path, top: int = 10) -> str:
    """The biggest files, and the biggest top-level entries of _internal/, in MB."""
    internal = app_dir / "_internal"
    files = sorted(
        (
            (p.stat().st_size, p.relative_to(app_dir))
            for p in app_dir.rglob("*")
            if p.is_file() and not p.is_symlink()
        ),
        reverse=True,
    )
    entries = sorted(
        (
            (tree_size(p) if p.is_dir() else p.stat().st_size, p.name)
            for p in internal.iterdir()
            if not p.is_symlink()
        ),
        reverse=True,
    )
    lines = [f"top {top} files:"]
    lines += [f"  {size / MB:8.1f} MB  {name}" for size, name in files[:top]]
    lines.append(f"top {top} entries of _internal/:")
    lines += [f"  {size / MB:8.1f} MB  {name}" for size, name in entries[:top]]
    return "\n".join(lines)


def shown_after(output: str) -> float | None:
    """The seconds in the self-test's 'main window ... shown N s after process start' line."""
    for line in output.splitlines():
        if "main window" in line and "shown " in line:
            return float(line.split("shown ", 1)[1].split()[0])
    return None


def cold_start(app_dir: Path, runs: int = 3) -> str:
    """Seconds from process start to the shown main window: frozen app vs source install."""
    frozen, source = [], []
    for _ in range(runs):
        frozen.append(shown_after(self_test(app_dir, "--only", "window")[1]))
        with tempfile.TemporaryDirectory(prefix="memoryos-source-home-") as home:
            env = dict(os.environ, MEMORYOS_HOME=home, QT_QPA_PLATFORM="offscreen")
            done = subprocess.run(
                [sys.executable, "-m", "app.launcher", "--self-test", "--only", "window"],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
            )  # fmt: skip
        source.append(shown_after(done.stdout))

    def show(values: list[float | None]) -> str:
        return ", ".join("failed" if v is None else f"{v:.2f}" for v in values) + " s"

    return f"cold start to window ({runs} runs): frozen {show(frozen)}; source {show(source)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD_DIR)
    parser.add_argument("--skip-build", action="store_true", help="check and pack the last build")
    parser.add_argument("--no-archive", action="store_true")
    parser.add_argument("--smoke-seconds", type=float, default=8.0)
    args = parser.parse_args(argv)
    build_dir = args.build_dir.resolve()
    app_dir = build_dir / "dist" / manifest.APP_NAME
    report = [f"MemoryOS {manifest.version()} build in {build_dir}"]
    if not args.skip_build:
        seconds = build(build_dir)
        report.append(f"build time: {seconds / 60:.1f} min ({seconds:.0f} s)")
    code, output = self_test(app_dir)
    log(f"frozen --self-test (exit {code}):\n{output}")
    smoke_ok, smoke_output = smoke(app_dir, args.smoke_seconds)
    log(f"frozen `memoryos` (offscreen): {'OK' if smoke_ok else 'FAIL'}; {smoke_output}")
    help_ok, help_output = cli_help(app_dir)
    log(f"frozen `memoryos --help`: {'OK' if help_ok else 'FAIL'}\n{help_output[:600]}")
    report.append(f"folder size: {tree_size(app_dir) / MB:.0f} MB ({app_dir})")
    if not args.no_archive:
        start = time.monotonic()
        archive = make_archive(app_dir, build_dir)
        report.append(
            f"archive: {archive.stat().st_size / MB:.0f} MB ({archive}, "
            f"{time.monotonic() - start:.0f} s to compress)"
        )
    report.append(cold_start(app_dir))
    report.append(size_report(app_dir))
    report.append(
        f"self-test: {'PASSED' if code == 0 else 'FAILED'}; app start: "
        f"{'OK' if smoke_ok else 'FAIL'}; CLI: {'OK' if help_ok else 'FAIL'}"
    )
    text = "\n".join(report)
    (build_dir / "build-report.txt").write_text(text + "\n", encoding="utf-8")
    print(text, flush=True)
    return 0 if code == 0 and smoke_ok and help_ok else 1


if __name__ == "__main__":
    sys.exit(main())
