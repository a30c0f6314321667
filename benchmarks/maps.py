"""Research maps benchmark: a map of the 38 shared PDFs, held to what a map must be.

Over a workspace with the PDFs ingested and curated (built when missing):

- time of `frontier map` on the configured (by default the embedded) model, and of the same
  map with the model's part off (`[curate] model_steps` map = never: what code finds alone);
- themes against the labelled grouping of `benchmarks/data/map_themes.jsonl` (written before
  the theme code): the adjusted Rand index over the mapped papers, a paper set apart counting
  as a group of its own;
- what every map section holds: themes named by a phrase their papers use, open problems
  quoted on their page, takeaways that are a typed claim or a quoted sentence of a cited paper.

    python benchmarks/maps.py [--workspace DIR] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from math import comb
from pathlib import Path

from content import open_db, run_cli

from frontier.synthesize.themes import contains_phrase

REPO = Path(__file__).resolve().parents[1]
PDFS = REPO.parent / "shared" / "corpus" / "pdfs"
LABELS = REPO / "benchmarks" / "data" / "map_themes.jsonl"


def build(directory: Path) -> None:
    if not PDFS.is_dir():
        sys.exit(
            f"PDF corpus not found at {PDFS}: ../shared/corpus must sit next to the repository"
        )
    if not (directory / "frontier.toml").exists():
        run_cli("init", str(directory))
        run_cli("ingest", *sorted(str(p) for p in PDFS.glob("*.pdf")), cwd=directory)
        run_cli("curate", cwd=directory)


def timed_map(directory: Path, model_part: bool) -> tuple[float, dict]:
    """One `frontier map --json` (no cache), its wall time and its report."""
    env = {**os.environ, "NO_COLOR": "1"}
    if not model_part:
        env["FRONTIER_CURATE__MODEL_STEPS"] = '{"map": "never"}'
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "frontier", "--no-cache", "map", "--json"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"frontier map failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, json.loads(done.stdout)


def adjusted_rand(truth: list[str], found: list[str]) -> float:
    """The adjusted Rand index of two labellings of the same items."""
    pairs = Counter(zip(truth, found, strict=True))
    index = sum(comb(n, 2) for n in pairs.values())
    rows = sum(comb(n, 2) for n in Counter(truth).values())
    cols = sum(comb(n, 2) for n in Counter(found).values())
    expected = rows * cols / max(comb(len(truth), 2), 1)
    largest = (rows + cols) / 2
    return (index - expected) / (largest - expected) if largest != expected else 1.0


def file_names(directory: Path) -> dict[str, str]:
    with open_db(directory) as conn:
        return {r[0]: Path(r[1]).name for r in conn.execute("SELECT id, source_ref FROM papers")}


def page_texts(directory: Path) -> dict[tuple[str, int], str]:
    with open_db(directory) as conn:
        rows = conn.execute("SELECT paper_id, page, text FROM pages").fetchall()
    return {(r[0], r[1]): " ".join(r[2].split()) for r in rows}


def abstracts(directory: Path) -> dict[str, str]:
    with open_db(directory) as conn:
        return {
            r[0]: " ".join((r[1] or "").split())
            for r in conn.execute("SELECT id, abstract FROM papers")
        }


def theme_figures(report: dict, files: dict[str, str]) -> dict:
    labels = {
        json.loads(line)["pdf"]: json.loads(line)["theme"]
        for line in LABELS.read_text().splitlines()
        if line.strip()
    }
    by_number = {s["number"]: s["paper_id"] for s in report["bundle"]} if "bundle" in report else {}
    found: dict[str, str] = {}
    for i, theme in enumerate(report["themes"]):
        for n in theme["members"]:
            found[files[by_number[n]]] = f"theme {i}"
    for n in report.get("apart", []):
        found[files[by_number[n]]] = f"apart {n}"
    mapped = sorted(f for f in found if f in labels)
    return {
        "papers mapped": len(mapped),
        "themes": len(report["themes"]),
        "apart": len(report.get("apart", [])),
        "adjusted Rand index": round(
            adjusted_rand([labels[f] for f in mapped], [found[f] for f in mapped]), 3
        ),
        "names": [t["name"] for t in report["themes"]],
    }


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def holds_quote(quote: str, paper_id: str, page: int | None, pages: dict, abstract: dict) -> bool:
    where = abstract.get(paper_id, "") if page is None else pages.get((paper_id, page), "")
    return _squash(quote)[:80].lower() in where.lower() or _squash(quote).lower() in where.lower()


def section_figures(report: dict, directory: Path) -> dict:
    by_number = {s["number"]: s["paper_id"] for s in report["bundle"]}
    pages, abstract = page_texts(directory), abstracts(directory)
    texts = {
        s["number"]: f"{s['title']}. {abstract.get(s['paper_id'], '')}" for s in report["bundle"]
    }
    names_held = sum(
        contains_phrase(t["name"], [texts[n] for n in t["members"]]) for t in report["themes"]
    )
    code_problems = [i for i in report["open_problems"] if i.get("by", "code") == "code"]
    problems_held = sum(
        holds_quote(i["text"], by_number[i["papers"][0]], i["page"], pages, abstract)
        for i in code_problems
    )
    code_takeaways = [i for i in report["takeaways"] if i.get("by", "code") == "code"]
    takeaways_held = sum(
        holds_quote(i["quote"], by_number[i["papers"][0]], i["page"], pages, abstract)
        for i in code_takeaways
    )
    return {
        "overview lines": len(report["themes"]) + bool(report["overview"]),
        "theme names a phrase of their papers": f"{names_held}/{len(report['themes'])}",
        "open problems (quoted on their page)": f"{problems_held}/{len(code_problems)}",
        "takeaways (claim quote on its page)": f"{takeaways_held}/{len(code_takeaways)}",
        "model sentences kept": sum(
            i.get("by", "code") != "code" for i in report["open_problems"] + report["takeaways"]
        )
        + bool(report["overview"]),
        "model sentences removed": len(report["removed_sentences"]),
    }


def measure(directory: Path, runs: int) -> dict:
    files = file_names(directory)
    figures: dict = {}
    for label, model_part in (("code only", False), ("with the model's part", True)):
        times, report = [], {}
        for _ in range(runs):
            elapsed, report = timed_map(directory, model_part)
            times.append(elapsed)
        report["bundle"] = json.loads(bundle_of(directory, report["id"]))
        figures[label] = {
            "seconds": [round(t, 1) for t in times],
            **theme_figures(report, files),
            **section_figures(report, directory),
        }
    return figures


def bundle_of(directory: Path, map_id: int) -> str:
    with open_db(directory) as conn:
        return conn.execute("SELECT bundle FROM maps WHERE id = ?", (map_id,)).fetchone()[0]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workspace", type=Path, help="build here, or reuse when present")
    parser.add_argument("--runs", type=int, default=1, help="maps timed per variant")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        directory = (
            args.workspace or Path(stack.enter_context(tempfile.TemporaryDirectory())) / "kb"
        )
        build(directory)
        figures = measure(directory, args.runs)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for label, values in figures.items():
        print(f"## {label}")
        for key, value in values.items():
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
