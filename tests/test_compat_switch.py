"""Switching from the reference MemoryOS by changing one import line: `engine.compat.Memoryos`
over the reference's own data folder (tests/data/reference_memory, written by its code) finds
that user's memory there, and reports the profile as the reference does."""

from __future__ import annotations

import json

import pytest

from engine import errors
from engine.backends.fake import HashEmbedder
from engine.compat import Memoryos, vault_path
from engine.shared_knowledge import assistant_vault_path
from tests.helpers import REFERENCE_CHROMA, reference_copy

PASSPHRASE = "correct horse battery"


def reference_folder(tmp_path):
    return reference_copy(tmp_path, "memoryos_data")


def open_alex(folder) -> Memoryos:
    return Memoryos(user_id="alex", openai_api_key="", data_storage_path=str(folder),
                    openai_base_url="http://127.0.0.1:9/v1", assistant_id="helper",
                    embedder=HashEmbedder(384), background=False,
                    passphrase=PASSPHRASE)  # fmt: skip


def raw(folder, name: str):
    return json.loads((folder / "users" / "alex" / name).read_text(encoding="utf-8"))


def files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*.json")}


def test_the_reference_memory_is_there_after_the_switch(tmp_path, capsys):
    folder = reference_folder(tmp_path)
    before = files(folder)
    memo = open_alex(folder)
    try:
        said = capsys.readouterr().err.splitlines()
        (line,) = [s for s in said if "reference" in s]
        assert "imported the reference MemoryOS memory of user 'alex'" in line
        assert "9 pages in 2 topics, 2 facts" in line  # page_101d1ef6 is filed twice
        assert line.endswith("(its JSON files are left as they were)")
        pages = memo.memory.pages(limit=100)
        sessions = raw(folder, "mid_term.json")["sessions"].values()
        assert sorted(p.user_input for p in pages) == sorted(
            [q["user_input"] for q in raw(folder, "short_term.json")]
            + list({p["page_id"]: p["user_input"] for s in sessions for p in s["details"]}.values())
        )
        assert [q["user_input"] for q in memo.short_term_memory.get_all()] == [
            q["user_input"] for q in raw(folder, "short_term.json")
        ]
        knowledge = [k["knowledge"] for k in memo.get_assistant_knowledge_summary()]
        assert "The assistant offered a green curry recipe without peanuts." in knowledge
        facts = [k["knowledge"] for k in memo.user_long_term_memory.get_user_knowledge()]
        assert "Alex is allergic to peanuts." in facts
    finally:
        memo.close()
    assert files(folder) == before  # the reference's files are left as they were

    again = open_alex(folder)  # later opens import nothing
    try:
        assert "reference" not in capsys.readouterr().err
        assert len(again.memory.pages(limit=100)) == len(pages)
    finally:
        again.close()


def test_the_profile_reads_as_the_reference_returns_it(tmp_path):
    folder = reference_folder(tmp_path)
    profile = raw(folder, "long_term_user.json")["user_profiles"]["alex"]["data"].strip()
    memo = open_alex(folder)
    try:
        assert memo.get_user_profile_summary() == profile
        assert memo.user_long_term_memory.get_raw_user_profile("alex") == profile
        memo.add_memory("I live in Reno now.", "Close to the lake!")  # learned here later
        memo.memory.run_consolidation()
        learned = [s for s in memo.memory.profile() if s.origin != "imported from the reference"]
        assert learned and memo.get_user_profile_summary() == "\n".join(
            [profile] + [slot.text for slot in learned]
        )
    finally:
        memo.close()


