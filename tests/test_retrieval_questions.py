"""The hand-made retrieval question set: every evidence fragment is on a listed page of its PDF."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from helpers import REPO, corpus

QUESTIONS = REPO / "benchmarks" / "data" / "retrieval_questions.jsonl"
FIELDS = {"file", "question", "answer", "pages", "evidence"}
OFF_FIELD = "arxivpy-fixture-1111.2011v2.pdf"


def collapse(text: str) -> str:
    return " ".join(text.split()).lower()


def page_texts(path: Path) -> list[str]:
    """Whitespace-collapsed, lower-cased text of every page, as pypdfium2 extracts it."""
    doc = pdfium.PdfDocument(str(path))
    try:
        texts = []
        for page in doc:
            textpage = page.get_textpage()
            texts.append(collapse(textpage.get_text_range()))
            textpage.close()
            page.close()
        return texts
    finally:
        doc.close()


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_questions_are_well_formed(questions: list[dict]) -> None:
    for q in questions:
        assert set(q) == FIELDS, q
        assert q["question"].strip() and q["answer"].strip(), q
        assert q["pages"] and all(isinstance(p, int) and p >= 1 for p in q["pages"]), q
        assert 6 <= len(q["evidence"].split()) <= 20, q["evidence"]
    assert len({q["question"] for q in questions}) == len(questions), "duplicate questions"


def test_question_counts(questions: list[dict]) -> None:
    per_file = Counter(q["file"] for q in questions)
    assert len(questions) >= 45
    assert max(per_file.values()) <= 2, per_file.most_common(3)
    assert len(per_file) >= 28
    assert OFF_FIELD not in per_file


def test_evidence_is_on_a_listed_page(questions: list[dict]) -> None:
    by_file: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_file[q["file"]].append(q)
    problems = []
    for name, items in sorted(by_file.items()):
        path = corpus("pdfs", name)
        texts = page_texts(path)
        for q in items:
            outside = [p for p in q["pages"] if p > len(texts)]
            if outside:
                problems.append(f"{name}: pages {outside} beyond its {len(texts)} pages")
                continue
            evidence = collapse(q["evidence"])
            if not any(evidence in texts[p - 1] for p in q["pages"]):
                found = [i + 1 for i, text in enumerate(texts) if evidence in text]
                problems.append(
                    f"{name}: evidence {q['evidence']!r} not on pages {q['pages']} (found on {found})"
                )
    assert not problems, "\n".join(problems)
