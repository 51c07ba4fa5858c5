"""The durable consolidation job queue."""

from __future__ import annotations

import json

from engine.vault.sql import locked as _locked


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
    def pending_jobs(self, limit: int = 100) -> list[tuple[int, str, dict, int]]:
        return [
            (row[0], row[1], json.loads(row[2]), row[3])
            for row in self.conn.execute(
                "SELECT id, kind, payload, attempts FROM jobs WHERE state='pending' ORDER BY id LIMIT ?",
                (limit,),
            )
        ]

    @_locked
    def finish_job(self, job_id: int) -> None:
        self.conn.execute("DELETE FROM jobs WHERE id=?", (job_id,))

    @_locked
    def fail_job(self, job_id: int, error: str, give_up: bool, now: float) -> None:
        self.conn.execute(
            "UPDATE jobs SET attempts=attempts+1, error=?, updated=?, state=? WHERE id=?",
            (error[:500], now, "failed" if give_up else "pending", job_id),
        )

    @_locked
    def job_counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())

    @_locked
    def last_job_error(self) -> str | None:
        rows = self.conn.execute(
            "SELECT error FROM jobs WHERE error IS NOT NULL ORDER BY updated DESC LIMIT 1"
        ).fetchall()
        return rows[0][0] if rows else None
