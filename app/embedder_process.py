"""The sentence embedder in a helper process, so loading torch never freezes the window.

Python threads share one GIL: importing torch and building the model hold it for seconds at a
time (measured: 0.5-2 s stalls of the GUI event loop), which no worker thread can avoid. The
helper process loads the bundled model and answers embed() calls over a pipe.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading

import numpy as np

from engine.backends.base import Embedder, Progress
from engine.errors import BackendError, ModelLoadError


def helper_command() -> list[str]:
    """How to start the helper: this interpreter, or the frozen app with a hidden flag."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--embedder-process"]
    return [sys.executable, "-m", "app.embedder_process"]


class _AppGone(Exception):
    """The app reading the replies has gone (it quit while memory was being built)."""


def serve(model_path: str | None = None) -> int:
    """The helper process: load the model once, then answer pickled requests on stdin/stdout."""
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the libraries print goes to stderr, never into the protocol
    from engine.backends.build import make_embedder

    def reply(message: tuple) -> None:
        try:
            pickle.dump(message, replies, protocol=pickle.HIGHEST_PROTOCOL)
            replies.flush()
        except OSError as error:  # a broken pipe: nobody to answer or to tell
            # What is still buffered goes nowhere: flushed at exit, it printed a traceback.
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, replies.fileno())
            os.close(quiet)
            raise _AppGone from error

    try:
        try:
            embedder = make_embedder(model_path)
            embedder.load()
        except Exception as error:  # reported to the app, which shows it
            reply(("error", f"{type(error).__name__}: {error}"))
            return 1
        reply(("ready", embedder.dimension))
        while True:
            try:
                request = pickle.load(requests)
            except (EOFError, OSError, pickle.UnpicklingError):  # the app has gone
                return 0
            if request[0] == "stop":
                return 0
            try:
                vectors = embedder.embed(request[1], kind=request[2])
            except Exception as error:
                reply(("error", f"{type(error).__name__}: {error}"))
                continue
            reply(("ok", vectors))
    except _AppGone:  # the app quit meanwhile: the helper ends quietly
        return 0


class ProcessEmbedder(Embedder):
    """Same model id, dimension and vectors as SentenceTransformerEmbedder; runs elsewhere."""

    def __init__(self, model_path: str | None = None) -> None:
        from engine.backends.build import make_embedder

        local = make_embedder(model_path)  # checks the folder, reads config files only: no torch
        self.model_id = local.model_id
        self.dimension = local.dimension
        self._model_path = model_path
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._starting: subprocess.Popen | None = None
        self._failed: str | None = None

    @property
    def loaded(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def load(self, progress: Progress | None = None) -> None:
        with self._lock:
            self._start(progress)

    def _start(self, progress: Progress | None = None) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        if self._failed:
            raise ModelLoadError(self._failed)
        if progress:
            progress(0.0, "starting the embedding model")
        command = helper_command()
        if self._model_path:
            command += ["--model", str(self._model_path)]
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
        env.pop("MEMORYOS_PASSPHRASE", None)  # a secret the helper has no use for
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self._starting = process
        try:
            status, value = pickle.load(process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            status, value = "error", f"the embedding process exited (code {process.wait()})"
        finally:
            self._starting = None
        if status != "ready":
            self._failed = f"Cannot load the embedding model {self.model_id}: {value}"
            _stop(process)
            raise ModelLoadError(self._failed)
        self.dimension = int(value) or self.dimension
        self._process = process
        if progress:
            progress(1.0, "ready")

    def _ask(self, request: tuple) -> tuple:
        pickle.dump(request, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self._process.stdin.flush()
        return pickle.load(self._process.stdout)

    def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        if kind not in ("document", "query"):
            raise ValueError(f"kind must be 'document' or 'query', not {kind!r}")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            self._start()
            try:
                status, value = self._ask(("embed", list(texts), kind))
            except (EOFError, OSError, pickle.UnpicklingError) as error:
                _stop(self._process)  # restarted by the next call
                raise BackendError(f"the embedding process stopped: {error}") from error
        if status != "ok":
            raise BackendError(f"embedding failed: {value}")
        return np.ascontiguousarray(value, dtype=np.float32)

    def abort_start(self) -> None:
        """Kill a helper that is still loading (quitting must not wait for torch)."""
        starting = self._starting
        if starting is not None and starting.poll() is None:
            starting.kill()

    def close(self) -> None:
        """Stop the helper process. It holds no state, and a Python exit with torch loaded takes
        seconds, so it is simply killed."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """Kill the helper and release its pipes (an open pipe outlives the process otherwise)."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout):
        try:
            pipe.close()
        except OSError:
            pass


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(serve(arguments[1] if arguments[:1] == ["--model"] else None))
