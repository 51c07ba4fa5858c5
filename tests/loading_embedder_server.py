"""Child process for tests/test_write_lock.py: an MCP server with the real tools over stdio, whose
embedding model is still loading (the bundled one takes 10-25 s on a busy two-core computer)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.mcp.tools import build_server

LONGEST_LOAD = 120.0  # seconds: a test that never says "loaded" does not leave this running


class LoadingEmbedder(HashEmbedder):
    """The fake embedder (384-d, as `memoryos mcp --embedder fake`) whose every call waits until
    the model has loaded: the file `loaded` in `folder`, made by the test. The file `loading`
    says a call is waiting."""

    def __init__(self, folder: Path) -> None:
        super().__init__(384)
        self.folder = folder

    def embed(self, texts: list[str], *, kind: str = "document"):
        (self.folder / "loading").touch()
        deadline = time.monotonic() + LONGEST_LOAD
        while not (self.folder / "loaded").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return super().embed(texts, kind=kind)


def main() -> None:
    vault, folder = Path(sys.argv[1]), Path(sys.argv[2])
    memory = MemoryOS.open(
        vault, passphrase=os.environ["MEMORYOS_PASSPHRASE"], embedder=LoadingEmbedder(folder)
    )
    try:
        build_server(memory, session_conversation=memory.new_conversation()).run("stdio")
    finally:
        memory.close()


if __name__ == "__main__":
    main()
