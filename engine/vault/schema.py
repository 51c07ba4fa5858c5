"""Schema migrations: named steps, each applied in one transaction together with its record."""

from __future__ import annotations

import itertools
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine import errors
from engine.files import private_file
from engine.vault import quantized
from engine.vault.connection import APPLICATION_ID

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def _initial(conn, dimension: int) -> None:
    conn.execute(
        f"""
        PRAGMA application_id={APPLICATION_ID};
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE conversations(
            id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', created REAL NOT NULL);
        CREATE TABLE segments(
            id INTEGER PRIMARY KEY,
            summary TEXT NOT NULL DEFAULT '',
            keywords TEXT NOT NULL DEFAULT '[]',
            created REAL NOT NULL,
            last_access REAL NOT NULL,
            visit_count INTEGER NOT NULL DEFAULT 0,
            length INTEGER NOT NULL DEFAULT 0,
            archived INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE pages(
            id INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL,
            user_input TEXT NOT NULL,
            agent_response TEXT NOT NULL,
            ts REAL NOT NULL,
            created REAL NOT NULL,
            meta TEXT NOT NULL DEFAULT '{{}}',
            tier TEXT NOT NULL DEFAULT 'short',
            segment_id INTEGER REFERENCES segments(id) ON DELETE SET NULL,
            chain_prev_id INTEGER,
            chain_summary TEXT NOT NULL DEFAULT '',
            keywords TEXT NOT NULL DEFAULT '[]',
            analysed INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX pages_tier ON pages(tier, ts, id);
        CREATE INDEX pages_segment ON pages(segment_id);
        CREATE INDEX pages_conversation ON pages(conversation_id, ts);
        CREATE INDEX pages_ts ON pages(ts);
        CREATE VIRTUAL TABLE pages_fts USING fts5(body, tokenize='{FTS_TOKENIZER}');
        INSERT INTO pages_fts(pages_fts, rank) VALUES('secure-delete', 1);
        CREATE VIRTUAL TABLE pages_vec USING vec0(embedding float[{dimension}]);
        CREATE VIRTUAL TABLE segments_vec USING vec0(embedding float[{dimension}]);
        CREATE TABLE facts(
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            origin TEXT NOT NULL,
            superseded_by INTEGER);
        CREATE INDEX facts_norm ON facts(kind, norm);
        CREATE TABLE fact_sources(
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            PRIMARY KEY(fact_id, page_id)) WITHOUT ROWID;
        CREATE INDEX fact_sources_page ON fact_sources(page_id);
        CREATE VIRTUAL TABLE facts_fts USING fts5(text, tokenize='{FTS_TOKENIZER}');
        INSERT INTO facts_fts(facts_fts, rank) VALUES('secure-delete', 1);
        CREATE VIRTUAL TABLE facts_vec USING vec0(embedding float[{dimension}]);
        CREATE TABLE profile(
            id INTEGER PRIMARY KEY,
            category TEXT NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            origin TEXT NOT NULL,
            superseded_by INTEGER);
        CREATE INDEX profile_slot ON profile(category, name, status);
        CREATE TABLE profile_evidence(
            slot_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            PRIMARY KEY(slot_id, page_id)) WITHOUT ROWID;
        CREATE INDEX profile_evidence_page ON profile_evidence(page_id);
        CREATE TABLE jobs(
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL DEFAULT '{{}}',
            state TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            error TEXT);
        CREATE INDEX jobs_state ON jobs(state, id);
        """
    )


def _turn_vectors(conn, dimension: int) -> None:
    """One vector per utterance (rowid = page id * 2 + side): a page's evidence is often one
    of its two turns, and the page vector blurs it with the other."""
    conn.execute(f"CREATE VIRTUAL TABLE turns_vec USING vec0(embedding float[{dimension}])")
    last = conn.execute("SELECT max(id) FROM pages").fetchall()[0][0]
    if last:  # existing pages get their turn vectors from a background job
        conn.execute(
            "INSERT INTO jobs(kind, payload, created, updated) VALUES('embed_turns', ?, ?, ?)",
            (json.dumps({"upto": last}), time.time(), time.time()),
        )


