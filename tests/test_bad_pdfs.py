"""The 22 broken, encrypted and scanned PDFs: each ends with exactly the outcome it calls for."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from helpers import corpus, db, run_cli

from frontier.extract.pdf import PdfRejected, open_pdf

STORED, WARNING, REJECTED = "stored", "warning", "rejected"
# what each NOTES.tsv description calls for, and for rejections the stable reason code
EXPECTED = {
    "arabic_rtl_habibi.pdf": (STORED, ""),
    "broken_xref_pypdf-issue-297.pdf": (STORED, ""),
    "corrupted_zen_of_python_pdfminer.pdf": (STORED, ""),
    "encrypted_aes256_user_and_owner_password.pdf": (REJECTED, "password_required"),
    "encrypted_libreoffice_user_password.pdf": (REJECTED, "password_required"),
    "encrypted_owner_password_only.pdf": (STORED, ""),
    "encrypted_rc4_40_user_password.pdf": (REJECTED, "password_required"),
    "encrypted_utf8_password_pdfjs-issue6010_2.pdf": (REJECTED, "password_required"),
    "font_without_unicode_mapping_ocrmypdf.pdf": (WARNING, ""),
    "header_and_eof_only_ocrmypdf-invalid.pdf": (REJECTED, "corrupt"),
    "japanese_utf8_metadata_title.pdf": (STORED, ""),
    "javascript_openaction_pdfjs-issue15590.pdf": (REJECTED, "no_pages"),
    "non_unicode_cmap_czech_pdfminer-issue-791.pdf": (WARNING, ""),
    "scanned_image_only_huckfinn_c02-22.pdf": (REJECTED, "needs_ocr"),
    "scanned_image_only_two_column_linn.pdf": (REJECTED, "needs_ocr"),
    "scanned_with_ocr_layer_vicksburg.pdf": (STORED, ""),
    "slides_not_a_paper_mooncake_fast25.pdf": (WARNING, ""),
    "text_as_vector_curves_ocrmypdf.pdf": (REJECTED, "needs_ocr"),
    "truncated_stream_pdfjs-bug1020226.pdf": (REJECTED, "corrupt"),
    "xref_keyword_missing_pdfjs.pdf": (STORED, ""),
    "zero_byte.pdf": (REJECTED, "empty_file"),
    "zero_pages_reportlab.pdf": (REJECTED, "no_pages"),
}
GOOD = ["orca.pdf", "gptq.pdf", "punica.pdf"]


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("mixed")
    bad = corpus("bad_pdfs")
    names = sorted(p.name for p in bad.glob("*.pdf"))
    assert names == sorted(EXPECTED), "bad_pdfs/ holds other files than this test knows"
    for name in names:
        shutil.copy(bad / name, folder / name)
    for name in GOOD:
        shutil.copy(corpus("pdfs", name), folder / name)
    root = tmp_path_factory.mktemp("ws") / "kb"
    assert run_cli("init", str(root)).code == 0
    return root, run_cli("-w", str(root), "ingest", str(folder), "--json")


def test_exit_code_two_and_no_traceback(mixed_run: tuple[Path, object]) -> None:
    _, result = mixed_run
    assert result.code == 2
    assert "Traceback" not in result.out + result.err


def test_every_file_named_with_its_expected_outcome(mixed_run: tuple[Path, object]) -> None:
    _, result = mixed_run
    items = {Path(item["item"]).name: item for item in result.json()["items"]}
    assert set(items) == set(EXPECTED) | set(GOOD)
    for name, (outcome, code) in EXPECTED.items():
        assert items[name]["outcome"] == outcome, (name, items[name])
        if code:
            assert items[name]["code"] == code, (name, items[name])
            assert items[name]["message"] and "\n" not in items[name]["message"]
    for name in GOOD:
        assert items[name]["outcome"] == STORED


def test_outcomes_are_stored_and_shown_by_status(mixed_run: tuple[Path, object]) -> None:
    root, _ = mixed_run
    status = run_cli("-w", str(root), "status", "--json").json()
    rejected = {Path(r["item"]).name: r["reason"] for r in status["rejected"]}
    assert set(rejected) == {n for n, (o, _) in EXPECTED.items() if o == REJECTED}
    assert "password" in rejected["encrypted_rc4_40_user_password.pdf"]
    assert "OCR" in rejected["scanned_image_only_huckfinn_c02-22.pdf"]
    assert status["counts"]["rejected_files"] == len(rejected) == 12
    assert status["counts"]["with_warnings"] == 3
    human = run_cli("-w", str(root), "status")
    assert "zero_byte.pdf" in human.out and "empty file" in human.out


def test_good_papers_and_recoverable_text_are_stored(mixed_run: tuple[Path, object]) -> None:
    root, _ = mixed_run
    conn = db(root)
    titles = {r[0] for r in conn.execute("SELECT title FROM papers")}
    assert "Orca: A Distributed Serving System for Transformer-Based Generative Models" in titles
    texts = "\n".join(r[0] for r in conn.execute("SELECT text FROM pages"))
    for phrase in (
        "test example",
        "Beautiful is better than ugly",
        "Reduced test-case",
        "VICKSBURG",
    ):
        assert phrase in texts
    slides = conn.execute(
        "SELECT kind FROM papers WHERE source_ref LIKE '%slides_not_a_paper%'"
    ).fetchone()
    assert slides[0] == "slides"


@pytest.mark.parametrize(
    ("name", "password", "text"),
    [
        ("encrypted_rc4_40_user_password.pdf", "asdfzxcv", "pdf encryption test"),
        ("encrypted_libreoffice_user_password.pdf", "openpassword", "Lorem ipsum"),
        ("encrypted_utf8_password_pdfjs-issue6010_2.pdf", "æøå", "Issue 6010"),
    ],
)
def test_password_opens_encrypted_pdf(workspace: Path, name: str, password: str, text: str) -> None:
    result = run_cli(
        "-w", str(workspace), "add", str(corpus("bad_pdfs", name)), "--password", password
    )
    assert result.code == 0, result.out + result.err
    pages = "\n".join(r[0] for r in db(workspace).execute("SELECT text FROM pages"))
    assert text in pages


def test_wrong_password_is_a_clear_rejection(workspace: Path) -> None:
    path = corpus("bad_pdfs", "encrypted_rc4_40_user_password.pdf")
    result = run_cli("-w", str(workspace), "add", str(path), "--password", "nope", "--json")
    assert result.code == 2
    (item,) = result.json()["items"]
    assert item["code"] == "wrong_password"


def test_notes_file_describes_every_case() -> None:
    with corpus("bad_pdfs", "NOTES.tsv").open(encoding="utf-8") as handle:
        described = {row["file"] for row in csv.DictReader(handle, delimiter="\t")}
    assert set(EXPECTED) <= described | {"zero_byte.pdf"}


@pytest.mark.parametrize(
    "broken", ["zero_pages_reportlab.pdf", "header_and_eof_only_ocrmypdf-invalid.pdf"]
)
def test_a_password_error_of_an_earlier_file_does_not_name_the_next(broken: str) -> None:
    encrypted = corpus("bad_pdfs", "encrypted_rc4_40_user_password.pdf").read_bytes()
    with pytest.raises(PdfRejected) as first:
        open_pdf(encrypted, None)
    assert first.value.code == "password_required"
    with pytest.raises(PdfRejected) as second:
        open_pdf(corpus("bad_pdfs", broken).read_bytes(), None)
    assert second.value.code == EXPECTED[broken][1]
