"""Restoring an export into the vault it came from leaves out what was forgotten there after
the export was made (and says so); `--include-forgotten` brings it back on purpose; an export
carries the forget records (one-way keys, no text) to the vault it is restored into; a new vault
without them gets everything. Real encrypted vaults, real export files, `memoryos import` in a
child process."""

from __future__ import annotations

import json

import pytest

from engine import restore
from engine.api import MemoryOS
from engine.errors import InvalidInputError
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")
SAID = [
    "Hi, I'm Maya and I work as a nurse in Toronto.",
    "I adopted a greyhound called Biscuit last week.",
    "I play the cello on Sundays.",
]


def _fill(memory) -> None:
    memory.new_conversation()
    for n, text in enumerate(SAID):
        memory.add_memory(text, "Noted.", timestamp=1_700_000_000 + n * 3600)
    memory.new_conversation()
    memory.add_memory("I bake sourdough bread every weekend.", "Yum.", timestamp=1_700_100_000)
    memory.run_consolidation()


def _state(memory) -> tuple:
    pages = sorted(
        (p.conversation_id, p.timestamp, p.user_input, p.agent_response)
        for p in memory.pages(limit=1000)
    )
    facts = sorted((f.kind, f.text, f.status) for f in memory.facts(include_superseded=True))
    profile = sorted((s.category, s.name, s.value, s.status) for s in memory.profile(True))
    return pages, facts, profile


def _export(memory, tmp_path) -> dict:
    memory.export_json(tmp_path / "memory.json")
    return json.loads((tmp_path / "memory.json").read_text(encoding="utf-8"))


def _forget_some(memory) -> None:
    """The Biscuit exchange (and the fact learned only from it), the sourdough conversation,
    and one profile entry deleted by hand."""
    biscuit = next(p for p in memory.pages(limit=1000) if "Biscuit" in p.user_input)
    memory.forget_page(biscuit.id)
    sourdough = next(p for p in memory.pages(limit=1000) if "sourdough" in p.user_input)
    memory.forget_conversation(sourdough.conversation_id)
    nurse = next(s for s in memory.profile() if s.value == "nurse")
    memory.delete_profile_slot(nurse.id)


@pytest.fixture
def other(tmp_path, memory_keyring, embedder, chat):
    mem = MemoryOS.open(tmp_path / "other.memoryos", create=True, embedder=embedder, chat=chat,
                        background=False)  # fmt: skip
    yield mem
    mem.close()


def test_a_restore_leaves_out_what_was_forgotten_since_the_export(memory, tmp_path):
    _fill(memory)
    data = _export(memory, tmp_path)
    _forget_some(memory)
    after_forget = _state(memory)

    report = restore.restore(memory, data)
    memory.run_consolidation()

    assert _state(memory) == after_forget  # nothing forgotten came back
    texts = " ".join(f.text for f in memory.facts(include_superseded=True))
    assert "Biscuit" not in texts and "sourdough" not in texts
    assert "nurse" not in [s.value for s in memory.profile(True)]
    assert not any("sourdough" in c.title for c in memory.conversations())
    assert (report.forgotten_exchanges, report.forgotten_profile) == (2, 1)
    assert report.forgotten_facts == 2  # each learned only from a forgotten exchange
    assert report.exchanges == 0 and report.facts == 0 and report.profile == 0
    lines = "\n".join(report.lines())
    assert "Left out 2 exchanges, 2 facts and 1 profile entry forgotten" in lines


def test_include_forgotten_brings_them_back_and_says_so(memory, tmp_path):
    _fill(memory)
    before = _state(memory)
    data = _export(memory, tmp_path)
    _forget_some(memory)

    report = restore.restore(memory, data, include_forgotten=True)

    assert _state(memory) == before
    assert (report.exchanges, report.facts, report.profile) == (2, 2, 1)
    assert "Brought back, as asked: 2 exchanges, 2 facts and 1 profile entry" in "\n".join(
        report.lines()
    )


def test_a_new_vault_gets_everything(memory, other, tmp_path):
    """Moving to a new computer: the export restores in full into a vault that never forgot
    anything, even though the vault it came from forgot things since."""
    _fill(memory)
    before = _state(memory)
    data = _export(memory, tmp_path)
    _forget_some(memory)

    report = restore.restore(other, data)

    assert _state(other) == before
    assert report.forgotten == 0 and "Left out" not in "\n".join(report.lines())