def _job_owner(conn, dimension: int) -> None:
    """Which process claimed a running job (two processes may share a vault)."""
    conn.execute("ALTER TABLE jobs ADD COLUMN owner INTEGER")
    conn.execute("UPDATE jobs SET state='pending' WHERE state='running'")


def _stable_ids(conn, dimension: int) -> None:
    """Page and fact ids are never reused (AUTOINCREMENT): an id a second process (the MCP
    server beside the app) or a stale list still holds can never name another memory.

    SQLite cannot add AUTOINCREMENT to a table, so both are rebuilt (the documented
    create-copy-drop-rename procedure; `migrate` runs it with foreign keys off)."""
    conn.execute(
        """
        CREATE TABLE pages_new(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT NOT NULL,
            user_input TEXT NOT NULL,
            agent_response TEXT NOT NULL,
            ts REAL NOT NULL,
            created REAL NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}',
            tier TEXT NOT NULL DEFAULT 'short',
            segment_id INTEGER REFERENCES segments(id) ON DELETE SET NULL,
            chain_prev_id INTEGER,
            chain_summary TEXT NOT NULL DEFAULT '',
            keywords TEXT NOT NULL DEFAULT '[]',
            analysed INTEGER NOT NULL DEFAULT 0);
        INSERT INTO pages_new SELECT id, conversation_id, user_input, agent_response, ts,
            created, meta, tier, segment_id, chain_prev_id, chain_summary, keywords, analysed
            FROM pages;
        DROP TABLE pages;
        ALTER TABLE pages_new RENAME TO pages;
        CREATE INDEX pages_tier ON pages(tier, ts, id);
        CREATE INDEX pages_segment ON pages(segment_id);
        CREATE INDEX pages_conversation ON pages(conversation_id, ts);
        CREATE INDEX pages_ts ON pages(ts);
        CREATE TABLE facts_new(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            origin TEXT NOT NULL,
            superseded_by INTEGER);
        INSERT INTO facts_new SELECT id, kind, text, norm, status, created, updated, origin,
            superseded_by FROM facts;
        DROP TABLE facts;
        ALTER TABLE facts_new RENAME TO facts;
        CREATE INDEX facts_norm ON facts(kind, norm);
        DELETE FROM fact_sources WHERE page_id NOT IN (SELECT id FROM pages)
            OR fact_id NOT IN (SELECT id FROM facts);
        DELETE FROM profile_evidence WHERE page_id NOT IN (SELECT id FROM pages)
            OR slot_id NOT IN (SELECT id FROM profile);
        UPDATE pages SET segment_id=NULL
            WHERE segment_id IS NOT NULL AND segment_id NOT IN (SELECT id FROM segments);
        """
    )
    # Ids used by rows that were already deleted are unknown; the vector tables may still
    # know a higher one (an interrupted write), so start after everything ever seen.
    for table, others in (("pages", ("pages_vec",)), ("facts", ("facts_vec",))):
        high = max(
            conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {name}").fetchall()[0][0]
            for name in (table, *others)
        )
        conn.execute("DELETE FROM sqlite_sequence WHERE name=?", (table,))
        conn.execute("INSERT INTO sqlite_sequence(name, seq) VALUES(?, ?)", (table, high))


def _page_memories(conn, dimension: int) -> None:
    """What each answer remembered: the ids of the memories in its prompt, in rank order.
    Only ids and dates: text read back live, so forgetting an item leaves no copy here."""
    conn.execute(
        """
        CREATE TABLE page_memories(
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            tier TEXT NOT NULL,
            score REAL,
            item_date REAL NOT NULL,
            PRIMARY KEY(page_id, position)) WITHOUT ROWID;
        """
    )


