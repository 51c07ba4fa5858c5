"""The terminal commands as typed in a terminal (a pseudo-terminal, real encrypted vaults, a real
HTTP model server on 127.0.0.1): Ctrl+D at any question ends the command like a cancel, not in
a traceback; `memoryos chat` edits lines, keeps a history (the unanswered question in it), takes
a paste or a \"\"\" block as one message; forget confirmations quote what goes; small wording."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.helpers import run_cli
from tests.local_servers import ChatServer
from tests.test_cli_walkthrough import Terminal

FAKE = ("--embedder", "fake")
PASSPHRASE = "correct horse battery"
CTRL_D = b"\x04"
LEFT, UP = b"\x1b[D", b"\x1b[A"
# What a terminal sends around pasted text when the program has asked for bracketed paste.
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
UNLOCKED = {"MEMORYOS_PASSPHRASE": PASSPHRASE, "TERM": "xterm"}


def _transcript(tmp_path):
    data = [
        {"role": "user", "content": "I adopted a greyhound called Biscuit last week."},
        {"role": "assistant", "content": "Biscuit is a great name."},
        {"role": "user", "content": "I play the cello in an orchestra on Thursdays."},
        {"role": "assistant", "content": "Lovely."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def vault(tmp_path, home):
    """The default vault, passphrase-protected, with two exchanges and what was learned."""
    out = run_cli("import", str(_transcript(tmp_path)), "--create", *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()
    return home


def _facts(home) -> dict:
    out = run_cli("facts", "list", "--json", *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()
    return json.loads(out.stdout)


def _pages(home) -> list[dict]:
    """Every stored exchange, oldest conversation first."""
    listed = json.loads(run_cli("conversations", "--json", *FAKE, home=home).stdout)
    pages: list[dict] = []
    for conversation in reversed(listed):
        out = run_cli("conversations", "--pages", conversation["id"], "--json", *FAKE, home=home)
        pages += json.loads(out.stdout)
    return pages


def _cancelled(terminal: Terminal) -> str:
    """Ended with exit 1 and a short message, no traceback; returns what it wrote after."""
    code = terminal.finish()
    said = terminal.text[terminal.position :]
    assert code == 1, terminal.text
    assert "Traceback" not in terminal.text and "EOFError" not in terminal.text
    return said


# 2: Ctrl+D at each question ---------------------------------------------------------------


def test_ctrl_d_at_the_passphrase_cancels(vault):
    before = _facts(vault)
    asked = Terminal(vault, "facts", "list", *FAKE)
    asked.expect("Passphrase for default.memoryos: ")
    os.write(asked.main, CTRL_D)
    assert "cancelled" in _cancelled(asked)
    assert _facts(vault) == before


def test_ctrl_d_at_a_new_passphrase_makes_no_vault(home):
    asked = Terminal(home, "chat", "--vault", "tmpv", "--create", *FAKE)
    asked.expect("New passphrase: ")
    os.write(asked.main, CTRL_D)
    assert "cancelled" in _cancelled(asked)
    assert not list(home.rglob("*.memoryos"))


def test_ctrl_d_at_the_new_passphrase_of_rekey_changes_nothing(vault):
    asked = Terminal(vault, "rekey", *FAKE, env={"MEMORYOS_PASSPHRASE": PASSPHRASE})
    asked.expect("New passphrase: ")
    os.write(asked.main, CTRL_D)
    assert "nothing was changed" in _cancelled(asked)
    assert run_cli("status", *FAKE, home=vault).returncode == 0  # the same passphrase opens it


def test_ctrl_d_at_facts_delete_deletes_nothing(vault):
    before = _facts(vault)
    ref = before["facts"][0]["ref"]
    asked = Terminal(vault, "facts", "delete", ref, *FAKE, env=UNLOCKED)
    asked.expect("[y/N] ")
    os.write(asked.main, CTRL_D)
    assert "Nothing was deleted." in _cancelled(asked)
    assert _facts(vault) == before


def test_ctrl_d_at_forget_deletes_nothing(vault):
    before = _pages(vault)
    asked = Terminal(vault, "forget", "page", str(before[0]["id"]), *FAKE, env=UNLOCKED)
    asked.expect("[y/N] ")
    os.write(asked.main, CTRL_D)
    assert "Nothing was deleted." in _cancelled(asked)
    assert _pages(vault) == before


# 7: what a forget removes, quoted ---------------------------------------------------------


def test_forget_page_quotes_the_exchange_and_what_was_learned_from_it(vault):
    page = next(p for p in _pages(vault) if "Biscuit" in p["user"])
    learned = [f["text"] for f in _facts(vault)["facts"] if page["id"] in f["source_page_ids"]]
    asked = Terminal(vault, "forget", "page", str(page["id"]), *FAKE, env=UNLOCKED)
    asked.expect("[y/N] ")
    question = asked.text
    asked.type("n")
    assert asked.finish() == 1
    assert "I adopted a greyhound called Biscuit" in question
    assert learned and all(" ".join(text.split())[:40] in question for text in learned), question


def test_forget_everything_names_the_vault_and_what_it_holds(vault):
    asked = Terminal(vault, "forget", "everything", *FAKE, env=UNLOCKED)
    asked.expect("[y/N] ")
    question = asked.text
    asked.type("no")
    assert asked.finish() == 1
    facts = len(_facts(vault)["facts"])
    assert "default.memoryos" in question and "2 exchanges in 1 conversation" in question
    assert f"{facts} fact" in question, question
    assert len(_pages(vault)) == 2


# 3, 4: `memoryos chat`: line editing, history, a paste, a block --------------------------


@pytest.fixture
def server():
    with ChatServer(["m"], ["Noted."]) as running:
        yield running


def _chat(home, server) -> Terminal:
    chat = Terminal(home, "chat", "--url", server.url, "--url-model", "m", *FAKE, env=UNLOCKED)
    chat.expect("you> ")
    return chat


def _said(home) -> list[str]:
    return [page["user"] for page in _pages(home)]


def test_chat_edits_a_line_and_brings_back_the_last_one(vault, server):
    chat = _chat(vault, server)
    os.write(chat.main, b"I have a ct" + LEFT + b"a\r")  # "cat": a letter put in with Left
    chat.expect("Noted.")
    chat.expect("you> ")
    os.write(chat.main, UP + b"\r")  # the same message again
    chat.expect("Noted.")
    chat.expect("you> ")
    os.write(chat.main, CTRL_D)
    assert chat.finish() == 0, chat.text
    assert "^[[" not in chat.text
    assert _said(vault)[-2:] == ["I have a cat", "I have a cat"]


def test_a_paste_of_several_lines_is_one_message(vault, server):
    chat = _chat(vault, server)
    os.write(chat.main, PASTE_START + b"Why does this fail?\nx = 1 / 0" + PASTE_END + b"\r")
    chat.expect("Noted.")
    chat.expect("you> ")
    chat.type("/quit")
    assert chat.finish() == 0, chat.text
    assert _said(vault)[-1] == "Why does this fail?\nx = 1 / 0"
    assert len(_said(vault)) == 3


def test_up_brings_back_the_unanswered_question(vault, server):
    from engine import unanswered
    from engine.api import MemoryOS
    from engine.backends.build import make_embedder
    from engine.unlock import choose_vault

    memory = MemoryOS.open(choose_vault(), passphrase=PASSPHRASE, embedder=make_embedder("fake"),
                           background=False)  # fmt: skip
    try:
        conversation = memory.conversations()[0].id
        asked = unanswered.keep(memory.vault, "When is my dentist?", conversation, time.time())
        unanswered.release(memory.vault, [asked])  # as a program that stopped while answering
    finally:
        memory.close()
    chat = _chat(vault, server)
    assert "When is my dentist?" in chat.text
    os.write(chat.main, UP + b"\r")
    chat.expect("Noted.")
    chat.type("/quit")
    assert chat.finish() == 0, chat.text
    assert _said(vault)[-1] == "When is my dentist?"


def test_piped_lines_between_quote_lines_are_one_message(vault, server):
    typed = 'First question\n"""\nWhy does this fail?\n  x = 1 / 0\n"""\nLast one\n'
    out = run_cli("chat", "--url", server.url, "--url-model", "m", *FAKE, home=vault,
                  stdin=typed)  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert _said(vault)[-3:] == ["First question", "Why does this fail?\n  x = 1 / 0", "Last one"]


def test_a_block_the_input_ends_in_is_sent_not_lost(vault, server):
    out = run_cli("chat", "--url", server.url, "--url-model", "m", *FAKE, home=vault,
                  stdin='"""\nline one\nline two\n')  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert '"""' in out.stderr.decode()  # it says the block was not closed
    assert _said(vault)[-1] == "line one\nline two"


def test_chat_help_says_how_lines_become_messages(home):
    said = " ".join(run_cli("chat", "--help", home=home).stdout.decode().split())
    assert "Piped input is one message a line" in said and '"""' in said


