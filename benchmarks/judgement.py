"""Judgement benchmark: what the KB judges about a paper, against labels made by reading the
papers, reported for the held-out half and the tuned half apart.

Labels: `benchmarks/data/judgement_heldout.jsonl` (written and committed before any judgement
code of this benchmark changed; never tuned on) and `benchmarks/data/judgement_labels.jsonl`
(the tuned half). A paper is a shared PDF (key: its file name) or one of the seed stream's bare
abstracts (key: `abstract-<n>`, n counted from 1); the halves split on a fixed hash of the key.
Per paper the labels give its topic, its headline results, whether it addresses each gap and
thesis of the default `frontier.toml` (G1, G2 the gaps in file order, T1, T2 the theses), the
tracked entities its own work concerns, and the baseline and metric of every comparison
sentence of its abstract, introduction and conclusion.

Over a workspace with those papers ingested and curated on the configured (by default the
embedded) model:

- relations: precision and recall of the gap and thesis relations the KB keeps;
- topic: the KB's first topic (highest triage score, '' out of field) against the label;
- headlines: papers with a labelled headline among the shown ones, and shown headlines whose
  baseline is the paper's own system;
- comparisons: of the labelled comparison sentences, the KB claim with that value and quote,
  and whether its baseline and its metric agree with the label (a label without a KB claim
  counts as wrong);
- entities: precision and recall of the tracked-entity relations.

    python benchmarks/judgement.py [--workspace DIR] [--json]

A workspace given with --workspace is built when missing and curated again when present (which
redoes only what a changed rule affects).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from content import agrees, numbers, open_db, run_cli, squash

from frontier.model import SourceRecord
from frontier.sources.abstracts import read_abstracts
from frontier.workspace import open_workspace

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
PDFS = SHARED / "corpus" / "pdfs"
SEED = SHARED / "seeds" / "004-abstracts-llm-inference.txt"
HALVES = {
    "held out": REPO / "benchmarks" / "data" / "judgement_heldout.jsonl",
    "tuned": REPO / "benchmarks" / "data" / "judgement_labels.jsonl",
}
QUOTE_WORDS = 0.6  # share of a labelled quote's words a KB claim's quote must hold


def load(path: Path) -> list[dict]:
    if not path.exists():
        sys.exit(f"labelled set not found: {path}")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def require(path: Path) -> Path:
    if not path.exists():
        sys.exit(f"benchmark data not found: {path} (../shared must sit next to the repository)")
    return path


def seed_abstracts() -> list[SourceRecord]:
    return [r for r in read_abstracts(require(SEED)) if isinstance(r, SourceRecord)]


def build(directory: Path, labels: list[dict]) -> None:
    """Init and ingest the labelled PDFs and abstracts (only the labelled ones), then curate."""
    if not (directory / "frontier.toml").exists():
        files = [require(PDFS / r["key"]) for r in labels if not r["key"].startswith("abstract-")]
        abstracts = seed_abstracts()
        wanted = [abstracts[_abstract_number(r["key"]) - 1] for r in labels if _is_abstract(r)]
        run_cli("init", str(directory))
        stream = directory / "labelled-abstracts.txt"
        stream.write_text("\n\n".join(r.abstract or "" for r in wanted) + "\n", "utf-8")
        run_cli("ingest", *map(str, files), str(stream), cwd=directory)
    run_cli("curate", cwd=directory)


def _is_abstract(label: dict) -> bool:
    return label["key"].startswith("abstract-")


def _abstract_number(key: str) -> int:
    return int(key.removeprefix("abstract-"))


def paper_ids(conn: sqlite3.Connection, labels: list[dict]) -> dict[str, str]:
    """KB paper id by label key: PDFs by file name, abstracts by their text."""
    rows = conn.execute("SELECT id, source_ref, abstract FROM papers").fetchall()
    by_file = {Path(r["source_ref"] or "").name: r["id"] for r in rows}
    by_text = {squash(r["abstract"] or ""): r["id"] for r in rows}
    abstracts = seed_abstracts() if any(_is_abstract(r) for r in labels) else []
    ids = {}
    for label in labels:
        if _is_abstract(label):
            text = abstracts[_abstract_number(label["key"]) - 1].abstract or ""
            found = by_text.get(squash(text))
        else:
            found = by_file.get(label["key"])
        if found:
            ids[label["key"]] = found
    return ids


def targets(conn: sqlite3.Connection, theses: list[str]) -> dict[str, tuple[str, str]]:
    """G1, G2, ... and T1, T2, ...: the configured gaps and theses in file order, each as the
    (kind, target) its relations are stored under."""
    gaps = conn.execute("SELECT id FROM gaps WHERE source = 'config' ORDER BY id").fetchall()
    found = {f"G{n}": ("gap", str(row["id"])) for n, row in enumerate(gaps, start=1)}
    found |= {f"T{n}": ("thesis", text) for n, text in enumerate(theses, start=1)}
    return found


def relation_figures(conn, labels, ids, theses) -> dict:  # type: ignore[no-untyped-def]
    wanted = targets(conn, theses)
    tally = Counter()
    wrong: list[str] = []
    for label in labels:
        paper = ids.get(label["key"])
        kept = {
            (r["kind"], r["target"])
            for r in conn.execute(
                "SELECT kind, target FROM relations WHERE paper_id = ?", (paper or "",)
            )
        }
        for rel in label["relations"]:
            truth = rel.get("addresses", rel.get("stance", "none") not in ("none", None, False))
            truth = bool(truth) if not isinstance(truth, str) else truth != "none"
            said = wanted.get(rel["target"]) in kept
            tally["labelled yes"] += truth
            tally["kept"] += said
            tally["kept and yes"] += said and truth
            if said != truth:
                wrong.append(f"{label['key']} {rel['target']}: kept {said}, label {truth}")
    return {
        "precision": (tally["kept and yes"], tally["kept"]),
        "recall": (tally["kept and yes"], tally["labelled yes"]),
        "wrong": wrong,
    }


def first_topic(conn: sqlite3.Connection, paper: str) -> str | None:
    row = conn.execute(
        "SELECT topic FROM triage WHERE paper_id = ? ORDER BY score DESC, topic LIMIT 1", (paper,)
    ).fetchone()
    return row["topic"] if row else None


def topic_figures(conn, labels, ids) -> dict:  # type: ignore[no-untyped-def]
    right, wrong = 0, []
    for label in labels:
        got = first_topic(conn, ids.get(label["key"], ""))
        right += got == label["topic"]
        if got != label["topic"]:
            wrong.append(f"{label['key']}: {got or 'out of field'} (label {label['topic']})")
    return {"right": (right, len(labels)), "wrong": wrong}


def own_system(title: str) -> str:
    """The paper's own system as its title names it ("DistServe: ..."), or ''."""
    head = title.split(":", 1)[0].strip()
    return head if ":" in title and len(head.split()) <= 3 else ""


