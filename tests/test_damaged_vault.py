"""A vault whose file was damaged on disk (bytes overwritten in its middle): `memoryos status`
says so and exits 1, an export keeps what can be read and says what could not, a backup copies
the file as it is, and every message names the commands that keep, restore or save it."""

from __future__ import annotations

import json

import pytest

from engine import paths
from tests.damaged_vault import EXCHANGES, PASSPHRASE, damage, leaf_page, make_vault, said
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")
READ = "pages"  # a table export reads: the exchanges themselves
NOT_READ = "turns_vec"  # a table export does not read: the exchanges' vectors


@pytest.fixture
def vault(home):
    """The vault `--vault damaged`, whole for now, and the leaf pages to damage."""
    path = paths.vault_path("damaged")
    make_vault(path)
    return path, {READ: leaf_page(path, READ), NOT_READ: leaf_page(path, NOT_READ)}


def cli(*args: str, home):
    done = run_cli(*args, "--vault", "damaged", *FAKE, home=home, passphrase=PASSPHRASE)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def names_what_to_do(text: str, option: str = " --vault damaged") -> None:
    """The advice names the real commands and menus: keep a copy, open a backup, export; the
    commands name the vault (`option`), or they would act on the default vault."""
    for step in (f"`memoryos backup FILE{option}`", "File → Back up memory…",
                 str(paths.vaults_dir()), "File → Switch memory…", "--vault-path FILE",
                 f"`memoryos export memory.json{option}`", "--create"):  # fmt: skip
        assert step in text, step


def run_as_advised(text: str, command: str, target, home) -> tuple[int, str]:
    """Run the advice's `memoryos COMMAND ...` as typed, its FILE or memory.json as `target`."""
    import re
    import shlex

    [typed] = re.findall(rf"`memoryos ({command} [^`]*)`", text)
    args = [str(target) if arg in ("FILE", "memory.json") else arg for arg in shlex.split(typed)]
    done = run_cli(*args, *FAKE, home=home, passphrase=PASSPHRASE)
    return done.returncode, done.stderr.decode()


def test_a_whole_vault_reads_ok_in_status(vault, home):
    code, out, _ = cli("status", home=home)
    assert code == 0 and "health     ok" in out


@pytest.mark.parametrize("table", [READ, NOT_READ])
def test_status_and_doctor_say_damaged_with_what_to_do(vault, home, table):
    path, pages = vault
    damage(path, pages[table])
    code, out, err = cli("status", home=home)
    assert code == 1
    assert "pages      200" in out  # the figures still come, from the pages they read
    assert "health     DAMAGED" in out
    assert err.startswith("The vault file is damaged")
    names_what_to_do(err)
    code, out, _ = cli("doctor", home=home)
    [line] = [line for line in out.splitlines() if line.startswith("[ FAIL  ] vault")]
    assert code == 1 and "VaultCorruptError" not in line
    names_what_to_do(line)


def test_the_commands_status_advises_act_on_the_damaged_vault_not_the_default(
    vault, home, tmp_path
):
    path, pages = vault
    damage(path, pages[READ])
    code, _, err = cli("status", home=home)
    assert code == 1
    code, said = run_as_advised(err, "backup", tmp_path / "kept.memoryos", home)
    assert code == 0 and "it carries the same damage" in said  # the damaged vault's copy
    code, said = run_as_advised(err, "export", tmp_path / "memory.json", home)
    assert code == 1 and "could not be read and are not in the export" in said
    assert not paths.vault_path("default").exists()  # nothing acted on the default vault


def test_a_vault_outside_the_vaults_folder_is_named_by_its_path(vault, home, tmp_path):
    import shlex
    import shutil

    path, pages = vault
    damage(path, pages[READ])
    elsewhere = tmp_path / "my memories" / "old.memoryos"
    elsewhere.parent.mkdir()
    shutil.move(path, elsewhere)
    done = run_cli("status", "--vault-path", str(elsewhere), *FAKE, home=home,
                   passphrase=PASSPHRASE)  # fmt: skip
    err = done.stderr.decode()
    assert done.returncode == 1
    names_what_to_do(err, f" --vault-path {shlex.quote(str(elsewhere))}")
    code, said = run_as_advised(err, "backup", tmp_path / "kept.memoryos", home)
    assert code == 0 and "it carries the same damage" in said


