"""Content benchmark: how well the KB's typed claims, entries and relation evidence match what the
papers say, against a hand-labelled set (benchmarks/data/content_labels.jsonl: the headline
claims of 16+ shared PDFs, each with its value, metric, baseline, model, hardware, direction,
page and quote).

Over the labelled claims, in a workspace with the labelled PDFs ingested and curated on the
configured (by default the embedded) model:

- value+page found: a KB claim of the paper whose value text holds the labelled numbers, on the
  labelled page (or with no page, as claims from the abstract record are, and its quote on that
  page); for the best such claim, whether its metric, baseline, model, hardware and direction
  agree with the label (letters and digits compared, either contained in the other; a field
  counts over the labels that have it, and a label not found counts as wrong);
- headline: when the claims table has a `headline` column, the share of the labelled papers'
  headline claims that are labelled claims, and the labelled claims found among them;
- entries whose "what it is" is the paper's title (or starts with it) or empty;
- relation evidence that is not on the page it names (when relations carry a page), and the
  model's "how" sentences that the evidence and abstract do not bear out.

With --demo the entry and relation checks run over the demo KB (abstracts only; claims are
counts there).

    python benchmarks/content.py [--workspace DIR] [--json]
    python benchmarks/content.py --demo [--workspace DIR] [--json]

A workspace given with --workspace is built when missing and reused (curated again, which does
nothing when nothing changed) when present.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from frontier.curate.support import plain_math, support
from frontier.text import prose_sentences

REPO = Path(__file__).resolve().parents[1]
PDFS = REPO.parent / "shared" / "corpus" / "pdfs"
LABELS = REPO / "benchmarks" / "data" / "content_labels.jsonl"
FIELDS = ("metric", "baseline", "model", "hardware", "direction")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def fold(text: str) -> str:
    """Lower case, punctuation to spaces, one space between words (for names and metrics)."""
    text = unicodedata.normalize("NFKC", text).replace("\ufffe", "").lower()
    return " ".join(re.sub(r"[^\w.]+|(?<!\d)\.|\.(?!\d)", " ", text).split())


def squash(text: str) -> str:
    """Letters and digits only: a quote found in page text whatever its line breaks and hyphens
    (and inline TeX read as what it prints)."""
    text = unicodedata.normalize("NFKC", plain_math(text)).replace("\ufffe", "").lower()
    return re.sub(r"[\W_]+", "", text)


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(text.replace(",", ""))


def agrees(label: str, alternatives: list[str], found: str) -> bool:
    """Either text contains the other (letters and digits only), for the label or any
    acceptable wording of it."""
    got = squash(found)
    return bool(got) and any(
        (want := squash(text)) and (want in got or got in want) for text in [label, *alternatives]
    )


def run_cli(*args: str, cwd: Path | None = None) -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "160"}
    done = subprocess.run([sys.executable, "-m", "frontier", *args], cwd=cwd, env=env, check=False)
    if done.returncode:
        sys.exit(f"frontier {args[0]} failed with exit code {done.returncode}")


def load_labels() -> list[dict]:
    if not LABELS.exists():
        sys.exit(f"labelled set not found: {LABELS}")
    return [json.loads(line) for line in LABELS.read_text("utf-8").splitlines() if line.strip()]


def build(directory: Path, labels: list[dict], curate: bool) -> None:
    """Init, ingest the labelled PDFs and curate; an existing workspace is only curated again."""
    if not PDFS.is_dir():
        sys.exit(
            f"PDF corpus not found at {PDFS}: ../shared/corpus must sit next to the repository"
        )
    files = [PDFS / row["file"] for row in labels]
    missing = [f.name for f in files if not f.exists()]
    if missing:
        sys.exit(f"labelled PDFs missing from {PDFS}: {', '.join(missing)}")
    if not (directory / "frontier.toml").exists():
        run_cli("init", str(directory))
        run_cli("ingest", *map(str, files), cwd=directory)
    if curate:
        run_cli("curate", cwd=directory)


def build_demo(directory: Path) -> None:
    if not (directory / "frontier.toml").exists():
        run_cli("demo", str(directory))


@contextlib.contextmanager
def open_db(directory: Path) -> Iterator[sqlite3.Connection]:
    path = directory / ".frontier" / "frontier.db"
    if not path.exists():
        sys.exit(f"no KB at {path}")
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        yield conn
    finally:
        conn.close()


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def same_claim(label: dict, row: sqlite3.Row, page_text: str) -> bool:
    """The KB claim's value text holds the labelled numbers and it stands on the labelled page:
    its page is that page, or it has none (taken from the abstract) and its quote is on it."""
    if not all(n in numbers(row["value_text"]) for n in numbers(label["value"])):
        return False
    if row["page"] is None:
        return bool(row["quote"]) and squash(row["quote"]) in squash(page_text)
    return row["page"] == label["page"]


def field_right(field: str, label: dict, row: sqlite3.Row) -> bool:
    if field == "direction":
        return row["direction"] == label["direction"]
    column = {"model": "model_name"}.get(field, field)
    return agrees(label[field], label.get(f"{field}_ok", []), row[column])


def best_match(label: dict, rows: list[sqlite3.Row], page_text: str) -> sqlite3.Row | None:
    """Of the KB claims that match the label's value and page, the one agreeing on most fields."""
    found = [row for row in rows if same_claim(label, row, page_text)]
    wanted = [f for f in FIELDS if label[f]]
    return max(found, key=lambda r: sum(field_right(f, label, r) for f in wanted), default=None)