def same_value(label: dict, row: sqlite3.Row) -> bool:
    wanted = numbers(label["value"])
    return bool(wanted) and all(n in numbers(row["value_text"]) for n in wanted)


def matching_claims(item: dict, rows: list[sqlite3.Row]) -> list[list[sqlite3.Row]]:
    """The KB claims with the labelled value and quote, one group per value: a label listing
    several values ("1.24×, 1.26× and 1.24×") is found when the KB holds each of them, as one
    claim or as claims of their own; [] when one of them is missing."""
    quoted = [r for r in rows if quote_holds(item["quote"], r["quote"])]
    whole = [r for r in quoted if same_value(item, r)]
    wanted = numbers(item["value"])
    if whole or len(wanted) < 2:
        return [whole] if whole else []
    groups = [[r for r in quoted if n in numbers(r["value_text"])] for n in wanted]
    return groups if all(groups) else []


def all_agree(
    groups: list[list[sqlite3.Row]],
    field: str,
    label: str,
    agree: Callable[[str, str], bool] = lambda label, found: agrees(label, [], found),
) -> bool:
    """Each labelled value has a KB claim whose field agrees with the label."""
    return bool(groups) and all(any(agree(label, r[field]) for r in g) for g in groups)


# what a metric measures, by the first of these words it holds: "training speed (GPT-2)" and
# "3× faster" both measure speed; "throughput at 190 ms latency" measures throughput. This table
# is the benchmark's own, written from the labels' wording, not the code's.
QUANTITIES = {
    "speed": r"speed|speed-?ups?|faster|slower|acceleration|runtime|wall-?clock|time per token",
    "throughput": r"throughput|goodput|tokens?/s|requests? per second|capacity|request rate",
    "latency": r"latenc\w*|ttft|tbt|tpot|time[- ]to[- ]first|response time",
    "memory": r"memory|footprint|kv[- ]cache size",
    "quality": r"accuracy|exact match|f1|rouge\S*|bleu|score|perplexity|ppl",
    "cost": r"costs?|expensive|price",
    "energy": r"energy|power",
    "bits": r"bits?|bit-width|precision",
}
_QUANTITY = re.compile(
    "|".join(f"(?P<{name}>\\b(?:{words})\\b)" for name, words in QUANTITIES.items()), re.I
)


