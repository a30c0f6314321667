"""JSONL, BibTeX and bare-abstract files; merging records with PDFs; arXiv versions."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import corpus, db, run_cli

from frontier.sources.abstracts import provisional_title, read_abstracts
from frontier.sources.local import read_bibtex, read_jsonl

VLLM_ABSTRACT = (
    "High throughput serving of large language models (LLMs) requires batching sufficiently many "
    "requests at a time. However, existing systems struggle because the key-value cache memory "
    "for each request is huge and grows and shrinks dynamically."
)


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_jsonl_records_with_a_bad_line(tmp_path: Path, workspace: Path) -> None:
    path = write_jsonl(
        tmp_path / "papers.jsonl",
        [
            {
                "id": "2309.06180v1",
                "title": "Efficient Memory Management for Large Language Model Serving "
                "with PagedAttention",
                "authors": ["Woosuk Kwon", "Zhuohan Li"],
                "date": "2023-09-12",
                "categories": ["cs.LG", "cs.DC"],
                "abstract": VLLM_ABSTRACT,
            },
            "{not json",
            {
                "title": "A record without an id",
                "abstract": "Something about KV caches.",
                "date": "2024-02",
            },
            {"id": "2401.00001", "date": "yesterday-ish", "title": "Bad date"},
        ],
    )
    records = list(read_jsonl(path))
    assert [type(r).__name__ for r in records] == [
        "SourceRecord",
        "RecordError",
        "SourceRecord",
        "RecordError",
    ]
    assert "papers.jsonl:2" in str(records[1]) and "papers.jsonl:4" in str(records[3])

    result = run_cli("-w", str(workspace), "ingest", str(path), "--json")
    assert result.code == 2
    counts = result.json()["counts"]
    assert counts == {"stored": 2, "rejected": 2}
    paper = db(workspace).execute("SELECT * FROM papers WHERE id = '2309.06180'").fetchone()
    assert paper["arxiv_version"] == 1 and json.loads(paper["categories"]) == ["cs.LG", "cs.DC"]
    hits = run_cli("-w", str(workspace), "search", "key-value cache memory", "--json").json()
    assert hits[0]["id"] == "2309.06180" and hits[0]["page"] is None


def test_record_then_pdf_attaches_full_text_and_versions_are_kept(
    tmp_path: Path, workspace: Path
) -> None:
    base = {
        "title": "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        "abstract": VLLM_ABSTRACT,
        "date": "2023-09-12",
    }
    v1 = write_jsonl(tmp_path / "v1.jsonl", [{**base, "id": "2309.06180v1"}])
    v2 = write_jsonl(tmp_path / "v2.jsonl", [{**base, "id": "2309.06180v2"}])
    assert run_cli("-w", str(workspace), "ingest", str(v2)).code == 0
    older = run_cli("-w", str(workspace), "ingest", str(v1), "--json").json()
    assert older["counts"] == {"duplicate": 1}
    pdf = run_cli(
        "-w", str(workspace), "add", str(corpus("pdfs", "vllm-pagedattention.pdf")), "--json"
    )
    assert pdf.json()["items"][0]["outcome"] == "updated"
    shown = run_cli("-w", str(workspace), "show", "2309.06180", "--json").json()
    assert (
        shown["status"] == "fulltext"
        and shown["arxiv_version"] == 2
        and shown["versions"] == [1, 2]
    )
    assert db(workspace).execute("SELECT COUNT(*) FROM papers").fetchone()[0] == 1


def test_bibtex_entries(tmp_path: Path, workspace: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{kwon2023,\n  title = {Efficient Memory Management for {Large} Language Model Serving"
        " with {PagedAttention}},\n  author = {Kwon, Woosuk and Li, Zhuohan},\n  year = {2023},\n"
        "  month = sep,\n  eprint = {2309.06180},\n  archivePrefix = {arXiv},\n}\n\n"
        "@inproceedings{yu2022orca,\n  title = {Orca: A Distributed Serving System for "
        "Transformer-Based Generative Models},\n  author = {Yu, Gyeong-In and Jeong, Joo Seong},\n"
        "  booktitle = {OSDI},\n  year = {2022},\n  doi = {10.5555/3571885.3571902},\n}\n"
    )
    records = list(read_bibtex(bib))
    assert [r.arxiv_id for r in records] == ["2309.06180", None]
    assert (
        records[0].title
        == "Efficient Memory Management for Large Language Model Serving with PagedAttention"
    )
    assert (
        records[0].authors == ["Kwon, Woosuk", "Li, Zhuohan"]
        and str(records[0].published) == "2023-09-01"
    )
    assert records[1].doi == "10.5555/3571885.3571902"
    result = run_cli("-w", str(workspace), "ingest", str(bib), "--json")
    assert result.json()["counts"] == {"stored": 2}
    orca_pdf = run_cli(
        "-w", str(workspace), "add", str(corpus("pdfs", "orca.pdf")), "--json"
    ).json()
    assert orca_pdf["items"][0]["outcome"] == "updated"  # matched by title, full text attached


def test_bare_abstracts_get_stable_ids_and_provisional_titles(
    tmp_path: Path, workspace: Path
) -> None:
    seed = corpus("..", "seeds", "004-abstracts-llm-inference.txt")
    records = list(read_abstracts(seed))
    assert len(records) > 40
    assert all(r.title_provisional and r.content_id and r.collection for r in records)
    assert len({r.content_id for r in records}) == len(records)
    assert [r.content_id for r in read_abstracts(seed)] == [r.content_id for r in records]
    first = run_cli("-w", str(workspace), "ingest", str(seed), "--json").json()
    assert first["counts"] == {"stored": len(records)}
    second = run_cli("-w", str(workspace), "ingest", str(seed), "--json").json()
    assert second["counts"] == {"duplicate": len(records)}
    paper_id = first["items"][0]["paper_id"]
    shown = run_cli("-w", str(workspace), "show", paper_id, "--json").json()
    assert shown["title_provisional"] is True and shown["collection"] == records[0].collection


def test_provisional_title_names_the_method() -> None:
    text = (
        "Serving long prompts is slow. We propose FooCache, a layered cache that keeps hot "
        "blocks on the GPU. It cuts latency by 2x."
    )
    assert provisional_title(text).startswith("FooCache: Serving long prompts is slow.")
    plain = "Speculative decoding accelerates inference by drafting tokens with a small model."
    assert provisional_title(plain) == plain


def test_unsupported_and_missing_paths_are_named(tmp_path: Path, workspace: Path) -> None:
    odd = tmp_path / "table.csv"
    odd.write_text("a,b\n")
    result = run_cli("-w", str(workspace), "ingest", str(odd), str(tmp_path / "nope"), "--json")
    assert result.code == 2
    messages = {Path(i["item"]).name: i["message"] for i in result.json()["items"]}
    assert "unsupported file type" in messages["table.csv"] and "no such file" in messages["nope"]
