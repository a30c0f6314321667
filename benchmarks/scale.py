"""Scale benchmark on a synthetic KB (100k papers, 1M chunks by default): search p95 (BM25, dense,
hybrid), no-op `frontier curate`, render of a topic page with ~10k entries, and peak RSS, each
next to its target.

Baseline, measured in the same run: the same measurement on a KB of 1% the size built by the same
generator (1,000 papers, 10,000 chunks), and for the topic page a bare join of the same rows.
Every measurement runs in its own process, so its peak RSS is its own. The KBs are cached under
the temp folder (frontier-bench/) and reused while their figures match.

    python benchmarks/scale.py [--papers 100000] [--chunks 1000000] [--cache DIR] [--repeat 40]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from synthetic_kb import cached_kb

HERE = Path(__file__).resolve().parent
QUESTIONS = [
    "paged attention memory fragmentation in the KV cache",
    "speculative decoding acceptance rate of the draft model",
    "continuous batching scheduler for request admission",
    "prefill decode disaggregation across GPU instances",
    "quantization of weights and activations to low precision",
    "mixture of experts router load balance and capacity",
    "long context attention kernels and sequence length",
    "energy cost per token of serving large language models",
    "HBM bandwidth and interconnect limits of accelerators",
    "LoRA adapter serving for many tenants",
    "throughput and tail latency under an SLO",
    "prefix reuse and sharing of cached tokens",
    "offloading activations to host memory",
    "pipeline parallelism bubble with microbatch",
    "tensor parallel allreduce communication overhead",
    "autoscaling replicas of a serving fleet",
    "compiler fused operator for gemm",
    "pruning and distillation of transformer layers",
    "retrieval augmented generation with a vector index",
    "goodput of a cluster under a bursty arrival trace",
]
TARGETS = {"hybrid p95 ms": 50.0, "curate s per 1k papers": 1.0, "peak RSS MB": 2048.0}


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def measure_search(root: Path, repeat: int) -> dict[str, float]:
    """Per-method p50/p95 in ms over the questions (query embedding included), and the cold
    first dense query (loads the chunk vectors)."""
    from frontier.llm.embeddings import load_embedder
    from frontier.synthesize.retrieve import METHODS, Retriever
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    out: dict[str, float] = {}
    with contextlib.closing(ws.connect()) as conn:
        retriever = Retriever(conn, load_embedder())
        began = time.perf_counter()
        retriever.retrieve("warm up the chunk vectors", 8, "dense")
        out["cold dense ms"] = (time.perf_counter() - began) * 1000
        for method in METHODS:
            samples = []
            for i in range(repeat):
                began = time.perf_counter()
                retriever.retrieve(QUESTIONS[i % len(QUESTIONS)], 8, method)
                samples.append((time.perf_counter() - began) * 1000)
            out[f"{method} p50 ms"] = statistics.median(samples)
            out[f"{method} p95 ms"] = percentile(samples, 0.95)
    return out


def measure_index(root: Path) -> dict[str, float]:
    """Bring the HNSW and lexical index files up to date (what curate does after embedding
    chunks); 0 s when they already were."""
    from frontier.llm.embeddings import MODEL_NAME
    from frontier.store.dense import update_chunk_index
    from frontier.store.lexical import CHUNKS, PAPERS, update_lexical_indexes
    from frontier.store.lexical import index_dir as lexical_dir
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    out = {}
    with contextlib.closing(ws.connect()) as conn:
        began = time.perf_counter()
        built = update_chunk_index(conn, MODEL_NAME)
        out["hnsw build s"] = time.perf_counter() - began if built else 0.0
        stamps = [_mtime(lexical_dir(conn, c)) for c in (CHUNKS, PAPERS)]
        began = time.perf_counter()
        update_lexical_indexes(conn)
        changed = stamps != [_mtime(lexical_dir(conn, c)) for c in (CHUNKS, PAPERS)]
        out["lexical build s"] = time.perf_counter() - began if changed else 0.0
    return out


def _mtime(directory: Path | None) -> float:
    meta = directory / "frontier-log.json" if directory else None
    return meta.stat().st_mtime if meta and meta.is_file() else 0.0


def measure_fts5(root: Path, repeat: int) -> dict[str, float]:
    """The baseline of the lexical index: FTS5 BM25 over every chunk (what a small KB uses),
    its p95, and how many of its top 10 the index also ranks in its top 10."""
    from frontier.store.search import bm25_chunks
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    samples, overlap = [], []
    with contextlib.closing(ws.connect()) as conn:
        for i in range(min(repeat, len(QUESTIONS))):
            began = time.perf_counter()
            fts = bm25_chunks(conn, QUESTIONS[i], 10, index_from=10**15)
            samples.append((time.perf_counter() - began) * 1000)
            indexed = bm25_chunks(conn, QUESTIONS[i], 10)
            overlap.append(len({c for c, _ in fts} & {c for c, _ in indexed}) / 10)
    return {"p95 ms": percentile(samples, 0.95), "top10 overlap": float(np.mean(overlap))}


def measure_recall(root: Path, repeat: int) -> dict[str, float]:
    """recall@10 of the HNSW index against the exact scan, for queries near stored chunks (a
    question about a chunk) and for the field questions embedded by the model."""
    from frontier.llm.embeddings import load_embedder
    from frontier.store.dense import chunk_index, chunk_matrix, nearest_chunks
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    embedder = load_embedder()
    with contextlib.closing(ws.connect()) as conn:
        matrix = chunk_matrix(conn, embedder.name)
        index = chunk_index(conn, embedder.name)
    rng = np.random.default_rng(5)
    near = matrix.vectors[rng.integers(0, len(matrix), size=repeat)]
    near = near + rng.standard_normal(near.shape).astype(np.float32) * (
        0.8 / np.sqrt(near.shape[1])
    )
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    out = {}
    for name, queries in (("near", near), ("questions", embedder.embed(QUESTIONS))):
        hits = []
        for query in queries:
            exact = {cid for cid, _ in nearest_chunks(matrix, query, 10)}
            found = {cid for cid, _ in index.search(query, 60)[:10]}
            hits.append(len(exact & found) / 10)
        out[f"recall@10 {name}"] = float(np.mean(hits))
    return out


def measure_exact(root: Path, repeat: int) -> dict[str, float]:
    """The baseline of the dense search: every chunk vector loaded from SQLite into one float32
    matrix and scanned by numpy (what dense search does below the index threshold)."""
    from frontier.llm.embeddings import load_embedder
    from frontier.store.dense import chunk_matrix, nearest_chunks
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    embedder = load_embedder()
    queries = embedder.embed(QUESTIONS)
    with contextlib.closing(ws.connect()) as conn:
        began = time.perf_counter()
        matrix = chunk_matrix(conn, embedder.name)
        load_ms = (time.perf_counter() - began) * 1000
    samples = []
    for i in range(repeat):
        began = time.perf_counter()
        nearest_chunks(matrix, queries[i % len(queries)], 60)
        samples.append((time.perf_counter() - began) * 1000)
    return {"load ms": load_ms, "p95 ms": percentile(samples, 0.95)}


# the command in-process, then its own peak RSS (VmHWM: not inherited from the parent at exec,
# unlike ru_maxrss, which keeps the forking parent's peak)
_RUN_AND_REPORT = """
import sys
from frontier.cli import main
try:
    main()
