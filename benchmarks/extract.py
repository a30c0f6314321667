"""Extraction benchmark: PDF pages/s (ours on one and two cores, raw pypdfium2, pypdf) and
web-article quality (ours against trafilatura's defaults), all measured in this run.

    python benchmarks/extract.py [--skip-pypdf] [--skip-html]
"""

from __future__ import annotations

import argparse
import io
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pypdf
import pypdfium2 as pdfium

from frontier.extract.pdf import extract_pdf
from frontier.intake.jobs import PdfJob
from frontier.intake.pool import extract_in_order

PDF_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdfs"


def load_pdfs() -> list[tuple[Path, bytes]]:
    if not PDF_DIR.is_dir():
        sys.exit(f"benchmark corpus not found at {PDF_DIR}: it must sit next to the repository")
    return [(path, path.read_bytes()) for path in sorted(PDF_DIR.glob("*.pdf"))]


def raw_pdfium(data: bytes) -> int:
    doc = pdfium.PdfDocument(data)
    for index in range(len(doc)):
        page = doc[index]
        textpage = page.get_textpage()
        textpage.get_text_range()
        textpage.close()
        page.close()
    pages = len(doc)
    doc.close()
    return pages


def with_pypdf(data: bytes) -> int:
    reader = pypdf.PdfReader(io.BytesIO(data))
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages)


def ours(data: bytes) -> int:
    return extract_pdf(data).n_pages


def timed(label: str, work: Callable[[], int]) -> tuple[str, int, float]:
    start = time.perf_counter()
    pages = work()
    return label, pages, time.perf_counter() - start


def ours_on_both_cores(pdfs: list[tuple[Path, bytes]], repeat: int = 1) -> int:
    jobs = [PdfJob(path.name, str(path), "", None) for path, _ in pdfs] * repeat
    return sum(r.extracted.n_pages for r in extract_in_order(jobs, workers=2) if r.extracted)


def pdf_table(pdfs: list[tuple[Path, bytes]], skip_pypdf: bool) -> None:
    runs = [
        timed("raw pypdfium2 text, 1 core", lambda: sum(raw_pdfium(d) for _, d in pdfs)),
        timed("frontier extraction, 1 core", lambda: sum(ours(d) for _, d in pdfs)),
        timed("frontier extraction, 2 cores", lambda: ours_on_both_cores(pdfs)),
        timed("  same, corpus x3 (steady state)", lambda: ours_on_both_cores(pdfs, repeat=3)),
    ]
    if not skip_pypdf:
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        runs.append(
            timed("pypdf extract_text, 1 core", lambda: sum(with_pypdf(d) for _, d in pdfs))
        )
    rate = {label: pages / seconds for label, pages, seconds in runs}
    print(f"PDF extraction on {len(pdfs)} PDFs ({runs[0][1]} pages)")
    print(f"{'':32}{'pages':>7}{'seconds':>9}{'pages/s':>9}")
    for label, pages, seconds in runs:
        print(f"{label:32}{pages:>7}{seconds:>9.2f}{pages / seconds:>9.1f}")
    ours_one = rate["frontier extraction, 1 core"]
    raw = rate["raw pypdfium2 text, 1 core"]
    print(f"\noverhead of ours over raw pypdfium2: {raw / ours_one - 1:+.1%}  (target <= +25%)")
    print(
        f"ours on 2 cores vs 1 core: {rate['frontier extraction, 2 cores'] / ours_one:.2f}x on one "
        f"batch (includes starting the worker processes), "
        f"{rate['  same, corpus x3 (steady state)'] / ours_one:.2f}x steady state  (target ~2x)"
    )
    if not skip_pypdf:
        print(
            f"ours (1 core) vs pypdf: {ours_one / rate['pypdf extract_text, 1 core']:.1f}x  (target >= 10x)"
        )


def html_table() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from extract_html import html_quality, summary

    print("\nWeb-article extraction on the saved pages")
    print(summary(html_quality()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--skip-pypdf", action="store_true", help="leave out the slow pypdf baseline"
    )
    parser.add_argument("--skip-html", action="store_true", help="leave out the web-article part")
    args = parser.parse_args()
    pdf_table(load_pdfs(), args.skip_pypdf)
    if not args.skip_html:
        html_table()


if __name__ == "__main__":
    main()
