"""Importing a transcript again adds nothing twice (`memoryos import chat.json`)."""

from __future__ import annotations

import json

from engine import transcripts
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")
# As the walkthrough's msgs.json: chat messages without times
MESSAGES = [
    {"role": "user", "content": "I love sailing."},
    {"role": "assistant", "content": "Nice!"},
    {"role": "user", "content": "My boat is called Gaivota."},
    {"role": "assistant", "content": "Lovely name."},
]
DATED = [
    {"user": "I moved to Porto.", "assistant": "Nice.", "timestamp": "2025-01-05T10:00:00Z"},
    {"user": "I love the tiles.", "assistant": "Lovely.", "timestamp": "2025-01-06T10:00:00Z"},
]


def write(tmp_path, name: str, items) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(items), encoding="utf-8")
    return str(path)


def add(memory, exchanges) -> None:
    for exchange in exchanges:
        memory.add_memory(exchange.user_input, exchange.agent_response, exchange.timestamp,
                          exchange.meta, source="import")  # fmt: skip


def test_the_command_says_a_transcript_imported_twice_is_already_there(tmp_path, home):
    chat = write(tmp_path, "msgs.json", MESSAGES)
    args = ("import", chat, "--vault", "bobv", "--create", "--no-consolidate", *FAKE)
    first = run_cli(*args, home=home)
    assert first.returncode == 0 and "Imported 2 exchanges" in first.stderr.decode()
    again = run_cli(*args, home=home)
    said = again.stderr.decode()
    assert again.returncode == 0, said
    assert "Already in bobv.memoryos: nothing new was added (2 exchanges)" in said
    assert "Imported" not in said
    listed = run_cli("conversations", "--json", "--vault", "bobv", *FAKE, home=home)
    conversations = json.loads(listed.stdout)
    assert len(conversations) == 1  # one conversation, not two identical ones


def test_only_the_new_exchanges_of_a_longer_file_are_added(tmp_path, home):
    args = ("--vault", "v", "--create", "--no-consolidate", *FAKE)
    assert run_cli("import", write(tmp_path, "a.json", DATED[:1]), *args, home=home).returncode == 0
    done = run_cli("import", write(tmp_path, "b.json", DATED), *args, home=home)
    said = done.stderr.decode()
    assert done.returncode == 0, said
    assert "Imported 1 exchange into v.memoryos; 1 was already in this vault" in said


def test_an_exchange_is_held_by_its_question_answer_and_time(memory):
    dated = transcripts.exchanges_of(DATED)
    add(memory, dated[:1])
    new, already = transcripts.split_held(memory, dated)
    assert already == 1 and [e.user_input for e in new] == ["I love the tiles."]
    # the same words at another time are another exchange
    moved = transcripts.exchanges_of([{**DATED[0], "timestamp": "2025-02-05T10:00:00Z"}])
    assert transcripts.split_held(memory, moved) == (moved, 0)


def test_undated_exchanges_imported_before_are_held(memory):
    undated = transcripts.exchanges_of(MESSAGES)
    assert transcripts.split_held(memory, undated) == (undated, 0)
    add(memory, undated)
    assert transcripts.split_held(memory, undated) == ([], 2)
    # the same words typed in a conversation (not imported) are not an earlier import
    memory.add_memory("I like tea.", "Noted.")
    tea = transcripts.exchanges_of([{"user": "I like tea.", "assistant": "Noted."}])
    assert transcripts.split_held(memory, tea) == (tea, 0)


def test_a_file_that_repeats_an_exchange_keeps_its_repeats_once(memory):
    """Each page stands for one exchange: a file holding an exchange twice adds it twice the
    first time, and nothing the second."""
    twice = transcripts.exchanges_of([DATED[0], DATED[0]])
    new, already = transcripts.split_held(memory, twice)
    assert (len(new), already) == (2, 0)
    add(memory, new)
    assert transcripts.split_held(memory, twice) == ([], 2)
    thrice = transcripts.exchanges_of([DATED[0]] * 3)
    new, already = transcripts.split_held(memory, thrice)
    assert (len(new), already) == (1, 2)


def test_many_dated_exchanges_in_a_small_vault_are_checked_by_reading_it_once(memory):
    """A vault with fewer pages than the file has times is read whole, not looked up per time:
    the same answer either way."""
    many = [
        {"user": f"Note {i}", "assistant": "ok", "timestamp": 1_700_000_000 + i}
        for i in range(50)
    ]
    exchanges = transcripts.exchanges_of(many)
    add(memory, exchanges[:3])
    new, already = transcripts.split_held(memory, exchanges)
    assert already == 3 and [e.user_input for e in new] == [f"Note {i}" for i in range(3, 50)]


def test_a_few_exchanges_in_a_larger_vault_are_looked_up_by_their_time(memory):
    """A vault with more pages than the file has times: each time is looked up (the other
    way round from above); an exchange a millisecond off its page is still that page."""
    for i in range(10):
        memory.add_memory(f"Other {i}", "ok", 1_600_000_000 + i)
    add(memory, transcripts.exchanges_of(DATED[:1]))
    near = {**DATED[0], "timestamp": "2025-01-05T10:00:00.0004Z"}
    exchanges = transcripts.exchanges_of([near, DATED[1]])
    new, already = transcripts.split_held(memory, exchanges)
    assert already == 1 and [e.user_input for e in new] == ["I love the tiles."]