finally:
    sys.stderr.write(open('/proc/self/status').read())
"""


def measure_curate(root: Path, timeout: float) -> dict[str, float]:
    """`frontier curate` as a user runs it, on a KB where there is nothing to do."""
    began = time.perf_counter()
    command = [sys.executable, "-c", _RUN_AND_REPORT, "-w", str(root), "curate", "--json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"curate s": float("inf"), "llm calls": -1.0, "peak RSS MB": float("nan")}
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    counts = json.loads(done.stdout)["counts"]
    return {
        "curate s": seconds,
        "llm calls": float(counts.get("llm calls", 0)),
        "peak RSS MB": peak_rss_mb(done.stderr),
    }


def peak_rss_mb(status: str | None = None) -> float:
    """VmHWM of /proc/<pid>/status text (this process when none is given), in MB."""
    if status is None:
        status = Path("/proc/self/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_curate_steps(root: Path) -> dict[str, float]:
    """The curation steps alone (triage to entries), without the command's conflict pass."""
    import asyncio

    from rich.console import Console

    from frontier.curate.run import curate
    from frontier.store.runs import recorded_run
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    began = time.perf_counter()
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "curate") as run:
        ctx = asyncio.run(curate(ws.settings, conn, run.id, Console(quiet=True)))
    return {"steps s": time.perf_counter() - began, "llm calls": float(ctx.counts["llm calls"])}


