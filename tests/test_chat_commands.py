"""/remember, /forget and /help: the shared parser, the vault work, and `memoryos chat`."""

from __future__ import annotations

import io
import sys

import pytest

from engine import chat_commands
from engine.chat_commands import FORGET, HELP, REMEMBER, UNKNOWN


@pytest.mark.parametrize(
    ("text", "name", "argument"),
    [
        ("/remember I am vegetarian", REMEMBER, "I am vegetarian"),
        ("  /Remember   je suis végétarien ", REMEMBER, "je suis végétarien"),
        ("/forget peanuts", FORGET, "peanuts"),
        ("/help", HELP, ""),
        ("/remeber typo", UNKNOWN, "typo"),
    ],
)
def test_commands_are_parsed(text, name, argument):
    command = chat_commands.parse(text)
    assert (command.name, command.argument) == (name, argument)


@pytest.mark.parametrize("text", ["hello /remember x", "/", "/ spaced", "1/2", "/42 is odd"])
def test_other_text_is_a_message(text):
    assert chat_commands.parse(text) is None


def test_remember_stores_a_fact_from_the_person(memory):
    fact = chat_commands.remember(memory, "  I am vegetarian ")
    assert (fact.text, fact.origin, fact.source_page_ids) == ("I am vegetarian", "user", ())
    assert [f.text for f in memory.facts()] == ["I am vegetarian"]
    from engine.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="needs the text"):
        chat_commands.remember(memory, "   ")


def _seed(memory):
    import time

    memory.add_fact("I am allergic to peanuts")
    memory.add_fact("I live in Porto")
    with memory.vault.transaction():
        memory.vault.insert_slot("health", "allergy", "peanuts", "user", [], time.time())
    page = memory.add_memory("Can you cook without peanuts tonight?", "Sure, a peanut-free curry.")
    other = memory.add_memory("What is the weather in Porto?", "Sunny.")
    return page, other


def test_forget_finds_facts_profile_and_exchanges_and_deletes_only_those(memory):
    page, other = _seed(memory)
    matches = chat_commands.find_matches(memory, "peanuts")
    assert [(m.kind, m.text) for m in matches] == [
        ("fact", "I am allergic to peanuts"),
        ("profile", "allergy: peanuts"),
        ("exchange", page.text()),
    ]
    assert chat_commands.find_matches(memory, "peanuts Porto") == []

    chat_commands.forget_matches(memory, matches)

    assert [f.text for f in memory.facts()] == ["I live in Porto"]
    assert memory.profile() == []
    assert [p.id for p in memory.pages()] == [other.id]
    assert chat_commands.find_matches(memory, "peanuts") == []


def _chat(monkeypatch, home, lines: str, *args: str):
    """Run `memoryos chat` in this process with the fake chat model and typed lines."""
    from engine import cli
    from engine.backends.fake import FakeChat

    chat = FakeChat()
    # where run_chat looks the name up (engine/terminal/chat.py imports it from opening.py)
    monkeypatch.setattr("engine.terminal.chat.make_chat", lambda *a, **k: chat)
    monkeypatch.setenv("MEMORYOS_PASSPHRASE", "correct horse battery")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    vault = str(home / "cli.memoryos")
    code = cli.main(["chat", "--vault-path", vault, "--create", "--embedder", "fake", *args])
    return code, vault


def _open(vault):
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    return MemoryOS.open(
        vault, passphrase="correct horse battery", embedder=HashEmbedder(384), background=False
    )


def test_cli_chat_remember_show_memory_and_forget_with_confirmation(
    monkeypatch, home, capsys, fail_keyring
):
    lines = (
        "\n".join(
            [
                "/help",
                "/remember I am allergic to peanuts",
                "what am I allergic to? peanuts",
                "/forget peanuts",
                "n",
                "/forget peanuts",
                "y",
            ]
        )
        + "\n"
    )
    code, vault = _chat(monkeypatch, home, lines, "--show-memory")
    err = capsys.readouterr().err
    assert code == 0
    assert "/remember TEXT" in err and "/forget WORDS" in err
    assert "Remembered (fact f1): I am allergic to peanuts" in err
    assert "Used 1 memory: 1 fact" in err
    assert "[fact f1 · persona" in err and "] I am allergic to peanuts" in err
    assert "Cancelled; nothing was forgotten." in err
    assert "Forgot 2 items." in err  # the fact and the exchange that mentions peanuts
    with _open(vault) as mem:
        assert mem.facts() == [] and mem.pages() == []


