"""A file named like a model but holding something else is refused for its contents, not told
to be "a .gguf file", which by name it already is."""

from __future__ import annotations


def _refusal(path) -> str:
    from app.settings_lookups import read_gguf

    named, html, refusal, limits, parameters = read_gguf(str(path))
    assert named == str(path) and html == "" and limits is None and parameters == 0
    return refusal


def test_a_renamed_file_is_refused_for_its_contents(tmp_path):
    notes = tmp_path / "notreally.gguf"
    notes.write_text("Shopping list: eggs, milk\n" * 20, encoding="utf-8")
    said = _refusal(notes)
    assert "not a GGUF model" in said and "contents" in said
    assert "Choose a .gguf file" not in said and "download" not in said.lower()


def test_a_broken_download_is_refused_for_its_contents_and_fetched_again(tmp_path):
    from models.download import downloads_dir

    downloads_dir().mkdir(parents=True)
    page = downloads_dir() / "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf"
    page.write_bytes(b"<html>502 Bad Gateway</html>" * 40)  # what a proxy sent instead
    said = _refusal(page)
    assert "not a GGUF model" in said and "contents" in said
    assert "download it again" in said.lower() and "does not start with GGUF" not in said
