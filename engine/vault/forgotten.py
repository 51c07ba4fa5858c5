"""What was forgotten in this vault and when, by a one-way key, so that restoring an export
written before the forget leaves it out (engine/restore.py).

Only a hash of each item is kept, never the text, and each hash takes in the moment the item
was made (to the millisecond): an exchange's conversation, time and text; a fact's kind, time
and text; a profile entry's category, name, value and time. It tells that an item in an export
is one that was forgotten. A hash of the text alone would also let anyone holding the vault's
key confirm a guess ("did they ever say 'I am pregnant'?") by hashing it; the time makes a
guess hopeless, and an export holds the same time for the same item.

An export carries these records (kind, key and time: the same one-way keys, no text), and a
restore adds them to the vault it restores into: after a move to another computer, restoring an
export older than a forget leaves out what was forgotten there too.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable

from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders

EXCHANGE, FACT, PROFILE = "exchange", "fact", "profile"
KINDS = (EXCHANGE, FACT, PROFILE)


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def _key(parts: list) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()[:32]


def exchange_key(conversation_id: str, timestamp: float, user_input: str, answer: str) -> str:
    """The same exchange has the same key in the vault and in any export of it."""
    return _key([conversation_id, round(float(timestamp), 3), user_input, answer])


def fact_key(kind: str, created: float, text: str) -> str:
    return _key([kind, round(float(created), 3), _plain(text)])


def profile_key(category: str, name: str, value: str, created: float) -> str:
    return _key([category, name, _plain(value), round(float(created), 3)])


class ForgottenMixin:
    """The `forgotten` table (schema step 0010): kind, key, when it was last forgotten."""

    def _has_forgotten_table(self) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='forgotten'"
            ).fetchall()
        )

    def _record_forgotten(self, kind: str, keys: Iterable[str]) -> None:
        """Called by the deletes themselves, inside their transaction: every way of forgetting
        (forget, delete, retention, erase everything) is recorded."""
        if not self._has_forgotten_table():
            return  # a vault at a schema before step 0010 (tests make one): no record kept
        now = time.time()
        self.conn.executemany(
            "INSERT INTO forgotten(kind, key, at) VALUES(?, ?, ?) "
            "ON CONFLICT(kind, key) DO UPDATE SET at=excluded.at",
            [(kind, key, now) for key in set(keys)],
        )

    def _record_forgotten_pages(self, page_ids: list[int]) -> None:
        rows = self.conn.execute(
            "SELECT conversation_id, ts, user_input, agent_response FROM pages "
            f"WHERE id IN ({_placeholders(page_ids)})",
            page_ids,
        ).fetchall()
        self._record_forgotten(EXCHANGE, (exchange_key(*row) for row in rows))

    def _record_forgotten_facts(self, fact_ids: list[int]) -> None:
        rows = self.conn.execute(
            f"SELECT kind, created, text FROM facts WHERE id IN ({_placeholders(fact_ids)})",
            fact_ids,
        ).fetchall()
        self._record_forgotten(FACT, (fact_key(*row) for row in rows))

    def _record_forgotten_slots(self, slot_ids: list[int] | None) -> None:
        """The profile entries `slot_ids` (None: all of them)."""
        where = "" if slot_ids is None else f" WHERE id IN ({_placeholders(slot_ids)})"
        rows = self.conn.execute(
            f"SELECT category, name, value, created FROM profile{where}", slot_ids or []
        ).fetchall()
        self._record_forgotten(PROFILE, (profile_key(*row) for row in rows))

    @_locked
    def forgotten_since(self, kind: str, keys: Iterable[str], since: float) -> set[str]:
        """Which of `keys` (of items of `kind`) were forgotten in this vault after `since`."""
        wanted = sorted(set(keys))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            found.update(
                row[0]
                for row in self.conn.execute(
                    f"SELECT key FROM forgotten WHERE kind=? AND at>? AND key IN "
                    f"({_placeholders(chunk)})",
                    [kind, since, *chunk],
                )
            )
        return found

    @_locked
    def forgotten_records(self) -> list[dict]:
        """Every forget record, for an export: kind, one-way key and time, never any text."""
        if not self._has_forgotten_table():
            return []
        return [
            {"kind": kind, "key": key, "at": at}
            for kind, key, at in self.conn.execute(
                "SELECT kind, key, at FROM forgotten ORDER BY at, kind, key"
            )
        ]

    @_locked
    def add_forgotten_records(self, records: Iterable[tuple[str, str, float]]) -> None:
        """Forget records (kind, key, time) from an export restored into this vault; a key it
        holds already keeps the later time. Call inside the restore's transaction."""
        if not self._has_forgotten_table():
            return
        self.conn.executemany(
            "INSERT INTO forgotten(kind, key, at) VALUES(?, ?, ?) "
            "ON CONFLICT(kind, key) DO UPDATE SET at=max(at, excluded.at)",
            list(records),
        )

    @_locked
    def held_of_keys(self, wanted: set[tuple[str, str]]) -> dict[str, list[int]]:
        """The ids of the exchanges, facts and profile entries this vault holds whose (kind,
        one-way key) is in `wanted`, by kind: what a restore forgets because the memory its
        export came from forgot it."""
        tables = (
            (EXCHANGE, "SELECT id, conversation_id, ts, user_input, agent_response FROM pages",
             exchange_key),
            (FACT, "SELECT id, kind, created, text FROM facts", fact_key),
            (PROFILE, "SELECT id, category, name, value, created FROM profile", profile_key),
        )  # fmt: skip
        found: dict[str, list[int]] = {kind: [] for kind, _, _ in tables}
        for kind, query, key in tables:
            if any(k == kind for k, _ in wanted):
                found[kind] = sorted(
                    row[0] for row in self.conn.execute(query) if (kind, key(*row[1:])) in wanted
                )
        return found
