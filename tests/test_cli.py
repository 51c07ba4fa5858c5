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
    out = run_cli("import", str(transcript), *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()
    assert "Imported 3 exchanges" in out.stderr.decode()
    listing = run_cli("facts", *FAKE, "list", home=home)
    text = listing.stdout.decode()
    assert "greyhound called Biscuit" in text and "occupation: nurse" in text
    data = json.loads(run_cli("facts", *FAKE, "list", "--json", home=home).stdout)
    fact = next(f for f in data["facts"] if "Biscuit" in f["text"])
    source = fact["source_page_ids"]
    deleted = run_cli("facts", *FAKE, "delete", str(fact["id"]), home=home)
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
    assert missing.returncode == 1 and "no vault" in missing.stderr.decode()
    assert b"Traceback" not in missing.stderr
    transcript = write_transcript(tmp_path)
    run_cli("import", str(transcript), *FAKE, home=home)
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
    run_cli("import", str(write_transcript(tmp_path)), *FAKE, home=home)
    refused = run_cli("forget", *FAKE, "everything", home=home)
    assert refused.returncode == 2 and "--yes" in refused.stderr.decode()
    done = run_cli("forget", *FAKE, "everything", "--yes", home=home)
    assert done.returncode == 0
    assert "Nothing learned yet" in run_cli("facts", *FAKE, "list", home=home).stdout.decode()


def test_vault_options_work_after_the_facts_action(tmp_path, home):
    """`memoryos facts list --vault bob` is how people type it; it reads bob's vault, as
    `memoryos facts --vault bob list` does."""
    transcript = write_transcript(tmp_path)
    assert run_cli("import", str(transcript), "--vault", "bob", *FAKE, home=home).returncode == 0
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
    assert run_cli("facts", "list", *FAKE, home=home).returncode == 1
