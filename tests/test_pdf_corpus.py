"""All 38 real paper PDFs: stored with pages, sections and chunks, searchable, idempotent."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from helpers import corpus, db, kb_snapshot, run_cli

from frontier.extract.firstpage import title_by_font_size

# (phrase from the title, file) — searched verbatim, must come back at rank 1
TITLE_PHRASES = [
    ("Efficient Memory Management for Large Language Model Serving", "vllm-pagedattention.pdf"),
    ("Disaggregating Prefill and Decoding for Goodput-optimized", "distserve.pdf"),
    ("Activation-aware Weight Quantization", "awq.pdf"),
    ("Fast and Memory-Efficient Exact Attention with IO-Awareness", "flashattention.pdf"),
    ("Serving Thousands of Concurrent LoRA Adapters", "s-lora.pdf"),
    ("Retrieval-Based Speculative Decoding", "rest-retrieval-speculative.pdf"),
    ("Dynamic Scheduling for Large Language Model Serving", "llumnix.pdf"),
    ("Decoder-Decoder Architectures for Language Models", "yoco.pdf"),
    ("Multi-Tenant LoRA Serving", "punica.pdf"),
    ("Bandwidth-Efficient LLM Inference", "sparq-attention.pdf"),
]

# titles as the first pages print them: on two lines, in small caps, around a superscript, under
# a USENIX cover, above authors set close to the title's size
KNOWN_TITLES = {
    "distserve.pdf": "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large "
    "Language Model Serving",
    "gptq.pdf": "GPTQ: ACCURATE POST-TRAINING QUANTIZATION FOR GENERATIVE PRE-TRAINED TRANSFORMERS",
    "self-attention-no-n2-memory.pdf": "SELF-ATTENTION DOES NOT NEED O(n 2 ) MEMORY",
    "sarathi-serve.pdf": "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
    "nanoflow.pdf": "NanoFlow: Towards Optimal Large Language Model Serving Throughput",
    "zeroquant.pdf": "ZeroQuant: Efficient and Affordable Post-Training Quantization for "
    "Large-Scale Transformers",
    "flashattention.pdf": "FlashAttention: Fast and Memory-Efficient Exact Attention with "
    "IO-Awareness",
    "llm-in-a-flash.pdf": "LLM in a flash: Efficient Large Language Model Inference with Limited "
    "Memory",
}


@pytest.fixture(scope="module")
def full_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus") / "kb"
    assert run_cli("init", str(root)).code == 0
    result = run_cli("-w", str(root), "ingest", str(corpus("pdfs")))
    assert result.code == 0, result.out + result.err
    assert "Summary: 38 stored." in result.out
    return root


def test_every_pdf_is_stored_with_pages_sections_and_chunks(full_kb: Path) -> None:
    conn = db(full_kb)
    papers = conn.execute("SELECT * FROM papers").fetchall()
    assert len(papers) == 38
    for paper in papers:
        pid = paper["id"]
        assert paper["status"] == "fulltext"
        pages = conn.execute("SELECT COUNT(*) FROM pages WHERE paper_id = ?", (pid,)).fetchone()[0]
        assert pages == paper["n_pages"] > 0
        kinds = {r[0] for r in conn.execute("SELECT kind FROM sections WHERE paper_id = ?", (pid,))}
        assert {"introduction", "references"} <= kinds, (paper["title"], kinds)
        chunk_pages = [
            r[0] for r in conn.execute("SELECT page FROM chunks WHERE paper_id = ?", (pid,))
        ]
        assert chunk_pages and all(1 <= page <= pages for page in chunk_pages)


def test_chunks_are_sized_and_keep_references_out(full_kb: Path) -> None:
    conn = db(full_kb)
    tokens = [r[0] for r in conn.execute("SELECT n_tokens FROM chunks")]
    assert max(tokens) <= 500
    in_band = sum(1 for t in tokens if 250 <= t <= 500)
    assert in_band / len(tokens) > 0.75
    assert (
        conn.execute("SELECT COUNT(*) FROM chunks WHERE section = 'references'").fetchone()[0] == 0
    )


def test_first_page_gives_title_arxiv_id_and_date(full_kb: Path) -> None:
    conn = db(full_kb)
    vllm = conn.execute("SELECT * FROM papers WHERE id = '2309.06180'").fetchone()
    assert (
        vllm["title"]
        == "Efficient Memory Management for Large Language Model Serving with PagedAttention"
    )
    assert vllm["arxiv_version"] == 1
    assert vllm["published"] == "2023-09-12"
    orca = conn.execute("SELECT * FROM papers WHERE title LIKE 'Orca:%'").fetchone()
    assert (
        orca["title"]
        == "Orca: A Distributed Serving System for Transformer-Based Generative Models"
    )
    assert orca["arxiv_id"] is None  # the camera-ready version carries no arXiv stamp


def test_pages_are_physical_and_cleaned(full_kb: Path) -> None:
    conn = db(full_kb)
    page4 = conn.execute(
        "SELECT text FROM pages WHERE paper_id = '2309.06180' AND page = 4"
    ).fetchone()[0]
    assert "\ufffe" not in page4
    assert "reserving this space for the entire request" in page4  # soft hyphen joined
    assert not page4.rstrip().endswith("\n4")  # page number dropped


@pytest.mark.parametrize(("phrase", "filename"), TITLE_PHRASES)
def test_search_finds_paper_by_title_phrase_at_rank_one(
    full_kb: Path, phrase: str, filename: str
) -> None:
    result = run_cli("-w", str(full_kb), "search", phrase, "--json", "--limit", "5")
    assert result.code == 0, result.err
    hits = result.json()
    assert isinstance(hits, list) and hits
    assert set(hits[0]) >= {"id", "title", "page", "snippet", "score"}
    conn = db(full_kb)
    expected = conn.execute(
        "SELECT paper_id FROM paper_sources WHERE source_ref LIKE ?", (f"%{filename}",)
    ).fetchone()[0]
    assert hits[0]["id"] == expected, (phrase, [h["title"] for h in hits])


def test_second_run_stores_nothing_new(full_kb: Path) -> None:
    before = kb_snapshot(full_kb)
    result = run_cli("-w", str(full_kb), "ingest", str(corpus("pdfs")))
    assert result.code == 0
    assert "38 duplicate" in result.out and "Nothing new was stored" in result.out
    assert kb_snapshot(full_kb) == before


def test_status_json_counts(full_kb: Path) -> None:
    status = run_cli("-w", str(full_kb), "status", "--json").json()
    counts = status["counts"]
    assert counts["papers"] == 38 and counts["rejected_files"] == 0
    assert counts["pages"] == sum(r[0] for r in db(full_kb).execute("SELECT n_pages FROM papers"))
    assert counts["chunks"] > 38 * 10
    assert status["runs"][0]["command"] == "ingest"


def test_show_prints_metadata_and_a_page(full_kb: Path) -> None:
    shown = run_cli("-w", str(full_kb), "show", "2309.06180", "--json").json()
    assert shown["n_pages"] == 16 and shown["sections"][0]["kind"] == "abstract"
    page = run_cli("-w", str(full_kb), "show", "2309.06180", "--page", "1")
    assert "PagedAttention" in page.out
    missing = run_cli("-w", str(full_kb), "show", "9999.99999")
    assert missing.code == 1 and "No paper" in missing.out


def test_abstracts_are_found_with_or_without_a_heading(full_kb: Path) -> None:
    conn = db(full_kb)
    with_abstract = conn.execute(
        "SELECT COUNT(*) FROM papers WHERE length(abstract) >= 300"
    ).fetchone()[0]
    assert with_abstract >= 37  # one paper (FP8 vs INT8) prints no abstract at all
    layerskip = conn.execute(
        "SELECT abstract FROM papers WHERE title LIKE 'LayerSkip%'"
    ).fetchone()[0]
    assert layerskip.startswith("We present LayerSkip") and layerskip.endswith(
        "semantic parsing task."
    )


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+|\d+", text)


def _manifest_titles() -> dict[str, str]:
    """Each corpus PDF's title as the corpus manifest records it."""
    with corpus("MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {
            Path(row["file"]).name: re.match(r"Paper: (.*?);", row["what_it_is"]).group(1)
            for row in rows
            if row["file"].startswith("pdfs/")
        }


