"""The terminal CLI, run as a person would: a child process, a passphrase, no keyring."""

from __future__ import annotations

import json
import re

from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def write_transcript(tmp_path):
    data = [
        {"role": "user", "content": "Hi, I'm Maya and I work as a nurse in Toronto.", "timestamp": "2025-03-01T10:00:00Z"},
        {"role": "assistant", "content": "Nice to meet you, Maya!"},
        {"role": "user", "content": "I adopted a greyhound called Biscuit last week."},
        {"role": "assistant", "content": "Biscuit is a great name."},
        {"role": "user", "content": "What should I cook tonight?"},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_help_is_readable(home):
    out = run_cli("--help", home=home)
    assert out.returncode == 0
    text = out.stdout.decode()
    for word in ("chat", "import", "facts", "export", "doctor", "mcp", "encrypted"):
        assert word in text


def test_import_list_delete_export(tmp_path, home):
    transcript = write_transcript(tmp_path)
    out = run_cli("import", str(transcript), "--create", *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()
    assert "Imported 3 exchanges" in out.stderr.decode()
    listing = run_cli("facts", *FAKE, "list", home=home)
    text = listing.stdout.decode()
    assert "greyhound called Biscuit" in text and "occupation: nurse" in text
    data = json.loads(run_cli("facts", *FAKE, "list", "--json", home=home).stdout)
    fact = next(f for f in data["facts"] if "Biscuit" in f["text"])
    source = fact["source_page_ids"]
    deleted = run_cli("facts", *FAKE, "delete", str(fact["id"]), "--yes", home=home)
    assert deleted.returncode == 0 and "Deleted 1" in deleted.stdout.decode()
    assert "Biscuit" not in run_cli("facts", *FAKE, "list", home=home).stdout.decode()
    export = tmp_path / "all.json"
    exported_run = run_cli("export", *FAKE, str(export), home=home)
    assert exported_run.returncode == 0
    assert "This copy is not encrypted" in exported_run.stderr.decode()
    exported = json.loads(export.read_text(encoding="utf-8"))
    assert len(exported["pages"]) == 3 and exported["pages"][0]["user_input"].startswith("Hi, I'm Maya")
    # the fact's provenance is exactly the exchange that said it
    said = [p["user_input"] for p in exported["pages"] if p["id"] in source]
    assert said == ["I adopted a greyhound called Biscuit last week."]
    status = run_cli("status", *FAKE, home=home).stdout.decode()
    assert "pages      3" in status and "passphrase" in status
    learned = re.search(r"vocabulary (\d+) words", status)  # the import's words, learned
    assert learned and int(learned.group(1)) > 0


def test_clear_errors_not_tracebacks(tmp_path, home):
    missing = run_cli("facts", *FAKE, "list", home=home)
    err = missing.stderr.decode()
    assert missing.returncode == 2
    assert "There is no vault here yet. To make one: memoryos chat" in err
    assert b"Traceback" not in missing.stderr
    transcript = write_transcript(tmp_path)
    run_cli("import", str(transcript), "--create", *FAKE, home=home)
    wrong = run_cli("facts", *FAKE, "list", home=home, passphrase="not the passphrase")
    assert wrong.returncode == 1 and "wrong key or passphrase" in wrong.stderr.decode()
    bad_json = tmp_path / "bad.json"
    bad_json.write_bytes(b"[{\"user\": \"unterminated")
    out = run_cli("import", str(bad_json), *FAKE, home=home)
    assert out.returncode == 2 and "not valid JSON" in out.stderr.decode()
    not_utf8 = tmp_path / "latin1.json"
    not_utf8.write_bytes('[{"user": "caf\xe9", "assistant": "ok"}]'.encode("latin-1"))
    out = run_cli("import", str(not_utf8), *FAKE, home=home)
    assert out.returncode == 2 and "not UTF-8" in out.stderr.decode()
    out = run_cli("facts", *FAKE, "add", b"caf\xe9 \xff\xfe".decode("utf-8", "surrogateescape"), home=home)
    assert out.returncode == 2 and "invalid Unicode" in out.stderr.decode()
    out = run_cli("forget", *FAKE, "page", "abc", "--yes", home=home)
    assert out.returncode == 2 and "not a number" in out.stderr.decode()
    for stream in (out.stderr,):
        assert b"Traceback" not in stream


def test_forget_everything_needs_confirmation(tmp_path, home):
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    refused = run_cli("forget", *FAKE, "everything", home=home)
    assert refused.returncode == 2 and "--yes" in refused.stderr.decode()
    done = run_cli("forget", *FAKE, "everything", "--yes", home=home)
    assert done.returncode == 0
    assert "Nothing learned yet" in run_cli("facts", *FAKE, "list", home=home).stdout.decode()


def test_vault_options_work_after_the_facts_action(tmp_path, home):
    """`memoryos facts list --vault bob` is how people type it; it reads bob's vault, as
    `memoryos facts --vault bob list` does."""
    transcript = write_transcript(tmp_path)
    created = run_cli("import", str(transcript), "--vault", "bob", "--create", *FAKE, home=home)
    assert created.returncode == 0
    after = run_cli("facts", "list", "--vault", "bob", *FAKE, home=home)
    assert after.returncode == 0, after.stderr.decode()
    before = run_cli("facts", "--vault", "bob", *FAKE, "list", home=home)
    assert "greyhound called Biscuit" in after.stdout.decode()
    assert after.stdout == before.stdout
    added = run_cli("facts", "add", "I grow tomatoes", "--vault", "bob", *FAKE, home=home)
    assert added.returncode == 0, added.stderr.decode()
    listing = run_cli("facts", "list", "--vault", "bob", *FAKE, home=home).stdout.decode()
    assert "I grow tomatoes" in listing
    # The default vault was never touched.
    assert run_cli("facts", "list", *FAKE, home=home).returncode == 2


def test_import_refuses_a_missing_vault_unless_create(tmp_path, home):
    """A typo in --vault never starts an empty memory: `import` refuses as `facts` and `mcp`
    do, and --create makes the vault."""
    transcript = write_transcript(tmp_path)
    assert run_cli("import", str(transcript), "--create", *FAKE, home=home).returncode == 0
    typo = run_cli("import", str(transcript), "--vault", "typo", *FAKE, home=home)
    err = typo.stderr.decode()
    assert typo.returncode == 2 and "No memory named 'typo'. Vaults here: default." in err
    assert f"memoryos import {transcript} --vault typo --create" in err
    assert b"Traceback" not in typo.stderr
    assert not list(home.rglob("typo.memoryos*"))
    # an existing vault takes more without --create (this file again: nothing new in it)
    again = run_cli("import", str(transcript), *FAKE, home=home)
    assert again.returncode == 0 and "Already in default.memoryos" in again.stderr.decode()
    made = run_cli("import", str(transcript), "--vault", "typo", "--create", *FAKE, home=home)
    assert made.returncode == 0 and "into typo.memoryos" in made.stderr.decode()
    help_text = run_cli("import", "--help", home=home).stdout.decode()
    assert "--create" in help_text and "export" in help_text


def _ids(listing: str) -> dict[str, str]:
    """What each line of `facts list` says, by the id printed at its start."""
    return {line.split()[1]: line for line in listing.splitlines()}


def test_facts_list_ids_are_what_facts_delete_takes(tmp_path, home):
    """`profile p2` and `fact f2` are different items and each id names exactly one; a bare
    number is still a fact."""
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    listing = _ids(run_cli("facts", "list", *FAKE, home=home).stdout.decode())
    profile = [ref for ref, line in listing.items() if line.startswith("profile")]
    facts = [ref for ref, line in listing.items() if line.startswith("fact")]
    assert profile and facts and all(r[0] == "p" and r[1:].isdigit() for r in profile)
    assert all(r[0] == "f" and r[1:].isdigit() for r in facts)
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    assert {s["ref"] for s in data["profile"]} == set(profile)
    assert {f["ref"] for f in data["facts"]} == set(facts)
    nurse = next(s["ref"] for s in data["profile"] if s["value"] == "nurse")
    # the same number as a fact is another item: deleting the profile entry leaves the fact
    same_number_fact = f"f{nurse[1:]}"

    deleted = run_cli("facts", "delete", nurse, "--yes", *FAKE, home=home)
    out = deleted.stdout.decode()
    assert deleted.returncode == 0, deleted.stderr.decode()
    assert "Deleted 1 profile entry." in out and "stays in your conversations" in out
    after = _ids(run_cli("facts", "list", *FAKE, home=home).stdout.decode())
    assert nurse not in after and "occupation: nurse" not in "".join(after.values())
    if same_number_fact in listing:
        assert after[same_number_fact] == listing[same_number_fact]

    # `profile N` and `fact N` spelled out, and a bare number (a fact, as before)
    name = next(s for s in data["profile"] if s["name"] == "name")
    biscuit = next(f for f in data["facts"] if "Biscuit" in f["text"])
    maya = next(f for f in data["facts"] if "Maya" in f["text"])
    both = run_cli(
        "facts", "delete", "profile", str(name["id"]), str(biscuit["id"]), "--yes", *FAKE,
        home=home,
    )
    assert both.returncode == 0, both.stderr.decode()
    assert "Deleted 1 fact and 1 profile entry." in both.stdout.decode()
    spelled = run_cli("facts", "delete", "fact", str(maya["id"]), "--yes", *FAKE, home=home)
    assert spelled.returncode == 0 and "Deleted 1 fact." in spelled.stdout.decode()
    left = run_cli("facts", "list", *FAKE, home=home).stdout.decode()
    assert "Biscuit" not in left and "name: Maya" not in left and "Hi, I'm Maya" not in left


def test_facts_delete_checks_every_id_before_deleting(tmp_path, home):
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    before = run_cli("facts", "list", *FAKE, home=home).stdout
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    real = data["facts"][0]["ref"]
    missing = run_cli("facts", "delete", real, "p999", "--yes", *FAKE, home=home)
    assert missing.returncode == 1 and "no profile slot with id 999" in missing.stderr.decode()
    for bad in ("x3", "p", "profile", "3.5", "fact p3"):
        out = run_cli("facts", "delete", *bad.split(), *FAKE, home=home)
        assert out.returncode == 2 and b"Traceback" not in out.stderr, bad
        assert "f12" in out.stderr.decode() or "needs an id" in out.stderr.decode(), bad
    assert run_cli("facts", "list", *FAKE, home=home).stdout == before  # nothing went
    help_text = run_cli("facts", "delete", "--help", home=home).stdout.decode()
    assert "p3" in help_text and "f12" in help_text and "profile" in help_text


def test_facts_delete_ids_parse():
    from engine.terminal.facts import parse_item_ids

    assert parse_item_ids(["f3", "P2", "7", "profile", "9", "fact", "4", "f3"]) == [
        ("fact", 3), ("profile", 2), ("fact", 7), ("profile", 9), ("fact", 4)
    ]  # fmt: skip


def _in_a_terminal(home, answer: str, *args: str):
    """`memoryos ARGS` with a terminal on standard input, answering `answer`."""
    import os
    import pty
    import subprocess
    import sys

    from tests.helpers import ROOT

    main, tty = pty.openpty()
    env = dict(os.environ, MEMORYOS_HOME=str(home), MEMORYOS_PASSPHRASE="correct horse battery",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")  # fmt: skip
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "engine.cli", *args], stdin=tty, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=ROOT,
        )  # fmt: skip
        os.write(main, answer.encode() + b"\n")
        out, err = child.communicate(timeout=120)
    finally:
        os.close(main)
        os.close(tty)
    return child.returncode, out.decode(), err.decode()


def test_facts_delete_in_a_terminal_asks_first(tmp_path, home):
    """In a terminal `facts delete` lists the items and asks the privacy panel's question;
    anything but yes deletes nothing. --yes does not ask."""
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    nurse = next(s["ref"] for s in data["profile"] if s["value"] == "nurse")
    code, out, _ = _in_a_terminal(home, "n", "facts", "delete", nurse, *FAKE)
    assert code == 1 and f"{nurse}  identity/occupation: nurse" in out
    assert "Delete this item? It will no longer be recalled" in out
    assert "Nothing was deleted." in out
    assert "occupation: nurse" in run_cli("facts", "list", *FAKE, home=home).stdout.decode()
    code, out, _ = _in_a_terminal(home, "y", "facts", "delete", nurse, *FAKE)
    assert code == 0 and "Deleted 1 profile entry." in out
    assert "occupation: nurse" not in run_cli("facts", "list", *FAKE, home=home).stdout.decode()
    fact = data["facts"][0]["ref"]
    code, out, _ = _in_a_terminal(home, "", "facts", "delete", fact, "--yes", *FAKE)
    assert code == 0 and "Delete this item?" not in out and "Deleted 1 fact." in out


def test_import_says_what_the_retention_setting_will_forget(tmp_path, home):
    """Exchanges imported with dates older than the retention went at the next consolidation
    without a word: the import says so first (a terminal is asked; a script is told)."""
    import dataclasses

    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder
    from engine.forgetting import retention_note

    transcript = write_transcript(tmp_path)  # dated March 2025
    path = home / "data" / "vaults" / "default.memoryos"
    with MemoryOS.open(path, create=True, passphrase="correct horse battery",
                       embedder=HashEmbedder(384), background=False) as memory:  # fmt: skip
        memory.update_settings(dataclasses.replace(memory.settings, retention_days=30))
    done = run_cli("import", str(transcript), "--no-consolidate", *FAKE, home=home)
    said = done.stderr.decode()
    assert done.returncode == 0, said
    assert "1 of these exchanges is older than the 30 days your memory keeps" in said  # dated
    assert retention_note(0, [0.0], 1e9) == "" and retention_note(30, [9e8], 9e8 + 1) == ""


def test_a_vault_name_that_does_not_exist_is_refused_and_nothing_is_made(home, capsys):
    """`memoryos chat --vault wrok` made an empty vault called wrok without a word: every
    command that opens a vault refuses a name that does not exist, says which vaults there are
    and how to make a new one, and exits with 2; --create makes it."""
    from engine import cli
    from tests.helpers import open_fast

    vaults = home / "data" / "vaults"
    for name in ("work", "default"):
        open_fast(vaults / f"{name}.memoryos", True, "correct horse battery").close()
    transcript = home / "chat.json"
    transcript.write_text('[{"user": "I like tea", "assistant": "Nice"}]', encoding="utf-8")
    commands = [
        ["chat"], ["facts", "list"], ["facts", "add", "I like tea"], ["export", "-"],
        ["forget", "everything", "--yes"], ["status"], ["reembed"], ["rekey"], ["doctor"],
        ["import", str(transcript)],
    ]  # fmt: skip
    for command in commands:
        code = cli.main([*command, "--vault", "wrok", *FAKE])
        said = capsys.readouterr()
        assert code == 2, (command, said)
        assert "No memory named 'wrok'. Vaults here: default, work. To make a new one:" in said.err
        assert "--vault wrok --create" in said.err and said.out == ""
    assert sorted(p.name for p in vaults.iterdir()) == ["default.memoryos", "work.memoryos"]
    # As the walkthrough ran it: a terminal chat with the passphrase in the environment.
    typo = run_cli("chat", "--vault", "wrok", *FAKE, home=home, stdin="hello\n/quit\n")
    assert typo.returncode == 2 and b"Traceback" not in typo.stderr
    assert "memoryos chat --vault wrok --create" in typo.stderr.decode()
    assert not list(home.rglob("wrok*"))
    made = run_cli("chat", "--vault", "wrok", "--create", *FAKE, home=home, stdin="/quit\n")
    assert made.returncode == 0, made.stderr.decode()
    assert (vaults / "wrok.memoryos").stat().st_size > 0
    assert run_cli("status", "--vault", "wrok", *FAKE, home=home).returncode == 0


def test_the_first_chat_on_a_new_computer_makes_the_default_vault(home):
    """README's quick start: `memoryos chat` just works on a computer with no vault yet."""
    first = run_cli("chat", *FAKE, home=home, stdin="/quit\n")
    assert first.returncode == 0, first.stderr.decode()
    assert "vault default.memoryos" in first.stderr.decode()
    assert run_cli("status", *FAKE, home=home).returncode == 0
    # ... and only then: with a vault here, another name is a typo until --create says not
    other = run_cli("chat", "--vault", "bob", *FAKE, home=home, stdin="/quit\n")
    assert other.returncode == 2 and "Vaults here: default." in other.stderr.decode()


def test_facts_list_says_which_exchange_each_item_came_from(tmp_path, home):
    """It said "(from pages 1)": a page is an exchange to the person reading it."""
    run_cli("import", str(write_transcript(tmp_path)), "--create", *FAKE, home=home)
    run_cli("facts", "add", "I grow tomatoes", *FAKE, home=home)
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    listing = _ids(run_cli("facts", "list", *FAKE, home=home).stdout.decode())
    assert listing and not any("pages" in line for line in listing.values())
    for item in data["profile"] + data["facts"]:
        sources = item.get("evidence_page_ids", item.get("source_page_ids"))
        if len(sources) == 1:
            assert listing[item["ref"]].endswith(f"from exchange {sources[0]})")
        elif sources:
            said = ", ".join(map(str, sources))
            assert listing[item["ref"]].endswith(f"from exchanges {said})")
    tomatoes = next(line for line in listing.values() if "I grow tomatoes" in line)
    assert tomatoes.endswith("added by you)")
    biscuit = next(line for line in listing.values() if "Biscuit" in line)
    assert biscuit.endswith("from exchange 2)")  # the second exchange of the transcript