def test_a_damaged_reference_file_is_named_and_no_vault_is_made(tmp_path):
    folder = reference_folder(tmp_path)
    mid_term = folder / "users" / "alex" / "mid_term.json"
    text = mid_term.read_text(encoding="utf-8")
    mid_term.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(errors.InvalidInputError, match="mid_term.json is not valid JSON"):
        open_alex(folder)
    assert not vault_path(folder, "alex").exists()
    assert not assistant_vault_path(folder, "helper").exists()
    mid_term.write_text(text, encoding="utf-8")  # repaired: the next open imports it
    memo = open_alex(folder)
    try:
        assert len(memo.memory.pages(limit=100)) == 9
    finally:
        memo.close()


def test_a_failure_while_writing_leaves_no_half_made_vault(tmp_path, monkeypatch):
    from engine.memory.long_term import Persona

    folder = reference_folder(tmp_path)

    def disk_full(*args, **kwargs):
        raise errors.DiskFullError("the disk is full")

    monkeypatch.setattr(Persona, "remember_fact", disk_full)  # after the pages were written
    with pytest.raises(errors.DiskFullError):
        open_alex(folder)
    assert list((folder / "users" / "alex").glob("vault.memoryos*")) == []
    assert list((folder / "assistants" / "helper").glob("vault.memoryos*")) == []


def test_a_user_the_reference_never_saw_starts_empty(tmp_path, capsys):
    folder = reference_folder(tmp_path)
    memo = Memoryos(user_id="sam", openai_api_key="", data_storage_path=str(folder),
                    openai_base_url="http://127.0.0.1:9/v1", assistant_id="helper",
                    embedder=HashEmbedder(384), background=False,
                    passphrase=PASSPHRASE)  # fmt: skip
    try:
        assert memo.memory.pages() == [] and memo.get_user_profile_summary() == "None"
        assert "imported" not in capsys.readouterr().err
    finally:
        memo.close()


def test_the_compatible_mcp_server_returns_the_reference_profile(home, tmp_path):
    """`memoryos mcp --compat reference --config` over the reference's data folder: its
    user_profile is the reference's text, as the reference's own server returns it."""
    from tests.test_mcp_reference import REFERENCE_CONFIG, call, serve_and_run

    folder = reference_folder(tmp_path)
    profile = raw(folder, "long_term_user.json")["user_profiles"]["alex"]["data"].strip()
    config = {**REFERENCE_CONFIG, "user_id": "alex", "assistant_id": "helper",
              "data_storage_path": str(folder)}  # fmt: skip
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")

    async def body(session) -> None:
        found = await call(session, "get_user_profile")
        assert found["user_profile"] == profile

    serve_and_run(home, ["--compat", "reference", "--config", str(tmp_path / "config.json")], body)


def chroma_folder(tmp_path):
    return reference_copy(tmp_path, "chroma_data", REFERENCE_CHROMA)


def open_user(folder, user_id: str) -> Memoryos:
    return Memoryos(user_id=user_id, openai_api_key="", data_storage_path=str(folder),
                    openai_base_url="http://127.0.0.1:9/v1", assistant_id="helper",
                    embedder=HashEmbedder(384), background=False,
                    passphrase=PASSPHRASE)  # fmt: skip


def stored_files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_chromadb_variants_memory_is_there_after_the_switch(tmp_path, capsys):
    """The reference's chromadb variant keeps its memory in chroma_storage/ (no chromadb
    install is needed to read it): a new vault gets it, as it gets the JSON variant's files."""
    folder = chroma_folder(tmp_path)
    before = stored_files(folder / "chroma_storage")
    memo = open_user(folder, "maya")
    try:
        (line,) = [s for s in capsys.readouterr().err.splitlines() if "reference" in s]
        assert "imported the reference MemoryOS memory of user 'maya'" in line
        assert line.endswith("(its store is left as it was)")
        assert "8 pages in 1 topic, 2 facts" in line
        texts = [p.user_input for p in memo.memory.pages(limit=100)]
        assert "Hi! I'm Maya, I teach chemistry at a high school." in texts
        facts = [k["knowledge"] for k in memo.user_long_term_memory.get_user_knowledge()]
        assert "Maya cannot eat gluten." in facts
        assert len(memo.get_assistant_knowledge_summary()) == 1
        assert memo.get_user_profile_summary() != "None"
    finally:
        memo.close()
    assert stored_files(folder / "chroma_storage") == before  # left as it was

    again = open_user(folder, "maya")  # later opens import nothing
    try:
        assert "reference" not in capsys.readouterr().err
        assert len(again.memory.pages(limit=100)) == 8
    finally:
        again.close()


