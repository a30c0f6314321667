"""One PDF in, one verdict out: extracted text with pages, sections and chunks, or a rejection."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from frontier.extract.chunk import Segment, make_chunks
from frontier.extract.clean import clean_pages, join_lines
from frontier.extract.firstpage import FirstPageFacts, first_page_facts
from frontier.extract.quality import looks_like_garbage, looks_like_slides
from frontier.extract.sections import Heading, abstract_text, find_headings
from frontier.model import Chunk, Section
from frontier.sources.ids import content_hash

if TYPE_CHECKING:
    from pypdf import PdfReader  # imported when needed: most files never need it


class PdfRejected(Exception):
    """A PDF that cannot be stored; `code` is stable, the message says why in one line."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class ExtractedPdf:
    content_hash: str
    n_pages: int
    pages: list[str]
    sections: list[Section]
    chunks: list[Chunk]
    facts: FirstPageFacts
    abstract: str | None
    kind: str = "paper"
    warnings: list[str] = field(default_factory=list)


def open_pdf(data: bytes, password: str | None) -> pdfium.PdfDocument:
    if not data:
        raise PdfRejected("empty_file", "empty file (0 bytes)")
    if b"%PDF" not in data[:1024]:
        raise PdfRejected("not_pdf", "not a PDF (no %PDF header)")
    try:
        return pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        # pdfium's error code is per-thread state that some failures leave untouched,
        # so a password error left over from an earlier file must not name this one
        if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            reader = _lenient_reader(data)
            if not _declares_encryption(reader, data):
                raise _diagnose_unreadable(reader) from exc
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            if password:
                raise PdfRejected(
                    "wrong_password", "encrypted: the password given does not open it"
                ) from exc
            raise PdfRejected(
                "password_required", "encrypted: a user password is needed (--password)"
            ) from exc
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise PdfRejected(
                "unsupported_security", "encrypted with an unsupported security handler"
            ) from exc
        raise _diagnose_unreadable(_lenient_reader(data)) from exc


def _lenient_reader(data: bytes) -> PdfReader | None:
    """The file as a lenient parser reads it, or None when even that parser gives up."""
    try:
        import pypdf

        return pypdf.PdfReader(io.BytesIO(data), strict=False)
    except Exception:  # any parser failure here only confirms the damage
        return None


def _declares_encryption(reader: PdfReader | None, data: bytes) -> bool:
    """Whether the trailer names an /Encrypt dictionary (the raw key when unparseable, which
    a trailer spells out)."""
    return reader.is_encrypted if reader is not None else b"/Encrypt" in data


def _diagnose_unreadable(reader: PdfReader | None) -> PdfRejected:
    """pdfium gave up; a lenient parser tells an empty page tree from real damage."""
    try:
        if reader is not None and len(reader.pages) == 0:
            return PdfRejected("no_pages", "no pages (the page tree is empty)")
    except Exception:  # any parser failure here only confirms the damage
        pass
    return PdfRejected("corrupt", "corrupt or truncated beyond repair")


def _page_has_objects(page: pdfium.PdfPage) -> tuple[bool, bool]:
    """(has any content objects, has images)."""
    count = pdfium_c.FPDFPage_CountObjects(page.raw)
    has_image = any(
        pdfium_c.FPDFPageObj_GetType(pdfium_c.FPDFPage_GetObject(page.raw, i))
        == pdfium_c.FPDF_PAGEOBJ_IMAGE
        for i in range(count)
    )
    return count > 0, has_image


def _read_pages(
    doc: pdfium.PdfDocument,
) -> tuple[list[str], list[tuple[float, float]], FirstPageFacts]:
    texts, sizes = [], []
    facts = FirstPageFacts()
    metadata_title = doc.get_metadata_value("Title") if len(doc) else None
    for index in range(len(doc)):
        page = doc[index]
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        if index == 0:
            facts = first_page_facts(textpage, text, metadata_title)
        texts.append(text)
        sizes.append(page.get_size())
        textpage.close()
        page.close()
    return texts, sizes, facts


def _reject_textless(doc: pdfium.PdfDocument) -> PdfRejected:
    any_content, any_image = False, False
    for index in range(len(doc)):
        page = doc[index]
        content, image = _page_has_objects(page)
        page.close()
        any_content, any_image = any_content or content, any_image or image
    if not any_content:
        return PdfRejected("no_pages", "no pages with any content")
    if any_image:
        return PdfRejected("needs_ocr", "no text layer (scanned images): OCR needed")
    return PdfRejected("needs_ocr", "no text layer (text drawn as shapes): OCR needed")


def _segments(pages: list[list[str]], headings: list[Heading]) -> list[Segment]:
    by_line = {h.line_index: h for h in headings}
    segments: list[Segment] = []
    section, skipping, line_index = "front matter", False, 0
    for page_no, lines in enumerate(pages, start=1):
        current: list[str] = []
        for line in lines:
            heading = by_line.get(line_index)
            line_index += 1
            if heading is not None:
                if current and not skipping:
                    segments.append(Segment(page_no, section, join_lines(current)))
                current = []
                section = heading.title if heading.kind == "other" else heading.kind
                skipping = heading.kind == "references"
                continue
            current.append(line)
        if current and not skipping:
            segments.append(Segment(page_no, section, join_lines(current)))
    return segments


def _sections(headings: list[Heading], pages: list[list[str]]) -> list[Section]:
    first_line_of_page, total = [], 0
    for lines in pages:
        first_line_of_page.append(total)
        total += len(lines)
    out = []
    for ord_, heading in enumerate(headings):
        page = sum(1 for start in first_line_of_page if start <= heading.line_index)
        out.append(Section(ord_, heading.number, heading.title, heading.kind, max(page, 1)))
    return out


def extract_pdf(data: bytes, password: str | None = None, chunk_tokens: int = 400) -> ExtractedPdf:
    """Extract a whole PDF; raises PdfRejected with one clear reason when it cannot be stored."""
    doc = open_pdf(data, password)
    try:
        if len(doc) == 0:
            raise PdfRejected("no_pages", "no pages (the page tree is empty)")
        raw_pages, sizes, facts = _read_pages(doc)
        if not any(text.strip() for text in raw_pages):
            raise _reject_textless(doc)
    finally:
        doc.close()
    pages = clean_pages(raw_pages)
    flat = [line for lines in pages for line in lines]
    headings = find_headings(flat)
    result = ExtractedPdf(
        content_hash=content_hash(data),
        n_pages=len(pages),
        pages=["\n".join(lines) for lines in pages],
        sections=_sections(headings, pages),
        chunks=make_chunks(_segments(pages, headings), chunk_tokens),
        facts=facts,
        abstract=abstract_text(flat, headings),
    )
    _add_warnings(result, raw_pages, sizes)
    return result


def _add_warnings(
    result: ExtractedPdf, raw_pages: list[str], sizes: list[tuple[float, float]]
) -> None:
    if looks_like_garbage("".join(raw_pages)):
        result.warnings.append("text is mostly garbage (a font without a Unicode mapping?)")
    if looks_like_slides(sizes, [len(text) for text in raw_pages]):
        result.kind = "slides"
        result.warnings.append("looks like a slide deck, not a paper")