def _first_page(path: Path) -> tuple[str, str | None]:
    """A PDF's first-page text and its title by type size."""
    doc = pdfium.PdfDocument(str(path))
    try:
        textpage = doc[0].get_textpage()
        text = textpage.get_text_range()
        return text, title_by_font_size(textpage, text)
    finally:
        doc.close()


def _first_author(page: str, title: str) -> list[str]:
    """The two words the page prints right after the title: the first author's name."""
    words, key = _words(page), [w.lower() for w in _words(title)]
    for start in range(len(words) - len(key)):
        if [w.lower() for w in words[start : start + len(key)]] == key:
            after = [w for w in words[start + len(key) :] if not w.isdigit()]
            return after[:2]
    raise AssertionError(f"title {title!r} not found on its first page")


def test_stored_titles_are_the_printed_titles(full_kb: Path) -> None:
    conn = db(full_kb)
    stored = {
        Path(r["source_ref"]).name: r["title"]
        for r in conn.execute("SELECT title, source_ref FROM papers")
    }
    for name, title in KNOWN_TITLES.items():
        assert stored[name] == title
    manifest = _manifest_titles()
    assert len(manifest) == len(stored) == 38
    for name, title in stored.items():
        assert [w.lower() for w in _words(title)] == [w.lower() for w in _words(manifest[name])], (
            name
        )


