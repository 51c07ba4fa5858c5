"""Questions whose answer is under way, kept in the vault until the exchange is stored.

An exchange is written when its answer ends: a program killed while answering (a crash, an
out-of-memory kill, the computer turned off) lost the question itself, and the person saw it
nowhere after a restart. So a question is written the moment it is asked, in the encrypted
vault's meta table, and dropped in the transaction that stores its exchange (or when the answer
fails or is stopped with nothing stored). One still there whose program has stopped is what the
next program to open the vault offers back: never sent again by itself.

An edited question (the last exchange's, engine/answer.py ask_again) is kept the same way with
the exchange it replaces: that exchange stays until the new one is stored, and the new wording
was nowhere else. A program that quits while answering keeps the question too (MemoryOS
.mark_quitting): quitting is not the person's Stop. Nor is a window's Lock now or Switch
memory, whose program goes on: its vault's close marks the question ended (release), and the
next open of that vault offers it back, in the same program too.

A question offered back stays kept until the person sends a question in that vault (keep()
drops it in the transaction that keeps the new one: sent again or not, it was seen) or drops it
by hand: a program that stops right after offering it (`memoryos chat` then /quit) offers it
again at the next start, so it is never lost before the person chose. Within one program it is
offered once (offer()): put in a message box and deleted there, it does not come back at each
open of the vault, and sending anything else drops it for good."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

META_KEY = "unanswered"  # a JSON list of records, one per answer under way in any process
_offered: set[str] = set()  # the records offered back in this program (offer())


@dataclass(frozen=True)
class Unanswered:
    """A question asked in a program that stopped before its answer was stored."""

    text: str
    conversation_id: str
    asked_at: float  # epoch seconds
    id: str = ""
    replaces: int | None = None  # an edited question: the exchange (page id) it replaces


def _this_process() -> tuple[int, float]:
    import psutil

    process = psutil.Process()
    return process.pid, process.create_time()


def _running(record: dict) -> bool:
    """Whether the program that asked is still running (then its answer is under way: the
    MCP server, `memoryos chat` or another window). A process id is matched with its start
    time, so a new process that got the same id after a restart is not taken for it."""
    import psutil

    if record.get("ended"):  # released: its program goes on, its answer does not
        return False
    try:
        process = psutil.Process(int(record.get("pid", 0)))
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return abs(process.create_time() - float(record.get("started", 0))) < 1.0
    except (psutil.NoSuchProcess, ValueError):
        return False
    except psutil.Error:  # not ours to look at: taken as running, never offered by mistake
        return True


def _records(vault) -> list[dict]:
    try:
        records = json.loads(vault.get_meta(META_KEY) or "[]")
    except ValueError:
        return []
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


def keep(
    vault, text: str, conversation_id: str, asked_at: float, replaces: int | None = None
) -> str:
    """Write a question being answered now (`replaces`: the page an edited question replaces);
    returns its record's id. Questions of programs that have stopped are dropped: they were
    offered back at the next open, and this is the next message sent (it may be that one
    again, or the person chose another)."""
    pid, started = _this_process()
    record = {
        "id": uuid.uuid4().hex, "text": text, "conversation_id": conversation_id,
        "asked_at": float(asked_at), "pid": pid, "started": started,
    }  # fmt: skip
    if replaces is not None:
        record["replaces"] = int(replaces)
    with vault.transaction():
        records = [r for r in _records(vault) if _running(r)]
        vault.set_meta(META_KEY, json.dumps([*records, record]))
    return record["id"]


def _drop(vault, gone) -> None:
    """Remove the records for which `gone(record)` is true, in one transaction."""
    with vault.transaction():
        records = _records(vault)
        left = [r for r in records if not gone(r)]
        if len(left) != len(records):
            vault.set_meta(META_KEY, json.dumps(left))


def drop(vault, record_id: str) -> None:
    """The question `record_id` needs keeping no more (its exchange is stored in the same
    transaction, or nothing is, and the person saw why)."""
    _drop(vault, lambda r: r.get("id") == record_id)


def release(vault, record_ids) -> None:
    """The answers to these questions ended with nothing stored, and the program that asked
    goes on (its window locked, or switched to another memory): the questions still kept are
    offered at the next open of the vault, this program's included, as a stopped program's are."""
    ids = set(record_ids)
    if not ids:
        return
    with vault.transaction():
        records = _records(vault)
        ended = [r for r in records if r.get("id") in ids and not r.get("ended")]
        for record in ended:
            record["ended"] = True
        if ended:
            vault.set_meta(META_KEY, json.dumps(records))


def withdraw(record_id: str) -> None:
    """An offered question taken out of the person's box unsent (the window closed its vault
    with it there): offered again at the next open of the vault, in this program too."""
    _offered.discard(record_id)


def drop_where(vault, conversation_id: str | None = None) -> None:
    """Forgetting: the questions of `conversation_id` (None: all of them) are gone too."""
    _drop(vault, lambda r: conversation_id is None or r.get("conversation_id") == conversation_id)


def last(vault) -> Unanswered | None:
    """The most recent question whose program stopped before its answer was stored, and that
    this program has not offered back yet."""
    stopped = [r for r in _records(vault) if not _running(r) and r.get("id") not in _offered]
    if not stopped:
        return None
    record = max(stopped, key=lambda r: float(r.get("asked_at", 0)))
    replaces = record.get("replaces")
    return Unanswered(
        text=str(record.get("text", "")),
        conversation_id=str(record.get("conversation_id", "")),
        asked_at=float(record.get("asked_at", 0)),
        id=str(record.get("id", "")),
        replaces=int(replaces) if isinstance(replaces, int) else None,
    )


def offer(vault) -> Unanswered | None:
    """last(), offered back to the person now: it stays in the vault until they send a
    question there (keep()) or drop() it, but this program does not offer it again."""
    found = last(vault)
    if found is not None:
        _offered.add(found.id)
    return found