def claim_figures(conn: sqlite3.Connection, labels: list[dict]) -> dict:
    ids = {
        Path(row["source_ref"]).name: row["id"]
        for row in conn.execute("SELECT id, source_ref FROM papers WHERE source = 'pdf'")
    }
    has_headline = "headline" in columns(conn, "claims")
    tally: dict = {"labelled": 0, "found": 0, "found without page": 0, "papers": 0}
    tally |= {"kb claims": 0, "kb verified": 0} | {f: [0, 0] for f in FIELDS}  # [right, of]
    headline = {"marked": 0, "labelled among marked": 0, "labels found among marked": 0}
    for paper in labels:
        paper_id = ids.get(paper["file"], "")
        rows = conn.execute("SELECT * FROM claims WHERE paper_id = ?", (paper_id,)).fetchall()
        texts = dict(conn.execute("SELECT page, text FROM pages WHERE paper_id = ?", (paper_id,)))
        tally["papers"] += bool(rows)
        tally["kb claims"] += len(rows)
        tally["kb verified"] += sum(r["verified"] for r in rows)
        marked = [r for r in rows if has_headline and r["headline"]]
        shown = list(
            {(tuple(numbers(r["value_text"])), r["unit"]): r for r in marked[::-1]}.values()
        )
        labelled = {tuple(numbers(c["value"])) for c in paper["claims"]}
        headline["marked"] += len(shown)
        headline["labelled among marked"] += sum(
            tuple(numbers(r["value_text"])) in labelled for r in shown
        )
        for claim in paper["claims"]:
            page_text = texts.get(claim["page"], "")
            tally["labelled"] += 1
            match = best_match(claim, rows, page_text)
            tally["found"] += match is not None
            tally["found without page"] += match is not None and match["page"] is None
            headline["labels found among marked"] += (
                best_match(claim, marked, page_text) is not None
            )
            for field in FIELDS:
                if claim[field]:
                    tally[field][1] += 1
                    tally[field][0] += match is not None and field_right(field, claim, match)
    tally["headline"] = headline if has_headline else None
    return tally


def what_it_is(text: str) -> str:
    """The what-it-is part of an entry, before the code-written numbers and relations."""
    cut = r"\s*(?:Verified: |Headline numbers: |Why it matters here: )"
    return re.split(cut, text, maxsplit=1)[0].strip()


def entry_figures(conn: sqlite3.Connection) -> dict:
    """Entries whose what-it-is is the title, is empty, or (written by a model) is not borne
    out sentence by sentence by the title and abstract."""
    has_column = "what" in columns(conn, "entries")
    field = "e.what" if has_column else "e.text"
    rows = conn.execute(
        f"SELECT {field} AS what, e.model, p.title, p.abstract FROM entries e "
        "JOIN papers p ON p.id = e.paper_id"
    ).fetchall()
    title_only = empty = unsupported = 0
    for row in rows:
        text = row["what"] if has_column else what_it_is(row["what"])
        what, title = fold(text), fold(row["title"])
        empty += not what
        title_only += bool(what) and bool(title) and what.startswith(title)
        source = f"{row['title']}. {row['abstract'] or ''}"
        if row["model"] == "abstract":
            unsupported += bool(what) and squash(text) not in squash(source)
        else:
            unsupported += any(not support(s, source).supported for s in prose_sentences(text))
    return {
        "entries": len(rows),
        "title as what it is": title_only,
        "empty": empty,
        "not borne out": unsupported,
    }


