"""The durable consolidation job queue."""

from __future__ import annotations

import json
import os
import time

from engine.records import Job
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


# The kinds of consolidation job (engine/consolidation.py runs them).
PAGE_ADDED = "page_added"  # a page joined the short-term queue: learn from it
STM_OVERFLOW = "stm_overflow"  # pages leave the queue for segments (short_term.leaving)
ANALYSE_SEGMENT = "analyse_segment"  # a segment is hot: the persona analyses its pages
EMBED_TURNS = "embed_turns"  # schema step 0002's backfill of turn vectors
LEARN_WORDS = "learn_words"  # the vocabulary of pages stored before it (0007, a new embedder)
# a restore's forgets: what the export's memory forgot and this vault holds (payload: the forget
# records' kinds and one-way keys); queued with the restore, so a crash before they ran does
# not leave those items here
FORGET_HELD = "forget_held"

# Meta keys of the queue (no schema step: a vault without them reads as before). What kind of
# error handed jobs back to wait (an exception's class name: DiskFullError, VaultLockedError),
# until a job is done; and when a job was last done, which makes older errors of jobs still
# waiting no longer "the last error".
PAUSED_BY = "jobs_paused_by"
DONE_AT = "jobs_done_at"


class JobsMixin:
    """Jobs. Methods expect to run inside Vault."""

    # ---- jobs ----------------------------------------------------------------------------

    @_locked
    def enqueue(self, kind: str, payload: dict, now: float) -> int:
        self.conn.execute(
            "INSERT INTO jobs(kind, payload, created, updated) VALUES(?, ?, ?, ?)",
            (kind, json.dumps(payload), now, now),
        )
        return self.conn.last_insert_rowid()

    @_locked
    def has_pending(self, kind: str, payload: dict) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM jobs WHERE kind=? AND payload=? AND state='pending' LIMIT 1",
                (kind, json.dumps(payload)),
            ).fetchall()
        )

    @_locked
    def pending_jobs(self, limit: int = 100) -> list[Job]:
        return [
            Job(id=row[0], kind=row[1], payload=json.loads(row[2]), attempts=row[3])
            for row in self.conn.execute(
                "SELECT id, kind, payload, attempts FROM jobs WHERE state='pending' ORDER BY id LIMIT ?",
                (limit,),
            )
        ]

    @_locked
    def claim_jobs(self, job_ids: list[int], now: float) -> list[int]:
        """Mark pending jobs as ours (this process); returns the ids we got. Another process
        sharing the vault (the app and the MCP server) never runs the same job twice."""
        if not job_ids:
            return []
        with self.transaction():
            marks = _placeholders(job_ids)
            self.conn.execute(
                f"UPDATE jobs SET state='running', owner=?, updated=? WHERE state='pending' AND id IN ({marks})",
                [os.getpid(), now, *job_ids],
            )
            return [
                row[0]
                for row in self.conn.execute(
                    f"SELECT id FROM jobs WHERE state='running' AND owner=? AND id IN ({marks})",
                    [os.getpid(), *job_ids],
                )
            ]

    @_locked
    def release_orphaned_jobs(self) -> int:
        """Jobs claimed by a process that no longer runs (a crash, a kill) become pending again."""
        owners = [
            row[0]
            for row in self.conn.execute("SELECT DISTINCT owner FROM jobs WHERE state='running'")
        ]
        dead = [o for o in owners if o is None or o == os.getpid() or not _alive(int(o))]
        for owner in dead:
            if owner is None:
                self.conn.execute(
                    "UPDATE jobs SET state='pending' WHERE state='running' AND owner IS NULL"
                )
            else:
                self.conn.execute(
                    "UPDATE jobs SET state='pending', owner=NULL WHERE state='running' AND owner=?",
                    (owner,),
                )
        return len(dead)

    @_locked
    def finish_job(self, job_id: int) -> None:
        """A job done (inside its transaction): what paused the queue is over."""
        self.conn.execute("DELETE FROM jobs WHERE id=?", (job_id,))
        self.conn.execute("DELETE FROM meta WHERE key=?", (PAUSED_BY,))
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (DONE_AT, repr(time.time())),
        )

    @_locked
    def fail_job(self, job_id: int, error: str, give_up: bool, now: float) -> None:
        self.conn.execute(
            "UPDATE jobs SET attempts=attempts+1, error=?, updated=?, state=?, owner=NULL WHERE id=?",
            (error[:500], now, "failed" if give_up else "pending", job_id),
        )

    @_locked
    def release_job(self, job_id: int, error: str, now: float, cause: str = "") -> None:
        """Hand a claimed job back without counting an attempt (the disk or a lock failed);
        `cause`: the class name of the error, kept until a job is done (jobs_paused_by)."""
        self.conn.execute(
            "UPDATE jobs SET state='pending', owner=NULL, error=?, updated=? WHERE id=?",
            (error[:500], now, job_id),
        )
        if cause:
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES(?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (PAUSED_BY, cause),
            )

    @_locked
    def jobs_paused_by(self) -> str:
        """The class name of the error that handed jobs back to wait ("" if none did since
        the last job was done, or the vault is older than this record)."""
        rows = self.conn.execute("SELECT value FROM meta WHERE key=?", (PAUSED_BY,)).fetchall()
        return str(rows[0][0]) if rows else ""

    @_locked
    def job_counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())

    @_locked
    def last_job_error(self) -> str | None:
        """The newest error of a job that failed for good, or of one waiting to run again
        that no job has been done since (a job done after it shows the disk had room again,
        the lock came free: the disk-full message stayed "the last error" after that)."""
        done = self.conn.execute("SELECT value FROM meta WHERE key=?", (DONE_AT,)).fetchall()
        try:
            since = float(done[0][0]) if done else 0.0
        except (TypeError, ValueError):  # not a time: every error counts, as before
            since = 0.0
        rows = self.conn.execute(
            "SELECT error FROM jobs WHERE error IS NOT NULL AND (state='failed' OR updated > ?) "
            "ORDER BY updated DESC LIMIT 1",
            (since,),
        ).fetchall()
        return rows[0][0] if rows else None