def measure_render(root: Path, repeat: int) -> dict[str, float]:
    """Load the KB for rendering, then the largest topic page under ~10k entries."""
    from frontier.render.common import Context
    from frontier.render.topics import topic_page
    from frontier.store.kb import load_kb
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    with contextlib.closing(ws.connect()) as conn:
        began = time.perf_counter()
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
        load_s = time.perf_counter() - began
    sizes = {t.slug: len(ctx.kb.topic_papers(t.slug)) for t in ws.settings.topics}
    slug = min(sizes, key=lambda s: abs(sizes[s] - 10_000))
    topic = ws.settings.topic(slug)
    samples, bare = [], []
    for _ in range(repeat):
        began = time.perf_counter()
        page = topic_page(ctx, topic)
        samples.append(time.perf_counter() - began)
        began = time.perf_counter()
        rows = [
            f"### {p.date} {p.title}\n\n{(ctx.kb.entry(p.id, slug) or p).__dict__.get('text', '')}"
            for p in ctx.kb.topic_papers(slug)
        ]
        "\n".join(rows)
        bare.append(time.perf_counter() - began)
    return {
        "entries": float(sizes[slug]),
        "load s": load_s,
        "page s": statistics.median(samples),
        "bare s": statistics.median(bare),
        "page KB": len(page.encode()) / 1024,
    }


