"""Small helpers shared by engine tests."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Made by tests/data/make_reference_data.py: the reference package (MemoryOS-BaiJia 0.1.1) run
# against a llama.cpp server with the bundled SmolLM2, on invented exchanges.
REFERENCE_MEMORY = ROOT / "tests" / "data" / "reference_memory"
# Made by tests/data/make_chroma_reference_data.py: the memoryos-chromadb variant's folder.
REFERENCE_CHROMA = ROOT / "tests" / "data" / "reference_chroma"


def raw_bytes(vault_path: Path) -> bytes:
    """The bytes of the vault file and its -wal/-shm companions, as they are on disk."""
    data = b""
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(f"{vault_path}{suffix}")
        if candidate.exists():
            data += candidate.read_bytes()
    return data


def run_cli(*args: str, home: Path, passphrase: str | None = "correct horse battery", stdin: str | bytes | None = None,
            timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m engine.cli ...` in a child process with its own home and passphrase."""
    env = dict(os.environ, MEMORYOS_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               **(env or {}))
    if passphrase is not None:
        env["MEMORYOS_PASSPHRASE"] = passphrase
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], input=data, capture_output=True,
                          env=env, cwd=ROOT, timeout=timeout)


def decrypted_bytes(path: Path, *, hexkey: str | None = None, passphrase: str | None = None,
                    scratch: Path) -> bytes:
    """The plaintext bytes of an encrypted vault (with its -wal merged in), read from a
    decrypted copy, so a test can search deleted-but-not-erased text inside pages."""
    import shutil

    import apsw

    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / f"{Path(path).name}.plain"
    for suffix in ("", "-wal"):
        source = Path(f"{path}{suffix}")
        target = Path(f"{copy}{suffix}")
        target.unlink(missing_ok=True)
        if source.exists():
            shutil.copyfile(source, target)
    from engine.vault import cipher

    conn = apsw.Connection(str(copy))
    # the same pinned cipher the vault uses: a passphrase is stretched more than a random key
    cipher.pin(conn, cipher.LEGACY_KDF_ITER if passphrase is None else cipher.PASSPHRASE_KDF_ITER)
    conn.execute(f"PRAGMA hexkey='{hexkey or cipher.as_hex(passphrase)}'")
    conn.execute("PRAGMA journal_mode=DELETE").fetchall()  # merges the WAL; rekey needs it
    conn.execute("PRAGMA rekey=''")  # an empty key decrypts the file in place
    conn.close()
    data = copy.read_bytes()
    assert data.startswith(b"SQLite format 3\x00"), "the copy was not decrypted"
    return data


def reference_copy(tmp_path: Path, name: str = "reference",
                   source: Path = REFERENCE_MEMORY) -> Path:
    """A copy of the reference MemoryOS's data folder (`source`: REFERENCE_MEMORY, or
    REFERENCE_CHROMA) at tmp_path/`name`, for a test to change or damage."""
    import shutil

    target = tmp_path / name
    shutil.copytree(source, target)
    return target


def steps_to_end(steps, progress: list | None = None):
    """Run an import's steps (a generator of (done, total) reports, as import_steps and the
    app's import_reference_steps are) to the end and return what they added; every report
    goes in `progress` when one is given."""
    while True:
        try:
            report = next(steps)
        except StopIteration as finished:
            return finished.value
        if progress is not None:
            progress.append(report)


def prompt_ids(retrieval) -> list[tuple[str, int]]:
    """The ids in a Retrieval, in the prompt's order, read straight from its fields."""
    recent = {p.id for p in retrieval.short_term}
    return (
        [("profile", s.id) for s in retrieval.profile]
        + [("fact", f.fact.id) for f in retrieval.facts]
        + [("knowledge", f.fact.id) for f in retrieval.knowledge]
        + [("exchange", p.page.id) for p in retrieval.pages if p.page.id not in recent]
        + [("exchange", p.id) for p in reversed(retrieval.short_term)]
    )


