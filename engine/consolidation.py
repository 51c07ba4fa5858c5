"""Background consolidation: a dispatcher over the durable `jobs` table; the work of each job
kind lives in its memory tier.

`add_memory` enqueues PAGE_ADDED in the same transaction as the page, so a crash or quit loses
nothing and the next open resumes. LLM calls (capable models only) happen outside any
transaction; every write is one transaction with the job's completion.

    PAGE_ADDED       long_term.Persona.prepare/learn, then short_term.check_overflow
    STM_OVERFLOW     mid_term.overflow of short_term.leaving (placement, heat eviction, hot
                     segments queued)
    ANALYSE_SEGMENT  long_term.Persona.analyse_segment
    EMBED_TURNS      short_term.embed_turns
    LEARN_WORDS      vocabulary.learn_backlog
    FORGET_HELD      forgetting.forget_held (a restore's forgets, when a crash kept them from running)
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

from engine import errors
from engine.learned import learnable
from engine.memory import mid_term, short_term, vocabulary
from engine.memory.context import MemoryContext
from engine.memory.long_term import Persona
from engine.memory.model import ConsolidationModel
from engine.records import ConsolidationStatus, Job
from engine.vault.jobs import (
    ANALYSE_SEGMENT,
    EMBED_TURNS,
    FORGET_HELD,
    LEARN_WORDS,
    PAGE_ADDED,
    STM_OVERFLOW,
)

__all__ = [
    "ANALYSE_SEGMENT",
    "EMBED_TURNS",
    "LEARN_WORDS",
    "PAGE_ADDED",
    "STM_OVERFLOW",
    "Consolidator",
]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
# Errors of the environment, not of a job: the jobs wait (handed back untouched) and run again
# by themselves once it is fixed. Their class names are what status().paused_by says.
WAITS_OUT = (errors.VaultLockedError, errors.DiskFullError)


class Consolidator:
    """Runs consolidation jobs, in the caller's thread (`run_pending`) or a worker thread."""

    def __init__(self, ctx: MemoryContext, persona: Persona) -> None:
        self.ctx = ctx
        self.persona = persona
        self.model = ConsolidationModel(ctx, self._report)
        self.last_error: str | None = None
        self.paused_by = ""  # the class name of the error this process's jobs wait out
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._run_lock = threading.Lock()
        self._caught_up = False  # vocabulary.catch_up ran in this process
        # One job at a time, except PAGE_ADDED which runs in batches (one transaction).
        self._handlers: dict[str, Callable[[Job], None]] = {
            STM_OVERFLOW: lambda job: mid_term.overflow(ctx, self.model, job.id),
            ANALYSE_SEGMENT: self._analyse_segment,
            EMBED_TURNS: lambda job: short_term.embed_turns(ctx, job.id, int(job.payload["upto"])),
            LEARN_WORDS: lambda job: vocabulary.learn_backlog(
                ctx, job.id, int(job.payload["upto"])
            ),
            FORGET_HELD: self._forget_held,
        }

    @property
    def structured_stats(self):
        """Counts of the structured calls made so far (None before the first)."""
        return self.model.stats

    def status(self) -> ConsolidationStatus:
        """Jobs waiting or failed, whether the worker is busy, and what each tier holds."""
        vault = self.ctx.vault
        jobs, counts = vault.job_counts(), vault.counts()
        return ConsolidationStatus(
            pending_jobs=jobs.get("pending", 0) + jobs.get("running", 0),
            running=self.running,
            failed_jobs=jobs.get("failed", 0),
            last_error=self.last_error or vault.last_job_error(),
            paused_by=self.paused_by or vault.jobs_paused_by(),
            short_term_pages=counts["short"],
            mid_term_pages=counts["mid"] + counts["archived"],
            segments=counts["segments"],
            facts=counts["facts"],
            words=counts["words"],
            profile=counts["profile"],
        )

    def _report(self, message: str) -> None:
        self.last_error = message

    # ---- the worker ----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="memoryos-consolidation", daemon=True
            )
            self._thread.start()
            self.wake()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wake(self) -> None:
        self._idle.clear()
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and not self._idle.is_set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        if self._thread is None:
            return self.ctx.vault.job_counts().get("pending", 0) == 0
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self.wake()
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            time.sleep(0.01)
            if self._idle.wait(remaining) and self.ctx.vault.job_counts().get("pending", 0) == 0:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _loop(self) -> None:
        ran = 0  # jobs run since the worker was last idle
        failing: str | None = None  # what the last turn of the loop failed with, if it did
        while not self._stop.is_set():
            self._wake.wait(timeout=2.0)
            self._wake.clear()
            if self._stop.is_set():
                break
            self._idle.clear()
            try:
                self.ctx.flush_visits()
                ran += self.run_pending(stop=self._stop)
                if failing is not None:  # it ran again: what failed is over
                    if self.last_error == failing:
                        self.last_error = None
                        self.paused_by = ""
                    failing = None
                    ran += 1  # "jobs" is said: the status line said "consolidating" for good
            except Exception as exc:  # the worker must survive anything, and say what happened
                message = f"{type(exc).__name__}: {exc}"
                if message != failing:  # once, not every turn of the loop while it lasts
                    log.exception("consolidation failed")
                failing = self.last_error = message
                self.paused_by = type(exc).__name__ if isinstance(exc, WAITS_OUT) else ""
                ran += 1
                self._stop.wait(1.0)
            finally:
                if not self._wake.is_set():
                    self._idle.set()
                    if ran:
                        # The jobs' own events came while this worker was still busy: a status
                        # read on them said "consolidating", and nothing said otherwise after.
                        ran = 0
                        self.ctx.notify("jobs")

    # ---- dispatching jobs ----------------------------------------------------------------

    def run_pending(self, max_jobs: int | None = None, stop: threading.Event | None = None) -> int:
        """Run pending jobs until none is left (or max_jobs ran). Returns how many ran."""
        done = 0
        with self._run_lock:
            if not self._caught_up:  # once per vault: words of pages stored without them
                vocabulary.catch_up(self.ctx)
                self._caught_up = True
            while max_jobs is None or done < max_jobs:
                if stop is not None and stop.is_set():
                    break
                jobs = self.ctx.vault.pending_jobs(limit=64)
                if not jobs:
                    break
                if jobs[0].kind == PAGE_ADDED:
                    batch = [job for job in jobs if job.kind == PAGE_ADDED]
                    batch = batch[: max_jobs - done] if max_jobs is not None else batch
                    self._guard(batch, self._pages_added)
                    done += len(batch)
                else:
                    self._guard(jobs[:1], self._one_job)
                    done += 1
            self._retention()  # after the jobs: what old pages teach is learned first
        return done

    def _one_job(self, jobs: list[Job]) -> None:
        job = jobs[0]
        handler = self._handlers.get(job.kind)
        if handler is None:
            with self.ctx.vault.transaction():
                self.ctx.vault.fail_job(job.id, f"unknown job kind {job.kind}", True, time.time())
            return
        handler(job)

    def _guard(self, jobs: list[Job], action: Callable[[list[Job]], None]) -> None:
        """Claim the jobs, run them, and record a failure (retried up to MAX_ATTEMPTS)."""
        vault = self.ctx.vault
        claimed = set(vault.claim_jobs([job.id for job in jobs], time.time()))
        jobs = [job for job in jobs if job.id in claimed]
        if not jobs:
            return  # another process took them
        try:
            action(jobs)
            self.last_error = None
            self.paused_by = ""
        except Exception as exc:
            now = time.time()
            if isinstance(exc, WAITS_OUT):
                # the environment, not the job: hand it back untouched and retry later, with
                # which error it waits out (the status line says why, from the class, not
                # from words of the message)
                self.paused_by = type(exc).__name__
                with contextlib.suppress(Exception), vault.transaction():
                    for job in jobs:
                        vault.release_job(job.id, str(exc), now, self.paused_by)
                raise
            message = f"{jobs[0].kind} failed: {type(exc).__name__}: {exc}"
            self.last_error = message
            self.paused_by = ""
            log.exception("consolidation job failed")
            with vault.transaction():
                for job in jobs:
                    vault.fail_job(job.id, message, job.attempts + 1 >= MAX_ATTEMPTS, now)

    def _retention(self) -> None:
        """Forget what the retention policy says is too old (settings, or the admin policy)."""
        from engine.forgetting import apply_retention

        days, keep_facts = self.ctx.retention()
        if days > 0 and apply_retention(self.ctx, days, keep_facts, time.time()):
            for event in ("pages", "segments", "facts"):
                self.ctx.notify(event)

    # ---- the jobs whose work spans tiers ---------------------------------------------------

    def _pages_added(self, jobs: list[Job]) -> None:
        """New pages teach the persona (patterns, no LLM) and the vocabulary their new words;
        then the queue may overflow."""
        ctx = self.ctx
        pages = ctx.vault.pages([int(job.payload["page_id"]) for job in jobs])
        # embedded outside the write; a pasted message too long to have been read teaches none
        prepared = [self.persona.prepare(learnable(page)) for page in pages]
        words = vocabulary.prepare(ctx, pages)
        now = time.time()
        touched_facts = False
        with ctx.vault.transaction():
            # A forget may have come while they were embedded: a page gone teaches nothing
            # (what it taught would outlive the forget, with no exchange to forget it with).
            kept = set(ctx.vault.existing_page_ids([page.id for page in pages]))
            for learned in prepared:
                if learned.page_id in kept:
                    touched_facts = self.persona.learn(learned, now) > 0 or touched_facts
            added = vocabulary.store(ctx, words, pages)
            for job in jobs:
                ctx.vault.finish_job(job.id)
            short_term.check_overflow(ctx, now)
        ctx.word_mirror.add_many(added)
        if touched_facts:
            ctx.notify("facts")
        ctx.notify("jobs")

    def _forget_held(self, job: Job) -> None:
        """A restore's forgets that a crash kept from running (engine/restore.py)."""
        from engine.forgetting import forget_held

        forget_held(self.ctx, self.persona, [tuple(pair) for pair in job.payload["keys"]])
        with self.ctx.vault.transaction():
            self.ctx.vault.finish_job(job.id)
        for event in ("pages", "segments", "facts"):
            self.ctx.notify(event)

    def _analyse_segment(self, job: Job) -> None:
        taught = self.persona.analyse_segment(self.model, job.id, int(job.payload["segment_id"]))
        self.ctx.notify("segments")
        if taught:
            self.ctx.notify("facts")
