"""Vault tables of the long-term persona: facts (with FTS and vectors) and profile slots."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine import errors
from engine.records import (
    ACTIVE,
    CANDIDATE,
    SUPERSEDED,
    USER_FACT,
    Fact,
    ProfileSlot,
)
from engine.vault.sql import blob as _blob
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders


class PersonaMixin:
    """Facts and profile slots. Methods expect to run inside Vault."""

    # ---- facts ---------------------------------------------------------------------------

    FACT_COLUMNS = "id, kind, text, status, created, updated, origin, superseded_by"

    def _fact(self, row: tuple) -> Fact:
        sources = tuple(
            r[0]
            for r in self.conn.execute(
                "SELECT page_id FROM fact_sources WHERE fact_id=? ORDER BY page_id", (row[0],)
            )
        )
        return Fact(
            id=row[0],
            kind=row[1],
            text=row[2],
            status=row[3],
            created=row[4],
            updated=row[5],
            origin=row[6],
            superseded_by=row[7],
            source_page_ids=sources,
        )

    @_locked
    def insert_fact(
        self,
        *,
        kind: str,
        text: str,
        norm: str,
        status: str,
        origin: str,
        vector: np.ndarray,
        sources: Iterable[int],
        now: float,
    ) -> int:
        self.conn.execute(
            "INSERT INTO facts(kind, text, norm, status, created, updated, origin) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (kind, text, norm, status, now, now, origin),
        )
        fact_id = self.conn.last_insert_rowid()
        self.conn.execute("INSERT INTO facts_fts(rowid, text) VALUES(?, ?)", (fact_id, text))
        self.conn.execute(
            "INSERT INTO facts_vec(rowid, embedding) VALUES(?, ?)", (fact_id, _blob(vector))
        )
        self.add_fact_sources(fact_id, sources)
        return fact_id

    @_locked
    def restore_fact(self, fact: Fact, norm: str, vector: np.ndarray) -> None:
        """Put a deleted fact back as it was read before the delete: under its own id (never
        given to another fact: AUTOINCREMENT), with the sources still stored."""
        self.conn.execute(
            "INSERT INTO facts(id, kind, text, norm, status, created, updated, origin, "
            "superseded_by) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (fact.id, fact.kind, fact.text, norm, fact.status, fact.created, fact.updated,
             fact.origin, fact.superseded_by),
        )  # fmt: skip
        self.conn.execute("INSERT INTO facts_fts(rowid, text) VALUES(?, ?)", (fact.id, fact.text))
        self.conn.execute(
            "INSERT INTO facts_vec(rowid, embedding) VALUES(?, ?)", (fact.id, _blob(vector))
        )
        self.add_fact_sources(fact.id, fact.source_page_ids)

    @_locked
    def add_fact_sources(self, fact_id: int, sources: Iterable[int]) -> None:
        for page_id in sources:
            self.conn.execute(
                "INSERT OR IGNORE INTO fact_sources(fact_id, page_id) "
                "SELECT ?, id FROM pages WHERE id=?",
                (fact_id, page_id),
            )

    @_locked
    def find_fact(self, kind: str, norm: str) -> int | None:
        rows = self.conn.execute(
            "SELECT id FROM facts WHERE kind=? AND norm=? AND status!=? LIMIT 1",
            (kind, norm, SUPERSEDED),
        ).fetchall()
        return rows[0][0] if rows else None

    @_locked
    def find_facts(self, kind: str, norm: str) -> list[int]:
        """Every current fact of `kind` with these normalised words, oldest first."""
        rows = self.conn.execute(
            "SELECT id FROM facts WHERE kind=? AND norm=? AND status!=? ORDER BY id",
            (kind, norm, SUPERSEDED),
        ).fetchall()
        return [row[0] for row in rows]

    @_locked
    def touch_fact(self, fact_id: int, now: float) -> None:
        self.conn.execute("UPDATE facts SET updated=? WHERE id=?", (now, fact_id))

    @_locked
    def fact(self, fact_id: int) -> Fact:
        rows = self.conn.execute(
            f"SELECT {self.FACT_COLUMNS} FROM facts WHERE id=?", (fact_id,)
        ).fetchall()
        if not rows:
            raise errors.NotFoundError(f"no fact with id {fact_id}")
        return self._fact(rows[0])

    @_locked
    def facts(
        self, kind: str | None, include_superseded: bool, ids: list[int] | None = None
    ) -> list[Fact]:
        where, params = [], []
        if kind:
            where.append("kind=?")
            params.append(kind)
        if not include_superseded:
            where.append("status!=?")
            params.append(SUPERSEDED)
        if ids is not None:
            if not ids:
                return []
            where.append(f"id IN ({_placeholders(ids)})")
            params += ids
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.conn.execute(
            f"SELECT {self.FACT_COLUMNS} FROM facts {clause} ORDER BY updated DESC, id DESC", params
        ).fetchall()
        return [self._fact(row) for row in rows]

    @_locked
    def update_fact_text(
        self, fact_id: int, text: str, norm: str, vector: np.ndarray, origin: str, now: float
    ) -> None:
        self.conn.execute(
            "UPDATE facts SET text=?, norm=?, origin=?, status=?, updated=? WHERE id=?",
            (text, norm, origin, ACTIVE, now, fact_id),
        )
        self.conn.execute("DELETE FROM facts_fts WHERE rowid=?", (fact_id,))
        self.conn.execute("INSERT INTO facts_fts(rowid, text) VALUES(?, ?)", (fact_id, text))
        self.conn.execute(
            "UPDATE facts_vec SET embedding=? WHERE rowid=?", (_blob(vector), fact_id)
        )

    @_locked
    def supersede_fact(self, old_id: int, new_id: int | None, now: float) -> None:
        self.conn.execute(
            "UPDATE facts SET status=?, superseded_by=?, updated=? WHERE id=?",
            (SUPERSEDED, new_id, now, old_id),
        )

    @_locked
    def delete_facts(self, fact_ids: list[int], dimension: int | None = None) -> None:
        if not fact_ids:
            return
        self._record_forgotten_facts(fact_ids)  # a restore of an older export leaves them out
        dimension = dimension or int(self.get_meta("embedder_dimension") or 0)
        for fact_id in fact_ids:
            self.conn.execute("DELETE FROM facts_fts WHERE rowid=?", (fact_id,))
        self._erase_vectors("facts_vec", fact_ids, dimension)
        for fact_id, by in self._successors("facts", fact_ids):
            if by is not None:
                self.conn.execute("UPDATE facts SET superseded_by=? WHERE id=?", (by, fact_id))
            else:  # current again, with the status the words it was learned from had
                self.conn.execute(
                    "UPDATE facts SET superseded_by=NULL, status=CASE WHEN kind=? AND "
                    "origin='verbatim' THEN ? ELSE ? END WHERE id=?",
                    (USER_FACT, CANDIDATE, ACTIVE, fact_id),
                )
        marks = _placeholders(fact_ids)
        self.conn.execute(
            f"UPDATE facts SET superseded_by=NULL WHERE superseded_by IN ({marks})", fact_ids
        )
        self.conn.execute(f"DELETE FROM facts WHERE id IN ({marks})", fact_ids)

    def _successors(self, table: str, deleted: list[int]) -> list[tuple[int, int | None]]:
        """What replaces each surviving entry that a deleted one superseded: the entry that
        replaced the deleted one in turn, or None where the deleted one was current (then the
        entry is current again: forgetting "I moved to Paris" brings "Lyon" back). An entry
        whose replacement was itself replaced by something unrecorded keeps its NULL link and
        stays superseded (not listed)."""
        gone = set(deleted)
        marks = _placeholders(deleted)
        replaced = {
            row[0]: (row[1], row[2])
            for row in self.conn.execute(
                f"SELECT id, status, superseded_by FROM {table} WHERE id IN ({marks})", deleted
            )
        }
        out: list[tuple[int, int | None]] = []
        for entry_id, by in self.conn.execute(
            f"SELECT id, superseded_by FROM {table} WHERE superseded_by IN ({marks}) "
            "ORDER BY id DESC",
            deleted,
        ).fetchall():
            seen: set[int] = set()
            while by in gone and by not in seen:  # deleted, and maybe superseded too
                seen.add(by)
                status, after = replaced[by]
                if status == SUPERSEDED and after is None:
                    break  # replaced by something unrecorded: the entry stays superseded
                by = after if status == SUPERSEDED else None
            else:
                if entry_id not in gone and by not in gone:
                    out.append((entry_id, by))
        return out

    @_locked
    def pages_since_changed(self, page_ids: list[int]) -> set[int]:
        """The pages whose every fact was replaced by a later one ("I live in Bristol" after
        "I moved to Glasgow"): what they say is out of date. A page with a fact still current,
        or whose facts were only rewritten (superseded by nothing), is not among them."""
        if not page_ids:
            return set()
        marks = _placeholders(page_ids)
        rows = self.conn.execute(
            f"SELECT s.page_id, min(f.status=? AND f.superseded_by IS NOT NULL) FROM "
            f"fact_sources s JOIN facts f ON f.id=s.fact_id WHERE s.page_id IN ({marks}) "
            f"AND f.kind=? GROUP BY s.page_id",
            [SUPERSEDED, *page_ids, USER_FACT],
        )
        return {page_id for page_id, every in rows if every}

    @_locked
    def facts_from_pages(self, page_ids: list[int], kind: str) -> list[Fact]:
        """The facts of `kind` learned from any of `page_ids`, superseded ones included."""
        if not page_ids:
            return []
        rows = self.conn.execute(
            f"SELECT {self.FACT_COLUMNS} FROM facts WHERE kind=? AND id IN (SELECT fact_id "
            f"FROM fact_sources WHERE page_id IN ({_placeholders(page_ids)})) ORDER BY id",
            [kind, *page_ids],
        ).fetchall()
        return [self._fact(row) for row in rows]

    @_locked
    def candidate_facts_from_pages(self, page_ids: list[int], status: str) -> list[int]:
        """Facts of `status` whose every source is among page_ids."""
        if not page_ids:
            return []
        marks = _placeholders(page_ids)
        return [
            row[0]
            for row in self.conn.execute(
                f"SELECT f.id FROM facts f WHERE f.status=? AND EXISTS (SELECT 1 FROM fact_sources s "
                f"WHERE s.fact_id=f.id) AND NOT EXISTS (SELECT 1 FROM fact_sources s WHERE "
                f"s.fact_id=f.id AND s.page_id NOT IN ({marks}))",
                [status] + page_ids,
            )
        ]

    # ---- profile -------------------------------------------------------------------------

    SLOT_COLUMNS = "id, category, name, value, status, created, updated, origin, superseded_by"

    def _slot(self, row: tuple) -> ProfileSlot:
        evidence = tuple(
            r[0]
            for r in self.conn.execute(
                "SELECT page_id FROM profile_evidence WHERE slot_id=? ORDER BY page_id", (row[0],)
            )
        )
        return ProfileSlot(
            id=row[0],
            category=row[1],
            name=row[2],
            value=row[3],
            status=row[4],
            created=row[5],
            updated=row[6],
            origin=row[7],
            superseded_by=row[8],
            evidence_page_ids=evidence,
        )

    @_locked
    def active_slot(self, category: str, name: str) -> ProfileSlot | None:
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile WHERE category=? AND name=? AND status=? "
            "ORDER BY id DESC LIMIT 1",
            (category, name, ACTIVE),
        ).fetchall()
        return self._slot(rows[0]) if rows else None

    @_locked
    def insert_slot(
        self, category: str, name: str, value: str, origin: str, evidence: Iterable[int], now: float
    ) -> int:
        self.conn.execute(
            "INSERT INTO profile(category, name, value, status, created, updated, origin) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (category, name, value, ACTIVE, now, now, origin),
        )
        slot_id = self.conn.last_insert_rowid()
        self.add_slot_evidence(slot_id, evidence)
        return slot_id

    @_locked
    def restore_slot(self, slot: ProfileSlot) -> int:
        """Put a deleted profile entry back as it was read before the delete, with the evidence
        still stored: under its own id unless a newer entry took that id since. Its id."""
        taken = self.conn.execute("SELECT 1 FROM profile WHERE id=?", (slot.id,)).fetchall()
        self.conn.execute(
            "INSERT INTO profile(id, category, name, value, status, created, updated, origin, "
            "superseded_by) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (None if taken else slot.id, slot.category, slot.name, slot.value, slot.status,
             slot.created, slot.updated, slot.origin, slot.superseded_by),
        )  # fmt: skip
        slot_id = self.conn.last_insert_rowid()
        self.add_slot_evidence(slot_id, slot.evidence_page_ids)
        return slot_id

    @_locked
    def relink(self, table: str, entry_id: int, status: str, superseded_by: int | None) -> None:
        """Set an entry's status and what replaced it ("facts" or "profile"), as they were before
        a delete. A replacement no longer stored leaves the entry replaced by nothing recorded."""
        if table not in ("facts", "profile"):
            raise ValueError(table)
        if superseded_by is not None and not self.conn.execute(
            f"SELECT 1 FROM {table} WHERE id=?", (superseded_by,)
        ).fetchall():
            superseded_by = None
        self.conn.execute(
            f"UPDATE {table} SET status=?, superseded_by=? WHERE id=?",
            (status, superseded_by, entry_id),
        )

    @_locked
    def add_slot_evidence(self, slot_id: int, evidence: Iterable[int]) -> None:
        for page_id in evidence:
            self.conn.execute(
                "INSERT OR IGNORE INTO profile_evidence(slot_id, page_id) SELECT ?, id FROM pages WHERE id=?",
                (slot_id, page_id),
            )

    @_locked
    def touch_slot(self, slot_id: int, now: float) -> None:
        self.conn.execute("UPDATE profile SET updated=? WHERE id=?", (now, slot_id))

    @_locked
    def supersede_slot(self, old_id: int, new_id: int, now: float) -> None:
        self.conn.execute(
            "UPDATE profile SET status=?, superseded_by=?, updated=? WHERE id=?",
            (SUPERSEDED, new_id, now, old_id),
        )

    @_locked
    def slot(self, slot_id: int) -> ProfileSlot:
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile WHERE id=?", (slot_id,)
        ).fetchall()
        if not rows:
            raise errors.NotFoundError(f"no profile slot with id {slot_id}")
        return self._slot(rows[0])

    @_locked
    def slots(self, include_superseded: bool) -> list[ProfileSlot]:
        clause = "" if include_superseded else f"WHERE status='{ACTIVE}'"
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile {clause} ORDER BY category, name, id"
        ).fetchall()
        return [self._slot(row) for row in rows]

    @_locked
    def update_slot_value(self, slot_id: int, value: str, origin: str, now: float) -> None:
        self.conn.execute(
            "UPDATE profile SET value=?, origin=?, updated=? WHERE id=?",
            (value, origin, now, slot_id),
        )

    @_locked
    def delete_slots(self, slot_ids: list[int]) -> None:
        if not slot_ids:
            return
        self._record_forgotten_slots(slot_ids)  # a restore of an older export leaves them out
        gone = set(slot_ids)
        for slot_id, by in self._successors("profile", slot_ids):
            if by is None:  # current again, unless another entry now fills its place
                category, name = self.conn.execute(
                    "SELECT category, name FROM profile WHERE id=?", (slot_id,)
                ).fetchall()[0]
                by = next(
                    (
                        row[0]
                        for row in self.conn.execute(
                            "SELECT id FROM profile WHERE category=? AND name=? AND status=? "
                            "ORDER BY id DESC",
                            (category, name, ACTIVE),
                        )
                        if row[0] not in gone
                    ),
                    None,
                )
            if by is None:
                self.conn.execute(
                    "UPDATE profile SET superseded_by=NULL, status=? WHERE id=?", (ACTIVE, slot_id)
                )
            else:
                self.conn.execute("UPDATE profile SET superseded_by=? WHERE id=?", (by, slot_id))
        marks = _placeholders(slot_ids)
        self.conn.execute(
            f"UPDATE profile SET superseded_by=NULL WHERE superseded_by IN ({marks})", slot_ids
        )
        self.conn.execute(f"DELETE FROM profile WHERE id IN ({marks})", slot_ids)
