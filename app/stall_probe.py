"""Find what stalls the event loop: a watchdog thread samples every thread's stack while the
GUI thread is late, so a stall names the code (ours, Qt's, a worker holding the GIL) behind it."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import Counter


class StallSampler:
    """Call `beat()` from a GUI timer; while no beat came for `late_ms`, stacks are sampled.

    Each sample records, per thread, the innermost frames of the stack. A thread that holds the
    GIL shows Python code at its top; the GUI thread shows what it runs (a slot, a Qt call) or
    where it waits. Sampling needs the GIL itself, so a sample taken late in a stall still
    names the thread that held it: the one whose stack moved on."""

    def __init__(self, late_ms: float = 20.0, every_ms: float = 2.0, depth: int = 6) -> None:
        self.late = late_ms / 1000
        self.every = every_ms / 1000
        self.depth = depth
        self.gui_thread = threading.get_ident()
        self.samples: Counter[str] = Counter()
        self.stalls = 0
        self._last = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stall-sampler", daemon=True)
        self._in_stall = False

    def start(self) -> None:
        self._last = time.perf_counter()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    def beat(self) -> None:
        self._last = time.perf_counter()
        self._in_stall = False

    def _watch(self) -> None:
        names = {}
        while not self._stop.wait(self.every):
            if time.perf_counter() - self._last < self.late:
                continue
            if not self._in_stall:
                self._in_stall = True
                self.stalls += 1
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                stack = traceback.extract_stack(frame)[-self.depth :]
                where = " < ".join(
                    f"{entry.name} ({entry.filename.rsplit('/', 2)[-1]}:{entry.lineno})"
                    for entry in reversed(stack)
                )
                who = "GUI" if ident == self.gui_thread else names.get(ident, str(ident))
                self.samples[f"[{who}] {where}"] += 1

    def report(self, top: int = 12) -> list[tuple[str, int]]:
        """The stacks seen most often during stalls, with their counts."""
        return self.samples.most_common(top)