def relation_figures(conn: sqlite3.Connection) -> dict:
    have = columns(conn, "relations")
    total = conn.execute("SELECT COUNT(*) FROM relations").fetchone()[0]
    with_evidence = conn.execute("SELECT COUNT(*) FROM relations WHERE evidence != ''").fetchone()
    figures = {
        "relations": total,
        "with evidence": with_evidence[0],
        "checked": None,
        "off": None,
        "how shown": None,
        "how not borne out": None,
    }
    if "page" not in have:
        return figures
    rows = conn.execute(
        "SELECT r.evidence, r.how, p.abstract, "
        "coalesce(g.text, p.title || ' ' || coalesce(p.abstract, '')) AS text "
        "FROM relations r JOIN papers p ON p.id = r.paper_id LEFT JOIN pages g "
        "ON g.paper_id = r.paper_id AND g.page = r.page WHERE r.evidence != ''"
    ).fetchall()
    figures["checked"] = len(rows)
    figures["off"] = sum(
        not (r["text"] and squash(r["evidence"]) in squash(r["text"])) for r in rows
    )
    hows = [r for r in rows if r["how"]]
    figures["how shown"] = len(hows)
    figures["how not borne out"] = sum(
        not support(r["how"], f"{r['evidence']} {r['abstract'] or ''}").supported for r in hows
    )
    return figures


def share(right: int, total: int) -> str:
    return f"{right}/{total} ({right / total:.0%})" if total else "n/a"


def print_table(figures: dict) -> None:
    rows: list[tuple[str, str]] = []
    claims = figures.get("claims")
    if claims and "labelled" in claims:
        n = claims["labelled"]
        rows.append(("labelled papers with KB claims", f"{claims['papers']}/{figures['papers']}"))
        rows.append(
            (
                "KB claims of those papers (verified)",
                f"{claims['kb claims']} ({claims['kb verified']})",
            )
        )
        rows.append(("value+page found", share(claims["found"], n)))
        rows.append(("  of which page-less (abstract) claims", str(claims["found without page"])))
        for field in FIELDS:
            right, total = claims[field]
            rows.append((f"{field} right (of labels with one)", share(right, total)))
        headline = claims["headline"]
        if headline is None:
            rows.append(("headline share / recall", "n/a (no headline column)"))
        else:
            marked = headline["marked"]
            rows.append(
                (
                    "headline results shown that are labelled",
                    share(headline["labelled among marked"], marked),
                )
            )
            rows.append(("headline recall", share(headline["labels found among marked"], n)))
    elif claims:
        rows.append(("claims (verified)", f"{claims['claims']} ({claims['verified']})"))
    entries = figures["entries"]
    rows.append(("entries", str(entries["entries"])))
    rows.append(("entries: what it is = title", str(entries["title as what it is"])))
    rows.append(("entries: what it is empty", str(entries["empty"])))
    rows.append(("entries: what it is not borne out", str(entries["not borne out"])))
    rel = figures["relations"]
    rows.append(("relations (with evidence)", f"{rel['relations']} ({rel['with evidence']})"))
    off = (
        "n/a (no page on relations)"
        if rel["checked"] is None
        else share(rel["off"], rel["checked"])
    )
    rows.append(("relation evidence not on its page", off))
    if rel["how shown"] is not None:
        rows.append(
            ("model 'how' not borne out", share(rel["how not borne out"], rel["how shown"]))
        )
    width = max(len(name) for name, _ in rows)
    print(f"Content of {figures['workspace']}")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def measure(directory: Path, labels: list[dict] | None) -> dict:
    with open_db(directory) as conn:
        if labels is None:
            verified = conn.execute("SELECT COUNT(*), COALESCE(SUM(verified), 0) FROM claims")
            count, ok = verified.fetchone()
            claims: dict = {"claims": count, "verified": ok}
        else:
            claims = claim_figures(conn, labels)
        return {
            "workspace": str(directory),
            "papers": len(labels) if labels is not None else None,
            "claims": claims,
            "entries": entry_figures(conn),
            "relations": relation_figures(conn),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, help="build here, or reuse when present")
    parser.add_argument("--demo", action="store_true", help="the demo KB instead of the PDFs")
    parser.add_argument("--no-curate", action="store_true", help="measure a workspace as it is")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = (args.workspace or Path(tmp) / "ws").resolve()
        if args.demo:
            build_demo(directory)
            figures = measure(directory, None)
        else:
            labels = load_labels()
            build(directory, labels, curate=not args.no_curate)
            figures = measure(directory, labels)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
