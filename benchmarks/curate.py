"""Curation benchmark, one run on the embedded model:

1. Triage of hand-labelled items (the 60 bare seed abstracts, the packaged sample papers and
   out-of-field arXiv entries; labels in benchmarks/data/triage_labels.jsonl): topic
   distribution, LLM calls per paper, accuracy per topic next to the baseline that puts
   everything in the biggest topic.
2. Claims over the shared PDFs: verified claims, the share of papers with an evaluation section
   that have at least one, papers/min and LLM tokens per paper, cold and warm cache; cold on
   llama.cpp's llama-server (what frontier runs) and on llama-cpp-python's server (what it ran
   before: the baseline, when installed), each on its own copy of the same ingested KB.
3. `frontier demo` wall time on each of the two servers.

    python benchmarks/curate.py [--skip-pdfs] [--skip-demo] [--pdf-limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from rich.console import Console
from servers import NEW, OLD, servers, use

from frontier.commands.curate import curate_workspace
from frontier.curate.context import CurationContext
from frontier.curate.scope import scope_lines
from frontier.curate.steps.triage import triage_step
from frontier.curate.vectors import embed_texts, ensure_paper_vectors
from frontier.intake.expand import expand_paths
from frontier.intake.run import ingest_plan
from frontier.llm.client import LLM
from frontier.llm.embeddings import load_embedder
from frontier.sources.abstracts import read_abstracts
from frontier.sources.arxiv_api import without_c1_controls
from frontier.sources.ids import parse_arxiv_id
from frontier.store import curation as store
from frontier.store.runs import start_run
from frontier.workspace import Workspace, init_workspace, open_workspace

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
LABELS = ROOT / "benchmarks" / "data" / "triage_labels.jsonl"
FIELD_ITEMS = ROOT / "benchmarks" / "data" / "field_items.jsonl"  # hand-written, to balance topics
FEED = (
    SHARED
    / "corpus"
    / "arxiv_api"
    / "arxiv.py_recorded_json"
    / "q_testing_s0_m100_cfe7536492ca.json"
)
ATOM = "{http://www.w3.org/2005/Atom}"
quiet = Console(stderr=True, quiet=True)


def require(path: Path) -> Path:
    if not path.exists():
        sys.exit(
            f"benchmark data not found: {path} (the shared corpus must sit next to the repository)"
        )
    return path


def feed_records(wanted: set[str], out: Path) -> Path:
    """The labelled out-of-field entries of a recorded arXiv feed, as a JSONL file to ingest,
    cleaned as the arXiv reader cleans its feed."""
    body = json.loads(require(FEED).read_text())["body"]
    rows = []
    for entry in ET.fromstring(body).iter(f"{ATOM}entry"):
        parsed = parse_arxiv_id(entry.findtext(f"{ATOM}id", ""))
        if parsed and parsed[0] in wanted:
            rows.append(
                {
                    "id": parsed[0],
                    "title": without_c1_controls(entry.findtext(f"{ATOM}title", "")),
                    "abstract": without_c1_controls(entry.findtext(f"{ATOM}summary", "")),
                }
            )
    out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return out


def load_labels() -> dict[tuple[str, str], str]:
    rows = [json.loads(line) for line in require(LABELS).read_text().splitlines() if line.strip()]
    return {(r["source"], r["id"]): r["label"] for r in rows}


def ingest(ws: Workspace, paths: list[Path]) -> None:
    conn = ws.connect()
    run_id = start_run(conn, "bench ingest")
    ingest_plan(ws, conn, expand_paths(paths, None, ws.settings.ingest.chunk_tokens), run_id, quiet)
    conn.close()


def paper_key(conn, source: str, item_id: str) -> str | None:  # type: ignore[no-untyped-def]
    if source == "abstracts":
        return f"h:{item_id[:16]}"
    row = conn.execute(
        "SELECT id FROM papers WHERE id = ? OR title = ?", (item_id, item_id)
    ).fetchone()
    return row[0] if row else None


def triage_benchmark(tmp: Path) -> None:
    labels = load_labels()
    ws = init_workspace(tmp / "triage")
    feed_ids = {i for (s, i) in labels if s == "arxiv_feed"}
    seed = require(SHARED / "seeds" / "004-abstracts-llm-inference.txt")
    ingest(
        ws,
        [
            seed,
            ROOT / "src" / "frontier" / "data" / "sample_papers.jsonl",
            feed_records(feed_ids, tmp / "feed.jsonl"),
            require(FIELD_ITEMS),
        ],
    )
    assert len(list(read_abstracts(seed))) >= 60
    conn = ws.connect()
    run_id = start_run(conn, "bench triage")
    embedder = load_embedder()
    papers = store.papers_to_curate(conn)
    lines = scope_lines(ws.settings)
    llm = LLM(ws.settings.llm, conn, run_id=run_id, command="bench", use_cache=False)
    ctx = CurationContext(
        conn,
        ws.settings,
        llm,
        run_id,
        ensure_paper_vectors(conn, embedder, list(papers)),
        lines,
        embed_texts(embedder, [x.text for x in lines]),
        lambda t: embed_texts(embedder, t),
        quiet,
    )
    started = time.perf_counter()

    async def run() -> None:
        await triage_step(ctx, papers)
        await llm.aclose()

    asyncio.run(run())
    elapsed = time.perf_counter() - started
    decided = {
        r[0]: (r[1], r[2]) for r in conn.execute("SELECT paper_id, topic, stage FROM triage")
    }
    calls = conn.execute(
        "SELECT COUNT(*) FROM llm_calls WHERE run_id = ? AND cache_hit = 0", (run_id,)
    ).fetchone()[0]
    report_triage(conn, labels, decided, calls, len(papers), elapsed, ctx.failures)


def report_triage(conn, labels, decided, calls, n_papers, elapsed, failures) -> None:  # type: ignore[no-untyped-def]
    truth: dict[str, str] = {}
    for (source, item_id), label in labels.items():
        key = paper_key(conn, source, item_id)
        if key:
            truth[key] = label
    biggest = Counter(truth.values()).most_common(1)[0][0]
    seed_ids = [paper_key(conn, s, i) for (s, i) in labels if s == "abstracts"]
    seed_topics = Counter((decided.get(k or "", ("?", ""))[0] or "out-of-field") for k in seed_ids)
    print(f"Triage of {len(truth)} labelled items ({n_papers} papers in the KB), {elapsed:.0f} s")
    print(
        f"  decided by: {dict(Counter(stage for _, stage in decided.values()))}, failures: {len(failures)}"
    )
    print(f"  LLM calls per paper: {calls / max(n_papers, 1):.2f}  (target <= 0.3)")
    print(
        f"  topic distribution: {dict(Counter(topic or 'out-of-field' for topic, _ in decided.values()))}"
    )
    print(f"  of the {len(seed_ids)} bare seed abstracts: {dict(seed_topics)}")
    print(f"\n  {'label':<22}{'items':>6}{'ours':>8}{'biggest-topic baseline':>25}")
    per_label: list[float] = []
    for label in sorted(set(truth.values())):
        items = [k for k, v in truth.items() if v == label]
        ours = sum(1 for k in items if decided.get(k, ("?", ""))[0] == label) / len(items)
        per_label.append(ours)
        base = 1.0 if label == biggest else 0.0
        print(f"  {label or 'out-of-field':<22}{len(items):>6}{ours:>8.0%}{base:>25.0%}")
    total = sum(1 for k, v in truth.items() if decided.get(k, ("?", ""))[0] == v) / len(truth)
    base_total = sum(1 for v in truth.values() if v == biggest) / len(truth)
    print(f"  {'all':<22}{len(truth):>6}{total:>8.0%}{base_total:>25.0%}")
    macro = sum(per_label) / len(per_label)
    print(f"  {'mean over labels':<22}{'':>6}{macro:>8.0%}{1 / len(per_label):>25.0%}")
    report_subsets(conn, labels, decided, biggest)


def report_subsets(conn, labels, decided, biggest) -> None:  # type: ignore[no-untyped-def]
    """Correct decisions on parts of the labels: not the biggest topic, the seed abstracts, and
    the odd and even lines of the label file (a rule that fits one half only shows there)."""
    rows = [(n, s, paper_key(conn, s, i), v) for n, ((s, i), v) in enumerate(labels.items())]
    subsets = {
        f"not {biggest}": lambda n, s, v: v != biggest,
        "seed abstracts": lambda n, s, v: s == "abstracts",
        f"seed, not {biggest}": lambda n, s, v: s == "abstracts" and v != biggest,
        "odd lines": lambda n, s, v: n % 2 == 0,
        "even lines": lambda n, s, v: n % 2 == 1,
    }
    for name, keep in subsets.items():
        part = [(k, v) for n, s, k, v in rows if k and keep(n, s, v)]
        right = sum(1 for k, v in part if decided.get(k, ("?", ""))[0] == v)
        print(f"  {name:<22}{len(part):>6}{right:>8} right")


def claims_benchmark(tmp: Path, limit: int) -> None:
    ingested = init_workspace(tmp / "pdfs")
    pdfs = sorted(require(SHARED / "corpus" / "pdfs").glob("*.pdf"))[:limit]
    folder = tmp / "some_pdfs"
    folder.mkdir()
    for pdf in pdfs:
        (folder / pdf.name).symlink_to(pdf)
    ingest(ingested, [folder])
    rates = {}
    for name, server in servers():
        shutil.copytree(ingested.root, tmp / name)
        ws = open_workspace(tmp / name)
        use(server, ws.settings.llm)
        try:
            for label in ("cold", "warm") if name == NEW else ("cold",):
                rates[(name, label)] = curate_once(ws, name, label, len(pdfs))
        finally:
            server.stop()
    if (OLD, "cold") in rates:
        ratio = rates[(NEW, "cold")] / rates[(OLD, "cold")]
        print(f"\nCold papers/min, {NEW} / {OLD}: {ratio:.2f}x (target >= 1.5)")
    report_claims(open_workspace(tmp / NEW))


def curate_once(ws: Workspace, server: str, label: str, n: int) -> float:
    """One curation of the whole KB (`cold`: the cache neither read nor written); papers/min."""
    started = time.perf_counter()
    result = curate_workspace(ws, quiet, use_cache=label != "cold")
    elapsed = time.perf_counter() - started
    conn = ws.connect()
    tokens = conn.execute(
        "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM llm_calls "
        "WHERE run_id = ?",
        (result["run_id"],),
    ).fetchone()[0]
    conn.close()
    per_minute = n / elapsed * 60
    print(
        f"\nCuration of {n} PDFs on {server}, {label}: {elapsed:.0f} s, {per_minute:.1f} papers/min, "
        f"{tokens / n:.0f} LLM tokens/paper, {result['counts'].get('llm calls', 0)} LLM calls, "
        f"{len(result['failures'])} failures"
    )
    return per_minute


def report_claims(ws: Workspace) -> None:
    conn = ws.connect()
    with_eval = {
        r[0]
        for r in conn.execute("SELECT DISTINCT paper_id FROM sections WHERE kind = 'evaluation'")
    }
    with_claim = {
        r[0] for r in conn.execute("SELECT DISTINCT paper_id FROM claims WHERE verified = 1")
    }
    verified, total = conn.execute("SELECT SUM(verified), COUNT(*) FROM claims").fetchone()
    conn.close()
    print(
        f"Claims: {total} typed, {verified} verified; papers with an evaluation section that have a "
        f"verified claim: {len(with_eval & with_claim)}/{len(with_eval)} "
        f"({len(with_eval & with_claim) / max(len(with_eval), 1):.0%}, target >= 70%)"
    )


def demo_benchmark(tmp: Path) -> None:
    """`frontier demo` as a user runs it, on each server. On llama-server frontier starts the
    server itself; the baseline is started here first (inside the timing) and named as the
    command's base_url, as frontier started it before."""
    seconds = {}
    for name, server in servers():
        started = time.perf_counter()
        env = dict(os.environ)
        if name != NEW:
            env |= {
                "FRONTIER_LLM__BASE_URL": server.ensure_running(),
                "FRONTIER_LLM__BACKEND": "llamacpp",
            }
        try:
            done = subprocess.run(
                [sys.executable, "-m", "frontier", "demo", str(tmp / f"demo-{name}")],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            server.stop()
        seconds[name] = time.perf_counter() - started
        print(f"\n`frontier demo` on {name}: {seconds[name]:.0f} s (exit {done.returncode})")
    if OLD in seconds:
        print(f"`frontier demo` wall time, {NEW} / {OLD}: {seconds[NEW] / seconds[OLD]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-pdfs", action="store_true")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--skip-triage", action="store_true")
    parser.add_argument("--pdf-limit", type=int, default=38)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if not args.skip_triage:
            triage_benchmark(tmp)
        if not args.skip_pdfs:
            claims_benchmark(tmp, args.pdf_limit)
        if not args.skip_demo:
            demo_benchmark(tmp)


if __name__ == "__main__":
    main()