@pytest.mark.parametrize(("variant", "user_id", "pages"), [("json", "alex", 9),
                                                            ("chroma", "maya", 8)])  # fmt: skip
def test_an_empty_vault_made_before_the_switch_gets_the_reference_memory_once(
    tmp_path, capsys, variant, user_id, pages
):
    """The vault was there already, empty (the person opened it once before switching their
    script): it gets the reference's memory; later opens, even after everything imported was
    forgotten, bring nothing back."""
    from engine.api import MemoryOS

    folder = reference_folder(tmp_path) if variant == "json" else chroma_folder(tmp_path)
    with MemoryOS.open(vault_path(folder, user_id), create=True, passphrase=PASSPHRASE,
                       embedder=HashEmbedder(384), background=False):  # fmt: skip
        pass
    memo = open_user(folder, user_id)
    try:
        (line,) = [s for s in capsys.readouterr().err.splitlines() if "reference" in s]
        assert f"imported the reference MemoryOS memory of user {user_id!r}" in line
        assert len(memo.memory.pages(limit=100)) == pages
        facts = len(memo.memory.facts(kind="user_fact"))
        assert facts == 2
    finally:
        memo.close()
    again = open_user(folder, user_id)
    try:
        assert "reference" not in capsys.readouterr().err
        assert len(again.memory.pages(limit=100)) == pages  # nothing twice
        assert len(again.memory.facts(kind="user_fact")) == facts
        again.memory.forget_everything()
    finally:
        again.close()
    emptied = open_user(folder, user_id)
    try:
        assert "reference" not in capsys.readouterr().err
        assert emptied.memory.pages() == [] and emptied.memory.facts(kind="user_fact") == []
    finally:
        emptied.close()


def test_a_vault_with_memories_gets_the_reference_memory_only_when_asked(home, tmp_path, capsys):
    """A vault that already holds memories is never imported into unasked: a notice gives the
    command, which imports it; importing again adds nothing twice."""
    import shlex

    from engine.api import MemoryOS
    from tests.helpers import run_cli

    folder = chroma_folder(tmp_path)
    with MemoryOS.open(vault_path(folder, "maya"), create=True, passphrase=PASSPHRASE,
                       embedder=HashEmbedder(384), background=False) as memory:  # fmt: skip
        memory.add_memory("My sister Ines visits in June.", "Lovely, plan something nice!")
    memo = open_user(folder, "maya")
    try:
        (line,) = [s for s in capsys.readouterr().err.splitlines() if "reference" in s]
        assert "already holds memories" in line and "not imported" in line
        assert [p.user_input for p in memo.memory.pages()] == ["My sister Ines visits in June."]
    finally:
        memo.close()
    command = shlex.split(line.split("run: ", 1)[1])
    assert command[:2] == ["memoryos", "import-reference"]
    done = run_cli(*command[1:], "--embedder", "fake", "--no-consolidate", home=home)
    assert done.returncode == 0, done.stderr
    assert "Added 8 pages in 1 topic" in done.stdout.decode()
    memo = open_user(folder, "maya")
    try:
        assert "reference" not in capsys.readouterr().err  # imported: no notice any more
        assert len(memo.memory.pages(limit=100)) == 9
    finally:
        memo.close()
    twice = run_cli(*command[1:], "--embedder", "fake", "--no-consolidate", home=home)
    assert twice.returncode == 0, twice.stderr
    assert "nothing new was added" in twice.stdout.decode()