def test_a_forget_everything_is_not_undone_by_an_old_export(memory, tmp_path):
    _fill(memory)
    data = _export(memory, tmp_path)
    memory.add_fact("I am vegetarian")  # after the export: not in it
    memory.forget_everything()

    report = restore.restore(memory, data)

    assert _state(memory) == ([], [], [])
    assert report.forgotten_exchanges == 4 and report.exchanges == 0


def _run_ok(*args: str, home) -> str:
    done = run_cli(*args, *FAKE, home=home)
    assert done.returncode == 0, done.stderr.decode()
    return done.stderr.decode()


def _fact_texts(home, *vault: str) -> str:
    listing = run_cli("facts", "list", "--all", "--json", *vault, *FAKE, home=home)
    return json.dumps(json.loads(listing.stdout), ensure_ascii=False)


def test_memoryos_import_leaves_out_what_was_forgotten(tmp_path, home):
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([
        {"user": SAID[0], "assistant": "Nice to meet you, Maya!",
         "timestamp": "2025-03-01T10:00:00Z"},
        {"user": SAID[1], "assistant": "Biscuit is a great name.",
         "timestamp": "2025-03-02T10:00:00Z"},
        {"user": SAID[2], "assistant": "Lovely.", "timestamp": "2025-03-03T10:00:00Z"},
    ]), encoding="utf-8")  # fmt: skip
    _run_ok("import", str(transcript), "--create", home=home)
    backup = tmp_path / "memory.json"
    _run_ok("export", str(backup), home=home)
    exported = json.loads(backup.read_text(encoding="utf-8"))
    biscuit = next(p["id"] for p in exported["pages"] if "Biscuit" in p["user_input"])
    assert "Biscuit" in _fact_texts(home)
    _run_ok("forget", "page", str(biscuit), "--yes", home=home)

    err = _run_ok("import", str(backup), home=home)
    # the exchange, and the fact learned only from it; "name: Maya", learned from another
    # exchange, stays (its answer's "a great name" once took it)
    assert "Left out 1 exchange and 1 fact forgotten since the export" in err
    assert '"value": "Maya"' in _fact_texts(home)
    assert "--include-forgotten" in err
    assert "Biscuit" not in _fact_texts(home)
    pages = run_cli("export", "-", *FAKE, home=home).stdout.decode()
    assert "Biscuit" not in pages

    # another vault (a new computer) gets everything
    err = _run_ok("import", str(backup), "--vault", "laptop", "--create", home=home)
    assert "Left out" not in err and "Restored 3 exchanges" in err
    assert "Biscuit" in _fact_texts(home, "--vault", "laptop")

    # on purpose: the forgotten exchange and its fact come back, and the restore says so
    err = _run_ok("import", str(backup), "--include-forgotten", home=home)
    assert "Brought back, as asked: 1 exchange and 1 fact" in err
    assert "Biscuit" in _fact_texts(home)


def test_a_move_carries_what_was_forgotten_to_the_new_vault(memory, other, tmp_path):
    """Moving to a new computer: the export made after a forget, restored into a new vault,
    brings the vault's forget records with it; an older export restored there afterwards
    leaves out what was forgotten, as it would on the old computer."""
    _fill(memory)
    before = _state(memory)
    older = _export(memory, tmp_path)
    _forget_some(memory)
    after_forget = _state(memory)
    newer = _export(memory, tmp_path)

    first = restore.restore(other, newer)
    assert _state(other) == after_forget and first.forgotten == 0
    report = restore.restore(other, older)
    other.run_consolidation()

    assert _state(other) == after_forget  # nothing forgotten came back
    assert report.exchanges == 0 and report.facts == 0 and report.profile == 0
    assert (report.forgotten_exchanges, report.forgotten_facts, report.forgotten_profile) == (
        2, 2, 1,
    )  # fmt: skip
    said = "\n".join(report.lines())
    assert "Left out 2 exchanges, 2 facts and 1 profile entry forgotten" in said
    assert "forgotten in this vault" not in said  # in the memory the records came from, not here
    # on purpose, they still come back
    again = restore.restore(other, older, include_forgotten=True)
    assert _state(other) == before and again.exchanges == 2


