"""Vector index choice for dense retrieval: brute force in numpy (float32, float16, int8) against
usearch HNSW (f32, f16, i8), on 1M synthetic 384-d unit vectors drawn around cluster centres.

For each: build time, memory of the matrix or index, query p50/p95 (one query at a time, top 60
as retrieval asks), and recall@10 against float32 brute force, the baseline measured in the same
run. Queries are vectors near a random chunk (a question about it), not the chunk itself.

    python benchmarks/vector_index.py [--vectors 1000000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from synthetic_text import VectorSource

TOP = 60
CHUNKS_PER_PAPER = 10


def vectors(count: int, clusters: int = 80) -> tuple[np.ndarray, np.ndarray]:
    """(chunk matrix, queries): chunks around papers around cluster centres."""
    source = VectorSource(clusters, seed=11)
    rng = np.random.default_rng(12)
    papers = source.papers(rng.integers(0, clusters, size=count // CHUNKS_PER_PAPER))
    matrix = np.empty((count, source.dim), dtype=np.float32)
    for start in range(0, count, 100_000):
        rows = np.arange(start, min(count, start + 100_000)) // CHUNKS_PER_PAPER
        matrix[start : start + len(rows)] = source.chunks(papers[rows])
    return matrix, source


def top_k(sims: np.ndarray, k: int) -> np.ndarray:
    top = np.argpartition(-sims, k - 1)[:k]
    return top[np.argsort(-sims[top], kind="stable")]


def timed(search: Callable[[np.ndarray], np.ndarray], queries: np.ndarray) -> tuple[list, list]:
    found, samples = [], []
    for query in queries:
        began = time.perf_counter()
        found.append(search(query))
        samples.append((time.perf_counter() - began) * 1000)
    return found, samples


def recall(found: list[np.ndarray], truth: list[np.ndarray], k: int = 10) -> float:
    hits = [
        len(set(f[:k].tolist()) & set(t[:k].tolist())) / k
        for f, t in zip(found, truth, strict=True)
    ]
    return float(np.mean(hits))


def brute(matrix: np.ndarray, dtype: str) -> tuple[Callable[[np.ndarray], np.ndarray], int, float]:
    began = time.perf_counter()
    if dtype == "int8":
        stored = np.round(matrix * 127).astype(np.int8)

        # int8 dot products in int32, a row block at a time (numpy has no int8 BLAS)
        def search(q: np.ndarray) -> np.ndarray:
            qi = np.round(q * 127).astype(np.int32)
            return top_k(stored @ qi, TOP)
    else:
        stored = matrix.astype(dtype)

        def search(q: np.ndarray) -> np.ndarray:
            return top_k(stored @ q.astype(dtype), TOP)

    return search, stored.nbytes, time.perf_counter() - began


def hnsw(matrix: np.ndarray, dtype: str) -> tuple[Callable[[np.ndarray], np.ndarray], int, float]:
    from usearch.index import Index

    index = Index(ndim=matrix.shape[1], metric="cos", dtype=dtype, connectivity=16)
    began = time.perf_counter()
    index.add(np.arange(len(matrix)), matrix, threads=2)
    built = time.perf_counter() - began
    index.expansion_search = 128

    def search(q: np.ndarray) -> np.ndarray:
        return index.search(q, TOP).keys

    return search, int(index.memory_usage), built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vectors", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip", action="append", default=[], help="e.g. numpy-float16")
    args = parser.parse_args()
    began = time.perf_counter()
    matrix, source = vectors(args.vectors)
    rng = np.random.default_rng(13)
    queries = source.queries(matrix[rng.integers(0, len(matrix), size=args.queries)])
    print(
        f"{len(matrix)} vectors, {args.queries} queries (made in {time.perf_counter() - began:.0f} s)"
    )
    candidates = [("numpy", "float32"), ("numpy", "float16"), ("numpy", "int8")]
    candidates += [("usearch", "f32"), ("usearch", "f16"), ("usearch", "i8")]
    truth: list[np.ndarray] = []
    print(f"{'index':<18}{'build s':>9}{'MB':>8}{'p50 ms':>9}{'p95 ms':>9}{'recall@10':>11}")
    for kind, dtype in candidates:
        name = f"{kind}-{dtype}"
        if name in args.skip:
            continue
        make = brute if kind == "numpy" else hnsw
        search, size, built = make(matrix, dtype)
        # slow brute forces are timed on fewer queries; recall is still over those queries
        count = args.queries if dtype not in ("float16", "int8") else min(20, args.queries)
        found, samples = timed(search, queries[:count])
        if not truth:
            truth = found
        samples.sort()
        p95 = samples[max(0, round(0.95 * len(samples)) - 1)]
        print(
            f"{name:<18}{built:>9.1f}{size / 2**20:>8.0f}{statistics.median(samples):>9.1f}"
            f"{p95:>9.1f}{recall(found, truth[:count]):>11.3f}"
        )
        del search
    print("baseline: numpy-float32 (exact); recall is the share of its top 10 found")


if __name__ == "__main__":
    main()
