"""Shared fixtures: a fresh home folder, an in-memory keyring and fast fake backends per test."""

from __future__ import annotations

import atexit
import os

import keyring
import keyring.backend
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _close_llama_devnull() -> None:
    """llama-cpp-python opens os.devnull twice at import and never closes it (llama_cpp/_utils.py,
    outnull_file / errnull_file), so every run ended with two "Exception ignored ...
    ResourceWarning: unclosed file" under its summary. It uses them only while loading a model
    (suppress_stdout_stderr), never when one is freed: at exit they are closed."""
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        if utils is not None and hasattr(getattr(utils, name, None), "close"):
            getattr(utils, name).close()


atexit.register(_close_llama_devnull)


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that lives in a dict (the machines running tests have only the fail backend)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self.secrets:
            raise PasswordDeleteError("not found")
        del self.secrets[(service, username)]


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """Every test gets its own MEMORYOS_HOME (vaults, settings, cache) in a temp folder."""
    folder = tmp_path / "home"
    monkeypatch.setenv("MEMORYOS_HOME", str(folder))
    # no administrator's policy unless a test writes one (a machine's /etc file must not leak in)
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(folder / "no-policy.json"))
    return folder


# pytest-qt waits 5 s unless told otherwise. On the 2-core CI machine under load, a worker's
# read can queue behind the embedding model's first load (10-30 s): one CI run failed a test
# at that 5 s. A condition met returns at once, so only a wait that fails takes longer.
PATIENT_MS = 20_000


@pytest.fixture
def qtbot(qtbot):
    """pytest-qt's qtbot, whose waitUntil and waitSignal wait up to PATIENT_MS by default."""
    wait_until, wait_signal = qtbot.waitUntil, qtbot.waitSignal

    def patient_until(callback, *, timeout=PATIENT_MS):
        return wait_until(callback, timeout=timeout)

    def patient_signal(signal, *, timeout=PATIENT_MS, **options):
        return wait_signal(signal, timeout=timeout, **options)

    qtbot.waitUntil, qtbot.waitSignal = patient_until, patient_signal
    _nothing_held()
    return qtbot


def _nothing_held() -> None:
    """Each test starts with no modifier key held as Qt believes it. QTest's Ctrl+key click
    leaves Ctrl "held" (the application keeps the modifiers of the last key event), so in a
    later test a list's setCurrentItem toggled its row off instead of selecting it (a CI order
    failed so). A key release without modifiers, to a widget never shown, sets them back."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    if QApplication.keyboardModifiers() != Qt.KeyboardModifier.NoModifier:
        widget = QWidget()
        QTest.keyRelease(widget, Qt.Key.Key_Control)
        widget.deleteLater()


@pytest.fixture(autouse=True)
def no_system_keyring(monkeypatch):
    """No test reads or writes the real keyring of the machine it runs on, nor sees what another
    test stored: the `fail` backend unless the test asks for `memory_keyring`. Child processes
    get the same through the environment."""
    from keyring.backends import fail

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring():
    """Install an in-memory keyring for the test, restore the previous backend after."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def fail_keyring():
    """The headless-Linux situation: only the `fail` backend."""
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def embedder():
    from engine.backends.fake import HashEmbedder

    return HashEmbedder()


@pytest.fixture
def chat():
    from engine.backends.fake import FakeChat

    return FakeChat()


@pytest.fixture
def minilm_memory(tmp_path, memory_keyring, chat):
    """A fresh vault with the bundled all-MiniLM-L6-v2: real sentence and word vectors."""
    from engine.api import MemoryOS
    from engine.backends.embedder import SentenceTransformerEmbedder

    mem = MemoryOS.open(tmp_path / "minilm.memoryos", create=True,
                        embedder=SentenceTransformerEmbedder(), chat=chat, background=False)
    yield mem
    mem.close()


@pytest.fixture
def memory(tmp_path, memory_keyring, embedder, chat):
    """A fresh vault with fake backends; consolidation runs only when the test asks."""
    from engine.api import MemoryOS

    mem = MemoryOS.open(tmp_path / "vault.memoryos", create=True, embedder=embedder, chat=chat,
                        background=False)
    yield mem
    mem.close()


@pytest.fixture
def spied(monkeypatch):
    """Every Retrieval the prompt builder receives (the Remembered list must equal it)."""
    from engine import answer

    received = []
    original = answer.build_messages

    def spy(retrieval, query, *args, **kwargs):
        received.append(retrieval)
        return original(retrieval, query, *args, **kwargs)

    monkeypatch.setattr(answer, "build_messages", spy)
    return received
