"""Reference imports as a walkthrough met them: knowledge lists, empty user folders, sessions
sharing pages, and what `memoryos import-reference` prints."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3

import pytest

from engine import errors
from engine.reference_files import read_reference
from engine.reference_import import import_reference, import_steps, vault_counts
from tests.helpers import REFERENCE_MEMORY as FIXTURE
from tests.helpers import ROOT, reference_copy, run_cli, steps_to_end

CHROMA = ROOT / "tests" / "data" / "reference_chroma"
FAKE = ("--embedder", "fake")
# What the reference's knowledge analysis stores: one text, a list, several times over
BLOB = "- Alex moved to Lisbon in May 2025\n- Alex has a cat named Miso\n* Alex plays clarinet"
LINES = ["Alex moved to Lisbon in May 2025", "Alex has a cat named Miso", "Alex plays clarinet"]


def run(memory, data):
    """import_steps to the end: what it added."""
    return steps_to_end(import_steps(memory, data))


def _edit(path, change) -> None:
    content = json.loads(path.read_text(encoding="utf-8"))
    change(content)
    path.write_text(json.dumps(content), encoding="utf-8")


def json_with_blobs(tmp_path):
    folder = reference_copy(tmp_path)

    def blobs(content):
        content["knowledge_base"] = [
            {"knowledge": BLOB, "timestamp": "2025-05-10 10:00:00"} for _ in range(3)
        ]

    _edit(folder / "users" / "alex" / "long_term_user.json", blobs)
    return folder


def chroma_with_blobs(tmp_path):
    """The chromadb variant's store with its user knowledge rows made one list, stored twice."""
    folder = tmp_path / "chroma"
    shutil.copytree(CHROMA, folder)
    conn = sqlite3.connect(folder / "chroma_storage" / "chroma.sqlite3")
    with conn:
        conn.execute(
            "UPDATE embedding_metadata SET string_value = ? WHERE key = 'text' AND id IN ("
            "SELECT e.id FROM embeddings e JOIN segments s ON s.id = e.segment_id "
            "JOIN collections c ON c.id = s.collection WHERE c.name = 'user_knowledge_maya')",
            (BLOB.replace("Alex", "Maya"),),
        )
    conn.close()
    return folder


@pytest.mark.parametrize("variant", ["json", "chroma"])
def test_a_knowledge_list_becomes_one_fact_per_line_once(memory, tmp_path, home, variant):
    """The reference keeps a list of facts as one text (and repeats it): each line is a fact of
    its own, without its list marker, once; the counts printed are what is added."""
    folder = json_with_blobs(tmp_path) if variant == "json" else chroma_with_blobs(tmp_path)
    name = "Alex" if variant == "json" else "Maya"
    lines = [line.replace("Alex", name) for line in LINES]
    data = read_reference(folder)
    assert data.counts()["user_knowledge"] == 3
    added = run(memory, data)
    assert added.facts == 3
    texts = sorted(f.text for f in memory.facts(kind="user_fact"))
    assert texts == sorted(lines)
    # one line can go alone
    memory.delete_fact(next(f.id for f in memory.facts() if "clarinet" in f.text))
    assert sorted(f.text for f in memory.facts(kind="user_fact")) == sorted(lines[:2])

    args = ("import-reference", str(folder), "--vault", "v", *FAKE, "--no-consolidate")
    done = run_cli(*args, home=home)
    said = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert re.search(r"user knowledge \(facts\) +3( \(from \d+ entries [^\n]*)?\n", said)
    assert "3 facts" in said.split("Added", 1)[1]


def test_the_counts_say_when_many_entries_are_one_fact(tmp_path, home):
    """The reference writes each analysis again: 24 entries in its file were "user knowledge
    (facts) 4" and nothing said why, which read as facts lost."""
    folder = reference_copy(tmp_path)

    def repeated(content):
        content["knowledge_base"] = [
            {"knowledge": "- Alex is a nurse\n- Alex hikes on Sundays",
             "timestamp": "2025-05-10 10:00:00"} for _ in range(5)
        ] + [{"knowledge": "Alex speaks Spanish", "timestamp": "2025-05-11 10:00:00"}]

    _edit(folder / "users" / "alex" / "long_term_user.json", repeated)
    done = run_cli("import-reference", str(folder), "--dry-run", *FAKE, home=home)
    said = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    line = next(line for line in said.splitlines() if "user knowledge (facts)" in line)
    assert re.search(r"\b3\b", line) and "6 entries" in line, line


