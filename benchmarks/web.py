"""Web UI benchmark: page render time (p50, p95) per page on the demo KB and on a synthetic KB of
10,000 papers, through the real app in-process (routing, store reads, templates, middleware).

Baselines, measured in the same run on the same data: a packaged static file served by the same
app (the floor of the stack), and the same page data rendered by a bare Jinja2 template (the
cost of templating alone). The KB is loaded once per change of the store; the first request
(cold) is reported apart.

    python benchmarks/web.py [--papers 10000] [--repeat 30] [--demo DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from jinja2 import Environment
from starlette.testclient import TestClient

from frontier.model import Claim, SourceRecord
from frontier.render.common import Context
from frontier.store.curation import (
    save_claims,
    save_entry,
    save_relations,
    save_triage,
    sync_config,
)
from frontier.store.db import connect
from frontier.store.kb import load_kb
from frontier.store.papers import save_paper
from frontier.store.runs import finish_run, start_run
from frontier.web.app import create_app
from frontier.workspace import Workspace, init_workspace, open_workspace

TOPICS = ["serving", "models", "inference-economics", "hardware"]
ENTITIES = ["vllm", "speculative-decoding", "a100", "h100", "llama", "nvidia"]
WORDS = [
    "attention",
    "cache",
    "paged",
    "speculative",
    "decoding",
    "quantization",
    "kernel",
    "batching",
    "prefill",
    "decode",
    "memory",
    "bandwidth",
    "throughput",
    "latency",
    "sparse",
    "expert",
    "offloading",
    "scheduler",
    "tensor",
    "pipeline",
]
BARE = Environment(autoescape=True).from_string(
    "<html><body><h1>{{ title }}</h1><table>{% for r in rows %}<tr>"
    "{% for c in r %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}</table></body></html>"
)


def _claim(rng: random.Random) -> Claim:
    value = round(rng.uniform(1.1, 8.0), 2)
    unit, metric = rng.choice([("×", "speedup"), ("ms", "latency"), ("tok/s", "throughput")])
    return Claim(
        metric=metric,
        value=value,
        value_text=str(value),
        unit=unit,
        direction="higher",
        baseline=rng.choice(["vLLM", "Orca", "FasterTransformer", "HF Transformers", "a baseline"]),
        model_name=rng.choice(["Llama-2-7B", "OPT-13B", ""]),
        hardware=rng.choice(["A100", "H100", ""]),
        condition="",
        page=None,
        quote=f"we measure {value}{unit}",
        verified=True,
        verify_note="",
        model="synthetic",
        prompt_version="claim@1",
    )


def _relation(kind: str, target: str) -> SimpleNamespace:
    return SimpleNamespace(
        kind=kind, target=target, detail="synthetic", evidence="", stage="code", page=None, how=""
    )


def curate_synthetically(ws: Workspace, seed: int = 7) -> None:
    """Triage, three claims, an entry and relations for every paper, through the store."""
    rng = random.Random(seed)
    with contextlib.closing(connect(ws.db_path)) as conn:
        sync_config(conn, ws.settings)
        gaps = [str(r[0]) for r in conn.execute("SELECT id FROM gaps")]
        run_id = start_run(conn, "bench")
        for (paper_id,) in conn.execute("SELECT id FROM papers ORDER BY id").fetchall():
            topic = rng.choice(TOPICS)
            row = {"topic": topic, "stage": "embedding", "reason": "synthetic", "scope_line": ""}
            save_triage(conn, paper_id, [{**row, "score": 0.5}], "h", run_id)
            save_claims(conn, paper_id, [_claim(rng) for _ in range(3)], "h", run_id)
            relations = [_relation("entity", rng.choice(ENTITIES))]
            if gaps and rng.random() < 0.2:
                relations.append(_relation("gap", rng.choice(gaps)))
            save_relations(conn, paper_id, {topic: relations}, "h")
            text = "A synthetic entry: " + " ".join(rng.choices(WORDS, k=30))
            save_entry(conn, paper_id, topic, text, "synthetic", "entry@1", run_id, "h")
        finish_run(conn, run_id, "ok", {})


def synthetic_kb(root: Path, papers: int, seed: int = 7) -> Workspace:
    """A workspace of `papers` synthetic papers over four years, curated synthetically."""
    ws = init_workspace(root)
    rng = random.Random(seed)
    start = dt.date(2022, 1, 1)
    with contextlib.closing(connect(ws.db_path)) as conn:
        for n in range(papers):
            title = f"Synthetic paper {n}: " + " ".join(rng.choices(WORDS, k=8))
            record = SourceRecord(
                source="jsonl",
                source_ref="bench",
                arxiv_id=f"25{n // 10000:02d}.{n % 10000:05d}",
                title=title,
                authors=[f"Author {rng.randrange(500)}", f"Author {rng.randrange(500)}"],
                published=start + dt.timedelta(days=rng.randrange(4 * 365)),
                categories=["cs.LG"],
                abstract=" ".join(rng.choices(WORDS, k=120)),
            )
            save_paper(conn, record, None, None)
    curate_synthetically(ws, seed)
    return ws


def demo_kb(root: Path, given: Path | None) -> Workspace:
    """The given demo workspace, or the packaged sample ingested and curated synthetically."""
    if given is not None:
        return open_workspace(given)
    command = [sys.executable, "-m", "frontier", "demo", str(root), "--no-curate"]
    subprocess.run(command, check=True, capture_output=True)
    ws = open_workspace(root)
    curate_synthetically(ws)
    return ws


def pages(ws: Workspace) -> dict[str, str]:
    with contextlib.closing(ws.connect()) as conn:
        paper = conn.execute("SELECT id FROM papers ORDER BY published DESC LIMIT 1").fetchone()[0]
    return {
        "topics": "/",
        "topic": "/topic/serving",
        "frontier": "/topic/serving/frontier",
        "paper": f"/paper/{paper}",
        "entity": "/entity/vllm",
        "claims": "/claims?hardware=a100&sort=value_desc",
        "search": "/search?q=paged+attention+memory",
        "usage": "/usage",
        "results": "/results?baseline=vLLM",
        "results graph": "/results/graph",
    }


def timed(call, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        begin = time.perf_counter()
        call()
        out.append((time.perf_counter() - begin) * 1000)
    return out


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]


def bare_data(ws: Workspace) -> list[list[str]]:
    """The rows of the topic page (date, title, entry, headline claims), from the store."""
    with contextlib.closing(ws.connect()) as conn:
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
    rows = []
    for paper in ctx.kb.topic_papers("serving"):
        entry = ctx.kb.entry(paper.id, "serving")
        claims = [c.value_text for c in ctx.kb.claims_of(paper.id) if c.verified][:3]
        rows.append([paper.date, paper.title, entry.text if entry else "", *claims])
    return rows


def measure(name: str, ws: Workspace, repeat: int) -> None:
    client = TestClient(create_app(ws), base_url="http://127.0.0.1")
    begin = time.perf_counter()
    assert client.get("/").status_code == 200
    cold = (time.perf_counter() - begin) * 1000
    timed(lambda: client.get("/static/style.css"), 5)  # warm-up
    static = timed(lambda: client.get("/static/style.css"), repeat)
    rows = bare_data(ws)
    bare = timed(lambda: BARE.render(title="Serving", rows=rows), repeat)
    papers = sum(1 for _ in ws.connect().execute("SELECT id FROM papers"))
    print(f"\n{name}: {papers} papers; first request (loads the KB) {cold:.0f} ms")
    print(f"{'page':<10} {'p50 ms':>8} {'p95 ms':>8} {'KB':>8} {'x static':>9}")
    static_p95 = p95(static)
    for page, path in pages(ws).items():
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        samples = timed(lambda path=path: client.get(path), repeat)
        ratio = p95(samples) / static_p95
        size = len(response.content) / 1024
        print(
            f"{page:<10} {statistics.median(samples):8.1f} {p95(samples):8.1f} {size:8.0f} "
            f"{ratio:9.1f}"
        )
    print(f"{'static':<10} {statistics.median(static):8.1f} {static_p95:8.1f}  (baseline)")
    print(
        f"bare Jinja2 render of the topic page's rows: p50 {statistics.median(bare):.1f}"
        f" ms, p95 {p95(bare):.1f} ms (baseline)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--demo", type=Path, help="a curated demo workspace to measure as is")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure("demo KB", demo_kb(Path(tmp) / "demo", args.demo), args.repeat)
        begin = time.perf_counter()
        ws = synthetic_kb(Path(tmp) / "synthetic", args.papers)
        print(f"\n(synthetic KB built in {time.perf_counter() - begin:.0f} s)")
        measure(f"synthetic KB ({args.papers} papers)", ws, max(5, args.repeat // 3))


if __name__ == "__main__":
    main()