def test_the_forget_records_in_an_export_reveal_nothing_forgotten(memory, tmp_path):
    """An export holds each forget as a kind, a one-way key and a time: no text, and the key
    takes in the moment the item was made, so guessing the text alone finds nothing."""
    import hashlib

    from engine.vault import forgotten

    _fill(memory)
    biscuit = next(p for p in memory.pages(limit=1000) if "Biscuit" in p.user_input)
    _forget_some(memory)
    memory.export_json(tmp_path / "memory.json")
    text = (tmp_path / "memory.json").read_text(encoding="utf-8")
    records = json.loads(text)["forgotten"]

    assert {r["kind"] for r in records} == {forgotten.EXCHANGE, forgotten.FACT, forgotten.PROFILE}
    assert all(set(r) == {"kind", "key", "at"} for r in records)
    for word in ("biscuit", "greyhound", "sourdough"):
        assert word not in text.casefold()
    keys = {r["key"] for r in records}
    said = (biscuit.conversation_id, biscuit.user_input, biscuit.agent_response)
    assert forgotten.exchange_key(said[0], biscuit.timestamp, *said[1:]) in keys
    assert forgotten.exchange_key(said[0], biscuit.timestamp + 1, *said[1:]) not in keys
    for guess in (biscuit.user_input, json.dumps(list(said), ensure_ascii=False)):
        assert hashlib.sha256(guess.encode("utf-8")).hexdigest()[:32] not in keys


def test_an_export_made_before_forget_records_were_exported_still_restores(
    memory, other, tmp_path
):
    _fill(memory)
    _forget_some(memory)
    after_forget = _state(memory)
    data = _export(memory, tmp_path)
    del data["forgotten"]  # as an export written by an earlier MemoryOS

    report = restore.restore(other, data)

    assert _state(other) == after_forget and report.exchanges == 2


def test_a_damaged_forget_record_is_named_and_nothing_is_restored(memory, other, tmp_path):
    _fill(memory)
    _forget_some(memory)
    data = _export(memory, tmp_path)
    data["forgotten"][1]["key"] = 42

    with pytest.raises(InvalidInputError, match="forget record 1: 'key'"):
        restore.restore(other, data)
    assert _state(other) == ([], [], [])


def _exports_around_a_forget(tmp_path, home) -> tuple:
    """In the default vault, through the terminal: two exchanges imported, an export, the
    Biscuit exchange forgotten, another export. Returns (older, newer) export paths."""
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([
        {"user": SAID[0], "assistant": "Nice to meet you, Maya!",
         "timestamp": "2025-03-01T10:00:00Z"},
        {"user": SAID[1], "assistant": "Biscuit is a great name.",
         "timestamp": "2025-03-02T10:00:00Z"},
    ]), encoding="utf-8")  # fmt: skip
    _run_ok("import", str(transcript), "--create", home=home)
    older, newer = tmp_path / "before-forget.json", tmp_path / "after-forget.json"
    _run_ok("export", str(older), home=home)
    biscuit = next(
        p["id"] for p in json.loads(older.read_text(encoding="utf-8"))["pages"]
        if "Biscuit" in p["user_input"]
    )  # fmt: skip
    _run_ok("forget", "page", str(biscuit), "--yes", home=home)
    _run_ok("export", str(newer), home=home)
    return older, newer


def test_memoryos_import_on_a_new_computer_leaves_out_what_was_forgotten(tmp_path, home):
    older, newer = _exports_around_a_forget(tmp_path, home)

    _run_ok("import", str(newer), "--vault", "laptop", "--create", home=home)
    err = _run_ok("import", str(older), "--vault", "laptop", home=home)

    assert "Left out 1 exchange and 1 fact forgotten" in err
    assert "Biscuit" not in _fact_texts(home, "--vault", "laptop")
    pages = run_cli("export", "-", "--vault", "laptop", *FAKE, home=home).stdout.decode()
    assert "Biscuit" not in pages


