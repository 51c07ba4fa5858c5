"""The bundled MiniLM embedder: offline, 384-d, unit vectors, meaning-aware."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.backends.embedder import BUNDLED_EMBEDDER_ID, SentenceTransformerEmbedder


@pytest.fixture(scope="module")
def minilm():
    return SentenceTransformerEmbedder()


def test_id_and_dimension_are_known_without_loading_torch():
    code = (
        "import sys; from engine.backends.embedder import SentenceTransformerEmbedder as E; "
        "e = E(); print(e.model_id, e.dimension, e.loaded, 'torch' in sys.modules)"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.split() == [BUNDLED_EMBEDDER_ID, "384", "False", "False"]


@pytest.mark.real_models
def test_vectors_are_384_unit_float32_and_similar_sentences_are_closer(minilm):
    vectors = minilm.embed(
        [
            "I work as a data scientist in San Francisco.",
            "My job is analysing data for a company in California.",
            "The recipe needs two eggs and a cup of flour.",
        ]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > unrelated + 0.2
    query = minilm.embed_one("What is my job?", kind="query")
    assert query @ vectors[0] > query @ vectors[2]
    assert minilm.embed([]).shape == (0, 384)


@pytest.mark.slow  # embeds hundreds of sentences with MiniLM
@pytest.mark.real_models
def test_batches_larger_than_one_batch_keep_their_order(minilm):
    texts = [f"note number {i} about topic {i % 5}" for i in range(70)]
    together = minilm.embed(texts)
    alone = minilm.embed([texts[65]])
    assert together.shape == (70, 384)
    assert np.allclose(together[65], alone[0], atol=1e-4)


def test_unknown_kind_is_refused(minilm):
    with pytest.raises(ValueError):
        minilm.embed(["x"], kind="passage")


def test_the_bundled_folder_named_by_its_path_is_the_bundled_model(tmp_path):
    """A vault made with the bundled MiniLM opens when a command names that model's folder
    (the same vectors), while a copy elsewhere is a model of its own, named for its folder."""
    from engine.backends.build import make_embedder
    from engine.bundled import bundled_embedder_path

    assert make_embedder(str(bundled_embedder_path())).model_id == BUNDLED_EMBEDDER_ID
    link = tmp_path / "minilm-link"
    link.symlink_to(bundled_embedder_path(), target_is_directory=True)
    assert make_embedder(str(link)).model_id == BUNDLED_EMBEDDER_ID
    assert SentenceTransformerEmbedder(link).model_id == BUNDLED_EMBEDDER_ID  # any route
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "config.json").write_text('{"hidden_size": 384}')
    assert make_embedder(str(tmp_path / "mine")).model_id == "mine"
