"""Draft arXiv metadata for the sample papers, using frontier's own PDF extraction.

Reads every PDF in the shared corpus (``../shared/corpus/pdfs`` next to the repository) and
prints one draft JSON record per line to stdout. The draft holds what the PDF itself says:
title, arXiv id and version, the stamped date and primary category, and the abstract. Authors,
first-version dates, cross-lists and anything the PDF does not print are filled in by hand
afterwards (see ``src/frontier/data/README.md``).

    python scripts/build_sample_corpus.py > draft.jsonl
    python scripts/build_sample_corpus.py --pages 2 vllm-pagedattention.pdf   # show the text
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from frontier.extract.pdf import PdfRejected, extract_pdf

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "pdfs"
_STAMP_CATEGORY = re.compile(r"arXiv:\S+\s+\[([a-z\-]+(?:\.[A-Za-z\-]+)?)\]")


def draft_record(path: Path) -> dict:
    result = extract_pdf(path.read_bytes())
    facts = result.facts
    record: dict = {"file": path.name}
    if facts.arxiv_id:
        version = f"v{facts.arxiv_version}" if facts.arxiv_version else ""
        record["id"] = f"{facts.arxiv_id}{version}"
    record["title"] = facts.title
    record["authors"] = []
    record["date"] = facts.published.isoformat() if facts.published else None
    category = _STAMP_CATEGORY.search(result.pages[0]) if result.pages else None
    record["categories"] = [category.group(1)] if category else []
    record["abstract"] = " ".join(result.abstract.split()) if result.abstract else None
    if "id" in record:
        record["pdf_url"] = f"https://arxiv.org/pdf/{record['id']}"
    elif facts.doi:
        record["doi"] = facts.doi
    missing = [key for key in ("id", "title", "date", "abstract") if not record.get(key)]
    if missing:
        record["missing"] = missing
    return record


def show_pages(path: Path, n_pages: int) -> None:
    result = extract_pdf(path.read_bytes())
    for number, text in enumerate(result.pages[:n_pages], start=1):
        print(f"===== {path.name} page {number} =====")
        print(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these PDF file names")
    parser.add_argument(
        "--pages", type=int, default=0, help="print the text of the first N pages instead"
    )
    args = parser.parse_args(argv)

    corpus = CORPUS.resolve()
    if not corpus.is_dir():
        print(f"error: corpus folder not found: {corpus}", file=sys.stderr)
        print("expected the shared PDFs in ../shared/corpus/pdfs next to the repo", file=sys.stderr)
        return 2
    paths = sorted(corpus.glob("*.pdf"))
    if args.names:
        paths = [p for p in paths if p.name in set(args.names)]
    if not paths:
        print(f"error: no matching PDFs in {corpus}", file=sys.stderr)
        return 2

    failed = 0
    for path in paths:
        try:
            if args.pages:
                show_pages(path, args.pages)
            else:
                print(json.dumps(draft_record(path), ensure_ascii=False))
        except PdfRejected as exc:
            failed += 1
            print(f"{path.name}: rejected ({exc.code}): {exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