# 9, 10, 12 -------------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["notaurl", "gpubox/v1"])
def test_an_address_of_one_word_is_refused_with_one_that_is_valid(home, address):
    for how in (("--url", address), ("--model", f"url:{address}")):
        out = run_cli("chat", *how, "--url-model", "m", *FAKE, home=home)
        said = out.stderr.decode()
        assert out.returncode == 2, said
        assert "http://127.0.0.1:8080/v1" in said and "--allow-plain-http" not in said


def test_bench_without_the_evaluation_extra_fails_unless_help_is_asked(monkeypatch, capsys):
    from engine import cli

    monkeypatch.setattr(cli, "_installed", lambda name: False)
    assert cli.main(["bench"]) == 2
    assert "pip install" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ended:
        cli.main(["bench", "--help"])
    assert ended.value.code == 0


@pytest.mark.parametrize("option", ["--vault", "--vault-path"])
def test_an_empty_vault_option_is_refused_not_taken_for_the_default(vault, option):
    out = run_cli("facts", "list", option, "", *FAKE, home=vault)
    said = out.stderr.decode()
    assert out.returncode == 2 and option in said and "Traceback" not in said
    assert out.stdout == b""


def test_conversations_json_has_iso_dates_beside_the_numbers(vault):
    from datetime import datetime

    listed = json.loads(run_cli("conversations", "--json", *FAKE, home=vault).stdout)
    for conversation in listed:
        for number, date in (("first_ts", "first"), ("last_ts", "last")):
            parsed = datetime.fromisoformat(conversation[date].replace("Z", "+00:00"))
            assert parsed.timestamp() == pytest.approx(conversation[number], abs=1)