def _int8_vectors(conn, dimension: int) -> None:
    """Page and turn vectors as int8 codes in plain tables (engine/vault/quantized.py): the
    float32 copies were 4.8 of a vault's 5.7 KB per page. Existing rows are converted here,
    a re-embed's staging copies too; the old tables go (`secure_delete` zeroes them)."""
    for table in ("pages_vec", "turns_vec", "pages_vec_next", "turns_vec_next"):
        found = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,)
        ).fetchall()
        if not found or "vec0" not in found[0][0].lower():
            continue  # absent (no re-embed under way), or converted already
        conn.execute(quantized.create_sql(f"{table}_int8"))
        rows = conn.execute(f"SELECT rowid, embedding FROM {table} ORDER BY rowid")
        while batch := list(itertools.islice(rows, 2000)):
            floats = np.frombuffer(b"".join(blob for _, blob in batch), dtype=np.float32)
            codes = quantized.encode_many(floats.reshape(len(batch), -1))
            conn.executemany(
                f"INSERT INTO {table}_int8(id, embedding) VALUES(?, ?)",
                [(row_id, code.tobytes()) for (row_id, _), code in zip(batch, codes, strict=True)],
            )
        conn.execute(f"DROP TABLE {table}")
        conn.execute(f"ALTER TABLE {table}_int8 RENAME TO {table}")


def _vocabulary(conn, dimension: int) -> None:
    """The words the pages use, with their vectors (engine/memory/vocabulary.py): a question's
    words are widened to the vault's own words that mean nearly the same. The words of pages
    already stored are learned by a background job."""
    conn.execute(
        f"""
        CREATE TABLE words(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            term TEXT NOT NULL UNIQUE,
            word TEXT NOT NULL);
        {quantized.create_sql("words_vec")};
        """
    )
    last = conn.execute("SELECT max(id) FROM pages").fetchall()[0][0]
    if last:
        conn.execute(
            "INSERT INTO jobs(kind, payload, created, updated) VALUES('learn_words', ?, ?, ?)",
            (json.dumps({"upto": last}), time.time(), time.time()),
        )


def _external_ids(conn, dimension: int) -> None:
    """Each external id (an agent's own id for an exchange, MCP add_memory) names one page,
    by a unique key: two processes adding the same id at once store it once (the MCP tools
    look it up and add the page in one write transaction). Ids of pages stored before are
    filled in from their meta. A vault where several pages already hold one id (two servers
    raced before this step) keeps the id on the earliest page, the one the lookup returned
    until now; the later pages stay, as memories the person may forget like any other."""
    from engine.records import external_ids_of

    conn.execute(
        """
        CREATE TABLE external_ids(
            external_id TEXT PRIMARY KEY,
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE) WITHOUT ROWID;
        CREATE INDEX external_ids_page ON external_ids(page_id);
        """
    )
    rows = conn.execute(
        "SELECT id, meta FROM pages WHERE meta LIKE '%external_id%' ORDER BY id"
    ).fetchall()
    conn.executemany(  # in page order: OR IGNORE keeps the earliest page of each id
        "INSERT OR IGNORE INTO external_ids(external_id, page_id) VALUES(?, ?)",
        [(value, page_id) for page_id, meta in rows for value in external_ids_of(json.loads(meta))],
    )


def _stable_profile_ids(conn, dimension: int) -> None:
    """Profile entry ids are never reused (AUTOINCREMENT), as page and fact ids (0004): a
    deleted "location: Madrid" gave its id to the next entry learned, so a stale listing
    (the CLI's, another process's, an answer's list of what it used) deleted or showed the
    wrong entry. Rebuilt like 0004, with the table's indexes and triggers as they were."""
    extras = [
        row[0]
        for row in conn.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name='profile' AND type IN "
            "('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name"
        ).fetchall()
    ]
    conn.execute(
        """
        CREATE TABLE profile_new(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            category TEXT NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            origin TEXT NOT NULL,
            superseded_by INTEGER);
        INSERT INTO profile_new SELECT id, category, name, value, status, created, updated,
            origin, superseded_by FROM profile;
        DROP TABLE profile;
        ALTER TABLE profile_new RENAME TO profile;
        DELETE FROM profile_evidence WHERE page_id NOT IN (SELECT id FROM pages)
            OR slot_id NOT IN (SELECT id FROM profile);
        """
    )
    for sql in extras:
        conn.execute(sql)
    # Deleted entries' ids are unknown, but an answer's list of what it used may still name
    # one above the highest left: start after everything ever seen.
    high = conn.execute(
        "SELECT max((SELECT coalesce(max(id), 0) FROM profile), (SELECT coalesce(max(item_id), "
        "0) FROM page_memories WHERE kind='profile'))"
    ).fetchall()[0][0]
    conn.execute("DELETE FROM sqlite_sequence WHERE name='profile'")
    conn.execute("INSERT INTO sqlite_sequence(name, seq) VALUES('profile', ?)", (high,))


