"""Papers, claims, results and entries as BibTeX, CSV or JSON lines, read from the store."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from typing import Any

from frontier.config import Settings
from frontier.store.kb import load_kb, paper_dois, snapshot
from frontier.store.listing import claims_data
from frontier.synthesize.results import RESULT_COLUMNS, result_record, stored_results

KINDS = ("papers", "claims", "results", "entries")
EXPORTS = {("bibtex", "papers")} | {(fmt, what) for fmt in ("csv", "jsonl") for what in KINDS}
PAPER_COLUMNS = ["id", "title", "authors", "date", "arxiv_id", "doi", "url", "categories"]
PAPER_COLUMNS += ["kind", "topics", "abstract"]
CLAIM_COLUMNS = ["paper", "metric", "value", "unit", "baseline", "model", "hardware", "page"]
CLAIM_COLUMNS += ["quote", "verified", "headline"]
ENTRY_COLUMNS = ["paper", "topic", "title", "date", "text", "model", "prompt_version", "run_id"]
_TEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_TEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _TEX))
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9:._-]")


def tex(value: str) -> str:
    """Text safe inside a braced BibTeX field: braces and TeX specials escaped, one line."""
    return _TEX_SPECIAL.sub(lambda m: _TEX[m.group(0)], " ".join(value.split()))


def bibtex_key(paper_id: str) -> str:
    return _KEY_UNSAFE.sub("_", paper_id) or "_"


def papers_records(conn: sqlite3.Connection, settings: Settings) -> list[dict[str, Any]]:
    """Every paper, newest first, with its DOI and the topics it was triaged into."""
    with snapshot(conn):
        kb = load_kb(conn, settings)
        dois = paper_dois(conn)
    return [
        {
            "id": p.id,
            "title": p.title,
            "authors": list(p.authors),
            "date": p.date,
            "arxiv_id": p.arxiv_id,
            "doi": dois.get(p.id) or "",
            "url": p.url,
            "categories": list(p.categories),
            "kind": p.kind,
            "topics": sorted(t.topic for t in kb.triage_of(p.id) if t.topic),
            "abstract": p.abstract or "",
        }
        for p in kb.papers.values()
    ]


def entries_records(conn: sqlite3.Connection, settings: Settings) -> list[dict[str, Any]]:
    """Every entry with its provenance (model, prompt version, run)."""
    kb = load_kb(conn, settings)
    return [
        {
            "paper": e.paper_id,
            "topic": e.topic,
            "title": kb.papers[e.paper_id].title,
            "date": e.date,
            "text": e.text,
            "model": e.model,
            "prompt_version": e.prompt_version,
            "run_id": e.run_id,
        }
        for paper_id in kb.papers
        for e in kb.entries_of(paper_id)
    ]


def bibtex(papers: list[dict[str, Any]]) -> str:
    """One @misc entry per paper; arXiv papers carry eprint and archivePrefix."""
    return "\n".join(_bibtex_entry(p) for p in papers)


def _bibtex_entry(paper: dict[str, Any]) -> str:
    fields = [("title", "{" + tex(paper["title"]) + "}")]
    if paper["authors"]:
        fields.append(("author", " and ".join(tex(a) for a in paper["authors"])))
    if paper["date"]:
        fields.append(("year", paper["date"][:4]))
        if len(paper["date"]) >= 7:
            fields.append(("month", str(int(paper["date"][5:7]))))
    if paper["arxiv_id"]:
        fields += [("eprint", tex(paper["arxiv_id"])), ("archiveprefix", "arXiv")]
        if paper["categories"]:
            fields.append(("primaryclass", tex(paper["categories"][0])))
    if paper["doi"]:
        fields.append(("doi", tex(paper["doi"])))
    if paper["url"]:
        fields.append(("url", tex(paper["url"])))
    if paper["abstract"]:
        fields.append(("abstract", tex(paper["abstract"])))
    body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields)
    return f"@misc{{{bibtex_key(paper['id'])},\n{body}}}\n"


def claims_csv(rows: list[dict[str, Any]]) -> str:
    """CSV text with a header row; `value` is the value as the paper wrote it."""
    records = [
        {
            **row,
            "value": row["value_text"],
            "verified": int(row["verified"]),
            "headline": int(row["headline"]),
        }
        for row in rows
    ]
    return _csv(records, CLAIM_COLUMNS)


def results_csv(rows: list[dict[str, Any]]) -> str:
    """The results table as CSV with a header row; an unknown key is an empty cell, the papers
    a result disagrees with are their ids."""
    records = [
        {
            **row,
            "verified": int(row["verified"]),
            "disagrees_with": [other["paper"] for other in row["disagrees_with"]],
        }
        for row in rows
    ]
    return _csv(records, list(RESULT_COLUMNS))


def results_records(conn: sqlite3.Connection, settings: Settings) -> list[dict[str, Any]]:
    """Every claim in the results table, unverified ones marked by `verified`."""
    return [result_record(r) for r in stored_results(conn, settings, include_unverified=True)]


def _csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(map(str, value))
    return str(value)


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def export_text(conn: sqlite3.Connection, settings: Settings, fmt: str, what: str) -> str:
    """The export as text; claims and results include unverified ones, marked by `verified`."""
    if (fmt, what) not in EXPORTS:
        raise ValueError(f"cannot export {what} as {fmt}")
    if what == "claims":
        rows = claims_data(conn, {}, include_unverified=True)
        return claims_csv(rows) if fmt == "csv" else _jsonl(rows)
    if what == "results":
        rows = results_records(conn, settings)
        return results_csv(rows) if fmt == "csv" else _jsonl(rows)
    if what == "entries":
        rows = entries_records(conn, settings)
        return _csv(rows, ENTRY_COLUMNS) if fmt == "csv" else _jsonl(rows)
    papers = papers_records(conn, settings)
    if fmt == "bibtex":
        return bibtex(papers)
    return _csv(papers, PAPER_COLUMNS) if fmt == "csv" else _jsonl(papers)