def test_list_markers_are_dropped_from_imported_facts(memory, tmp_path):
    folder = reference_copy(tmp_path)

    def marked(content):
        content["knowledge_base"] = [
            {"knowledge": "- Alex is a nurse", "timestamp": "2025-05-10 10:00:00"},
            {"knowledge": "• Alex hikes on Sundays", "timestamp": "2025-05-10 10:00:00"},
            {"knowledge": "1. Alex speaks Spanish\n2. Alex has a garden", "timestamp": None},
            {"knowledge": "- None.", "timestamp": None},
        ]

    _edit(folder / "users" / "alex" / "long_term_user.json", marked)
    run(memory, read_reference(folder))
    assert sorted(f.text for f in memory.facts(kind="user_fact")) == [
        "Alex has a garden", "Alex hikes on Sundays", "Alex is a nurse", "Alex speaks Spanish",
    ]  # fmt: skip


def test_a_vault_that_imported_a_list_whole_does_not_get_its_lines_again(memory, tmp_path):
    """An earlier version imported a list as one fact (its record holds the list's key):
    importing the folder again does not add the list's lines beside it."""
    from engine.reference_files import knowledge_key, read_reference
    from engine.reference_import import ImportRecord

    folder = json_with_blobs(tmp_path)
    data = read_reference(folder)
    record = ImportRecord.read(memory, data.user_id)
    whole = data.knowledge[0]
    record.knowledge = {knowledge_key(type(whole)(BLOB, 0.0, whole.kind, whole.source))}
    record.write(memory)
    assert run(memory, data).facts == 0


def test_the_imported_profile_reads_as_its_own_text_in_facts_list(home):
    args = ("import-reference", str(FIXTURE), "--vault", "alex", *FAKE, "--no-consolidate")
    assert run_cli(*args, home=home).returncode == 0
    listing = run_cli("facts", "list", "--vault", "alex", *FAKE, home=home).stdout.decode()
    profile = json.loads((FIXTURE / "users" / "alex" / "long_term_user.json").read_text())
    text = " ".join(profile["user_profiles"]["alex"]["data"].split())
    line = next(line for line in listing.splitlines() if line.startswith("profile"))
    assert re.match(rf"profile +p\d+  {re.escape(text[:40])}", line), line
    assert "imported/" not in line and line.endswith("(imported from the reference)")


def test_an_empty_user_folder_is_refused_and_nothing_is_made(tmp_path, home):
    """`mkdir -p e3/users/zed; memoryos import-reference e3 --vault zed` printed a table of
    zeros and made zed.memoryos: a user folder without the reference's files holds no memory."""
    (tmp_path / "e3" / "users" / "zed").mkdir(parents=True)
    for extra in ((), ("--user", "zed")):
        done = run_cli("import-reference", str(tmp_path / "e3"), "--vault", "zed", *extra, *FAKE,
                       home=home)  # fmt: skip
        assert done.returncode == 2
        assert "holds no user's memory" in done.stderr.decode()
        assert done.stdout.decode() == ""
    assert not list(home.rglob("zed.memoryos*"))
    with pytest.raises(errors.InvalidInputError, match="holds no user's memory"):
        read_reference(tmp_path / "e3")
    # beside a user with memory, an empty folder is no user to choose
    folder = reference_copy(tmp_path)
    (folder / "users" / "zed").mkdir()
    assert read_reference(folder).user_id == "alex"


def shared_sessions(tmp_path):
    """mid_term.json where two sessions list the same two pages (as the reference wrote them):
    one about a cat, one about a move."""
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "mid_term.json"
    pages = [
        {"page_id": "page_move", "user_input": "I just moved to Lisbon last month.",
         "agent_response": "Welcome to Lisbon!", "timestamp": "2025-05-01 10:00:00"},
        {"page_id": "page_cat", "user_input": "My cat Miso hates the stairs.",
         "agent_response": "Poor Miso!", "timestamp": "2025-05-01 10:05:00"},
    ]  # fmt: skip

    def share(content):
        for session_id, summary, words in (
            ("session_cat", "User has a cat called Miso", ["cat", "Miso"]),
            ("session_move", "User moved to Lisbon", ["Lisbon", "move"]),
        ):
            content["sessions"][session_id] = {
                "summary": summary, "summary_keywords": words, "details": pages,
                "N_visit": 2, "L_interaction": 2, "timestamp": "2025-05-01 10:00:00",
                "last_visit_time": "2025-05-01 10:05:00",
            }  # fmt: skip

    _edit(path, share)
    sessions = json.loads(path.read_text(encoding="utf-8"))["sessions"]
    return folder, sessions