def _forgotten(conn, dimension: int) -> None:
    """What was forgotten and when, as one-way keys (engine/vault/forgotten.py): restoring an
    export written before a forget leaves out what it removed. Nothing forgotten before this
    step is known."""
    conn.execute(
        """
        CREATE TABLE forgotten(
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY(kind, key)) WITHOUT ROWID;
        """
    )


# Named steps in order. Append new ones; never edit an applied step.
MIGRATIONS: list[tuple[str, Callable]] = [
    ("0001_initial", _initial),
    ("0002_turn_vectors", _turn_vectors),
    ("0003_job_owner", _job_owner),
    ("0004_stable_ids", _stable_ids),
    ("0005_page_memories", _page_memories),
    ("0006_int8_vectors", _int8_vectors),
    ("0007_vocabulary", _vocabulary),
    ("0008_external_ids", _external_ids),
    ("0009_stable_profile_ids", _stable_profile_ids),
    ("0010_forgotten", _forgotten),
]

# Steps that rebuild a table referenced by foreign keys: run with enforcement off (a DROP
# would otherwise cascade into fact_sources and profile_evidence), checked before commit.
REBUILDS = {"0004_stable_ids", "0009_stable_profile_ids"}

# Steps after which an existing vault is compacted: 0006 frees three quarters of its bytes.
SHRINKS = {"0006_int8_vectors"}


def _backup(path: Path) -> Path:
    """Copy the vault file before migrating. The copy is the encrypted file itself, so it is
    encrypted with the same key; it is private (0600), and only the newest is kept: older ones
    hold memories the person may have forgotten since."""
    backup = Path(f"{path}.backup-{time.time_ns()}")
    with open(backup, "xb") as out:  # created here, so its mode is set before any byte lands
        private_file(backup)
        with open(path, "rb") as source:
            shutil.copyfileobj(source, out)
    for old in path.parent.glob(f"{path.name}.backup-*"):
        if old != backup:
            old.unlink(missing_ok=True)
    return backup


def applied(conn) -> list[str]:
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='migrations'"
    ).fetchall()
    if not has_table:
        return []
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY name")]


def migrate(conn, path: Path, dimension: int) -> None:
    """Bring the schema up to date; refuse a vault written by a newer program."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied REAL NOT NULL)"
    )
    done = set(applied(conn))
    known = {name for name, _ in MIGRATIONS}
    unknown = done - known
    if unknown:
        raise errors.VaultTooNewError(
            f"this vault was written by a newer MemoryOS (steps {sorted(unknown)}): "
            "update the program to open it"
        )
    pending = [(name, step) for name, step in MIGRATIONS if name not in done]
    if not pending:
        return
    if done:  # an existing vault: keep a copy of the (encrypted) file before changing it
        conn.wal_checkpoint(mode=3)  # TRUNCATE: the main file holds everything
        _backup(path)
    for name, step in pending:
        rebuild = name in REBUILDS
        if rebuild:
            conn.execute("PRAGMA foreign_keys=OFF")  # a no-op inside a transaction: set it here
        try:
            with conn:
                step(conn, dimension)
                if rebuild and conn.execute("PRAGMA foreign_key_check").fetchall():
                    raise errors.VaultCorruptError(
                        f"schema step {name} left dangling references: the vault was not changed"
                    )
                conn.execute(
                    "INSERT INTO migrations(name, applied) VALUES(?, ?)", (name, time.time())
                )
        finally:
            if rebuild:
                conn.execute("PRAGMA foreign_keys=ON")
    if done and any(name in SHRINKS for name, _ in pending):
        conn.execute("VACUUM")  # give the freed pages back to the disk (once, after the steps)
        conn.wal_checkpoint(mode=3)  # in WAL mode the file shrinks only at a checkpoint