def test_damage_found_where_the_vault_is_not_known_says_to_give_the_same_vault():
    import apsw

    from engine.vault.connection import translate

    said = str(translate(apsw.CorruptError("database disk image is malformed")))
    names_what_to_do(said, option="")
    assert "the same --vault NAME or --vault-path FILE" in said


def test_an_export_skips_the_damaged_exchanges_says_how_many_and_restores(vault, home, tmp_path):
    path, pages = vault
    damage(path, pages[READ])
    target = tmp_path / "memory.json"
    code, _, err = cli("export", str(target), home=home)
    data = json.loads(target.read_text(encoding="utf-8"))
    exported = [page["user_input"] for page in data["pages"]]
    lost = EXCHANGES - len(exported)
    assert code == 1 and 0 < lost < EXCHANGES // 2
    assert f"Exported {len(exported)} pages" in err
    assert f"{lost} exchanges could not be read and are not in the export" in err
    assert data["unreadable"] == {"pages": lost}
    # those read, before and after the damaged page, are whole and in order
    assert exported[0] == said(0) and exported[-1] == said(EXCHANGES - 1)
    assert all(text in {said(n) for n in range(EXCHANGES)} for text in exported)
    # what was read becomes a new memory, as the advice says
    done = run_cli("import", str(target), "--create", "--vault", "rescued", *FAKE,
                   "--no-consolidate", home=home, passphrase=PASSPHRASE)  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    rescued = run_cli("status", "--vault", "rescued", *FAKE, home=home, passphrase=PASSPHRASE)
    assert rescued.returncode == 0 and f"pages      {len(exported)}" in rescued.stdout.decode()


def test_an_export_of_a_vault_damaged_where_it_does_not_read_is_whole(vault, home, tmp_path):
    path, pages = vault
    damage(path, pages[NOT_READ])
    target = tmp_path / "memory.json"
    code, _, err = cli("export", str(target), home=home)
    data = json.loads(target.read_text(encoding="utf-8"))
    assert code == 0 and "could not be read" not in err
    assert len(data["pages"]) == EXCHANGES and "unreadable" not in data


def test_a_backup_of_a_damaged_vault_is_the_file_as_it_is(vault, home, tmp_path):
    from tests.test_backup import open_fast

    path, pages = vault
    damage(path, pages[READ])
    writer = open_fast(path, False, PASSPHRASE)  # an exchange still only in the -wal file
    try:
        writer.add_memory("Written after the damage.", "Noted.", 1_800_000_000.0)
        target = tmp_path / "kept.memoryos"
        code, _, err = cli("backup", str(target), home=home)
    finally:
        writer.close()
    assert code == 0, err
    assert "it carries the same damage" in err
    assert not target.read_bytes().startswith(b"SQLite format 3")  # still encrypted
    assert not (tmp_path / "kept.memoryos-wal").exists()
    copy = open_fast(target, False, PASSPHRASE)
    try:
        assert copy.vault.health().damaged
        kept = [page["user_input"] for page in copy.export_json()["pages"]]
    finally:
        copy.close()
    assert "Written after the damage." in kept and said(0) in kept  # the journal came along


def test_a_backup_with_its_own_passphrase_is_refused_for_a_damaged_vault(vault, home, tmp_path):
    path, pages = vault
    damage(path, pages[READ])
    target = tmp_path / "kept.memoryos"
    done = run_cli("backup", str(target), "--passphrase", "--vault", "damaged", *FAKE, home=home,
                   passphrase=PASSPHRASE,
                   env={"MEMORYOS_NEW_PASSPHRASE": "another long passphrase"})  # fmt: skip
    assert done.returncode != 0
    assert "without --passphrase" in done.stderr.decode()
    assert [p.name for p in tmp_path.iterdir()] == ["home"]  # nothing written
