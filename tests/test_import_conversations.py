"""A transcript's `conversation` key: items that share one go into one stored conversation (a
year of chats is not one conversation of thousands of exchanges), a shape the importer does
not understand is refused with the item and what is expected, and exchanges are stored a
batch at a time."""

from __future__ import annotations

import json
import re

import pytest

from engine import paths, transcripts
from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.errors import InvalidInputError
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")
PASSPHRASE = "correct horse battery"

CHATS = [
    {"user": "I repotted the basil today.", "assistant": "It likes the sun.",
     "timestamp": "2025-03-01T10:00:00Z", "conversation": "c000"},
    {"user": "The basil leaves are curling.", "assistant": "Water it less.",
     "timestamp": "2025-03-01T10:05:00Z", "conversation": "c000"},
    {"user": "My bike's chain keeps slipping.", "assistant": "Check the derailleur.",
     "timestamp": "2025-04-02T18:00:00Z", "conversation": "c001"},
    {"user": "Should I replace the chain?", "assistant": "If it is stretched, yes.",
     "timestamp": "2025-04-02T18:02:00Z", "conversation": "c001"},
    {"user": "The basil flowered.", "assistant": "Pinch the flowers off.",
     "timestamp": "2025-05-03T09:00:00Z", "conversation": "c000"},
    {"user": "I start the new job on Monday.", "assistant": "Good luck!",
     "timestamp": "2025-06-01T08:00:00Z"},
    {"user": "The new job went well.", "assistant": "Glad to hear it.",
     "timestamp": "2025-06-02T19:00:00Z"},
]  # fmt: skip


def _stored(memory) -> list[list[str]]:
    """Each stored conversation's questions in order, conversations by their first question."""
    return sorted([p.user_input for p in memory.pages(c.id)] for c in memory.conversations())


def _expected() -> list[list[str]]:
    groups: dict = {}
    for item in CHATS:
        groups.setdefault(item.get("conversation"), []).append(item["user"])
    return sorted(groups.values())


def test_items_with_a_conversation_key_go_into_their_conversations(tmp_path, home):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(CHATS), encoding="utf-8")

    done = run_cli("import", str(path), "--vault", "probe", "--create", "--no-consolidate",
                   *FAKE, home=home)  # fmt: skip

    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "Traceback" not in err and "Imported 7 exchanges in 3 conversations into" in err
    memory = MemoryOS.open(paths.vault_path("probe"), passphrase=PASSPHRASE,
                           embedder=HashEmbedder(384), background=False)  # fmt: skip
    try:
        # c000 (its third exchange later in the file too), c001, and those that name none
        assert _stored(memory) == _expected()
        assert all(CONVERSATION_ID.match(c.id) for c in memory.conversations())
    finally:
        memory.close()


# The ids the app and `memoryos chat` give a conversation: the terminal's import and the app's
# named imported conversations differently ("import-20261127-…" in the app only).
CONVERSATION_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{6}$")


def test_the_apps_import_names_and_counts_conversations_as_the_terminals_does(
    memory, tmp_path
):
    from app.importer import _transcript_report, import_exchanges

    path = tmp_path / "small.json"
    path.write_text(json.dumps(CHATS), encoding="utf-8")

    steps = list(import_exchanges(memory, str(path)))

    assert steps[-1] == (7, 7, 3)
    assert all(CONVERSATION_ID.match(c.id) for c in memory.conversations())
    assert _transcript_report(7, 0, "", 3).startswith("Imported 7 exchanges in 3 conversations.")
    assert _transcript_report(2, 0, "", 1).startswith("Imported 2 exchanges.")


def test_the_apps_import_keeps_the_conversations_and_continues_a_stopped_one(memory, tmp_path):
    from app.importer import import_exchanges

    part, whole = tmp_path / "part.json", tmp_path / "whole.json"
    part.write_text(json.dumps(CHATS[:1]), encoding="utf-8")  # what a stopped import stored
    whole.write_text(json.dumps(CHATS), encoding="utf-8")
    list(import_exchanges(memory, str(part)))

    list(import_exchanges(memory, str(whole)))

    assert _stored(memory) == _expected()  # nothing twice; c000 went on where it had stopped


