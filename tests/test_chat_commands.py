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
    from engine import cli, commands
    from engine.backends.fake import FakeChat

    chat = FakeChat()
    monkeypatch.setattr(commands, "make_chat", lambda *a: chat)
    monkeypatch.setenv("MEMORYOS_PASSPHRASE", "correct horse battery")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    vault = str(home / "cli.memoryos")
    code = cli.main(["chat", "--vault-path", vault, "--embedder", "fake", *args])
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
    assert "Remembered (fact #1): I am allergic to peanuts" in err
    assert "Used 1 memory: 1 fact" in err
    assert "[fact #1 · persona" in err and "] I am allergic to peanuts" in err
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
    memory.run_consolidation()  # a fact (the statement) and a profile entry (name: Tom)
    matches = chat_commands.find_matches(memory, "peanuts")
    assert [(m.kind, m.text, m.consequence) for m in matches] == [
        ("fact", "My name is Tom and I am allergic to peanuts.", False),
        ("exchange", page.text(), False),
        ("profile", "name: Tom", True),
    ]
    # without the exchange, the profile entry learned from it stays
    assert chat_commands.forget_matches(memory, matches[:1]) == 1
    assert [s.value for s in memory.profile()] == ["Tom"]

    assert chat_commands.forget_matches(memory, chat_commands.find_matches(memory, "peanuts")) == 2
    assert memory.profile() == [] and memory.pages() == [] and memory.facts() == []
