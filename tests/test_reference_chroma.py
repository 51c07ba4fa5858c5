"""Importing the reference's chromadb-variant store (made by its own code) by reading chroma.sqlite3."""

from __future__ import annotations

import json
import sqlite3

import pytest

from engine import errors
from engine.reference_files import read_reference
from engine.reference_import import ORIGIN, import_reference, vault_counts
from tests.helpers import REFERENCE_CHROMA as FIXTURE
from tests.helpers import reference_copy, run_cli

STORE = FIXTURE / "chroma_storage"
METADATA = STORE / "metadata_maya_helper.json"
EMPTY = {
    "pages": 0, "short_term_pages": 0, "mid_term_pages": 0, "segments": 0,
    "user_facts": 0, "assistant_knowledge": 0, "profile_slots": 0,
}  # fmt: skip


def chroma_rows(collection: str, kind: str | None = None) -> list[str]:
    """embedding ids of a collection, read with plain SQL (independently of the importer)."""
    conn = sqlite3.connect(f"{(STORE / 'chroma.sqlite3').as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT e.embedding_id FROM embeddings e JOIN segments s ON s.id = e.segment_id "
            "JOIN collections c ON c.id = s.collection WHERE c.name = ? AND s.scope = 'METADATA' "
            "AND (? IS NULL OR EXISTS (SELECT 1 FROM embedding_metadata m WHERE m.id = e.id "
            "AND m.key = 'type' AND m.string_value = ?))",
            (collection, kind, kind),
        ).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def metadata() -> dict:
    return json.loads(METADATA.read_text(encoding="utf-8"))


def test_the_fixture_is_what_the_chromadb_variant_writes():
    assert sorted(p.name for p in STORE.iterdir()) == ["chroma.sqlite3", METADATA.name]
    assert set(metadata()) == {
        "mid_term_sessions", "access_frequency", "heap_state", "short_term_memory",
        "user_profiles", "update_times",
    }  # fmt: skip
    assert len(chroma_rows("mid_term_memory_user_maya", "page")) == 5
    assert len(chroma_rows("user_knowledge_maya")) == 2
    assert len(chroma_rows("assistant_knowledge_helper")) == 1
    backed_up = [p for s in metadata()["mid_term_sessions"].values() for p in s["pages_backup"]]
    assert len(backed_up) == 4  # the reference's own JSON lost one page Chroma kept


def test_the_variant_is_detected_and_read_with_every_tier():
    for folder in (FIXTURE, STORE):  # its data_storage_path, or chroma_storage itself
        data = read_reference(folder)
        assert (data.user_id, data.assistants, data.recovered) == ("maya", ["helper"], 1)
        assert data.counts() == {
            "short_term_pages": len(metadata()["short_term_memory"]),
            "segments": len(metadata()["mid_term_sessions"]),
            "mid_term_pages": 5,
            "analysed_pages": 4,
            "profile": 1,
            "user_knowledge": 2,
            "assistant_knowledge": 1,
            "skipped_empty_pages": 0,
        }
    (session,) = data.sessions
    assert session.pages[0].user_input == "Hi! I'm Maya, I teach chemistry at a high school."


def test_import_fills_the_tiers_with_provenance(memory):
    after = import_reference(memory, read_reference(FIXTURE))
    assert after == {
        "pages": 8, "short_term_pages": 3, "mid_term_pages": 5, "segments": 1,
        "user_facts": 2, "assistant_knowledge": 1, "profile_slots": 1,
    }  # fmt: skip
    assert sorted(f.text for f in memory.facts(kind="user_fact")) == [
        "Maya cannot eat gluten.", "Maya teaches chemistry at a high school.",
    ]  # fmt: skip
    assert {f.origin for f in memory.facts()} == {ORIGIN}
    assert {s.origin for s in memory.profile()} == {ORIGIN}
    hits = memory.retrieve("Maya chemistry teacher high school").pages
    assert any("chemistry" in item.page.user_input for item in hits)
    assert import_reference(memory, read_reference(FIXTURE)) == after  # nothing twice


def copy_store(tmp_path):
    return reference_copy(tmp_path, "chroma_data", FIXTURE) / "chroma_storage"


@pytest.mark.parametrize(
    ("damage", "name", "expected"),
    [
        (lambda s: (s / "chroma.sqlite3").write_bytes(b"not a database" * 100), "chroma.sqlite3",
         "is not a readable Chroma database"),
        (lambda s: (s / "chroma.sqlite3").write_bytes((s / "chroma.sqlite3").read_bytes()[:8192]),
         "chroma.sqlite3", "is not a readable Chroma database"),
        (lambda s: (s / METADATA.name).unlink(), METADATA.name, "is missing: the reference writes it"),
        (lambda s: (s / METADATA.name).write_text('{"mid_term_sessions": {', encoding="utf-8"),
         METADATA.name, "is not valid JSON"),
    ],
)  # fmt: skip
def test_a_damaged_or_partial_store_is_named_and_nothing_is_imported(
    memory, tmp_path, damage, name, expected
):
    store = copy_store(tmp_path)
    damage(store)
    with pytest.raises(errors.InvalidInputError) as caught:
        import_reference(memory, read_reference(store.parent))
    message = str(caught.value)
    assert (
        expected in message and str(store / name) in message and "nothing was imported" in message
    )
    assert vault_counts(memory) == EMPTY


def test_the_command_line_detects_the_variant(home):
    dry = run_cli("import-reference", str(FIXTURE), "--dry-run", "--embedder", "fake", home=home)
    assert dry.returncode == 0, dry.stderr
    out = dry.stdout.decode()
    assert "Reference memory of user 'maya'" in out and "Dry run: nothing was written." in out
    assert "mid-term pages                   5" in out
    assert "1 mid-term page only in chroma.sqlite3" in out
    assert not (home / "data" / "vaults").exists()

    done = run_cli("import-reference", str(FIXTURE), "--vault", "maya", "--embedder", "fake",
                   "--no-consolidate", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "  pages                       0      8" in out
    assert "  assistant_knowledge         0      1" in out
    assert "Importing" in done.stderr.decode()


def test_a_data_folder_where_the_compat_class_keeps_vaults_is_read_as_the_variant(
    tmp_path, fail_keyring, embedder
):
    """engine.compat keeps its vaults in users/ beside chroma_storage/: the folder is still
    read as the chromadb variant's, as `memoryos import-reference FOLDER` would read it."""
    from engine.api import MemoryOS
    from engine.compat import vault_path
    from engine.reference_files import find_users

    folder = copy_store(tmp_path).parent
    with MemoryOS.open(vault_path(folder, "maya"), create=True, passphrase="pw-long-enough",
                       embedder=embedder, background=False):  # fmt: skip
        pass
    assert find_users(folder) == ["maya"]
    data = read_reference(folder)
    assert (data.user_id, data.assistants) == ("maya", ["helper"])
    assert data.counts()["mid_term_pages"] == 5 and data.counts()["user_knowledge"] == 2
