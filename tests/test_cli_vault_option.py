"""--vault takes a name, --vault-path a file, in every command (they share one resolver).

A --vault name with a path separator ("team/alice", "../../etc/x") became a path relative to
the current folder: the vault landed outside the data folder, unlisted. A folder given as
--vault-path was suggested as a --create target, and --create then crashed with a traceback
(IsADirectoryError). Both exit 2 now, before anything is made, saying what to give instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

COMMANDS = [["chat"], ["mcp"], ["status"], ["facts", "list"], ["doctor"], ["export", "-"]]
CREATE = ("chat", "mcp")  # the commands that take --create


def run(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`memoryos ARGS` in the folder `cwd` (where a name taken for a path would land)."""
    env = os.environ | {
        "MEMORYOS_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "MEMORYOS_PASSPHRASE": "correct horse battery",
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args, "--embedder", "fake"], cwd=cwd, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("name", ["team/alice", "../escaped", "..", "."])
def test_a_vault_name_that_is_a_path_is_refused(home, tmp_path, command, name):
    cwd = tmp_path / "work" / "here"
    cwd.mkdir(parents=True)
    create = ["--create"] if command[0] in CREATE else []
    done = run(home, cwd, *command, "--vault", name, *create)
    assert done.returncode == 2, done.stderr
    assert "--vault-path" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert files_under(tmp_path / "work") == [], "a vault file was made outside the data folder"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_folder_given_as_vault_path_is_refused_at_once(home, tmp_path, command):
    folder = tmp_path / "folder"
    folder.mkdir()
    for create in ([], ["--create"]) if command[0] in CREATE else ([],):
        done = run(home, tmp_path, *command, "--vault-path", str(folder), *create)
        said = done.stderr
        assert done.returncode == 2, said
        assert "is a folder" in said and str(folder / "work.memoryos") in said, said
        assert f"--vault-path {folder} --create" not in said, said  # never offered to make
        assert "Traceback" not in said, said
    assert files_under(folder) == []


def test_names_the_app_can_make_are_still_names(home, tmp_path):
    """The app's Switch memory takes letters, digits, spaces, '-', '_' and '.': such a name is
    looked for in the data folder (and, missing, refused as a name, not as a path)."""
    for name in ("Work notes 2.0", "bob.smith", "a_b-c"):
        done = run(home, tmp_path, "status", "--vault", name)
        assert done.returncode == 2, done.stderr
        assert f"No memory named {name!r}" in done.stderr, done.stderr



@pytest.mark.parametrize("name", ["a*b", "***", "   "])
def test_a_name_with_other_characters_is_refused_not_cleaned(home, tmp_path, name):
    """Characters a vault's name cannot have were dropped quietly ("a*b" opened the vault "ab",
    "***" ended in a traceback): refused with exit 2, naming them, and nothing made."""
    done = run(home, tmp_path, "chat", "--vault", name, "--create")
    assert done.returncode == 2, done.stderr
    assert "letters, digits" in done.stderr and "Traceback" not in done.stderr, done.stderr
    if name.strip():
        assert "*" in done.stderr.split("only")[-1], done.stderr  # the character named
    assert not list(home.rglob("*.memoryos")), files_under(home)
