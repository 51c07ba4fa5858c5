"""Background work runs at a lower CPU priority than the window, so a busy laptop (the model
generating, consolidation, the embedder) never makes a repaint or a keystroke wait for a core.

Measured with `python -m app.bench_startup --only stall --why`: during the event loop's longest
stalls the GUI thread sat in Qt's event loop holding nothing while the model's decode, the
prompt warm-up and consolidation ran: it was waiting for a core, not for the GIL. Linux gives
each thread its own nice value (inherited by threads and processes it starts, so llama.cpp's
OpenMP threads and the embedder process follow); elsewhere this is a no-op.
"""

from __future__ import annotations

import os
import threading

BACKGROUND_NICE = 5  # above the window's; enough for the scheduler to run the window first


def lower_this_thread() -> None:
    """Give the calling (worker) thread BACKGROUND_NICE more than the main thread's nice."""
    lower_thread(threading.get_native_id())


def lower_background_threads() -> None:
    """Lower every Python thread except the main (GUI) thread: consolidation, warm-ups."""
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and thread.native_id is not None:
            lower_thread(thread.native_id)


def lower_thread(native_id: int) -> None:
    if not hasattr(os, "setpriority") or not _per_thread():
        return
    try:
        main = os.getpriority(os.PRIO_PROCESS, threading.main_thread().native_id or 0)
        target = min(19, main + BACKGROUND_NICE)
        if os.getpriority(os.PRIO_PROCESS, native_id) < target:
            os.setpriority(os.PRIO_PROCESS, native_id, target)
    except OSError:  # the thread has ended, or the system refuses: run at the usual priority
        pass


def _per_thread() -> bool:
    """Only Linux applies setpriority to a single thread id."""
    return os.uname().sysname == "Linux" if hasattr(os, "uname") else False
