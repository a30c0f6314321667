"""`frontier export`: papers as valid BibTeX, papers/claims/entries as CSV and JSON lines."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import bibtexparser
import pytest
from helpers import db, run_cli
from web_kb import HOSTILE_ID, HOSTILE_TITLE, VLLM, built_kb

from frontier.render.export import bibtex, tex

_UNTEX = [
    (r"\textbackslash{}", "\\"),
    (r"\textasciitilde{}", "~"),
    (r"\textasciicircum{}", "^"),
    *((f"\\{c}", c) for c in "{}&%$#_"),
]


def untex(value: str) -> str:
    for escaped, plain in _UNTEX:
        value = value.replace(escaped, plain)
    return value


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_kb(tmp_path_factory)


def test_bibtex_of_every_paper_parses_and_round_trips(kb: Path) -> None:
    result = run_cli("-w", str(kb), "export", "bibtex")
    assert result.code == 0, result.err
    library = bibtexparser.parse_string(result.out)
    assert not library.failed_blocks
    count = db(kb).execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    assert len(library.entries) == count
    assert len({e.key for e in library.entries}) == count
    entries = {e.key: e.fields_dict for e in library.entries}
    vllm = entries[VLLM]
    assert vllm["eprint"].value == VLLM and vllm["archiveprefix"].value == "arXiv"
    assert vllm["year"].value == "2023" and "Woosuk Kwon" in vllm["author"].value
    hostile = entries["doi:10.5555_xss.1"]
    assert untex(hostile["title"].value.strip("{}")) == HOSTILE_TITLE
    assert untex(hostile["author"].value) == "Mallory <b>Evil</b> and {Brace} & Co"
    assert untex(hostile["abstract"].value).endswith("100% of $money_#.")


@pytest.mark.parametrize(
    "title", ["open { brace", "close } brace", "back\\slash }{ odd", "50% of $x_1^2 ~ #3 & co"]
)
def test_bibtex_escapes_unbalanced_braces_and_specials(title: str) -> None:
    paper = {"id": "x:1", "title": title, "authors": ["A {B"], "date": "2024-05-01"}
    paper |= {"arxiv_id": "", "doi": "", "url": "", "categories": [], "abstract": title}
    library = bibtexparser.parse_string(bibtex([paper]))
    assert not library.failed_blocks and len(library.entries) == 1
    fields = library.entries[0].fields_dict
    assert untex(fields["title"].value[1:-1]) == title
    assert untex(fields["abstract"].value) == title
    assert tex("a\nb   c") == "a b c"


def test_csv_exports_have_a_header_and_one_row_each(kb: Path) -> None:
    conn = db(kb)
    expected = {
        "papers": conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0],
        "claims": conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0],
        "entries": conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0],
    }
    for what, count in expected.items():
        result = run_cli("-w", str(kb), "export", "csv", "--what", what)
        assert result.code == 0, result.err
        rows = list(csv.DictReader(io.StringIO(result.out)))
        assert len(rows) == count, what
    papers = run_cli("-w", str(kb), "export", "csv").out
    hostile = next(r for r in csv.DictReader(io.StringIO(papers)) if r["id"] == HOSTILE_ID)
    assert hostile["title"] == HOSTILE_TITLE and hostile["topics"] == "hardware"


def test_jsonl_to_a_file(kb: Path, tmp_path: Path) -> None:
    target = tmp_path / "claims.jsonl"
    result = run_cli("-w", str(kb), "export", "jsonl", "--what", "claims", "-o", str(target))
    assert result.code == 0 and result.out == ""
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    vllm = [r for r in rows if r["paper"] == VLLM]
    assert {r["verified"] for r in vllm} == {True, False}
    assert {"metric", "value", "unit", "page", "quote", "title"} <= set(vllm[0])
    entries = run_cli("-w", str(kb), "export", "jsonl", "--what", "entries").out.splitlines()
    first = json.loads(entries[0])
    assert {"paper", "topic", "text", "model", "prompt_version", "run_id"} <= set(first)


def test_bibtex_of_claims_is_refused_in_one_line(kb: Path) -> None:
    result = run_cli("-w", str(kb), "export", "bibtex", "--what", "claims")
    assert result.code == 1
    assert result.err.strip() == "error: bibtex exports papers only, not claims"