def test_the_newer_export_restored_after_the_older_forgets_what_it_forgot(memory, other, tmp_path):
    """The older export (made before a forget) restored first, the newer one (made after it)
    next: the vault ends with what the newer export's memory held, forgotten through the same
    cascade as `forget page` and facts delete, and the report says so."""
    _fill(memory)
    before = _state(memory)
    older = _export(memory, tmp_path)
    _forget_some(memory)
    after_forget = _state(memory)
    newer = _export(memory, tmp_path)

    restore.restore(other, older)
    assert _state(other) == before
    report = restore.restore(other, newer)
    other.run_consolidation()

    assert _state(other) == after_forget
    assert (report.forgot_exchanges, report.forgot_facts, report.forgot_profile) == (2, 2, 1)
    lines = "\n".join(report.lines())
    assert (
        "Forgot 2 exchanges, 2 facts and 1 profile entry that were forgotten in the memory this "
        "export came from." in lines
    )
    exported = json.dumps(_export(other, tmp_path), ensure_ascii=False).casefold()
    assert "biscuit" not in exported and "sourdough" not in exported
    assert not any("sourdough" in c.title for c in other.conversations())
    # restoring the newer export again finds nothing more to forget
    again = restore.restore(other, newer)
    assert _state(other) == after_forget and "Forgot" not in "\n".join(again.lines())


class _Killed(BaseException):
    """The process ending between the restore's commit and its forgets (a kill, a power cut)."""


def test_a_crash_before_the_restores_forgets_ran_forgets_them_at_the_next_start(
    memory, other, tmp_path, embedder, chat, monkeypatch
):
    """The newer export's forget records were committed with the restore, the forgets ran
    after it: a crash between the two left the forgotten items in the vault for good. The
    forgets are a job queued in the restore's transaction, run by the next start's
    consolidation."""
    _fill(memory)
    older = _export(memory, tmp_path)
    _forget_some(memory)
    after_forget = _state(memory)
    newer = _export(memory, tmp_path)
    restore.restore(other, older)

    def killed(*args):
        raise _Killed

    monkeypatch.setattr(restore, "forget_held", killed)
    with pytest.raises(_Killed):
        restore.restore(other, newer)
    monkeypatch.undo()
    path = other.vault.path
    other.close()

    again = MemoryOS.open(path, embedder=embedder, chat=chat, background=False)
    try:
        assert _state(again) != after_forget  # the restore committed, the forgets had not run
        again.run_consolidation()
        assert _state(again) == after_forget
        exported = json.dumps(_export(again, tmp_path), ensure_ascii=False).casefold()
        assert "biscuit" not in exported and "sourdough" not in exported
        assert again.consolidation_status().pending_jobs == 0
    finally:
        again.close()


def test_include_forgotten_keeps_what_the_newer_export_forgot(memory, other, tmp_path):
    """--include-forgotten brings things back on purpose: a restore with it forgets nothing."""
    _fill(memory)
    before = _state(memory)
    older = _export(memory, tmp_path)
    _forget_some(memory)
    newer = _export(memory, tmp_path)

    restore.restore(other, older)
    report = restore.restore(other, newer, include_forgotten=True)

    assert _state(other) == before
    assert report.forgot_exchanges == report.forgot_facts == report.forgot_profile == 0
    assert "Forgot" not in "\n".join(report.lines())


def test_what_the_export_holds_is_kept_though_it_was_once_forgotten(memory, other, tmp_path):
    """A vault that forgot something and then brought it back on purpose exports both the item
    and its forget record: the item, which that memory holds, stays in the vault restored."""
    _fill(memory)
    before = _state(memory)
    older = _export(memory, tmp_path)
    _forget_some(memory)
    restore.restore(memory, older, include_forgotten=True)  # brought back on purpose
    newer = _export(memory, tmp_path)
    assert newer["forgotten"]

    restore.restore(other, older)
    report = restore.restore(other, newer)

    assert _state(other) == before and report.forgot_exchanges == 0


def test_memoryos_import_of_the_newer_export_after_the_older_forgets(tmp_path, home):
    older, newer = _exports_around_a_forget(tmp_path, home)

    _run_ok("import", str(older), "--vault", "a", "--create", home=home)
    assert "Biscuit" in _fact_texts(home, "--vault", "a")
    err = _run_ok("import", str(newer), "--vault", "a", home=home)

    assert "Forgot 1 exchange and 1 fact that were forgotten" in err
    assert "Biscuit" not in _fact_texts(home, "--vault", "a")
    pages = run_cli("export", "-", "--vault", "a", *FAKE, home=home).stdout.decode()
    assert "Biscuit" not in pages and json.loads(pages)["forgotten"]
