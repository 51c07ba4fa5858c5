"""What `memoryos import-reference` and File → Import tell someone moving from the reference
MemoryOS: a file cut off while saving (where it breaks, and what to do), the reference's parts
a half-copied folder lacks, a vault the command made, and an organising bar without a rate."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from engine import errors
from engine.reference_files import read_reference
from engine.reference_import import import_steps, vault_counts
from tests.helpers import REFERENCE_MEMORY as FIXTURE
from tests.helpers import reference_copy, run_cli, steps_to_end

FAKE = ("--embedder", "fake")


# ---- a file cut off part-way ---------------------------------------------------------------


def _cut_off(path) -> int:
    """Rewrite `path` as the reference writes it (indent=2), then cut it off two thirds in, as
    a reference stopped while saving leaves it; returns the line where it now stops."""
    text = json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=2)
    kept = text[: len(text) * 2 // 3]
    path.write_text(kept, encoding="utf-8")
    return kept.count("\n") + 1


def test_a_file_cut_off_while_saving_says_where_and_what_to_do(memory, tmp_path, home):
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "mid_term.json"
    line = _cut_off(path)
    with pytest.raises(errors.InvalidInputError) as caught:
        steps_to_end(import_steps(memory, read_reference(folder)))
    said = str(caught.value)
    assert str(path) in said and f"line {line}" in said
    assert "did not finish writing it" in said and "backup" in said
    assert "move this file out of the folder" in said  # the way to import the rest without it
    assert vault_counts(memory)["pages"] == 0
    for dry in (True, False):
        done = run_cli("import-reference", str(folder), *FAKE, *(["--dry-run"] * dry), home=home)
        assert done.returncode == 2
        err = done.stderr.decode()
        assert str(path) in err and f"line {line}" in err and "backup" in err
        assert "Nothing was imported" in err or "nothing was imported" in err
    assert not list(home.rglob("*.memoryos"))  # nothing imported, no vault made


def test_moving_the_cut_off_file_out_imports_the_rest_and_names_it(memory, tmp_path):
    """The advice works: with the broken file moved out, the rest comes in, and the note says
    which part was not there."""
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "mid_term.json"
    _cut_off(path)
    path.rename(tmp_path / "mid_term.json")
    added = steps_to_end(import_steps(memory, read_reference(folder)))
    assert added.pages and added.not_found == ["mid_term.json"]


def test_a_file_damaged_in_the_middle_is_told_apart_from_one_cut_off(memory, tmp_path):
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "long_term_user.json"
    text = json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=2).splitlines()
    text[3] = text[3] + " oops"
    path.write_text("\n".join(text), encoding="utf-8")
    with pytest.raises(errors.InvalidInputError) as caught:
        read_reference(folder)
    said = str(caught.value)
    assert str(path) in said and "line 4" in said and "damaged" in said and "backup" in said
    assert "did not finish" not in said


# ---- parts of the reference not in the folder ------------------------------------------------

ALL_FILES = ["short_term.json", "mid_term.json", "long_term_user.json"]


def _folder(tmp_path, files: list[str], assistants: str | None) -> object:
    """A reference folder holding only `files` of users/alex/, and assistants/ as given:
    None (absent), "empty" (the reference's folder without knowledge yet) or "full"."""
    folder = tmp_path / "partial"
    (folder / "users" / "alex").mkdir(parents=True)
    for name in files:
        shutil.copy(FIXTURE / "users" / "alex" / name, folder / "users" / "alex" / name)
    if assistants == "empty":
        (folder / "assistants" / "helper").mkdir(parents=True)
    elif assistants == "full":
        shutil.copytree(FIXTURE / "assistants", folder / "assistants")
    return folder


@pytest.mark.parametrize(
    ("files", "assistants", "missing"),
    [
        (["short_term.json"], None, ["mid_term.json", "long_term_user.json", "assistants/"]),
        (["long_term_user.json"], None, ["short_term.json", "mid_term.json", "assistants/"]),
        (ALL_FILES, None, ["assistants/"]),
        (["short_term.json", "long_term_user.json"], "full", ["mid_term.json"]),
        (["mid_term.json", "long_term_user.json"], "full", ["short_term.json"]),
    ],
)
def test_a_half_copied_folder_says_what_was_not_in_it(tmp_path, home, files, assistants, missing):
    folder = _folder(tmp_path, files, assistants)
    assert read_reference(folder).not_found == missing
    dry = run_cli("import-reference", str(folder), "--dry-run", *FAKE, home=home)
    assert dry.returncode == 0, dry.stderr
    out = dry.stdout.decode()
    note = next(line for line in out.splitlines() if line.startswith("Not in this folder:"))
    assert [name for name in ALL_FILES + ["assistants/"] if name in note] == missing
    done = run_cli("import-reference", str(folder), *FAKE, "--no-consolidate", home=home)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "Added" in out and note in out  # a note beside what was imported, not an error


@pytest.mark.parametrize(
    ("files", "assistants"),
    [
        (["short_term.json"], "empty"),  # a new user: a few exchanges, nothing moved on yet
        (["short_term.json", "mid_term.json"], "empty"),  # topics, none analysed yet
        (ALL_FILES, "empty"),  # analysed, but no assistant knowledge found
        (ALL_FILES, "full"),
    ],
)
def test_a_complete_folder_of_a_new_user_gets_no_note(tmp_path, home, files, assistants):
    """The reference writes each file only once it has something for it (on start: the folders
    users/alex/ and assistants/helper/, no file): a folder at any of those stages is whole."""
    folder = _folder(tmp_path, files, assistants)
    if files == ["short_term.json", "mid_term.json"]:  # no topic analysed: no long-term file
        path = folder / "users" / "alex" / "mid_term.json"
        mid = json.loads(path.read_text(encoding="utf-8"))
        for session in mid["sessions"].values():
            for page in session["details"]:
                page["analyzed"] = False
        path.write_text(json.dumps(mid), encoding="utf-8")
    assert read_reference(folder).not_found == []
    dry = run_cli("import-reference", str(folder), "--dry-run", *FAKE, home=home)
    assert dry.returncode == 0, dry.stderr
    assert "Not in this folder" not in dry.stdout.decode()


def test_the_apps_report_names_the_parts_not_in_the_folder(memory, tmp_path):
    from app.importer import import_reference_steps, reference_report

    folder = _folder(tmp_path, ["short_term.json"], None)
    added = steps_to_end(import_reference_steps(memory, str(folder), None))
    text = reference_report(added)
    assert text.startswith("Imported") and "Not in this folder:" in text
    note = text.split("Not in this folder:")[1]
    assert "mid_term.json" in note and "long_term_user.json" in note and "assistants/" in note
    whole = steps_to_end(import_steps(memory, read_reference(FIXTURE)))
    assert "Not in this folder" not in reference_report(whole)


# ---- a vault made by the command, and the organising bar ------------------------------------


def test_the_command_says_when_it_created_the_vault_and_where(home):
    first = run_cli("import-reference", str(FIXTURE), *FAKE, "--no-consolidate", home=home)
    assert first.returncode == 0, first.stderr
    vaults = list(home.rglob("*.memoryos"))
    assert len(vaults) == 1
    out = first.stdout.decode()
    created = [line for line in out.splitlines() if "Created" in line]
    assert len(created) == 1 and str(vaults[0]) in created[0]
    again = run_cli("import-reference", str(FIXTURE), *FAKE, "--no-consolidate", home=home)
    assert again.returncode == 0, again.stderr
    assert "Created" not in again.stdout.decode()


def test_the_organising_bar_shows_how_far_it_is_without_a_rate(home):
    """Its unit is percent: a rate ("314651.46%/s") says nothing."""
    done = run_cli("import-reference", str(FIXTURE), *FAKE, home=home)
    assert done.returncode == 0, done.stderr
    bars = done.stderr.decode().replace("\r", "\n")
    drawn = [line for line in bars.splitlines() if line.startswith("Organising memory")]
    assert drawn and all(re.search(r"\b\d+/100 \[", line) for line in drawn), drawn
    assert "100/100" in drawn[-1]
    assert not [line for line in drawn if "/s" in line], drawn


def test_a_data_folder_import_says_it_created_the_users_vault(home, tmp_path):
    data = tmp_path / "data"
    done = run_cli("import-reference", str(FIXTURE), "--data-folder", str(data), *FAKE,
                   "--no-consolidate", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    vault = data / "users" / "alex" / "vault.memoryos"
    assert vault.is_file()
    created = [line for line in done.stdout.decode().splitlines() if "Created" in line]
    assert len(created) == 1 and str(vault) in created[0]
