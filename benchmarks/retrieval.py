"""Retrieval benchmark over the full text of the shared PDFs, one run:

recall@5 at paper level (a top-5 chunk from the right paper) and at page level (a top-5 chunk
from the right paper *and* a page holding the answer) for BM25 only, dense only and hybrid,
with per-query latency (p50/p95, query embedding included, model load excluded). The questions
(benchmarks/data/retrieval_questions.jsonl) are answered only in the full text, not the abstract.

    python benchmarks/retrieval.py [--workspace DIR] [--fusion k,bm25,dense,paper,window ...]
                                   [--pdfs DIR --questions FILE]

Another corpus and question set run the same way: each JSONL line names a PDF of --pdfs by its
file name, the question and the 1-based pages that hold the answer.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import astuple, replace
from pathlib import Path

from rich.console import Console

from frontier.curate.vectors import ensure_chunk_vectors
from frontier.intake.expand import expand_paths
from frontier.intake.run import ingest_plan
from frontier.llm.embeddings import load_embedder
from frontier.store.runs import start_run
from frontier.synthesize.retrieve import DEFAULT_FUSION, METHODS, Fusion, Passage, Retriever
from frontier.workspace import Workspace, init_workspace, open_workspace

ROOT = Path(__file__).resolve().parents[1]
PDFS = ROOT.parent / "shared" / "corpus" / "pdfs"
QUESTIONS = ROOT / "benchmarks" / "data" / "retrieval_questions.jsonl"
K = 5
NAIVE_FUSION = Fusion(k=60, bm25=1, dense=1, paper=0, window=0)  # plain RRF of the two lists
NO_WINDOWS = replace(DEFAULT_FUSION, window=0)  # what the sentence-window list adds


def build_workspace(directory: Path, pdfs: Path = PDFS) -> Workspace:
    """Ingest the PDFs and embed every chunk (reused when the workspace exists)."""
    if (directory / "frontier.toml").exists():
        ws = open_workspace(directory)
    else:
        ws = init_workspace(directory)
        plan = expand_paths([pdfs], None, ws.settings.ingest.chunk_tokens)
        with contextlib.closing(ws.connect()) as conn:
            run_id = start_run(conn, "ingest", str(pdfs))
            ingest_plan(ws, conn, plan, run_id, Console(quiet=True))
    with contextlib.closing(ws.connect()) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM papers")]
        started = time.perf_counter()
        count = ensure_chunk_vectors(conn, load_embedder(), ids)
        if count:
            print(f"embedded {count} chunks in {time.perf_counter() - started:.0f} s")
    return ws


def paper_ids_by_file(ws: Workspace) -> dict[str, str]:
    with contextlib.closing(ws.connect()) as conn:
        return {
            Path(row[1]).name: row[0]
            for row in conn.execute("SELECT id, source_ref FROM papers WHERE source = 'pdf'")
        }


def hit_levels(passages: list[Passage], paper_id: str, pages: set[int]) -> tuple[bool, bool]:
    on_paper = [p for p in passages[:K] if p.paper_id == paper_id]
    return bool(on_paper), any(p.page in pages for p in on_paper)


def evaluate(retriever: Retriever, questions: list[dict], ids: dict[str, str], method: str) -> dict:
    paper_hits = page_hits = 0
    latencies: list[float] = []
    misses: list[str] = []
    for q in questions:
        started = time.perf_counter()
        passages = retriever.retrieve(q["question"], K, method)
        latencies.append((time.perf_counter() - started) * 1000)
        paper_hit, page_hit = hit_levels(passages, ids[q["file"]], set(q["pages"]))
        paper_hits += paper_hit
        page_hits += page_hit
        if not page_hit:
            misses.append(q["question"])
    latencies.sort()
    return {
        "paper": paper_hits / len(questions),
        "page": page_hits / len(questions),
        "p50": statistics.median(latencies),
        "p95": latencies[max(0, round(0.95 * len(latencies)) - 1)],
        "misses": misses,
    }


def read_questions(path: Path) -> list[dict]:
    """One question per line, with the fields the evaluation reads; a bad line stops the run."""
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            question = json.loads(line)
            if not {"file", "question", "pages"} <= set(question):
                raise ValueError("needs file, question and pages")
        except ValueError as exc:
            sys.exit(f"{path}:{number}: {exc}")
        questions.append(question)
    return questions


def parse_fusion(text: str) -> Fusion:
    return Fusion(*(float(part) for part in text.split(",")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="reuse (or create) this KB")
    parser.add_argument(
        "--fusion",
        action="append",
        default=[],
        help="extra fusion to compare: k,bm25,dense,paper,window",
    )
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--pdfs", type=Path, default=PDFS, help="folder of the papers")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="JSONL question set")
    args = parser.parse_args()
    if not args.pdfs.is_dir() or not args.questions.is_file():
        sys.exit(f"missing {args.pdfs} or {args.questions}: the benchmark needs both")
    questions = read_questions(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        ws = build_workspace(args.workspace or Path(tmp) / "kb", args.pdfs)
        ids = paper_ids_by_file(ws)
        unknown = sorted({q["file"] for q in questions} - set(ids))
        if unknown:
            sys.exit(f"{args.questions}: no stored paper for {', '.join(unknown)}")
        with contextlib.closing(ws.connect()) as conn:
            embedder = load_embedder()
            rows = [(method, DEFAULT_FUSION) for method in METHODS]
            rows.append(("hybrid", NAIVE_FUSION))
            rows.append(("hybrid", NO_WINDOWS))
            rows += [("hybrid", parse_fusion(text)) for text in args.fusion]
            print(f"{len(questions)} questions over {len(ids)} PDFs; recall@{K}")
            print(f"{'method':<34}{'paper':>7}{'page':>7}{'p50 ms':>9}{'p95 ms':>9}")
            results = {}
            for method, fusion in rows:
                retriever = Retriever(conn, embedder, fusion)
                retriever.retrieve("warm up", K, method)
                result = evaluate(retriever, questions, ids, method)
                label = method
                if fusion == NAIVE_FUSION:
                    label = "hybrid, naive RRF (k=60, equal)"
                elif fusion == NO_WINDOWS:
                    label = "hybrid without sentence windows"
                elif method == "hybrid" and fusion != DEFAULT_FUSION:
                    label = "hybrid " + ",".join(f"{v:g}" for v in astuple(fusion))
                results[label] = result
                print(
                    f"{label[:33]:<34}{result['paper']:>7.2f}{result['page']:>7.2f}"
                    f"{result['p50']:>9.1f}{result['p95']:>9.1f}"
                )
                if args.show_misses:
                    for miss in result["misses"]:
                        print(f"    miss: {miss}")
    best_single = max(results["bm25"]["page"], results["dense"]["page"])
    hybrid = results["hybrid"]["page"]
    print(f"\nhybrid / best single method (page level): {hybrid / max(best_single, 1e-9):.2f}")
    print(
        f"targets: hybrid >= best single {'ok' if hybrid >= best_single else 'MISSED'}; "
        f"page recall@5 >= 0.9 {'ok' if hybrid >= 0.9 else 'MISSED'}; "
        f"p95 < 100 ms {'ok' if results['hybrid']['p95'] < 100 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
