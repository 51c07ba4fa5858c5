"""What the terminal commands say: import-reference on a missing folder, rekey's report, rekey
while another program has the vault open, rekey's --help."""

from __future__ import annotations

from pathlib import Path

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from tests.helpers import run_cli

PASSPHRASE = "correct horse battery"
NEW = {"MEMORYOS_NEW_PASSPHRASE": "another long passphrase"}


def test_import_reference_from_a_path_that_does_not_exist(home, tmp_path):
    missing = tmp_path / "nonexistent"
    done = run_cli("import-reference", str(missing), home=home)
    assert done.returncode == 2
    assert done.stderr.decode() == f"error: no folder at {missing}\n"
    (tmp_path / "empty").mkdir()
    empty = run_cli("import-reference", str(tmp_path / "empty"), home=home)
    assert empty.returncode == 2
    said = empty.stderr.decode()
    assert "is not a reference MemoryOS data folder: it has no users/ folder" in said


def make_vault(path: Path) -> None:
    MemoryOS.open(
        path, create=True, passphrase=PASSPHRASE, embedder=HashEmbedder(), background=False
    ).close()


def test_rekey_says_what_protected_the_vault_before_and_now(home, tmp_path):
    path = tmp_path / "v.memoryos"
    make_vault(path)
    done = run_cli("rekey", "--vault-path", str(path), home=home, passphrase=PASSPHRASE, env=NEW)
    said = done.stderr.decode()
    assert done.returncode == 0, said
    assert "it was:" not in said
    assert (
        "The vault was protected by a passphrase; it is now protected by the passphrase you "
        "gave (chacha20, PBKDF2-HMAC-SHA256 with 500,000 iterations)." in said
    )


def test_rekey_while_the_vault_is_open_elsewhere_says_to_close_it(home, tmp_path):
    path = tmp_path / "v.memoryos"
    make_vault(path)
    with MemoryOS.open(
        path, passphrase=PASSPHRASE, embedder=HashEmbedder(), background=False
    ) as memory:  # as the app or `memoryos mcp` holds it
        memory.add_memory("I keep bees", "Nice")
        done = run_cli(
            "rekey", "--vault-path", str(path), home=home, passphrase=PASSPHRASE, env=NEW
        )
    assert done.returncode != 0
    assert done.stderr.decode().strip().splitlines()[-1] == (
        "error: the vault is open in another program (the app or `memoryos mcp`): close it, "
        "then try again"
    )
    assert MemoryOS.open(
        path, passphrase=PASSPHRASE, embedder=HashEmbedder(), background=False
    ).close() is None  # nothing changed: the old passphrase still opens it


def test_rekey_help_says_what_it_does(home):
    done = run_cli("rekey", "--help", home=home)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0
    description = " ".join(lines[lines.index("") + 1 : lines.index("options:")]).split()
    assert " ".join(description).startswith("Re-encrypt every page of the vault under a passphrase")


def test_the_help_names_the_environment_and_what_each_argument_is(home):
    said = run_cli("--help", home=home).stdout.decode()
    assert "MEMORYOS_PASSPHRASE" in said and "MEMORYOS_HOME" in said
    forget = run_cli("forget", "--help", home=home).stdout.decode()
    assert "a page is one exchange" in forget
    listing = run_cli("facts", "list", "--help", home=home).stdout.decode()
    assert "--search TEXT" in listing and "as JSON" in listing


def test_eval_help_is_shown_without_the_evaluation_extra(monkeypatch, capsys):
    """`memoryos eval --help` refused to say anything before the extra was installed."""
    import pytest

    from engine import cli

    monkeypatch.setattr(cli, "_installed", lambda name: False)
    with pytest.raises(SystemExit) as ended:
        cli.main(["eval", "locomo", "--help"])
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert "install the evaluation extra" in out and "--data" in out
    assert cli.main(["eval", "locomo", "--data", "x.json"]) == 2  # running it still needs it
    assert "pip install" in capsys.readouterr().err