def quantity(metric: str) -> str:
    """The quantity the metric names first (its setting in parentheses left out)."""
    found = _QUANTITY.search(re.sub(r"\([^)]*\)", "", metric))
    return (found.lastgroup or "") if found else ""


def same_quantity(label: str, found: str) -> bool:
    """The label and the KB metric agree in wording or measure the same quantity."""
    measured = quantity(label)
    return agrees(label, [], found) or (bool(measured) and measured == quantity(found))


def quote_holds(label_quote: str, kb_quote: str) -> bool:
    """The KB claim's quote and the labelled one are the same sentence (or one holds the other,
    or most of the labelled quote's words are in it)."""
    a, b = squash(label_quote), squash(kb_quote)
    if a and b and (a in b or b in a):
        return True
    words = set(re.findall(r"\w+", label_quote.lower()))
    return bool(words) and len(words & set(re.findall(r"\w+", kb_quote.lower()))) >= (
        QUOTE_WORDS * len(words)
    )


def headline_figures(conn, labels, ids) -> dict:  # type: ignore[no-untyped-def]
    papers = hit = by_value = own = shown = 0
    missed: list[str] = []
    for label in labels:
        if not label["headlines"]:
            continue
        papers += 1
        paper = ids.get(label["key"], "")
        rows = conn.execute(
            "SELECT c.*, p.title FROM claims c JOIN papers p ON p.id = c.paper_id "
            "WHERE c.paper_id = ? AND c.headline = 1",
            (paper,),
        ).fetchall()
        shown += len(rows)
        found = any(
            same_value(h, r) and quote_holds(h["quote"], r["quote"])
            for h in label["headlines"]
            for r in rows
        )
        hit += found
        by_value += found or any(
            distinctive(h["value"]) and same_value(h, r) for h in label["headlines"] for r in rows
        )
        if not found:
            missed.append(f"{label['key']}: shown {[r['value_text'] for r in rows]}")
        system = own_system(label["title"])
        own += sum(bool(system) and agrees(system, [], r["baseline"]) for r in rows)
    return {
        "papers": (hit, papers),
        "by value": (by_value, papers),
        "own baseline": (own, shown),
        "missed": missed,
    }


def distinctive(value: str) -> bool:
    """A value that names one result of a paper by itself ("3.16x", "44%"), not a round one
    a paper may give of several ("2×")."""
    found = numbers(value)
    return bool(found) and all(len(n.replace(".", "")) >= 2 for n in found)


def comparison_figures(conn, labels, ids) -> dict:  # type: ignore[no-untyped-def]
    tally = Counter()
    wrong: list[str] = []
    for label in labels:
        rows = conn.execute(
            "SELECT * FROM claims WHERE paper_id = ?", (ids.get(label["key"], ""),)
        ).fetchall()
        for item in label["comparisons"]:
            groups = matching_claims(item, rows)
            tally["labelled"] += 1
            tally["found"] += bool(groups)
            if item.get("baseline"):
                tally["with baseline"] += 1
                ok = all_agree(groups, "baseline", item["baseline"])
                tally["baseline right"] += ok
                if groups and not ok:
                    wrong.append(
                        f"{label['key']} {item['value']}: baseline {groups[0][0]['baseline']!r} "
                        f"(label {item['baseline']!r})"
                    )
            if item.get("metric"):
                tally["with metric"] += 1
                tally["metric right"] += all_agree(groups, "metric", item["metric"])
                tally["quantity right"] += all_agree(
                    groups, "metric", item["metric"], same_quantity
                )
    return {
        "found": (tally["found"], tally["labelled"]),
        "baseline": (tally["baseline right"], tally["with baseline"]),
        "metric": (tally["metric right"], tally["with metric"]),
        "quantity": (tally["quantity right"], tally["with metric"]),
        "wrong": wrong,
    }