@asynccontextmanager
async def slow_loading_mcp(home: Path, tmp_path: Path):
    """`memoryos mcp` itself on a new vault, with an embedder whose load ends when the test
    makes the file `loaded` in tmp_path/model (tests/slow_loading_mcp_server.py): a client
    session, initialized while the model has not loaded, and that folder."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from tests.test_mcp_server import make_vault, server_env

    vault = make_vault(home)
    signals = tmp_path / "model"
    signals.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "tests" / "slow_loading_mcp_server.py"), str(vault), str(signals)],
        env=server_env(home),
        cwd=ROOT,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client, signals


def learn_from_import(memory, exchanges: list[tuple[str, str]]) -> list[int]:
    """Store (what the person said, when) as a transcript import does, then consolidate; the
    ids of the exchanges stored."""
    pages = [memory.add_memory(text, "Noted.", when, source="import") for text, when in exchanges]
    memory.run_consolidation()
    return [page.id for page in pages]


def current_facts(memory) -> list[str]:
    """The texts of the person's facts as they stand (those replaced left out)."""
    from engine.records import USER_FACT

    return [f.text for f in memory.facts(USER_FACT)]


def user_fact(memory, text: str):
    """The one fact about the person that reads `text`, replaced or not."""
    from engine.records import USER_FACT

    [found] = [f for f in memory.facts(USER_FACT, include_superseded=True) if f.text == text]
    return found


def open_fast(path, create: bool, passphrase: str | None, *, chat: bool = True):
    """What the app's vault opener does, with the fast fake models and no background thread
    (the GUI tests' `open_vault`): the real encrypted vault file, a HashEmbedder, a FakeChat."""
    from engine.api import MemoryOS
    from engine.backends.fake import FakeChat, HashEmbedder

    mem = MemoryOS.open(path, create=create, passphrase=passphrase, embedder=HashEmbedder(),
                        background=False)  # fmt: skip
    if chat:
        mem.set_chat(FakeChat())
    return mem


def pausing_chat():
    """A FakeChat whose stream stops after `pause_after` (a piece of its reply) until the test
    sets `go_on`, so a GUI test can look at an answer half written (`paused` is set then)."""
    import threading
    from dataclasses import dataclass, field

    from engine.backends.fake import FakeChat

    @dataclass
    class PausingChat(FakeChat):
        pause_after: str = ""
        paused: threading.Event = field(default_factory=threading.Event)
        go_on: threading.Event = field(default_factory=threading.Event)

        def _stream(self, messages, *, max_tokens, temperature):
            said = ""
            for chunk in super()._stream(messages, max_tokens=max_tokens,
                                         temperature=temperature):
                yield chunk
                said += chunk
                if self.pause_after and self.pause_after in said and not self.paused.is_set():
                    self.paused.set()
                    self.go_on.wait(10)

    return PausingChat()


def fill_disk(memory, spare: int = 0) -> None:
    """The vault may grow by `spare` pages at most: a write past that fails as a full disk."""
    with memory.vault._lock:
        pages = memory.vault.conn.execute("PRAGMA page_count").fetchall()[0][0]
        memory.vault.conn.execute(f"PRAGMA max_page_count={pages + spare}")


def free_disk(memory) -> None:
    """The vault may grow again (to SQLite's own limit), as after space was freed."""
    with memory.vault._lock:
        memory.vault.conn.execute("PRAGMA max_page_count=1073741823")


def entries(text: str) -> list[tuple[str, str, str]]:
    """The profile entries the person's words `text` fill, as (category, name, value)."""
    from engine.memory.persona_patterns import slots_said

    return [(s.category, s.name, s.value) for s in slots_said(text)]


def learn_exchanges(memory, exchanges) -> None:
    """Store each (what the person said, what was answered), then consolidate."""
    for said, answered in exchanges:
        memory.add_memory(said, answered)
    memory.run_consolidation()


def mcp_server_waiting(home: Path, vault: Path) -> subprocess.Popen:
    """`memoryos mcp` on `vault` in a child process, waiting for a client on its stdin."""
    from tests.test_mcp_server import server_env

    return subprocess.Popen(
        [sys.executable, "-m", "engine.mcp_server", "--vault-path", str(vault),
         "--embedder", "fake"],
        env=server_env(home), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
    )  # fmt: skip


def killed_while_streaming(script: str, *args: str) -> str:
    """tests/`script` run with `args`, SIGKILLed once it prints "streaming ...": that line."""
    import signal

    child = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / script), *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
    )  # fmt: skip
    try:
        line = child.stdout.readline()  # the first piece of the answer came
        assert line.startswith("streaming "), line
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
        child.stdout.close()
    return line


def import_into_a_new_vault(tmp_path: Path, home: Path, transcript: list):
    """`memoryos import --create` of `transcript` into `home`'s vault: the finished process."""
    import json

    path = tmp_path / "chat.json"
    path.write_text(json.dumps(transcript), encoding="utf-8")
    return run_cli("import", str(path), "--create", "--embedder", "fake", home=home)
