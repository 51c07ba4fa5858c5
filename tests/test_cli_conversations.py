"""`memoryos conversations` (the ids `forget conversation` takes) and `memoryos export` into a
folder that does not exist, run as a person would: a child process, a passphrase, no keyring."""

from __future__ import annotations

import json
import time
from datetime import datetime

from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def _transcript(tmp_path, name: str, day: str, *said: str):
    data = []
    for hour, text in enumerate(said, start=10):
        data.append({"user": text, "assistant": "Noted.", "timestamp": f"{day}T{hour}:00:00Z"})
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _when(stamp: str) -> str:
    """A transcript's UTC timestamp as the terminal shows it (local time)."""
    seconds = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def test_conversations_lists_the_ids_forget_takes_newest_first(tmp_path, home):
    """`memoryos forget conversation ID` needed an id only `memoryos export` (an unencrypted
    dump of everything) showed."""
    older = _transcript(tmp_path, "old.json", "2024-05-01", "I planted tomatoes.", "They grew.")
    newer = _transcript(tmp_path, "new.json", "2025-02-03", "I adopted a greyhound.")
    for path in (older, newer):
        done = run_cli("import", str(path), "--create", "--no-consolidate", *FAKE, home=home)
        assert done.returncode == 0, done.stderr.decode()

    listed = run_cli("conversations", *FAKE, home=home)
    assert listed.returncode == 0, listed.stderr.decode()
    lines = listed.stdout.decode().splitlines()
    assert len(lines) == 2
    assert "I adopted a greyhound." in lines[0] and "1 exchange " in lines[0]
    assert "I planted tomatoes." in lines[1] and "2 exchanges" in lines[1]
    assert _when("2024-05-01T10:00:00Z") in lines[1] and _when("2024-05-01T11:00:00Z") in lines[1]

    data = json.loads(run_cli("conversations", "--json", *FAKE, home=home).stdout)
    assert [c["exchanges"] for c in data] == [1, 2]
    assert [line.split()[0] for line in lines] == [c["id"] for c in data]
    assert data[1]["first_ts"] < data[1]["last_ts"] < data[0]["first_ts"]

    forgot = run_cli("forget", "conversation", data[1]["id"], "--yes", *FAKE, home=home)
    assert forgot.returncode == 0, forgot.stderr.decode()
    left = run_cli("conversations", *FAKE, home=home).stdout.decode()
    assert "greyhound" in left and "tomatoes" not in left

    helped = " ".join(run_cli("forget", "--help", home=home).stdout.decode().split())
    assert "`memoryos conversations` lists them" in helped
    assert "conversations" in run_cli("--help", home=home).stdout.decode()


def test_conversations_uses_the_vault_asked_for_and_refuses_an_unknown_one(tmp_path, home):
    chat = _transcript(tmp_path, "bob.json", "2025-01-01", "I play the cello.")
    run_cli("import", str(chat), "--vault", "bob", "--create", "--no-consolidate", *FAKE,
            home=home)  # fmt: skip
    bob = run_cli("conversations", "--vault", "bob", *FAKE, home=home)
    assert bob.returncode == 0 and "I play the cello." in bob.stdout.decode()

    typo = run_cli("conversations", "--vault", "bbo", *FAKE, home=home)
    assert typo.returncode == 2 and b"Traceback" not in typo.stderr
    assert "No memory named 'bbo'" in typo.stderr.decode() and typo.stdout == b""
    assert not list(home.rglob("bbo*"))

    made = run_cli("chat", "--vault", "empty", "--create", *FAKE, home=home, stdin="/quit\n")
    assert made.returncode == 0, made.stderr.decode()
    empty = run_cli("conversations", "--vault", "empty", *FAKE, home=home)
    assert empty.returncode == 0 and "No conversations yet" in empty.stdout.decode()
    assert json.loads(run_cli("conversations", "--vault", "empty", "--json", *FAKE,
                              home=home).stdout) == []  # fmt: skip


def test_export_into_a_folder_that_does_not_exist_is_refused(tmp_path, home):
    """`memoryos export /nonexistent/dir/e.json` made the folder and said it exported."""
    chat = _transcript(tmp_path, "chat.json", "2025-01-01", "I play the cello.")
    run_cli("import", str(chat), "--create", "--no-consolidate", *FAKE, home=home)
    missing = tmp_path / "no such" / "dir"

    refused = run_cli("export", str(missing / "e.json"), *FAKE, home=home)
    said = refused.stderr.decode()
    assert refused.returncode == 2 and "Traceback" not in said
    assert str(missing) in said and "existing folder" in said and "Exported" not in said
    assert not (tmp_path / "no such").exists()

    folder = run_cli("export", str(tmp_path), *FAKE, home=home)  # a folder, not a file
    assert folder.returncode == 2 and "Traceback" not in folder.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.json", "home"]  # nothing left

    written = run_cli("export", str(tmp_path / "e.json"), *FAKE, home=home)
    assert written.returncode == 0, written.stderr.decode()
    assert json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))["pages"]
