"""Child process for tests/test_mcp_startup.py: `memoryos mcp` itself (engine.mcp_server.main)
whose embedding model loads only when the test says so, as the bundled one takes 10-30 s."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine import mcp_server
from engine.backends.fake import HashEmbedder

LONGEST_LOAD = 120.0  # seconds: a test that never says "loaded" does not leave this running


def _wait_for(file: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return file.exists()


class SlowLoadingEmbedder(HashEmbedder):
    """The fake embedder (384-d, as `--embedder fake`) whose load, like the real one's, is
    done once and blocks every embedding until then: it writes `loading` in `folder` when it
    starts and ends when the test makes the file `loaded` there."""

    def __init__(self, folder: Path) -> None:
        super().__init__(384)
        self.folder = folder
        self.done = False

    def load(self, progress=None) -> None:
        (self.folder / "loading").touch()
        self.done = _wait_for(self.folder / "loaded", LONGEST_LOAD)

    def embed(self, texts: list[str], *, kind: str = "document"):
        if not self.done:
            self.load()
        return super().embed(texts, kind=kind)


def main() -> int:
    vault, folder = Path(sys.argv[1]), Path(sys.argv[2])
    mcp_server.make_embedder = lambda name: SlowLoadingEmbedder(folder)
    more = sys.argv[3:]  # further options, e.g. --compat reference
    return mcp_server.main(["--vault-path", str(vault), "--embedder", "fake", *more])


if __name__ == "__main__":
    sys.exit(main())
