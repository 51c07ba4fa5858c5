"""The must-show: a page consolidated by the bundled model, then forgotten, leaves no trace.

Searched: the vault file, -wal, -shm and backups (raw and decrypted), every text column of
the opened database, the FTS vocabularies, the export, and the next prompt. Run with -s to
print the transcript.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import decrypted_bytes

from engine.api import MemoryOS
from engine.settings import MemorySettings
from engine.vault import keys

pytestmark = [pytest.mark.real_models, pytest.mark.slow]

WORD = "Quembravia"  # in no dictionary, no model vocabulary as a whole word, no other page
PAGES = [
    (f"My sister's rare illness is called {WORD} and she sees a specialist in Leeds.",
     "That sounds hard; I hope the specialist helps."),
    ("I am training for a half marathon in October.", "Great, build up slowly."),
    ("My favourite breakfast is porridge with blueberries.", "A healthy choice."),
    ("I walk my dog Biscuit along the river every morning.", "Biscuit is lucky."),
    ("The half marathon route goes along the river too.", "You will know it well."),
]  # fmt: skip


def _database_texts(memory: MemoryOS) -> str:
    """Every text value in every ordinary table, and every FTS term, of the opened vault."""
    conn = memory.vault.conn
    out = []
    tables = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
        )
    ]
    for table in tables:
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            out += [
                v if isinstance(v, str) else v.decode("latin-1") if isinstance(v, bytes) else ""
                for v in row
            ]
    for fts in ("pages_fts", "facts_fts"):
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.v_{fts} USING fts5vocab(main, {fts}, 'row')"
        )
        out += [row[0] for row in conn.execute(f"SELECT term FROM temp.v_{fts}")]
    return "\n".join(out)  # fmt: skip


def _count(blob: bytes | str) -> int:
    if isinstance(blob, str):
        blob = blob.encode("utf-8", "replace")
    return blob.lower().count(WORD.lower().encode())


def test_forgotten_page_leaves_no_trace_after_bundled_model_consolidation(tmp_path, memory_keyring):
    from engine.backends.embedder import SentenceTransformerEmbedder
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    log = print
    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    embedder = SentenceTransformerEmbedder()
    path = tmp_path / "vault.memoryos"
    settings = MemorySettings(
        stm_capacity=2, stm_evict_batch=2, heat_threshold=0.5, llm_consolidation="always"
    )  # the small model does the work
    memory = MemoryOS.open(
        path, create=True, embedder=embedder, chat=chat, settings=settings, background=False
    )
    try:
        memory.update_settings(settings)
        secret = memory.add_memory(*PAGES[0])
        with memory.vault.transaction():  # pretend an upgrade is due: the next open backs up
            memory.vault.conn.execute("DELETE FROM migrations WHERE name='0004_stable_ids'")
        memory.close()
        memory = MemoryOS.open(path, embedder=embedder, chat=chat, background=False)
        backups = sorted(path.parent.glob(f"{path.name}.backup-*"))
        assert len(backups) == 1
        for user, agent in PAGES[1:]:
            memory.add_memory(user, agent)
        ran = memory.run_consolidation()
        stats = memory.consolidator.structured_stats
        log(
            f"\nconsolidation: {ran} jobs; bundled model structured calls: "
            f"{stats.total if stats else 0} (valid {stats.first_try_ok + stats.retry_ok if stats else 0}); "
            f"segments {len(memory.segments())}, facts {len(memory.facts(include_superseded=True))}"
        )
        for segment in memory.segments(True):
            log(f"  segment {segment.id}: {segment.summary!r} keywords={list(segment.keywords)}")
        for fact in memory.facts(include_superseded=True):
            log(
                f"  fact {fact.id} [{fact.origin}, {fact.status}] sources={list(fact.source_page_ids)}: "
                f"{fact.text!r}"
            )
        for slot in memory.profile(include_superseded=True):
            log(
                f"  profile {slot.id} [{slot.origin}] evidence={list(slot.evidence_page_ids)}: "
                f"{slot.name} = {slot.value!r}"
            )
        hexkey = keys.stored_key(path)
        before = _count(_database_texts(memory))
        log(
            f"before forget: '{WORD}' in opened database: {before}; in decrypted backup: "
            f"{_count(decrypted_bytes(backups[0], hexkey=hexkey, scratch=tmp_path / 'b'))}"
        )
        assert before > 1  # the page, its FTS terms, and what consolidation derived from it

        preview = memory.preview_forget_page(secret.id)
        log("preview: " + "; ".join(preview.lines()))
        memory.forget_page(secret.id)
        wal_after_forget = Path(f"{path}-wal").stat().st_size

        export = tmp_path / "export.json"
        memory.export_json(export)
        stream = memory.get_response("Who in my family sees a specialist?", max_tokens=24)
        stream.collect()
        prompt = json.dumps(stream.messages, ensure_ascii=False)
        places = {
            "vault file (raw)": Path(path).read_bytes(),
            "-wal (raw)": Path(f"{path}-wal").read_bytes(),
            "-shm (raw)": Path(f"{path}-shm").read_bytes() if Path(f"{path}-shm").exists() else b"",
            "vault file (decrypted copy)": decrypted_bytes(path, hexkey=hexkey,
                                                           scratch=tmp_path / "plain"),
            "opened database (all tables, FTS terms)": _database_texts(memory),
            "backups left": b"".join(p.read_bytes() for p in path.parent.glob(f"{path.name}.backup-*")),
            "export": export.read_bytes(),
            "next prompt": prompt,
        }  # fmt: skip
        for place, blob in places.items():
            log(f"after forget: '{WORD}' in {place}: {_count(blob)}")
        log(
            f"-wal size right after the forget: {wal_after_forget} bytes; "
            f"backups left: {len(list(path.parent.glob(f'{path.name}.backup-*')))}"
        )
        assert {place: _count(blob) for place, blob in places.items()} == dict.fromkeys(places, 0)
        assert wal_after_forget == 0
        assert not backups[0].exists()
    finally:
        memory.close()
        chat.close()