def entity_figures(conn, labels, ids) -> dict:  # type: ignore[no-untyped-def]
    kept = labelled = both = 0
    for label in labels:
        got = {
            r["target"]
            for r in conn.execute(
                "SELECT DISTINCT target FROM relations WHERE paper_id = ? AND kind = 'entity'",
                (ids.get(label["key"], ""),),
            )
        }
        want = set(label["entities"])
        kept, labelled, both = kept + len(got), labelled + len(want), both + len(got & want)
    return {"precision": (both, kept), "recall": (both, labelled)}


def measure(directory: Path) -> dict:
    figures = {}
    theses = [text for topic in open_workspace(directory).settings.topics for text in topic.theses]
    with open_db(directory) as conn:
        for half, path in HALVES.items():
            labels = load(path)
            ids = paper_ids(conn, labels)
            figures[half] = {
                "papers": (len(ids), len(labels)),
                "relations": relation_figures(conn, labels, ids, theses),
                "topic": topic_figures(conn, labels, ids),
                "headlines": headline_figures(conn, labels, ids),
                "comparisons": comparison_figures(conn, labels, ids),
                "entities": entity_figures(conn, labels, ids),
            }
    return figures


def share(pair: tuple[int, int]) -> str:
    right, total = pair
    return f"{right}/{total} ({right / total:.0%})" if total else "n/a"


ROWS = [
    ("papers found in the KB", "papers", None),
    ("gap/thesis relations: precision", "relations", "precision"),
    ("gap/thesis relations: recall", "relations", "recall"),
    ("topic right", "topic", "right"),
    ("papers with a labelled headline shown", "headlines", "papers"),
    ("  the same, a distinctive value found in another sentence", "headlines", "by value"),
    ("shown headlines against the paper's own system", "headlines", "own baseline"),
    ("comparison sentences with a KB claim", "comparisons", "found"),
    ("baseline right (of those naming one)", "comparisons", "baseline"),
    ("metric right (its wording)", "comparisons", "metric"),
    ("metric right (the quantity it measures)", "comparisons", "quantity"),
    ("entities: precision", "entities", "precision"),
    ("entities: recall", "entities", "recall"),
]


def print_table(figures: dict, misses_of: tuple[str, ...] = ("tuned",)) -> None:
    halves = list(figures)
    width = max(len(name) for name, _, _ in ROWS)
    print(f"{'':<{width}}" + "".join(f"{h:>20}" for h in halves))
    for name, group, key in ROWS:
        cells = [figures[h][group] if key is None else figures[h][group][key] for h in halves]
        print(f"{name:<{width}}" + "".join(f"{share(c):>20}" for c in cells))
    # the held-out half's misses stay out of sight unless asked for: a rule made from them
    # would tune on the half that measures whether rules carry over
    for half in (h for h in halves if h in misses_of):
        print(f"\n{half}: what the KB judged differently")
        f = figures[half]
        for line in [*f["relations"]["wrong"], *f["topic"]["wrong"], *f["headlines"]["missed"]]:
            print(f"  {line}")
        for line in f["comparisons"]["wrong"]:
            print(f"  {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, help="build here, or reuse when present")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--held-out-misses",
        action="store_true",
        help="also list the held-out half's misses (to report them, never to tune on them)",
    )
    args = parser.parse_args()
    labels = [row for path in HALVES.values() for row in load(path)]
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.workspace or Path(tmp) / "kb"
        build(directory, labels)
        figures = measure(directory)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures, ("tuned", "held out") if args.held_out_misses else ("tuned",))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