def child(kind: str, root: Path, repeat: int, timeout: float) -> None:
    """One measurement in this process; prints its figures and peak RSS as JSON."""
    if kind == "search":
        out = measure_search(root, repeat)
    elif kind == "curate":
        print(json.dumps(measure_curate(root, timeout)))
        return
    elif kind == "steps":
        out = measure_curate_steps(root)
    elif kind == "index":
        out = measure_index(root)
    elif kind == "fts5":
        out = measure_fts5(root, repeat)
    elif kind == "exact":
        out = measure_exact(root, repeat)
    elif kind == "recall":
        out = measure_recall(root, repeat)
    else:
        out = measure_render(root, max(3, repeat // 10))
    out["peak RSS MB"] = peak_rss_mb()
    print(json.dumps(out))


def run_child(kind: str, root: Path, repeat: int, timeout: float) -> dict[str, float]:
    command = [sys.executable, str(HERE / "scale.py"), "--child", kind, "--workspace", str(root)]
    command += ["--repeat", str(repeat), "--timeout", str(timeout)]
    # building the indexes of a million chunks takes many minutes on 2 cores
    limit = 4 * 3600 if kind == "index" else timeout + 600
    done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    if done.returncode != 0:
        raise RuntimeError(f"{kind}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_all(root: Path, repeat: int, timeout: float) -> dict[str, float]:
    figures: dict[str, float] = {}
    for kind in ("index", "recall", "search", "fts5", "exact", "render", "steps", "curate"):
        for key, value in run_child(kind, root, repeat, timeout).items():
            figures[f"{kind}: {key}"] = value
    return figures


# (what, target, figure key, per 1k papers): one row of the table each
_ROWS = [
    ("bm25 search p95 ms", "", "search: bm25 p95 ms", False),
    ("dense search p95 ms", "", "search: dense p95 ms", False),
    ("hybrid search p95 ms", "< 50", "search: hybrid p95 ms", False),
    ("first dense query ms (loads vectors)", "", "search: cold dense ms", False),
    ("  HNSW index build s (0: unused or current)", "", "index: hnsw build s", False),
    ("  lexical index build s (0: unused or current)", "", "index: lexical build s", False),
    ("  FTS5 BM25 p95 ms (no lexical index)", "", "fts5: p95 ms", False),
    ("  BM25 top-10 shared with FTS5", "", "fts5: top10 overlap", False),
    ("  exact numpy dense p95 ms", "", "exact: p95 ms", False),
    ("  HNSW recall@10 vs exact (near a chunk)", ">= 0.95", "recall: recall@10 near", False),
    ("  exact: load 1M vectors from SQLite ms", "", "exact: load ms", False),
    ("no-op curate s per 1k papers", "< 1", "curate: curate s", True),
    ("  curation steps alone s per 1k", "< 1", "steps: steps s", True),
    ("  LLM calls", "0", "curate: llm calls", False),
    ("render: load KB s", "", "render: load s", False),
    ("render: topic page s ({entries} entries)", "", "render: page s", False),
    ("  bare join of the same rows s", "", "render: bare s", False),
] + [
    (f"peak RSS MB, {kind}", "< 2048", f"{kind}: peak RSS MB", False)
    for kind in ("index", "search", "fts5", "exact", "curate", "steps", "render")
]


def rows(big: dict[str, float], small: dict[str, float], papers: tuple[int, int]) -> list[tuple]:
    """(what, target, measured, baseline) for the table."""
    entries = f"{big['render: entries']:.0f}/{small['render: entries']:.0f}"
    out: list[tuple] = []
    for what, target, key, per_1k in _ROWS:
        scale = (1000 / papers[0], 1000 / papers[1]) if per_1k else (1.0, 1.0)
        out.append(
            (what.format(entries=entries), target, big[key] * scale[0], small[key] * scale[1])
        )
    return out


def verdict(what: str, target: str, value: float) -> str:
    if not target:
        return ""
    bound = float(target.lstrip("<>= "))
    if target == "0":
        ok = value == bound
    else:
        ok = value >= bound if target.startswith(">=") else value < bound
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "frontier-bench"
    )
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=300.0, help="cap on the curate command")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--workspace", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.workspace, args.repeat, args.timeout)
        return
    sizes = [(args.papers, args.chunks), (args.papers // 100, args.chunks // 100)]
    figures = []
    for papers, chunks in sizes:
        began = time.perf_counter()
        root = args.cache / f"scale-{papers}-{chunks}"
        cached_kb(root, papers, chunks)
        print(
            f"KB of {papers} papers, {chunks} chunks ready in {time.perf_counter() - began:.0f} s"
        )
        figures.append(measure_all(root, args.repeat, args.timeout))
    big, small = figures
    label = f"{args.papers // 1000}k"
    print(f"\n{'measure':<44}{'target':>8}{label:>10}{'1%':>10}{'ratio':>8}")
    for what, target, value, base in rows(big, small, (sizes[0][0], sizes[1][0])):
        ratio = value / base if base else float("nan")
        mark = verdict(what, target, value)
        print(f"{what:<44}{target:>8}{value:>10.2f}{base:>10.2f}{ratio:>8.1f}  {mark}")
    if big["curate: curate s"] == float("inf"):
        print(f"(the curate command did not finish within {args.timeout:.0f} s)")


if __name__ == "__main__":
    main()
