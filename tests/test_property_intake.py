"""The intake as a whole, fed generated and mutated files through the real command line (in
process, for speed): every item ends stored, stored with a warning, duplicate or rejected with
a reason; the exit code is a documented one; the same input again stores nothing; the database
passes its integrity check. Shrunk failures found on the way are kept below as plain tests."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from strategies import BIB_FILES, JSONL_FILES, abstracts_file, examples
from typer.testing import CliRunner

from frontier.cli import app
from frontier.errors import EXIT_CODES
from frontier.workspace import init_workspace

# updated: a later record of the same input completed a paper stored from an earlier one
OUTCOMES = {"stored", "warning", "updated", "duplicate", "rejected"}
SUFFIXES = [".pdf", ".jsonl", ".bib", ".txt", ".html"]
ENV = {"FRONTIER_INGEST__WORKERS": "1", "COLUMNS": "200", "NO_COLOR": "1"}


@st.composite
def input_files(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """A few files as users have them: records with faults, and random bytes under any name."""
    kinds = st.sampled_from(["jsonl", "bib", "txt", "random"])
    files = []
    for number, kind in enumerate(draw(st.lists(kinds, min_size=1, max_size=4))):
        if kind == "jsonl":
            files.append((f"f{number}.jsonl", draw(JSONL_FILES)))
        elif kind == "bib":
            files.append((f"f{number}.bib", draw(BIB_FILES).encode("utf-8", "surrogatepass")))
        elif kind == "txt":
            files.append((f"f{number}.txt", draw(abstracts_file())))
        else:
            suffix = draw(st.sampled_from(SUFFIXES))
            files.append((f"f{number}{suffix}", draw(st.binary(max_size=300))))
    return files


def ingest(root: Path, paths: list[Path]) -> tuple[int, dict[str, object]]:
    """`frontier ingest PATHS --json` as a user runs it; the exit code and the report."""
    args = ["-w", str(root), "ingest", *map(str, paths), "--json"]
    result = CliRunner().invoke(app, args, env=ENV)
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in EXIT_CODES, (result.exit_code, result.output)
    return result.exit_code, json.loads(result.stdout)


def check_database(root: Path) -> int:
    """The integrity check passes; the number of papers."""
    conn = sqlite3.connect(root / ".frontier" / "frontier.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert (
            conn.execute("SELECT COUNT(*) FROM papers WHERE title = '(untitled)'").fetchone()[0]
            == 0
        )
        return int(conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0])
    finally:
        conn.close()


@hsettings(max_examples=examples(40))
@given(input_files())
def test_any_input_ingested_twice(files: list[tuple[str, bytes]]) -> None:
    base = Path(tempfile.mkdtemp(prefix="intake-"))
    try:
        _ingested_twice(base, files)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _ingested_twice(base: Path, files: list[tuple[str, bytes]]) -> None:
    root = init_workspace(base / "kb").root
    paths = []
    for name, data in files:
        (base / name).write_bytes(data)
        paths.append(base / name)
    code, report = ingest(root, paths)
    items = report["items"]
    assert {item["outcome"] for item in items} <= OUTCOMES, items
    for item in items:
        assert item["message"] and "\n" not in item["message"]
    named = {Path(item["item"].split(":")[0].split("#")[0]).name for item in items}
    assert named >= {name for name, _ in files if not name.endswith((".pdf", ".html"))} - {""}
    papers = check_database(root)
    again_code, again = ingest(root, paths)
    assert {item["outcome"] for item in again["items"]} <= {"duplicate", "rejected"}
    assert again_code == code if code != 0 else again_code == 0
    assert check_database(root) == papers


# Shrunk failures, kept as plain tests -----------------------------------------------------------


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return init_workspace(tmp_path / "kb").root


def test_a_number_as_title_is_rejected_and_a_second_run_is_a_no_op(kb: Path) -> None:
    records = kb.parent / "r.jsonl"
    records.write_text('{"title": 5}\n{"title": "Intro"}\n')
    first = run_cli("-w", str(kb), "ingest", str(records), "--json")
    assert first.code == 2 and "internal error" not in first.err
    outcomes = {i["item"]: (i["outcome"], i["message"]) for i in first.json()["items"]}
    assert outcomes["r.jsonl:1"] == ("rejected", "title: expected text, got a number")
    assert outcomes["r.jsonl:2"][0] == "stored"
    code, second = ingest(kb, [records])
    assert code == 2 and second["counts"] == {"rejected": 1, "duplicate": 1}


def test_two_records_with_one_short_title_stay_two_papers(kb: Path) -> None:
    records = kb.parent / "r.jsonl"
    records.write_text(
        '{"title": "Intro", "abstract": "one"}\n{"title": "Intro", "abstract": "two"}\n'
    )
    code, report = ingest(kb, [records])
    assert code == 0 and report["counts"] == {"stored": 2}
    _, again = ingest(kb, [records])
    assert again["counts"] == {"duplicate": 2}


def test_random_bytes_named_like_records_are_rejected_with_a_reason(kb: Path) -> None:
    base = kb.parent
    (base / "a.jsonl").write_bytes(b"\xff\xfe\x00")
    (base / "b.bib").write_bytes(b"")
    (base / "c.txt").write_bytes(b"\x00\x01")
    code, report = ingest(kb, [base / "a.jsonl", base / "b.bib", base / "c.txt"])
    messages = {i["item"]: i["message"] for i in report["items"]}
    assert code == 2
    assert messages["a.jsonl:1"] == "not UTF-8 text (byte 0xFF at column 1)"
    assert messages[str(base / "b.bib")] == "empty file"
    assert "control character U+0000" in messages["c.txt:1"]


def test_a_newer_version_without_authors_keeps_them_so_a_second_run_is_a_no_op(kb: Path) -> None:
    records = kb.parent / "r.jsonl"
    rows = [
        {"title": "Paged attention for serving", "doi": "10.5555/1.2", "categories": ["cs.LG"]},
        {"title": "Paged attention for serving", "doi": "10.5555/1.2", "authors": ["A. Author"]},
        {"title": "Paged attention for serving, v9", "doi": "10.5555/1.2", "id": "2308.00001v9"},
    ]
    records.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    ingest(kb, [records])
    _, again = ingest(kb, [records])
    assert again["counts"] == {"duplicate": 3}


def test_digits_of_other_scripts_are_not_an_arxiv_id(kb: Path) -> None:
    records = kb.parent / "r.jsonl"
    records.write_text(
        json.dumps({"title": "Some paper title", "id": "2308.\u17e8\u07c2\u096c\u1042\u1042"})
    )
    _, report = ingest(kb, [records])
    assert report["items"][0]["paper_id"].startswith("h:")


def test_file_names_that_are_not_utf8_are_shown_escaped(kb: Path) -> None:
    folder = kb.parent / "in"
    folder.mkdir()
    (Path(os.fsdecode(bytes(folder) + b"/bad\xe9name.pdf"))).write_bytes(b"not a pdf")
    records = Path(os.fsdecode(bytes(kb.parent) + b"/r\xe9.jsonl"))
    records.write_text('{"title": "A title long enough to be a paper"}\n')
    code, report = ingest(kb, [folder, records])
    items = {item["item"]: item["outcome"] for item in report["items"]}
    assert code == 2 and items == {
        f"{folder}/bad\\xe9name.pdf": "rejected",
        "r\\xe9.jsonl:1": "stored",
    }
    assert ingest(kb, [folder, records])[1]["counts"] == {"rejected": 1, "duplicate": 1}
