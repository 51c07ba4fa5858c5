"""Assistant knowledge shared per assistant_id across users (engine.shared_knowledge via Memoryos)."""

from __future__ import annotations

import shutil

import pytest

from engine import errors
from engine.backends.fake import HashEmbedder
from engine.compat import Memoryos
from engine.records import ASSISTANT_KNOWLEDGE
from engine.shared_knowledge import assistant_vault_path
from tests.helpers import raw_bytes
from tests.local_servers import ChatServer

PASSPHRASE = "correct horse battery"
CURRY = "Suggested a green curry without peanuts"


def open_user(data, user_id, assistant_id="chef", url="http://127.0.0.1:9/v1", **kwargs):
    kwargs.setdefault("passphrase", PASSPHRASE)
    return Memoryos(
        user_id=user_id,
        openai_api_key="sk-local",
        data_storage_path=str(data),
        openai_base_url=url,
        assistant_id=assistant_id,
        llm_model="m",
        embedder=HashEmbedder(),
        background=False,
        **kwargs,
    )


def texts(memo: Memoryos) -> list[str]:
    return [entry["knowledge"] for entry in memo.get_assistant_knowledge_summary()]


@pytest.fixture
def data(tmp_path, fail_keyring):
    return tmp_path / "data"


def test_users_of_one_assistant_share_its_knowledge_and_others_do_not(data):
    tom, ann, bob = open_user(data, "tom"), open_user(data, "ann"), open_user(data, "bob", "tutor")
    try:
        tom.memory.add_fact(CURRY, kind=ASSISTANT_KNOWLEDGE)  # as consolidation would store it
        assert texts(ann) == [CURRY]
        assert texts(tom) == [CURRY]
        assert texts(bob) == []
        found = ann.retrieve_context("green curry")
        assert [k["knowledge"] for k in found["retrieved_assistant_knowledge"]] == [CURRY]
        assert bob.retrieve_context("green curry")["retrieved_assistant_knowledge"] == []
        assert ann.get_memory_stats()["assistant_knowledge_count"] == 1
        ann.memory.add_fact("Recommended the Oslo ramen bar", kind=ASSISTANT_KNOWLEDGE)
        assert sorted(texts(tom)) == sorted([CURRY, "Recommended the Oslo ramen bar"])
    finally:
        for memo in (tom, ann, bob):
            memo.close()
    path = assistant_vault_path(data, "chef")
    assert path == data.resolve() / "assistants" / "chef" / "vault.memoryos"
    assert b"green curry" not in raw_bytes(path)  # encrypted like the users' vaults
    assert assistant_vault_path(data, "tutor").is_file()  # its own vault, with nothing of chef


def test_shared_knowledge_reaches_another_users_answer_prompt(data):
    tom = open_user(data, "tom")
    tom.memory.add_fact(CURRY, kind=ASSISTANT_KNOWLEDGE)
    tom.close()
    with ChatServer(["m"], ["You asked ", "for the curry."]) as server:
        ann = open_user(data, "ann", url=server.url)
        try:
            answer = ann.get_response("What curry did you suggest?")
        finally:
            ann.close()
    assert answer == "You asked for the curry."
    question = server.requests[-1]["messages"][-1]  # this question's memories come with it
    assert question["role"] == "user" and "What curry did you suggest?" in question["content"]
    assert CURRY in question["content"]


def test_forgetting_reaches_every_user_of_the_assistant(data):
    tom, ann = open_user(data, "tom"), open_user(data, "ann")
    try:
        tom.memory.add_fact(CURRY, kind=ASSISTANT_KNOWLEDGE)
        tom.memory.add_fact("Promised a packing list for Tromsø", kind=ASSISTANT_KNOWLEDGE)
        assert len(texts(ann)) == 2
        assert ann.forget_assistant_knowledge([CURRY]) == 1
        assert texts(tom) == ["Promised a packing list for Tromsø"]
        # deleting a copy in one user's vault (the privacy panel does this) deletes it for all
        (fact,) = tom.memory.facts(kind=ASSISTANT_KNOWLEDGE)
        tom.memory.delete_facts([fact.id])
        assert texts(ann) == []
        assert ann.memory.facts(kind=ASSISTANT_KNOWLEDGE) == []
    finally:
        tom.close()
        ann.close()


def test_a_deleted_assistant_vault_takes_its_copies_with_it(data):
    tom = open_user(data, "tom")
    tom.memory.add_fact(CURRY, kind=ASSISTANT_KNOWLEDGE)
    tom.close()
    ann = open_user(data, "ann")
    assert texts(ann) == [CURRY]
    ann.close()
    shutil.rmtree(data / "assistants" / "chef")
    ann = open_user(data, "ann")
    try:
        assert texts(ann) == []  # a new, empty assistant vault: not confused with the old one
        assert ann.memory.facts(kind=ASSISTANT_KNOWLEDGE) == []
    finally:
        ann.close()


def test_the_assistant_vault_needs_the_users_passphrase(data):
    open_user(data, "tom").close()
    with pytest.raises(errors.WrongKeyError):
        open_user(data, "ann", passphrase="another passphrase!")
    with pytest.raises(errors.InvalidInputError, match="assistant_id '../x' cannot name a folder"):
        open_user(data, "ann", assistant_id="../x")