def test_deleting_facts_says_how_many_and_not_of_exchanges_they_never_had(vault):
    for text in ("I am vegan", "I live in Leeds"):
        assert run_cli("facts", "add", text, *FAKE, home=vault).returncode == 0
    added = [f["ref"] for f in _facts(vault)["facts"] if f["origin"] == "user"]
    out = run_cli("facts", "delete", *added, "--yes", *FAKE, home=vault)
    said = out.stdout.decode()
    assert out.returncode == 0 and "Deleted 2 facts." in said
    assert "learned from" not in said and "(s)" not in said


def test_forget_one_match_in_chat_asks_about_it_not_all_of_them(vault, server):
    out = run_cli("facts", "add", "My favourite theme is gruvbox", *FAKE, home=vault)
    assert out.returncode == 0
    chat = _chat(vault, server)
    chat.type("/forget gruvbox")
    chat.expect("[y/N] ")
    question = chat.text
    chat.type("n")
    chat.expect("you> ")
    os.write(chat.main, UP + b"\r")  # the history holds the command, not the answer n
    chat.expect("[y/N] ")
    chat.type("n")
    chat.expect("you> ")
    chat.type("/quit")
    assert chat.finish() == 0
    assert "This item matches" in question and "Forget all of them" not in question
    assert "gruvbox" in " ".join(f["text"] for f in _facts(vault)["facts"])


def test_doctor_says_what_unlocked_the_vault_in_words(vault):
    out = run_cli("doctor", *FAKE, home=vault)
    said = out.stdout.decode() + out.stderr.decode()
    assert "unlocked with a passphrase" in said and "key in passphrase" not in said


def test_restore_progress_counts_exchanges_in_words(vault, tmp_path):
    export = tmp_path / "memory.json"
    assert run_cli("export", str(export), *FAKE, home=vault).returncode == 0
    out = run_cli("import", str(export), "--vault", "copy", "--create", *FAKE, home=vault)
    said = out.stderr.decode()
    assert out.returncode == 0, said
    assert "0exchange" not in said and "exchange/s" not in said and "exchanges" in said