def test_sessions_listing_the_same_pages_each_stay_a_topic(memory, tmp_path):
    """Two sessions that list the same pages: the second was dropped with its summary and
    keywords. Each stays a topic, a page in one of them: the one it fits best."""
    folder, sessions = shared_sessions(tmp_path)
    data = read_reference(folder)
    assert data.counts()["segments"] == len(sessions)
    added = run(memory, data)
    assert added.segments == len(sessions)
    topics = {s.summary: s for s in memory.segments()}
    assert {"User has a cat called Miso", "User moved to Lisbon"} <= set(topics)
    assert "lisbon" in {w.lower() for w in topics["User moved to Lisbon"].keywords}
    move = [p.user_input for p in memory.segment_pages(topics["User moved to Lisbon"].id)]
    cat = [p.user_input for p in memory.segment_pages(topics["User has a cat called Miso"].id)]
    assert move == ["I just moved to Lisbon last month."]
    assert cat == ["My cat Miso hates the stairs."]
    texts = [p.user_input for p in memory.pages(limit=100)]
    assert texts.count("My cat Miso hates the stairs.") == 1  # still one page
    assert vault_counts(memory)["segments"] == data.counts()["segments"]


def test_a_session_whose_only_page_is_another_sessions_keeps_its_summary(memory, tmp_path):
    """Two sessions listing one single page cannot both hold it: the second's summary and
    keywords join the topic that does, so neither is lost."""
    folder = reference_copy(tmp_path)
    page = {"page_id": "page_one", "user_input": "My cat Miso moved to Lisbon with me.",
            "agent_response": "Lovely.", "timestamp": "2025-05-01 10:00:00"}  # fmt: skip

    def share(content):
        content["sessions"] = {
            sid: {"summary": summary, "summary_keywords": [word], "details": [page],
                  "timestamp": "2025-05-01 10:00:00"}
            for sid, summary, word in (("a", "User has a cat", "cat"),
                                       ("b", "User moved to Lisbon", "Lisbon"))
        }  # fmt: skip

    _edit(folder / "users" / "alex" / "mid_term.json", share)
    run(memory, read_reference(folder))
    (topic,) = memory.segments()
    assert "User has a cat" in topic.summary and "User moved to Lisbon" in topic.summary
    assert {"cat", "lisbon"} <= {w.lower() for w in topic.keywords}


def test_the_command_prints_aligned_columns_whatever_the_vault_name(home):
    name = "a-rather-long-vault-name-for-alex"
    args = ("import-reference", str(FIXTURE), "--vault", name, *FAKE, "--no-consolidate")
    done = run_cli(*args, home=home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    header = next(i for i, line in enumerate(lines) if line.rstrip().endswith("before  after"))
    assert name in lines[header - 1]
    ends = {len(line.rstrip()) for line in lines[header : header + 8]}
    assert len(ends) == 1, lines[header : header + 8]  # the numbers end under "after"
    before = lines[header].index("before") + len("before")
    assert all(line[before - 1].isdigit() for line in lines[header + 1 : header + 8])


def test_data_folder_with_vault_is_refused_before_reading_anything(tmp_path, home):
    """The arguments are checked first: a damaged folder is not even read."""
    folder = reference_copy(tmp_path)
    (folder / "users" / "alex" / "mid_term.json").write_text("{broken", encoding="utf-8")
    done = run_cli("import-reference", str(folder), "--vault", "v", "--data-folder",
                   str(tmp_path / "data"), *FAKE, home=home)  # fmt: skip
    said = done.stderr.decode()
    assert done.returncode == 2 and "give either --data-folder or --vault" in said
    assert "mid_term.json" not in said and done.stdout.decode() == ""


def test_organising_after_an_import_shows_its_real_total_from_the_start(memory, home):
    """`import-reference` then organises the memory: its bar read 0/1 then 2/2 (a second job
    for the words, queued once the first began). The jobs pending after the import are all
    the jobs that run."""
    import_reference(memory, read_reference(FIXTURE))
    pending = memory.consolidation_status().pending_jobs
    ran = 0
    while step := memory.run_consolidation(max_jobs=1):
        ran += step
    assert ran == pending
    args = ("import-reference", str(FIXTURE), "--vault", "alex", *FAKE)
    done = run_cli(*args, home=home)
    assert done.returncode == 0, done.stderr
    bars = done.stderr.decode().replace("\r", "\n")
    totals = set(re.findall(r"Organising memory: .*?\| *\d+/(\d+) \[", bars))
    assert len(totals) == 1, bars

