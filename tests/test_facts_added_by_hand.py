"""A fact the person adds by hand (`memoryos facts add`, /remember, MCP add_fact, Remember this)
is read as the same words said in chat are: a relative date gets the day it meant when added,
and what it changes (a home, a dose, a taste) is replaced by it. Its words are kept as typed.
Through the real engine on an encrypted vault, the CLI in a child process and the MCP server."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from engine import chat_commands
from engine.memory import when
from engine.records import ACTIVE, SUPERSEDED
from tests.helpers import learn_from_import as said
from tests.helpers import run_cli
from tests.helpers import user_fact as fact
from tests.test_mcp_server import call, open_direct, run

# Thursday 26 November 2026: "last Tuesday" is 24 November, "yesterday" 25 November
THURSDAY = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.utc).timestamp()


@pytest.fixture
def on_thursday(memory):
    memory.ctx.clock = lambda: THURSDAY
    return memory


def current_values(memory, category: str, name: str | None = None) -> list[str]:
    return [
        s.value for s in memory.profile()
        if s.category == category and (name is None or s.name == name)
    ]  # fmt: skip


def test_a_move_added_by_hand_is_dated_and_replaces_the_old_home(on_thursday):
    memory = on_thursday
    said(memory, [("I live in Leeds.", "2026-10-01 09:00"),
                  ("I moved to Manchester last month.", "2026-11-02 09:00")])  # fmt: skip
    assert current_values(memory, "identity", "location") == ["Manchester"]

    added = memory.add_fact("I moved to Bristol last Tuesday.")

    assert added.text == "I moved to Bristol last Tuesday [24 November 2026]."
    assert added.status == ACTIVE and added.origin == "user"
    manchester = fact(memory, "I moved to Manchester last month.")
    assert manchester.status == SUPERSEDED and manchester.superseded_by == added.id
    assert fact(memory, "I live in Leeds.").status == SUPERSEDED
    assert current_values(memory, "identity", "location") == ["Bristol"]
    # the move is the person's: deleting it makes the home said before current again
    memory.delete_fact(added.id)
    assert fact(memory, "I moved to Manchester last month.").status != SUPERSEDED


def test_remember_in_chat_dates_the_fact_and_a_place_only_visited_replaces_nothing(
    on_thursday,
):
    memory = on_thursday
    said(memory, [("I live in Leeds.", "2026-10-01 09:00")])

    visit = chat_commands.remember(memory, "I visited York yesterday with my sister.")

    assert visit.text == "I visited York yesterday [25 November 2026] with my sister."
    assert fact(memory, "I live in Leeds.").status != SUPERSEDED
    assert current_values(memory, "identity", "location") == ["Leeds"]
    # kept as typed: no date to resolve, no word changed; one item, as typed (a profile
    # entry is made from it only to replace one)
    typed = chat_commands.remember(memory, "I like figs on my  toast")
    assert typed.text == "I like figs on my  toast"
    assert current_values(memory, "preference") == []
    # a fact already dated is not dated again
    again = memory.add_fact("I visited Hull yesterday [25 November 2026].")
    assert again.text == "I visited Hull yesterday [25 November 2026]."


def test_a_new_dose_added_by_hand_replaces_the_older_one_with_its_date_in(on_thursday):
    memory = on_thursday
    said(memory, [("My levothyroxine dose is 50 mg.", "2026-10-01 09:00")])

    added = memory.add_fact("My dose is now 75 mg since last Monday.")

    assert added.text == "My dose is now 75 mg since last Monday [23 November 2026]."
    old = fact(memory, "My levothyroxine dose is 50 mg.")
    assert old.status == SUPERSEDED and old.superseded_by == added.id


def test_a_changed_time_added_by_hand_replaces_the_one_said_the_same_day(on_thursday):
    # the date written into the fact is not a value that changed: only the time did
    memory = on_thursday
    said(memory, [("My yoga class is at 6 pm today.", "2026-11-26 08:00")])

    added = memory.add_fact("My yoga class is at 7 pm today.")

    assert added.text == "My yoga class is at 7 pm today [26 November 2026]."
    old = fact(memory, "My yoga class is at 6 pm today.")
    assert old.status == SUPERSEDED and old.superseded_by == added.id


def test_a_dropped_taste_added_by_hand_leaves_the_profile(memory):
    said(memory, [("I really love spicy Thai food, especially green curry.", "2026-10-01 09:00")])
    assert "likes spicy Thai food" in current_values(memory, "preference")[0]

    added = memory.add_fact("I don't like spicy food any more.")

    tastes = current_values(memory, "preference")
    assert not any(t.startswith("likes spicy") for t in tastes)
    assert any(t.startswith("no longer likes spicy food") for t in tastes)
    liked = fact(memory, "I really love spicy Thai food, especially green curry.")
    assert liked.status == SUPERSEDED and liked.superseded_by == added.id


def test_a_switch_added_by_hand_shows_the_new_habit_only(memory):
    said(memory, [("I love coffee.", "2026-10-01 09:00"),
                  ("I need two cups of coffee every morning.", "2026-10-01 09:05")])  # fmt: skip
    assert current_values(memory, "preference") == ["likes coffee"]

    added = memory.add_fact("I've switched from coffee to green tea.")

    assert current_values(memory, "preference") == ["switched to green tea from coffee"]
    habit = fact(memory, "I need two cups of coffee every morning.")
    assert habit.status == SUPERSEDED and habit.superseded_by == added.id


def test_facts_add_in_the_terminal_dates_the_fact_and_replaces_the_old_home(tmp_path, home):
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([
        {"role": "user", "content": "I live in Leeds.", "timestamp": "2026-10-01T09:00:00Z"},
        {"role": "assistant", "content": "Noted."},
    ]), encoding="utf-8")  # fmt: skip
    fake = ("--embedder", "fake")
    assert run_cli("import", str(transcript), "--create", *fake, home=home).returncode == 0

    before = datetime.now(timezone.utc)
    added = run_cli("facts", *fake, "add", "I moved to Bristol yesterday.", home=home)
    after = datetime.now(timezone.utc)

    assert added.returncode == 0, added.stderr.decode()
    listing = run_cli("facts", *fake, "list", "--all", "--json", home=home)
    assert listing.returncode == 0, listing.stderr.decode()
    data = json.loads(listing.stdout)
    days = {when.describe_day((moment - timedelta(days=1)).timestamp())
            for moment in (before, after)}  # fmt: skip
    [bristol] = [f for f in data["facts"] if "Bristol" in f["text"]]
    assert bristol["text"] in {f"I moved to Bristol yesterday [{day}]." for day in days}
    [leeds] = [f for f in data["facts"] if "Leeds" in f["text"]]
    assert leeds["status"] == SUPERSEDED
    homes = [s["value"] for s in data["profile"]
             if s["name"] == "location" and s["status"] == ACTIVE]  # fmt: skip
    assert homes == ["Bristol"]


def test_mcp_add_fact_dates_the_fact_and_replaces_the_old_home(home):
    path = home / "vaults" / "alice.memoryos"
    with open_direct(path, create=True, background=False) as memory:
        said(memory, [("I live in Leeds.", "2026-10-01 09:00")])

    async def body(session) -> None:
        added = (await call(session, "add_fact", text="I moved to Bristol yesterday."))["fact"]
        assert added["text"].startswith("I moved to Bristol yesterday [")
        assert when.without_resolved(added["text"]) == "I moved to Bristol yesterday."
        profile = await call(session, "get_user_profile")
        homes = [s["value"] for s in profile["profile"] if s["name"] == "location"]
        assert homes == ["Bristol"]
        facts = (await call(session, "list_facts", kind="user_fact"))["facts"]
        assert [f["text"] for f in facts] == [added["text"]]

    run(path, home, body)


def test_deleting_a_fact_added_by_hand_deletes_the_profile_entry_made_from_it(memory):
    """The entry's only evidence was the fact: it goes with it, and the home said before is
    current again, in the Privacy panel's list as in the profile. Undo brings both back."""
    from app import persona_items

    said(memory, [("I live in Leeds.", "2026-10-01 09:00")])
    added = memory.add_fact("I moved to Bristol last week.")
    assert current_values(memory, "identity", "location") == ["Bristol"]

    [item] = [i for i in persona_items.load_items(memory)["items"] if i.id == added.id
              and i.kind != persona_items.PROFILE]  # fmt: skip
    deleted = persona_items.delete_items(memory, [item])

    assert current_values(memory, "identity", "location") == ["Leeds"]
    listed = [i.text for i in persona_items.load_items(memory)["items"]]
    assert not any("Bristol" in text for text in listed)
    assert any("Leeds" in text for text in listed if text != "I live in Leeds.")

    persona_items.undo_delete(memory, deleted)
    assert current_values(memory, "identity", "location") == ["Bristol"]


def test_a_profile_entry_another_fact_added_by_hand_says_stays_until_both_go(memory):
    said(memory, [("I live in Leeds.", "2026-10-01 09:00")])
    first = memory.add_fact("I moved to York.")
    second = memory.add_fact("I moved to York last month.")

    memory.delete_fact(first.id)
    assert current_values(memory, "identity", "location") == ["York"]

    memory.delete_fact(second.id)
    assert current_values(memory, "identity", "location") == ["Leeds"]