def test_exchanges_are_embedded_a_batch_at_a_time(memory, embedder, tmp_path):
    """One embedding call per exchange made a year of chats take hours."""
    from app.importer import import_exchanges

    many = [{"user": f"Note {i}: the tomatoes grew {i} mm.", "assistant": f"Noted {i}."}
            for i in range(200)]  # fmt: skip
    path = tmp_path / "many.json"
    path.write_text(json.dumps(many), encoding="utf-8")
    before = embedder.calls

    steps = list(import_exchanges(memory, str(path)))

    assert len(memory.pages(limit=1000)) == 200 and steps[-1] == (200, 200, 1)
    assert embedder.calls - before < 200 // 10  # at least ten exchanges a call


def _locomo(conversation) -> dict:
    return {"sample_id": "s1", "conversation": conversation, "qa": []}


SESSION = [{"speaker": "Ana", "text": "Hi", "dia_id": "D1:1"},
           {"speaker": "Bo", "text": "Hello", "dia_id": "D1:2"}]  # fmt: skip
LOCOMO = {"speaker_a": "Ana", "speaker_b": "Bo", "session_1": SESSION,
          "session_1_date_time": "1:56 pm on 8 May, 2023"}  # fmt: skip


@pytest.mark.parametrize(
    ("data", "where", "expected"),
    [
        ([_locomo({**LOCOMO, "session_2": "Hi there"})], "item 1", "'session_2'"),
        ([_locomo({**LOCOMO, "session_2": ["Hi there"]})], "item 1", "turn 1 of 'session_2'"),
        ([_locomo(LOCOMO), _locomo("c001")], "item 2", "'conversation' is text"),
        ([_locomo(LOCOMO), ["Ana", "Bo"]], "item 2", "not a JSON object"),
        ([_locomo({"speaker_a": "Ana"})], "item 1", "no sessions"),
        ([{"user": "Hi", "assistant": "Hello"}, {"role": "user", "content": "Hey"}], "item 2",
         '"user"'),
        ([{"role": "user", "content": "Hi"}, {"user": "Hey", "assistant": "Hello"}],
         "message 2", '"role"'),
        ([{"user": "Hi", "assistant": "Hello", "conversation": {"id": 3}}], "item 1",
         "'conversation' must be text or a number"),
        ([_locomo({**LOCOMO, "session_1": [SESSION[0], {**SESSION[1], "text": 5}]})], "item 1",
         "turn 2 of 'session_1'"),
        ([_locomo({**LOCOMO, "session_1": [SESSION[0], {"speaker": "Bo", "dia_id": "D1:2"}]})],
         "item 1", "turn 2 of 'session_1'"),
        ([{"user": "Hi", "assistant": "Hello"}, {"user": 3, "assistant": "Yo"}], "item 2",
         "'user' must be text"),
        ([{"user": "Hi", "assistant": "Hello"}, {"user": "Hey", "assistant": ["Yo"]}], "item 2",
         "'assistant' must be text"),
    ],
    ids=["session-not-a-list", "turn-not-an-object", "locomo-then-text", "locomo-then-list",
         "no-sessions", "pair-then-message", "message-then-pair", "conversation-an-object",
         "turn-text-a-number", "turn-without-text", "user-not-text", "assistant-not-text"],
)
def test_a_shape_the_importer_does_not_understand_names_the_item(data, where, expected):
    with pytest.raises(InvalidInputError) as raised:
        transcripts.exchanges_of(data)
    message = str(raised.value)
    assert message.startswith(where) and message[len(where)] in " :" and expected in message


MISSPELT = [{"User": "My bike is a red Brompton.", "assistant": "Nice bike!"},
            {"user": "I ride it to work.", "Assistant": "Good exercise."}]  # fmt: skip


@pytest.mark.parametrize(
    ("data", "where", "named"),
    [
        (MISSPELT, "item 1", "'User'"),
        ([MISSPELT[0] | {"user": "Hi"}], "item 1", "'User'"),
        ([{"user": "Hi", "assistant": "Hello"}, {"assistant": "Hello again"}], "item 2",
         "'user'"),
        ([{"user": "Hi"}], "item 1", "'assistant'"),
        ([{"user": "Hi", "assistant": "Hello"}, {"user": "Hey", "asisstant": "Yo"}], "item 2",
         "'asisstant'"),
    ],
    ids=["misspelt-user", "extra-misspelt-key", "no-user", "no-assistant", "misspelt-assistant"],
)
def test_an_item_with_an_unknown_key_or_a_side_missing_is_refused(data, where, named):
    """A misspelt key was ignored and its side stored as "(nothing said)"."""
    with pytest.raises(InvalidInputError) as raised:
        transcripts.exchanges_of(data)
    message = str(raised.value)
    assert message.startswith(where) and message[len(where)] in " :" and named in message
    assert "user" in message and "assistant" in message and "timestamp" in message


