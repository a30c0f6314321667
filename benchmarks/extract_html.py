"""Main-text extraction quality on saved HTML pages: ours versus trafilatura's defaults.

For every page in ``../shared/corpus/html/expected.json`` (relative to the repository root)
count the "with" snippets found in the stored text and the "without" snippets kept out,
once for ``frontier.sources.web.extract_article`` and, in the same run, for plain
``trafilatura.extract(html)`` as the baseline. Snippets are compared with whitespace
normalised.

    python benchmarks/extract_html.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import trafilatura

from frontier.sources.web import ArticleError, extract_article

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus" / "html"
EXPECTED = CORPUS_DIR / "expected.json"

Extractor = Callable[[bytes], str]


def normalise(text: str) -> str:
    """Collapse all whitespace runs to single spaces."""
    return " ".join(text.split())


def ours(html: bytes) -> str:
    """Text stored by frontier for a page (empty when extraction fails)."""
    try:
        return extract_article(html).text
    except ArticleError:
        return ""


def baseline(html: bytes) -> str:
    """Text from trafilatura with all its defaults."""
    return trafilatura.extract(html) or ""


def load_expected(path: Path = EXPECTED) -> dict[str, dict[str, list[str]]]:
    """The expected snippets per page; exit with a clear message if the corpus is missing."""
    if not path.is_file():
        sys.exit(
            f"corpus not found: {path} (expected ../shared/corpus/html next to the repository)"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def score_page(text: str, snippets: dict[str, list[str]]) -> tuple[int, int]:
    """(with-snippets found, without-snippets kept out) for one extracted text."""
    flat = normalise(text)
    found = sum(normalise(s) in flat for s in snippets.get("with", []))
    kept_out = sum(normalise(s) not in flat for s in snippets.get("without", []))
    return found, kept_out


def score_all(extractors: dict[str, Extractor], path: Path = EXPECTED) -> dict:
    """Per-page and total scores for each extractor over the whole corpus."""
    expected = load_expected(path)
    pages: dict[str, dict] = {}
    totals = {name: {"found": 0, "kept_out": 0} for name in extractors}
    for name, snippets in expected.items():
        html = (path.parent / name).read_bytes()
        row = {"with": len(snippets.get("with", [])), "without": len(snippets.get("without", []))}
        for label, extract in extractors.items():
            found, kept_out = score_page(extract(html), snippets)
            row[label] = {"found": found, "kept_out": kept_out}
            totals[label]["found"] += found
            totals[label]["kept_out"] += kept_out
        pages[name] = row
    with_total = sum(r["with"] for r in pages.values())
    without_total = sum(r["without"] for r in pages.values())
    return {"pages": pages, "totals": totals, "with": with_total, "without": without_total}


def html_quality() -> dict:
    """Scores of our extraction and of trafilatura's defaults on the saved-page corpus."""
    return score_all({"ours": ours, "trafilatura": baseline})


def summary(result: dict) -> str:
    """One line with both totals."""
    parts = []
    for label, name in (("ours", "ours"), ("trafilatura", "trafilatura defaults")):
        t, n_with, n_without = result["totals"][label], result["with"], result["without"]
        parts.append(f"{name}: found {t['found']}/{n_with}, kept out {t['kept_out']}/{n_without}")
    return " | ".join(parts)


def report(result: dict) -> str:
    """Table of the pages where ours and the baseline differ, then the totals."""
    lines = [f"{'page':58} {'ours found/out':>15} {'baseline found/out':>19}"]
    for name, row in result["pages"].items():
        a, b = row["ours"], row["trafilatura"]
        if a != b:
            cell_a = f"{a['found']}/{row['with']} {a['kept_out']}/{row['without']}"
            cell_b = f"{b['found']}/{row['with']} {b['kept_out']}/{row['without']}"
            lines.append(f"{name[:58]:58} {cell_a:>15} {cell_b:>19}")
    if len(lines) == 1:
        lines.append("(no page differs)")
    lines.append(summary(result))
    return "\n".join(lines)


def main() -> None:
    """Print the comparison table."""
    print(report(html_quality()))


if __name__ == "__main__":
    main()
