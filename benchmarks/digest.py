"""Digest benchmark: building the digest of 1,000 new papers on the synthetic 100k-paper KB
(target < 2 s): reading the change log, the rows of the papers it names, composing the digest and
writing its markdown page; its HTML page and the Atom feed entry beside it.

The newest 1,000 papers of the topics are made new: inside a transaction that is rolled back at
the end, their log rows (paper, entries, relations) are moved after the last digest's mark, as if
one `frontier update` had just added them. Baseline, measured in the same run: the topic pages'
entry blocks of the same 1,000 papers, as `frontier render` makes them (after loading the whole
KB), and the same blocks from the rows of those papers alone.

    python benchmarks/digest.py [--papers 100000] [--chunks 200000] [--new 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synthetic_kb import cached_kb

from frontier.config import Settings
from frontier.render.common import Context
from frontier.render.digest import Period, build_digest
from frontier.render.digest_page import digest_page, digest_path
from frontier.render.topics import entry_block
from frontier.store.db import first_column
from frontier.store.digests import digest_mark, ids_param, log_end
from frontier.store.kb import load_kb
from frontier.web.base import View
from frontier.web.digest_views import digest_body
from frontier.web.links import Links
from frontier.web.templating import render


def newest_papers(conn: sqlite3.Connection, count: int) -> list[str]:
    """The newest papers triaged into a topic."""
    return first_column(
        conn,
        "SELECT p.id FROM papers p WHERE EXISTS (SELECT 1 FROM triage t WHERE t.paper_id = p.id "
        "AND t.topic != '') ORDER BY p.published DESC, p.id LIMIT ?",
        (count,),
    )


def make_new(conn: sqlite3.Connection, papers: list[str]) -> Period:
    """Move the papers' log rows after the digest mark (inside the caller's transaction)."""
    ids = ids_param(papers)
    mark = max(digest_mark(conn), log_end(conn))
    conn.execute(
        "DELETE FROM kb_log WHERE (kind = 'paper' AND key IN (SELECT value FROM json_each(?))) "
        "OR (kind IN ('entry', 'relation') AND json_extract(key, '$[0]') IN "
        "(SELECT value FROM json_each(?)))",
        (ids, ids),
    )
    stamp = "strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')"
    among = "IN (SELECT value FROM json_each(?))"
    for sql in (
        f"SELECT 'paper', id, {stamp} FROM papers WHERE id {among} ORDER BY id",
        f"SELECT 'entry', json_array(paper_id, topic), {stamp} FROM entries "
        f"WHERE paper_id {among} ORDER BY paper_id, topic",
        f"SELECT 'relation', json_array(paper_id, topic, kind, target), {stamp} FROM relations "
        f"WHERE paper_id {among} ORDER BY paper_id, topic, kind, target",
    ):
        conn.execute(f"INSERT INTO kb_log (kind, key, at) {sql}", (ids,))
    return Period(mark, log_end(conn))


def timed(work: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(first run s, median of the runs s, the last result)."""
    samples, result = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        result = work()
        samples.append(time.perf_counter() - began)
    return samples[0], statistics.median(samples), result


def measure(root: Path, count: int, repeat: int) -> dict[str, Any]:
    from frontier.workspace import open_workspace

    ws = open_workspace(root)
    settings: Settings = ws.settings
    figures: dict[str, Any] = {}
    with contextlib.closing(ws.connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            papers = newest_papers(conn, count)
            period = make_new(conn, papers)
            figures |= measure_digest(conn, settings, period, repeat)
            figures |= measure_baseline(conn, settings, papers, repeat)
        finally:
            conn.execute("ROLLBACK")
    return figures


def measure_digest(
    conn: sqlite3.Connection, settings: Settings, period: Period, repeat: int
) -> dict[str, Any]:
    def digest_and_page() -> tuple[Any, str]:
        digest = build_digest(conn, settings, period)
        here = digest_path("bench")
        return digest, digest_page(digest, here, "What changed: bench", "Benchmark.")

    first, median, (digest, page) = timed(digest_and_page, repeat)
    _, build, _ = timed(lambda: build_digest(conn, settings, period), repeat)
    links = Links(base="http://127.0.0.1:8000")

    def html() -> str:
        data = {"title": "bench", "intro": "", "row": None} | digest_body(digest)
        return render(View("digest_feed.html", "bench", {"d": data}), digest.ctx, links)

    _, html_s, text = timed(html, repeat)
    return {
        "new entries": len(digest.entries),
        "new relations": digest.counts()["new relations"],
        "digest + markdown first s": first,
        "digest + markdown s": median,
        "  digest alone s": build,
        "  markdown page KB": len(page.encode()) / 1024,
        "HTML (page and feed entry) s": html_s,
        "  HTML KB": len(text.encode()) / 1024,
    }


def measure_baseline(
    conn: sqlite3.Connection, settings: Settings, papers: list[str], repeat: int
) -> dict[str, Any]:
    def blocks(ctx: Context) -> str:
        lines: list[str] = []
        for paper_id in papers:
            paper = ctx.kb.papers[paper_id]
            for triage in ctx.kb.triage_of(paper_id):
                if triage.topic:
                    lines += entry_block(ctx, "topics/x.md", triage.topic, paper)
        return "\n".join(lines)

    began = time.perf_counter()
    whole = Context(load_kb(conn, settings), settings)
    load_s = time.perf_counter() - began
    _, whole_s, _ = timed(lambda: blocks(whole), repeat)
    _, own_s, _ = timed(lambda: blocks(Context(load_kb(conn, settings, papers), settings)), repeat)
    return {
        "baseline: load the whole KB s (render)": load_s,
        "baseline: entry blocks of the same papers s": whole_s,
        "baseline: same, from their rows alone s": own_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--new", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "frontier-bench"
    )
    args = parser.parse_args()
    root = args.cache / f"digest-{args.papers}-{args.chunks}"
    began = time.perf_counter()
    cached_kb(root, args.papers, args.chunks)
    print(f"KB of {args.papers} papers ready in {time.perf_counter() - began:.0f} s ({root})")
    figures = measure(root, args.new, args.repeat)
    target = figures["digest + markdown s"]
    print(f"\n{'measure':<48}{'value':>12}")
    for key, value in figures.items():
        print(f"{key:<48}{value:>12.3f}" if isinstance(value, float) else f"{key:<48}{value:>12}")
    verdict = "met" if target < 2.0 else "MISSED"
    print(f"\ndigest of {args.new} new papers: {target:.2f} s (target < 2 s: {verdict})")
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}))


if __name__ == "__main__":
    main()