def test_cli_chat_cancelled_forget_deletes_nothing(monkeypatch, home, capsys, fail_keyring):
    code, vault = _chat(monkeypatch, home, "/remember I like figs\n/forget figs\n\n")
    assert code == 0
    err = capsys.readouterr().err
    assert "This item matches 'figs':" in err  # one item: said as one
    assert "Cancelled; nothing was forgotten." in err
    with _open(vault) as mem:
        assert [f.text for f in mem.facts()] == ["I like figs"]


def test_forget_lists_what_goes_with_the_exchanges_and_counts_it(memory):
    page = memory.add_memory("My name is Tom and I am allergic to peanuts.", "Noted.")
    # a fact (the statement) and two profile entries: the allergy, which says "peanuts", and
    # name: Tom, which does not and goes only with the exchange
    memory.run_consolidation()
    matches = chat_commands.find_matches(memory, "peanuts")
    assert [(m.kind, m.text, m.consequence) for m in matches] == [
        ("fact", "My name is Tom and I am allergic to peanuts.", False),
        ("profile", "allergic to peanuts", False),
        ("exchange", page.text(), False),
        ("profile", "name: Tom", True),
    ]
    # without the exchange, the profile entries learned from it stay
    assert chat_commands.forget_matches(memory, matches[:1]) == 1
    assert [s.value for s in memory.profile()] == ["allergic to peanuts", "Tom"]

    assert chat_commands.forget_matches(memory, chat_commands.find_matches(memory, "peanuts")) == 3
    assert memory.profile() == [] and memory.pages() == [] and memory.facts() == []


def test_cli_chat_status_and_facts_read_as_sentences(monkeypatch, home, capsys, fail_keyring):
    """/status printed `ConsolidationStatus(pending_jobs=0, running=False, …)`, /facts
    "(from pages -)": both say it in words now."""
    lines = "/remember I grow tomatoes\nhello there\n/status\n/facts\n"
    code, _ = _chat(monkeypatch, home, lines)
    said = capsys.readouterr()
    assert code == 0
    assert "ConsolidationStatus" not in said.err and "pending_jobs" not in said.err
    assert "Memory: 1 recent exchange · 0 exchanges in 0 topics · 1 fact · 0 profile entries." in (
        said.err
    )
    assert "Background work: " in said.err and " waiting, 0 failed)." in said.err
    fact = next(line for line in said.out.splitlines() if "I grow tomatoes" in line)
    assert fact.endswith("added by you)") and "pages" not in said.out


def test_status_text_names_the_last_error():
    from engine.records import ConsolidationStatus
    from engine.terminal.chat import status_text

    status = ConsolidationStatus(
        pending_jobs=2, running=False, failed_jobs=1, last_error="the model timed out",
        short_term_pages=6, mid_term_pages=4, segments=1, facts=3,
    )  # fmt: skip
    assert status_text(status).splitlines() == [
        "Memory: 6 recent exchanges · 4 exchanges in 1 topic · 3 facts · 0 profile entries.",
        "Background work: waiting to run (2 waiting, 1 failed).",
        "Last error: the model timed out",
    ]


def test_status_counts_the_profile_entries_the_app_counts():
    """/status said "3 facts" where the app's status bar said "4 facts": both count the
    profile entries apart now, in the same words."""
    from engine.records import ConsolidationStatus
    from engine.terminal.chat import status_text

    status = ConsolidationStatus(
        pending_jobs=0, running=False, failed_jobs=0, last_error=None,
        short_term_pages=2, mid_term_pages=0, segments=0, facts=3, profile=1,
    )  # fmt: skip
    line = status_text(status).splitlines()[0]
    assert line.endswith("3 facts · 1 profile entry.")
    assert chat_commands.known_text(status) in line  # the words the app's status bar uses


def test_the_terminal_forget_list_marks_a_replaced_fact(memory):
    for said in ("I drink coffee every morning.", "I've switched from coffee, it kept me awake."):
        memory.add_memory(said, "Okay.")
        memory.run_consolidation()
    labels = {m.text: m.label() for m in chat_commands.find_matches(memory, "coffee")
              if m.kind == "fact"}  # fmt: skip
    assert labels["I drink coffee every morning."].endswith(", replaced")
    assert [text for text, label in labels.items() if "replaced" not in label]  # the current one
