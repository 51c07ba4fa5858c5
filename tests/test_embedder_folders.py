"""Any local sentence-transformers folder as the vault's embedder, and `reembed --to` between them."""

from __future__ import annotations

import json

import pytest

from engine import errors
from engine.backends.build import make_embedder
from tests.helpers import run_cli


def test_a_folder_that_is_no_model_is_a_clear_error(tmp_path):
    with pytest.raises(
        errors.InvalidInputError, match="is not a sentence-transformers model folder"
    ):
        make_embedder(str(tmp_path))
    with pytest.raises(
        errors.InvalidInputError, match="is not a sentence-transformers model folder"
    ):
        make_embedder(str(tmp_path / "missing"))


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A real, different sentence-transformers model: the bundled MiniLM with a 384→64 Dense
    layer on top, saved to a folder (as a person's own model would be)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense

    from engine.backends.embedder import bundled_embedder_path

    base = SentenceTransformer(str(bundled_embedder_path()), device="cpu")
    dense = Dense(in_features=384, out_features=64)
    folder = tmp_path_factory.mktemp("models") / "minilm-64"
    SentenceTransformer(modules=[*base, dense], device="cpu").save(str(folder))
    return folder


@pytest.mark.real_models
@pytest.mark.slow
def test_reembed_moves_a_vault_to_a_local_model_folder(home, tmp_path, small_model):
    assert make_embedder(str(small_model)).dimension == 64
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"user": "I keep bees on my roof in Lyon.", "assistant": "How many hives?"},
        {"user": "Three hives, mostly Buckfast bees.", "assistant": "Lovely."},
    ]), encoding="utf-8")  # fmt: skip
    # the bundled MiniLM
    assert run_cli("import", str(chat), "--create", home=home).returncode == 0

    moved = run_cli("reembed", "--to", str(small_model), home=home)
    assert moved.returncode == 0, moved.stderr
    assert b"now uses minilm-64 (64 dimensions)" in moved.stderr

    old = run_cli("status", home=home)  # the default embedder no longer fits the vault
    assert old.returncode == 1 and b"indexed with minilm-64 (64 dimensions)" in old.stderr
    facts = run_cli("facts", "--embedder", str(small_model), "list", home=home)
    assert b"bees on my roof" in facts.stdout

    back = run_cli("reembed", "--to", "default", home=home)
    assert back.returncode == 0 and b"all-MiniLM-L6-v2 (384 dimensions)" in back.stderr
