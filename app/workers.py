"""Thread-pool workers (superqt style): run a function or generator off the GUI thread.

A worker forwards each yielded chunk as a signal, checks for cancellation between chunks and
reports its result or error as signals. Signals are the only way out: workers never touch
widgets. The pool keeps a reference to every worker until it has finished.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Generator
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from shiboken6 import isValid

from app.priority import lower_background_threads, lower_this_thread


class WorkerSignals(QObject):
    """What a worker reports; emitted from the pool thread, delivered queued to receivers."""

    yielded = Signal(object)  # one chunk from a generator function
    progress = Signal(float, str)  # fraction in [0, 1], a short label
    returned = Signal(object)  # the function's return value (a generator's StopIteration value)
    errored = Signal(object)  # the exception instance
    finished = Signal()  # always last


class Worker(QRunnable):
    """Run `fn(*args, **kwargs)` in a pool thread; generator functions are drained chunk by chunk.

    With `progress=True` the function gets a `progress(fraction, label)` keyword argument.
    `stop_on_cancel=False` keeps draining after `cancel()` (for generators that stop themselves,
    e.g. a ResponseStream given its own CancelToken, so it can store the partial answer).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        progress: bool = False,
        stop_on_cancel: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python owns it; the pool keeps the reference
        self.signals = WorkerSignals()
        self._fn = fn
        self._args = args
        self._kwargs = dict(kwargs)
        if progress:
            self._kwargs["progress"] = self.report_progress
        self._stop_on_cancel = stop_on_cancel
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._cancel_hooks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def on_cancel(self, hook: Callable[[], None]) -> None:
        """Also call `hook` when cancelled (e.g. a CancelToken's cancel)."""
        self._cancel_hooks.append(hook)

    def cancel(self) -> None:
        self._cancel.set()
        for hook in self._cancel_hooks:
            hook()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker has finished (for shutdown only, never in normal GUI flow)."""
        return self._done.wait(timeout)

    def report_progress(self, fraction: float, label: str = "") -> None:
        self.signals.progress.emit(max(0.0, min(1.0, float(fraction))), str(label))

    def run(self) -> None:
        lower_this_thread()  # below the window: it must never wait for a core behind us
        lower_background_threads()  # consolidation and warm-ups too
        try:
            result = self._fn(*self._args, **self._kwargs)
            if inspect.isgenerator(result):
                result = self._drain(result)
        except Exception as error:  # every failure becomes a signal, never a crash
            self.signals.errored.emit(error)
        else:
            self.signals.returned.emit(result)
        finally:
            self._done.set()
            self.signals.finished.emit()

    def _drain(self, generator: Generator[Any, None, Any]) -> Any:
        while True:
            if self._stop_on_cancel and self.cancelled:
                generator.close()
                return None
            try:
                chunk = next(generator)
            except StopIteration as stop:
                return stop.value
            self.signals.yielded.emit(chunk)


def while_open(owner: QObject, receive: Callable[..., Any]) -> Callable[..., None]:
    """`receive`, called only while `owner` (a panel or dialog) still exists.

    Work started from a panel can finish after the panel closed and was deleted: its result
    then has no widgets to write to, and writing raised "Internal C++ object already deleted".
    The work itself is done; the rest of the window hears of it from the engine's change
    events. A bound method of the panel needs no guard (Qt drops that connection with the
    object); a lambda or a nested function does.
    """

    def call(*args: Any) -> None:
        if isValid(owner):
            receive(*args)

    return call


class WorkerPool(QObject):
    """A QThreadPool that keeps each worker alive until its `finished` signal arrives."""

    def __init__(self, max_threads: int = 4, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._active: dict[int, Worker] = {}

    def start(self, worker: Worker) -> Worker:
        self._active[id(worker)] = worker
        worker.signals.finished.connect(partial(self._forget, id(worker)))
        self._pool.start(worker)
        return worker

    def run(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        **kwargs: Any,
    ) -> Worker:
        """Run a plain function in the pool and deliver its result or error to callbacks."""
        worker = Worker(fn, *args, **kwargs)
        if on_result is not None:
            worker.signals.returned.connect(on_result)
        if on_error is not None:
            worker.signals.errored.connect(on_error)
        return self.start(worker)

    @property
    def active(self) -> list[Worker]:
        return list(self._active.values())

    def cancel_all(self) -> None:
        for worker in self.active:
            worker.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Wait for every running worker (shutdown only)."""
        return self._pool.waitForDone(msecs)

    def _forget(self, key: int) -> None:
        self._active.pop(key, None)
