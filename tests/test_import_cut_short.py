"""A JSON file that stops part-way (a copy or download cut short) is told apart from one
damaged in the middle, for `memoryos import` and for a reference data folder."""

from __future__ import annotations

import json

import pytest

from engine import errors, transcripts
from engine.reference_files import read_reference
from engine.reference_import import import_reference, vault_counts
from tests.helpers import reference_copy, run_cli

FAKE = ("--embedder", "fake")


def test_memoryos_import_of_an_export_cut_short_says_so(tmp_path, home):
    said = [
        {"user": f"Day {n}: I walked the dog along the river and then baked bread.",
         "assistant": "That sounds like a lovely day.", "timestamp": f"2025-03-{n:02d}T10:00:00Z"}
        for n in range(1, 29)
    ]  # fmt: skip
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps(said), encoding="utf-8")
    assert run_cli("import", str(transcript), "--create", *FAKE, home=home).returncode == 0
    export = tmp_path / "export.json"
    assert run_cli("export", str(export), *FAKE, home=home).returncode == 0
    whole = export.read_bytes()
    assert len(whole) > 20_000
    cut = tmp_path / "cut.json"
    cut.write_bytes(whole[:20_000])  # head -c 20000 export.json > cut.json

    out = run_cli("import", str(cut), "--vault", "laptop", "--create", *FAKE, home=home)

    err = out.stderr.decode()
    assert out.returncode == 2 and str(cut) in err and "not valid JSON" in err
    assert "cut short" in err and "export it again" in err
    assert b"Traceback" not in out.stderr
    assert not (home / "data" / "vaults" / "laptop.memoryos").exists()  # nothing was made


@pytest.mark.parametrize(
    "text",
    ['[{"user": "I walked the dog", "assistant": "Nice', '[{"user": "hi", "assistant": "ok"}, ',
     '[{"user": "hi", "assistant": "ok", "meta": {"seen": tr', '[{"user": "hi", "n": 1.'],
)  # fmt: skip
def test_a_transcript_that_stops_part_way_is_called_cut_short(tmp_path, text):
    path = tmp_path / "chat.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(errors.InvalidInputError) as caught:
        transcripts.load(path)
    said = str(caught.value)
    assert "not valid JSON" in said and "cut short" in said and "line 1" in said


def test_a_transcript_damaged_in_the_middle_is_not_called_cut_short(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text('[\n{"user": "hi" "assistant": "ok"},\n{"user": "b", "assistant": "c"}\n]',
                    encoding="utf-8")  # fmt: skip
    with pytest.raises(errors.InvalidInputError) as caught:
        transcripts.load(path)
    said = str(caught.value)
    assert "not valid JSON" in said and "line 2, column 15" in said
    assert "cut short" not in said


def test_a_reference_file_cut_inside_a_text_is_called_unfinished(memory, tmp_path):
    """Cut part-way through a quoted text: the reference did not finish writing it (not
    "damaged after the reference wrote it")."""
    folder = reference_copy(tmp_path)
    path = folder / "users" / "alex" / "mid_term.json"
    text = path.read_text(encoding="utf-8")
    inside = text.index('"summary":"') + len('"summary":"') + 5
    path.write_text(text[:inside], encoding="utf-8")
    with pytest.raises(errors.InvalidInputError) as caught:
        import_reference(memory, read_reference(folder))
    said = str(caught.value)
    assert "stops part-way" in said and "did not finish writing it" in said
    assert "damaged" not in said
    assert vault_counts(memory)["pages"] == 0
