"""Importing a reference MemoryOS data folder (made by the reference's own code) into a vault."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from engine import errors
from engine.reference_files import read_reference
from engine.reference_import import ORIGIN, PROFILE_NAME, import_reference, vault_counts
from engine.timestamps import parse_timestamp
from tests.helpers import REFERENCE_MEMORY as FIXTURE
from tests.helpers import reference_copy, run_cli, steps_to_end

USER = FIXTURE / "users" / "alex"
EMPTY = {
    "pages": 0, "short_term_pages": 0, "mid_term_pages": 0, "segments": 0,
    "user_facts": 0, "assistant_knowledge": 0, "profile_slots": 0,
}  # fmt: skip


def raw(name: str):
    return json.loads((USER / name).read_text(encoding="utf-8"))


def pages_of(sessions) -> list[list[dict]]:
    """Each session's pages as imported: a page_id the reference filed twice (the fixture's
    session_0b801212 holds page_101d1ef6 twice) is one page, in the first place it appears."""
    seen: set[str] = set()
    out = []
    for session in sessions:
        out.append([])
        for page in session["details"]:
            if page["page_id"] not in seen:
                seen.add(page["page_id"])
                out[-1].append(page)
    return out


def mid_term_pages() -> int:
    return sum(map(len, pages_of(raw("mid_term.json")["sessions"].values())))


def raw_knowledge() -> tuple[list[str], list[str]]:
    user = [k["knowledge"] for k in raw("long_term_user.json")["knowledge_base"]]
    assistant = [k["knowledge"] for k in raw("long_term_user.json")["assistant_knowledge"]]
    for path in (FIXTURE / "assistants").glob("*/long_term_assistant.json"):
        assistant += [k["knowledge"] for k in json.loads(path.read_text())["assistant_knowledge"]]
    return user, assistant


def test_the_fixture_is_what_the_reference_writes():
    assert sorted(p.name for p in USER.iterdir()) == [
        "long_term_user.json", "mid_term.json", "short_term.json",
    ]  # fmt: skip
    session = next(iter(raw("mid_term.json")["sessions"].values()))
    assert {"summary", "summary_keywords", "details", "N_visit", "L_interaction", "H_segment",
            "timestamp", "last_visit_time"} <= set(session)  # fmt: skip
    assert {"page_id", "user_input", "agent_response", "timestamp", "analyzed", "pre_page",
            "meta_info", "page_embedding"} <= set(session["details"][0])  # fmt: skip


def test_a_dry_run_reads_every_tier_and_counts_it():
    data = read_reference(FIXTURE)
    sessions = raw("mid_term.json")["sessions"]
    user, assistant = raw_knowledge()
    assert data.user_id == "alex" and data.assistants == ["helper"]
    assert data.counts() == {
        "short_term_pages": len(raw("short_term.json")),
        "segments": len(sessions),
        "mid_term_pages": mid_term_pages(),
        "analysed_pages": sum(p["analyzed"] for s in pages_of(sessions.values()) for p in s),
        "profile": 1,
        "user_knowledge": len([k for k in user if k.strip().lower() != "none"]),
        "assistant_knowledge": len([k for k in assistant if k.strip().lower() != "none"]),
        "skipped_empty_pages": 0,
    }


def test_import_fills_the_tiers_with_provenance_and_heat(memory):
    data = read_reference(FIXTURE)
    assert vault_counts(memory) == EMPTY
    after = import_reference(memory, data)
    found = data.counts()
    assert after == {
        "pages": found["short_term_pages"] + found["mid_term_pages"],
        "short_term_pages": found["short_term_pages"],
        "mid_term_pages": found["mid_term_pages"],
        "segments": found["segments"],
        "user_facts": found["user_knowledge"],
        "assistant_knowledge": found["assistant_knowledge"],
        "profile_slots": 1,
    }
    facts = memory.facts()
    assert all(f.origin == ORIGIN for f in facts)
    (slot,) = memory.profile()
    profile = raw("long_term_user.json")["user_profiles"]["alex"]
    assert (slot.name, slot.value, slot.origin) == (PROFILE_NAME, profile["data"].strip(), ORIGIN)
    assert slot.updated == parse_timestamp(profile["last_updated"])

    by_summary = {s.summary: s for s in memory.segments()}
    sessions = raw("mid_term.json")["sessions"].values()
    for session, details in zip(sessions, pages_of(sessions), strict=True):
        segment = by_summary[session["summary"]]
        assert (segment.heat.visits, segment.heat.length) == (
            session["N_visit"],
            session["L_interaction"],
        )
        pages = memory.segment_pages(segment.id)
        assert sorted((p.user_input, p.timestamp) for p in pages) == sorted(
            (p["user_input"], parse_timestamp(p["timestamp"])) for p in details
        )
        analysed = all(p["analyzed"] for p in details)
        assert (memory.vault.unanalysed_page_ids(segment.id) == []) == analysed
    recent = [(p.user_input, p.agent_response) for p in memory.short_term()]
    assert recent == [(q["user_input"], q["agent_response"]) for q in raw("short_term.json")]

    # The imported pages are searchable, and a second import adds nothing twice.
    hits = memory.retrieve("nurse at the city hospital").pages
    assert any("nurse" in item.page.user_input for item in hits)
    assert import_reference(memory, read_reference(FIXTURE)) == after


def _set(path: str, value):
    """Damage: replace the value at a path of keys in the JSON."""

    def damage(text: str) -> str:
        data = json.loads(text)
        *parents, last = path
        target = data
        for key in parents:
            target = target[key]
        target[last] = value
        return json.dumps(data)

    return damage


@pytest.mark.parametrize(
    ("name", "damage", "expected"),
    [
        ("mid_term.json", lambda text: text[: len(text) // 2], "mid_term.json is not valid JSON"),
        ("short_term.json", lambda text: '{"not": "a list"}', "short_term.json should hold a JSON list"),
        ("short_term.json", _set([0, "timestamp"], "sometime in April"),
         "short_term.json: item 0: timestamp: timestamp 'sometime in April' is not a date"),
        ("short_term.json", _set([1, "user_input"], 42), "short_term.json: item 1: user_input must be text"),
        ("long_term_user.json", _set(["knowledge_base", 0], 7),
         "long_term_user.json: knowledge_base item 0 must be a JSON object"),
    ],
)  # fmt: skip
def test_a_damaged_file_is_named_and_nothing_is_imported(memory, tmp_path, name, damage, expected):
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / name
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(errors.InvalidInputError) as caught:
        import_reference(memory, read_reference(folder))
    assert expected in str(caught.value) and str(path.parent) in str(caught.value)
    assert vault_counts(memory) == EMPTY


def test_a_failure_while_writing_leaves_the_vault_as_it_was(memory, monkeypatch):
    memory.add_memory("Before the import", "kept")
    before = vault_counts(memory)

    def broken(*args, **kwargs):
        raise errors.DiskFullError("the disk is full")

    monkeypatch.setattr(memory.persona, "remember_fact", broken)  # after every page was written
    with pytest.raises(errors.DiskFullError):
        import_reference(memory, read_reference(FIXTURE))
    assert vault_counts(memory) == before
    found = memory.retrieve("nurse at the city hospital")
    assert [p.page.user_input for p in found.pages] in ([], ["Before the import"])


def test_several_users_must_be_chosen(tmp_path, home):
    folder = reference_copy(tmp_path)
    shutil.copytree(folder / "users" / "alex", folder / "users" / "sam")
    with pytest.raises(errors.InvalidInputError, match=r"holds 2 users \(alex, sam\): choose one"):
        read_reference(folder)
    assert read_reference(folder, "sam").user_id == "sam"
    with pytest.raises(errors.InvalidInputError, match="is not a reference MemoryOS data folder"):
        read_reference(folder / "users")
    # the command says how to choose
    done = run_cli("import-reference", str(folder), "--dry-run", "--embedder", "fake", home=home)
    assert done.returncode == 2
    said = done.stderr.decode()
    assert "holds 2 users (alex, sam)" in said and "--user" in said


def test_choosing_a_user_folder_names_the_data_folder_to_choose(tmp_path):
    """A person choosing users/alex (or users/) is told which folder holds users/, in words
    that fit the app as well as the terminal."""
    folder = reference_copy(tmp_path)
    with pytest.raises(errors.InvalidInputError) as caught:
        read_reference(folder / "users" / "alex")
    said = str(caught.value)
    assert "two levels up" in said and f"{folder.resolve()}," in said
    assert "pass the" not in said
    with pytest.raises(errors.InvalidInputError, match="one level up"):
        read_reference(folder / "users")


@pytest.mark.parametrize(
    ("name", "content"),
    [("users/alex/short_term.json", b""), ("assistants/helper/long_term_assistant.json", b" \n")],
)
def test_an_empty_file_is_refused_as_unfinished_and_nothing_is_imported(
    memory, tmp_path, home, name, content
):
    """The reference writes each file as a whole JSON document: a 0-byte (or blank) one is a
    file it never finished writing. It is refused, named, with what to do; the dry run too."""
    folder = reference_copy(tmp_path)
    (folder / name).write_bytes(content)
    with pytest.raises(errors.InvalidInputError) as caught:
        import_reference(memory, read_reference(folder))
    said = str(caught.value)
    assert str(folder / name) in said and "is empty" in said and "did not finish" in said
    assert "Run the reference MemoryOS once more" in said
    assert vault_counts(memory) == EMPTY
    dry = run_cli("import-reference", str(folder), "--dry-run", "--embedder", "fake", home=home)
    assert dry.returncode == 2 and f"{folder / name} is empty" in dry.stderr.decode()
    assert "Dry run" not in dry.stdout.decode()


def test_a_second_import_reports_that_nothing_new_was_added(memory):
    from engine.reference_import import import_steps

    first = steps_to_end(import_steps(memory, read_reference(FIXTURE)))
    found = read_reference(FIXTURE).counts()
    assert first.pages == found["short_term_pages"] + found["mid_term_pages"]
    assert first.summary() == (
        f"{first.pages} pages in 2 topics, 2 facts, 1 piece of assistant knowledge and the profile"
    )
    again = steps_to_end(import_steps(memory, read_reference(FIXTURE)))
    assert again.nothing and again.summary() == "nothing new"
    assert again.already_pages == first.pages


def test_the_command_says_when_nothing_new_was_added(home):
    args = ("import-reference", str(FIXTURE), "--vault", "alex", "--embedder", "fake",
            "--no-consolidate")  # fmt: skip
    first = run_cli(*args, home=home)
    assert first.returncode == 0, first.stderr
    assert "Added 9 pages in 2 topics, 2 facts, 1 piece of assistant knowledge and the " \
        "profile." in first.stdout.decode()  # fmt: skip
    again = run_cli(*args, home=home)
    assert again.returncode == 0, again.stderr
    said = again.stdout.decode()
    assert "Already in this vault: nothing new was added." in said and "Added" not in said


def test_imported_pages_join_the_vocabulary(memory):
    """Query expansion widens a question's words to the words the vault's pages use: imported
    pages are among them, as any new exchange is, once consolidation has run."""
    from engine.memory import keywords

    memory.run_consolidation()  # the vault's one-time catch-up is done: the import must say
    import_reference(memory, read_reference(FIXTURE))
    memory.run_consolidation()
    words = ["hiking", "mountains", "tahoe", "nurse", "hospital", "spanish", "peanuts", "sister"]
    known = memory.vault.word_ids([keywords.fts_term(w) for w in words])
    assert sorted(known) == sorted(keywords.fts_term(w) for w in words)
    assert memory.consolidation_status().words == len(memory.word_mirror) > 50


def test_a_vault_whose_imported_pages_missed_the_vocabulary_learns_them(memory):
    """A vault filled by an import of an earlier version (pages stored, no words learned, no
    job queued) gets its words from consolidation's one-time catch-up, in the background."""
    from engine.memory import keywords, vocabulary

    import_reference(memory, read_reference(FIXTURE))
    with memory.vault.transaction():  # as an earlier version left it: no job for the words
        for job in memory.vault.pending_jobs(limit=100):
            if job.kind == "learn_words":
                memory.vault.finish_job(job.id)
        memory.vault.set_meta(vocabulary.CAUGHT_UP, "")  # nor a catch-up made unneeded
    memory.run_consolidation()
    assert memory.vault.word_ids([keywords.fts_term("tahoe")])
    assert vocabulary.catch_up(memory.ctx) is False  # once: later runs cost one meta read