def test_titles_by_type_size_end_before_the_authors() -> None:
    """Every corpus title read from the page alone, without the document's metadata, is the
    whole title and does not run on into the first author's name."""
    for name, expected in _manifest_titles().items():
        page, title = _first_page(corpus("pdfs", name))
        assert title is not None, name
        author = _first_author(page, expected)
        assert len(author) == 2 and _words(title)[-2:] != author, (name, title, author)
        assert _words(title)[-1] != author[0], (name, title, author)
        assert [w.lower() for w in _words(title)] == [w.lower() for w in _words(expected)], name


def test_bad_pdfs_with_text_give_a_title_or_none() -> None:
    for path in sorted(corpus("bad_pdfs").glob("*.pdf")):
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError:
            continue  # unreadable without a password or beyond repair: rejected elsewhere
        doc.close()
        _, title = _first_page(path)
        assert title is None or 3 <= len(title) <= 300, path.name


def _one_page_pdf(lines: list[tuple[str, float, int, str]]) -> bytes:
    """A one-page PDF of (base-14 font, size, baseline y, text) lines, fonts not embedded."""
    fonts = sorted({font for font, *_ in lines})
    ref = {font: f"F{i}" for i, font in enumerate(fonts, 1)}
    content = "\n".join(
        f"BT /{ref[font]} {size} Tf 72 {y} Td ({text}) Tj ET" for font, size, y, text in lines
    ).encode("latin-1")
    resources = " ".join(f"/{ref[font]} {5 + i} 0 R" for i, font in enumerate(fonts))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        + f"/Resources << /Font << {resources} >> >> >>".encode(),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        *(f"<< /Type /Font /Subtype /Type1 /BaseFont /{font} >>".encode() for font in fonts),
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


TWO_LINE_TITLE = ("Heptane: High-Throughput Memory-Frugal LLM Serving using", "Staged Pipelines")


@pytest.mark.parametrize(
    ("title_font", "author_font", "author_size", "author_y"),
    [
        ("Times-Bold", "Times-Roman", 12, 655),  # smaller, regular under bold
        ("Times-Roman", "Times-Roman", 12, 668),  # smaller, same face, set tight
        ("Times-Roman", "Times-Roman", 12, 652),  # smaller, same face, spaced off
        ("Times-Bold", "Times-Bold", 14.4, 650),  # the title's own type, a blank line below
    ],
)
def test_an_author_line_without_marks_does_not_join_the_title(
    title_font: str, author_font: str, author_size: float, author_y: int
) -> None:
    """A name line with no superscript, comma or email, in type at least three quarters of the
    title's, still ends the title."""
    pdf = _one_page_pdf(
        [
            (title_font, 14.4, 700, TWO_LINE_TITLE[0]),
            (title_font, 14.4, 683, TWO_LINE_TITLE[1]),
            (author_font, author_size, author_y, "Jane Okafor"),
            ("Times-Roman", 10, author_y - 14, "Northfield University"),
            ("Times-Roman", 10, 600, "Abstract"),
        ]
    )
    doc = pdfium.PdfDocument(pdf)
    textpage = doc[0].get_textpage()
    assert title_by_font_size(textpage, textpage.get_text_range()) == " ".join(TWO_LINE_TITLE)
    doc.close()


def test_a_title_line_of_capitalised_words_stays_in_the_title() -> None:
    pdf = _one_page_pdf(
        [
            ("Times-Bold", 14.4, 700, "Lanternfly: Towards Optimal Large Language Model"),
            ("Times-Bold", 14.4, 683, "Serving Throughput"),
            ("Times-Roman", 12, 655, "Jane Okafor"),
            ("Times-Roman", 10, 600, "Abstract"),
        ]
    )
    doc = pdfium.PdfDocument(pdf)
    textpage = doc[0].get_textpage()
    assert (
        title_by_font_size(textpage, textpage.get_text_range())
        == "Lanternfly: Towards Optimal Large Language Model Serving Throughput"
    )
    doc.close()
