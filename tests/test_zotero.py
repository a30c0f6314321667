"""Zotero as a source: a data folder (zotero.sqlite + storage/) read without disturbing a running
Zotero, followed across ingests; and the PDFs that BibTeX `file` fields attach."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import corpus, db, kb_snapshot, run_cli
from zotero_library import ZoteroLibrary, new_library

from frontier.model import SourceRecord
from frontier.sources.attachments import Attachment, parse_file_field
from frontier.sources.records import RecordError
from frontier.sources.zotero import read_zotero_folder

DISTSERVE = (
    "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large Language "
    "Model Serving"
)
NO_N2 = "Self-attention Does Not Need O(n^2) Memory"
MOE = "Fast Inference of Mixture-of-Experts Language Models with Offloading"
MOE_EDITED = "Mixture-of-Experts Inference on Consumer Hardware by Offloading Experts"


def three_papers(folder: Path) -> tuple[ZoteroLibrary, dict[str, int]]:
    """A library holding three shared PDFs, with what a real one also holds: a web snapshot
    beside a PDF, a note, an item in the trash, collections and tags."""
    library = new_library(folder)
    distserve = library.item(
        "DSRV2024",
        fields={
            "title": DISTSERVE,
            "date": "2024-01-18 2024-01-18",
            "url": "http://arxiv.org/abs/2401.09670v3",
            "abstractNote": "Disaggregating the prefill and decoding computation improves goodput.",
        },
        authors=[("Yinmin", "Zhong"), ("Shengyu", "Liu")],
        tags=["Computer Science - Distributed, Parallel, and Cluster Computing"],
    )
    library.attach(distserve, "SNAP0001", None, "arXiv.org Snapshot.html", "text/html")
    library.attach(distserve, "PDFDSRV1", corpus("pdfs", "distserve.pdf"), "Zhong - 2024.pdf")
    no_n2 = library.item(
        "NON2MEM1",
        "preprint",
        fields={
            "title": NO_N2,
            "date": "2021-12-00 December 2021",
            "DOI": "10.48550/arXiv.2112.05682",
        },
        authors=[("Markus N.", "Rabe"), ("Charles", "Staats")],
    )
    library.attach(no_n2, "PDFNON21", corpus("pdfs", "self-attention-no-n2-memory.pdf"), "Rabe.pdf")
    moe = library.item("MOEOFFL1", fields={"title": MOE, "date": "2023"}, tags=["offloading"])
    library.attach(moe, "PDFMOE01", corpus("pdfs", "moe-offloading-fast-inference.pdf"), "moe.pdf")
    library.note(moe, "NOTE0001", "Read section 3 again")
    gone = library.item("TRASHED1", fields={"title": "A paper the user threw away"})
    library.attach(gone, "PDFGONE1", corpus("pdfs", "kvlink.pdf"), "kvlink.pdf")
    library.trash(gone)
    inference = library.collection("Inference", "COLINF01")
    attention = library.collection("Attention", "COLATT01", parent=inference)
    library.file_in(inference, distserve, moe)
    library.file_in(attention, no_n2)
    return library, {"distserve": distserve, "no_n2": no_n2, "moe": moe}


def papers(workspace: Path) -> dict[str, sqlite3.Row]:
    rows = db(workspace).execute("SELECT * FROM papers ORDER BY id").fetchall()
    return {row["title"]: row for row in rows}


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_zotero_folder_is_read_in_full_then_followed(tmp_path: Path, workspace: Path) -> None:
    folder = tmp_path / "Zotero"
    library, ids = three_papers(folder)
    before = file_digest(folder / "zotero.sqlite")

    first = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    assert first.code == 0, first.err
    assert first.json()["counts"] == {"stored": 3, "updated": 3}  # metadata, then the PDF
    stored = papers(workspace)
    assert set(stored) == {DISTSERVE, NO_N2, MOE}
    assert all(row["status"] == "fulltext" and row["n_pages"] > 1 for row in stored.values())
    assert stored[DISTSERVE]["arxiv_id"] == "2401.09670"
    assert stored[DISTSERVE]["published"] == "2024-01-18"
    assert json.loads(stored[DISTSERVE]["authors"]) == ["Yinmin Zhong", "Shengyu Liu"]
    assert stored[DISTSERVE]["collection"] == "Inference"
    assert stored[NO_N2]["arxiv_id"] == "2112.05682" and stored[NO_N2]["published"] == "2021-12-01"
    assert stored[NO_N2]["collection"] == "Inference/Attention"
    assert json.loads(stored[MOE]["categories"]) == ["offloading"]
    assert stored[MOE]["id"].startswith("h:")  # no arXiv id, no DOI: only Zotero's key names it
    assert file_digest(folder / "zotero.sqlite") == before  # read, never written

    library.set_field(ids["moe"], "title", MOE_EDITED)
    unchanged = kb_snapshot(workspace)
    # Zotero running: it holds its database locked, so an ordinary reader is turned away
    zotero = sqlite3.connect(folder / "zotero.sqlite", isolation_level=None)
    zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
    zotero.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            sqlite3.connect(folder / "zotero.sqlite", timeout=0).execute("SELECT 1 FROM items")
        second = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    finally:
        zotero.execute("ROLLBACK")
        zotero.close()
    assert second.code == 0, second.err
    assert second.json()["counts"] == {"updated": 1, "duplicate": 2}
    changed = next(i for i in second.json()["items"] if i["outcome"] == "updated")
    assert changed["item"] == "zotero:MOEOFFL1" and "title" in changed["message"]
    after = papers(workspace)
    assert set(after) == {DISTSERVE, NO_N2, MOE_EDITED}
    assert after[MOE_EDITED]["id"] == stored[MOE]["id"]
    assert after[MOE_EDITED]["status"] == "fulltext"
    # nothing else changed: the same papers, pages, sections and chunks
    now = kb_snapshot(workspace)
    assert {k: v for k, v in now.items() if k != "papers"} == {
        k: v for k, v in unchanged.items() if k != "papers"
    }
    assert [tuple(r)[2:] for r in now["papers"]] == [tuple(r)[2:] for r in unchanged["papers"]]
    hits = run_cli("-w", str(workspace), "search", "consumer hardware offloading", "--json").json()
    assert hits[0]["id"] == stored[MOE]["id"]

    third = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    assert third.json()["counts"] == {"duplicate": 3}


def test_collections_limit_what_is_read_and_new_items_are_added(
    tmp_path: Path, workspace: Path
) -> None:
    folder = tmp_path / "Zotero"
    library = new_library(folder)
    inference = library.collection("Inference", "COLINF01")
    attention = library.collection("Attention", "COLATT01", parent=inference)
    elsewhere = library.collection("Reading group", "COLRDG01")
    in_sub = library.item("ITEMATT1", fields={"title": "Attention kernels compared at length"})
    library.attach(in_sub, "PDFMISS1", None, "kernels.pdf")  # not downloaded by Zotero yet
    in_top = library.item("ITEMINF1", fields={"title": "Batching for inference servers"})
    other = library.item("ITEMRDG1", fields={"title": "A paper for the reading group"})
    library.file_in(attention, in_sub)
    library.file_in(inference, in_top)
    library.file_in(elsewhere, other)
    config = workspace / "frontier.toml"
    config.write_text(
        config.read_text().replace("zotero_collections = []", 'zotero_collections = ["Inference"]')
    )

    first = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    assert first.code == 0, first.err
    outcomes = {i["item"]: (i["outcome"], i["message"]) for i in first.json()["items"]}
    assert set(outcomes) == {"zotero:ITEMATT1", "zotero:ITEMINF1"}
    outcome, message = outcomes["zotero:ITEMATT1"]
    assert outcome == "warning"
    assert "attached file not found: storage/PDFMISS1/kernels.pdf" in message

    library.set_field(in_top, "abstractNote", "Continuous batching keeps accelerators busy.")
    added = library.item("ITEMINF2", fields={"title": "Speculative decoding in production"})
    library.file_in(inference, added)
    second = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    assert second.json()["counts"] == {"stored": 1, "updated": 1, "duplicate": 1}
    assert len(papers(workspace)) == 3
    hits = run_cli("-w", str(workspace), "search", "accelerators busy", "--json").json()
    assert hits[0]["title"] == "Batching for inference servers"

    (folder / "storage" / "PDFMISS1").mkdir()  # Zotero has downloaded the file since
    shutil.copy(
        corpus("pdfs", "self-attention-no-n2-memory.pdf"),
        folder / "storage" / "PDFMISS1" / "kernels.pdf",
    )
    third = run_cli("-w", str(workspace), "ingest", str(folder), "--json")
    assert third.json()["counts"] == {"duplicate": 3, "updated": 1}
    assert papers(workspace)["Attention kernels compared at length"]["status"] == "fulltext"

    records = list(read_zotero_folder(folder, ["Attention", "No such collection"]))
    assert [r.source_ref for r in records if isinstance(r, SourceRecord)] == ["zotero:ITEMATT1"]
    (problem,) = [r for r in records if isinstance(r, RecordError)]
    assert "no collection named 'No such collection'" in str(problem)


def test_changes_still_in_zoteros_write_ahead_log_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    library = new_library(folder)
    library.conn.execute("PRAGMA journal_mode = WAL")
    library.conn.execute("PRAGMA wal_autocheckpoint = 0")
    library.item("WALITEM1", fields={"title": "Only in the write-ahead log so far"})
    assert (folder / "zotero.sqlite-wal").stat().st_size > 0
    records = list(read_zotero_folder(folder))
    assert [r.title for r in records if isinstance(r, SourceRecord)] == [
        "Only in the write-ahead log so far"
    ]
    library.conn.close()


def test_a_file_that_is_not_zoteros_database_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    folder.mkdir()
    (folder / "zotero.sqlite").write_bytes(b"not a database at all" * 100)
    (problem,) = list(read_zotero_folder(folder))
    assert isinstance(problem, RecordError)
    assert str(problem).startswith("Zotero/zotero.sqlite: cannot read Zotero's database")


def test_bibtex_file_fields_attach_their_pdfs(tmp_path: Path, workspace: Path) -> None:
    export = tmp_path / "export"
    (export / "files" / "7").mkdir(parents=True)
    (export / "pdfs").mkdir()
    (export / "pdfs" / "distserve.pdf").write_bytes(corpus("pdfs", "distserve.pdf").read_bytes())
    (export / "files" / "7" / "Rabe and Staats - 2021.pdf").write_bytes(
        corpus("pdfs", "self-attention-no-n2-memory.pdf").read_bytes()
    )
    bib = export / "refs.bib"
    bib.write_text(
        "@article{zhong2024,\n"
        f"  title = {{{DISTSERVE}}},\n"
        "  year = {2024},\n"
        "  file = {pdfs/not-downloaded.pdf;pdfs/distserve.pdf},\n"
        "}\n\n"
        "@misc{rabe2021,\n"
        f"  title = {{{NO_N2}}},\n"
        "  year = {2021},\n"
        "  file = {arXiv.org Snapshot:files/6/2112.html:text/html;"
        "Full Text PDF:files/7/Rabe and Staats - 2021.pdf:application/pdf},\n"
        "}\n\n"
        "@inproceedings{moe2023,\n"
        f"  title = {{{MOE}}},\n"
        "  year = {2023},\n"
        "  file = {Full Text:C\\:\\\\Users\\\\me\\\\Zotero\\\\moe.pdf:application/pdf},\n"
        "}\n"
    )
    result = run_cli("-w", str(workspace), "ingest", str(bib), "--json")
    assert result.code == 0, result.err
    items = result.json()["items"]
    warned = {i["item"]: i["message"] for i in items if i["outcome"] == "warning"}
    assert set(warned) == {"refs.bib:zhong2024", "refs.bib:moe2023"}
    assert "attached file not found: pdfs/not-downloaded.pdf" in warned["refs.bib:zhong2024"]
    assert "attached file not found: C:\\Users\\me\\Zotero\\moe.pdf" in warned["refs.bib:moe2023"]
    stored = papers(workspace)
    assert stored[DISTSERVE]["status"] == "fulltext" and stored[NO_N2]["status"] == "fulltext"
    assert stored[MOE]["status"] == "metadata"  # its PDF is on another machine: metadata only
    assert len(stored) == 3
    again = run_cli("-w", str(workspace), "ingest", str(bib), "--json")
    assert again.json()["counts"] == {"duplicate": 3}


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (
            "/home/me/Zotero/storage/AB12CD34/paper.pdf",
            [("/home/me/Zotero/storage/AB12CD34/paper.pdf", "")],
        ),
        ("a.pdf;sub/b.pdf", [("a.pdf", ""), ("sub/b.pdf", "")]),
        (
            "Full Text PDF:files/12/Kwon et al. - 2023.pdf:application/pdf;"
            "Snapshot:files/13/page.html:text/html",
            [
                ("files/12/Kwon et al. - 2023.pdf", "application/pdf"),
                ("files/13/page.html", "text/html"),
            ],
        ),
        (
            "Full Text:C\\:\\\\Users\\\\me\\\\a\\;b.pdf:application/pdf",
            [("C:\\Users\\me\\a;b.pdf", "application/pdf")],
        ),
        ("C:\\Users\\me\\paper.pdf", [("C:\\Users\\me\\paper.pdf", "")]),
        (":papers/x.pdf:PDF", [("papers/x.pdf", "application/pdf")]),
        ("  ", []),
    ],
)
def test_file_field_forms(field: str, expected: list[tuple[str, str]]) -> None:
    assert parse_file_field(field) == [Attachment(path, kind) for path, kind in expected]


def test_which_attachments_are_pdfs() -> None:
    assert Attachment("x.PDF").is_pdf and Attachment("x", "application/pdf").is_pdf
    assert not Attachment("x.pdf", "text/html").is_pdf and not Attachment("x.html").is_pdf