def test_a_side_given_as_empty_text_is_imported_empty():
    """An exchange with nothing said on one side is still possible when the file says so."""
    exchanges = transcripts.exchanges_of([{"user": "Hi", "assistant": ""},
                                          {"user_input": "", "agent_response": "Hello"}])

    assert [(e.user_input, e.agent_response) for e in exchanges] == [("Hi", ""), ("", "Hello")]


def test_a_misspelt_key_imports_nothing(tmp_path, home):
    path = tmp_path / "misspelt.json"
    path.write_text(json.dumps(MISSPELT), encoding="utf-8")

    done = run_cli("import", str(path), "--vault", "probe", "--create", "--no-consolidate",
                   *FAKE, home=home)  # fmt: skip

    err = done.stderr.decode()
    assert done.returncode != 0 and "Traceback" not in err
    assert "item 1" in err and "'User'" in err
    assert not paths.vault_path("probe").exists()


def test_importing_the_same_file_again_draws_no_empty_bar(tmp_path, home):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(CHATS), encoding="utf-8")
    args = ("import", str(path), "--vault", "probe", "--create", "--no-consolidate", *FAKE)
    first = run_cli(*args, home=home)
    assert first.returncode == 0, first.stderr.decode()

    again = run_cli(*args, home=home)

    err = again.stderr.decode()
    assert again.returncode == 0, err
    assert "nothing new was added" in err
    assert "Importing" not in err  # no "Importing: 0exchange [00:00, ?exchange/s]"


def test_a_bad_shape_is_refused_in_words_and_nothing_is_created(tmp_path, home):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([_locomo(LOCOMO), _locomo("c001")]), encoding="utf-8")

    done = run_cli("import", str(path), "--vault", "probe", "--create", *FAKE, home=home)

    err = done.stderr.decode()
    assert done.returncode != 0 and "Traceback" not in err
    assert "item 2" in err and "expected" in err
    assert not paths.vault_path("probe").exists()


def test_messages_of_one_conversation_pair_only_within_it():
    messages = [
        {"role": "user", "content": "Is the shop open?", "conversation": "a"},
        {"role": "assistant", "content": "Which shop?", "conversation": "b"},
        {"role": "user", "content": "The bakery.", "conversation": "a"},
        {"role": "assistant", "content": "Until six.", "conversation": "a"},
    ]

    exchanges = transcripts.exchanges_of(messages)

    assert [(e.user_input, e.agent_response, e.conversation) for e in exchanges] == [
        ("Is the shop open?", "", "a"),
        ("", "Which shop?", "b"),
        ("The bakery.", "Until six.", "a"),
    ]


def test_a_file_that_interleaves_its_conversations_is_stored_a_batch_at_a_time(
    memory, embedder, tmp_path
):
    """Messages sorted by time across two conversations came in batches of one."""
    from app.importer import import_exchanges

    items = [{"user": f"Step {i} of the {topic} plan.", "assistant": f"Noted {i}.",
              "timestamp": 1_700_000_000 + 60 * (2 * i + side), "conversation": topic}
             for i in range(100) for side, topic in enumerate(("garden", "bike"))]  # fmt: skip
    path = tmp_path / "interleaved.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    before = embedder.calls

    steps = list(import_exchanges(memory, str(path)))

    assert embedder.calls - before < 200 // 10
    # a Stop after the first batch: its 64 exchanges went into one conversation
    assert steps[0] == (64, 200, 1) and steps[-1] == (200, 200, 2)
    stored = {tuple(p.user_input for p in memory.pages(c.id)) for c in memory.conversations()}
    assert stored == {tuple(f"Step {i} of the {topic} plan." for i in range(100))
                      for topic in ("garden", "bike")}  # fmt: skip