@pytest.mark.real_models
def test_expansion_finds_an_imported_turn_by_a_related_word(minilm_memory):
    """"sibling" is said nowhere; the imported "My sister Jo is visiting" is found through the
    vocabulary's "sister"."""
    from engine.retrieval import retrieve

    memory = minilm_memory
    import_reference(memory, read_reference(FIXTURE))
    memory.run_consolidation()
    found, _ = retrieve(memory, "Which sibling is coming to see me?", max_pages=4)
    sister = [t for t in found.turns if "sister Jo" in memory.page(t.page_id).user_input]
    assert any("expansion" in turn.sources for turn in sister)


def test_the_command_line_dry_run_and_import(home):
    dry = run_cli("import-reference", str(FIXTURE), "--dry-run", "--embedder", "fake", home=home)
    assert dry.returncode == 0, dry.stderr
    out = dry.stdout.decode()
    assert "Reference memory of user 'alex'" in out and "Dry run: nothing was written." in out
    assert f"mid-term sessions (segments)     {len(raw('mid_term.json')['sessions'])}" in out
    assert not (home / "data" / "vaults").exists()

    done = run_cli("import-reference", str(FIXTURE), "--vault", "alex", "--embedder", "fake",
                   home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    pages = len(raw("short_term.json")) + mid_term_pages()
    assert f"  pages                       0 {pages:6}" in out
    assert "Importing" in done.stderr.decode()  # the progress bar

    bad = run_cli("import-reference", str(home / "nowhere"), "--embedder", "fake", home=home)
    assert bad.returncode == 2
    assert bad.stderr == f"error: no folder at {home / 'nowhere'}\n".encode()
    (home / "empty").mkdir()
    empty = run_cli("import-reference", str(home / "empty"), "--embedder", "fake", home=home)
    assert empty.returncode == 2 and b"has no users/ folder" in empty.stderr


def test_into_a_data_folder_the_assistants_knowledge_is_shared_by_its_users(home, tmp_path):
    from engine.backends.fake import HashEmbedder
    from engine.compat import Memoryos
    from engine.shared_knowledge import assistant_vault_path

    folder = tmp_path / "memoryos_data"
    done = run_cli("import-reference", str(FIXTURE), "--data-folder", str(folder),
                   "--embedder", "fake", "--no-consolidate", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (shared_text,) = [
        k["knowledge"]
        for k in json.loads((FIXTURE / "assistants" / "helper" / "long_term_assistant.json")
                            .read_text())["assistant_knowledge"]
    ]  # fmt: skip
    assert "Assistant 'helper': 1 piece of knowledge" in done.stdout.decode()
    assert (folder / "users" / "alex" / "vault.memoryos").is_file()
    assert assistant_vault_path(folder, "helper").is_file()

    def open_user(user_id: str) -> Memoryos:
        return Memoryos(user_id, "", str(folder), openai_base_url="http://127.0.0.1:9/v1",
                        assistant_id="helper", embedder=HashEmbedder(384), background=False,
                        passphrase="correct horse battery")  # fmt: skip

    alex, sam = open_user("alex"), open_user("sam")  # sam never used the reference
    try:
        for memo in (alex, sam):
            summary = [k["knowledge"] for k in memo.get_assistant_knowledge_summary()]
            assert shared_text in summary
        (fact,) = [f for f in sam.memory.facts(kind="assistant_knowledge") if f.text == shared_text]
        assert fact.origin == ORIGIN
        assert sam.memory.facts(kind="user_fact") == []  # alex's own facts stay alex's
        assert len(alex.memory.facts(kind="user_fact")) == len(raw_knowledge()[0])
    finally:
        alex.close()
        sam.close()


def test_relative_dates_in_imported_exchanges_are_searchable_by_their_day(memory, tmp_path):
    """An imported exchange is stored as any other: "yesterday" is also indexed as the day it
    meant when it was said, so a question naming that day finds it."""
    from engine.memory import when

    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "short_term.json"
    items = json.loads(path.read_text(encoding="utf-8"))
    items[0]["user_input"] = "Yesterday I adopted a grey cat called Miso."
    path.write_text(json.dumps(items), encoding="utf-8")
    said = parse_timestamp(items[0]["timestamp"])
    day = when.resolve_relative("yesterday", said).split("[", 1)[1].rstrip("]")  # "6 May 2025"
    import_reference(memory, read_reference(folder))
    hits = memory.vault.keyword_search("pages_fts", f'"{day}"', 10)
    texts = [p.user_input for p in memory.vault.pages([page_id for page_id, _ in hits])]
    assert "Yesterday I adopted a grey cat called Miso." in texts


def run_import(memory, folder):
    """import_steps to the end: (what it added, every (done, total) it reported)."""
    from engine.reference_import import import_steps

    progress: list = []
    return steps_to_end(import_steps(memory, read_reference(folder)), progress), progress


def test_importing_again_brings_back_nothing_deleted_since(memory):
    """The person deletes imported facts, assistant knowledge, the profile and a page; the
    same folder imported again brings none of them back."""
    first, _ = run_import(memory, FIXTURE)
    assert first.facts and first.knowledge and first.profile
    for fact in memory.facts():  # user facts and assistant knowledge
        memory.delete_fact(fact.id)
    (slot,) = memory.profile()
    memory.delete_profile_slot(slot.id)
    page = memory.pages(limit=1)[0]
    memory.forget_page(page.id)
    before = vault_counts(memory)

    again, progress = run_import(memory, FIXTURE)
    assert again.nothing and again.summary() == "nothing new"
    assert vault_counts(memory) == before
    assert memory.facts() == [] and memory.profile() == []
    assert page.user_input not in [p.user_input for p in memory.pages(limit=100)]
    # the progress counts only what is left to import, from the first report on
    assert progress[0] == (0, 1) and progress[-1] == (1, 1)


def _change_profile(folder, text: str, when: str) -> None:
    path = folder / "users" / "alex" / "long_term_user.json"
    content = json.loads(path.read_text(encoding="utf-8"))
    content["user_profiles"]["alex"] = {"data": text, "last_updated": when}
    content["knowledge_base"].append({"knowledge": f"Fact of {when}.", "timestamp": when})
    path.write_text(json.dumps(content), encoding="utf-8")


def _older_and_newer_copies(tmp_path):
    """Two copies of the reference's folder whose profiles were written in January and June."""
    old, new = reference_copy(tmp_path, "old"), reference_copy(tmp_path, "new")
    _change_profile(old, "Alex is a nurse who hikes.", "2026-01-01 10:00:00")
    _change_profile(new, "Alex is a nurse who hikes and learns Spanish.", "2026-06-01 10:00:00")
    return old, new


def test_an_older_copy_never_replaces_a_newer_profile(memory, tmp_path):
    """Imported after a newer copy, an older copy of the folder leaves the newer profile
    current; a newer copy imported after an older one does replace it, and adds its facts."""
    old, new = _older_and_newer_copies(tmp_path)

    run_import(memory, new)
    added, _ = run_import(memory, old)
    assert [s.value for s in memory.profile()] == ["Alex is a nurse who hikes and learns Spanish."]
    assert not added.profile
    # new to the vault (the June fact, the same words with a later date, is the current one)
    assert "Fact of 2026-01-01 10:00:00." in [f.text for f in memory.facts(include_superseded=True)]


def test_a_newer_copy_updates_the_profile(memory, tmp_path):
    old, new = _older_and_newer_copies(tmp_path)
    run_import(memory, old)
    added, _ = run_import(memory, new)
    assert added.profile and added.facts == 1
    assert [s.value for s in memory.profile()] == ["Alex is a nurse who hikes and learns Spanish."]


def test_a_page_filed_under_two_sessions_is_one_page(memory, tmp_path):
    """The reference can list one page (one page_id) in two sessions of mid_term.json: it is
    one page in the dry run's counts and in the vault."""
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "mid_term.json"
    content = json.loads(path.read_text(encoding="utf-8"))
    first, second = content["sessions"].values()
    second["details"].append(first["details"][0])
    path.write_text(json.dumps(content), encoding="utf-8")

    data = read_reference(folder)
    assert data.counts()["mid_term_pages"] == mid_term_pages()
    import_reference(memory, data)
    text = first["details"][0]["user_input"]
    assert [p.user_input for p in memory.pages(limit=100)].count(text) == 1

    dry = run_cli("import-reference", str(folder), "--dry-run", "--embedder", "fake",
                  home=tmp_path / "home")  # fmt: skip
    assert f"mid-term pages                   {mid_term_pages()}\n" in dry.stdout.decode()


def test_a_second_command_line_import_shows_its_real_total_from_the_start(home):
    args = ("import-reference", str(FIXTURE), "--vault", "alex", "--embedder", "fake",
            "--no-consolidate")  # fmt: skip
    assert run_cli(*args, home=home).returncode == 0
    again = run_cli(*args, home=home)
    assert again.returncode == 0, again.stderr
    bars = again.stderr.decode().replace("\r", "\n")
    totals = set(re.findall(r"\| *\d+/(\d+) \[", bars))
    assert totals == {"1"}, bars


def test_a_long_topic_summary_makes_a_title_cut_at_a_word(memory):
    """A conversation made from a reference topic is titled by its summary; a long one is cut
    at a word, with "…", as other titles are."""
    import_reference(memory, read_reference(FIXTURE))
    summaries = [s["summary"] for s in raw("mid_term.json")["sessions"].values()]
    long = next(s for s in summaries if len(s) > 60)
    titles = [c.title for c in memory.conversations()]
    cut = next(t for t in titles if t.endswith("…"))

    assert len(cut) <= 60 and long.startswith(cut[:-1])
    assert long[len(cut) - 1] == " "  # the word before "…" is whole
    assert all(s in titles for s in summaries if len(s) <= 60)  # a short one whole
