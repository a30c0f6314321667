"""The markdown vault: pages from a curated store, working links, safe tables, stable output."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from helpers import run_cli
from markdown_it import MarkdownIt

from frontier.model import SourceRecord
from frontier.render import render_vault
from frontier.store.db import connect, transaction
from frontier.store.papers import save_paper
from frontier.workspace import open_workspace

VLLM_QUOTE = (
    "vLLM improves the throughput of popular LLMs by 2-4× with the same level of latency "
    "compared to the state-of-the-art systems, such as FasterTransformer and Orca"
)
SPEC_QUOTE = "show a 2X-3X acceleration compared to the standard T5X implementation"
UNVERIFIED_QUOTE = "reduces time to first token to 35 ms on every model we tried"
HOSTILE_TITLE = "<script>alert(1)</script> | Serving & [brackets]"
HOSTILE_ID = "doi:10.5555/hostile.1"
THESIS = "Most of the remaining inference efficiency comes from software, not from new silicon."

PAPERS = [
    {
        "arxiv_id": "2309.06180",
        "title": "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        "authors": ["Woosuk Kwon", "Zhuohan Li", "Ion Stoica"],
        "published": dt.date(2023, 9, 12),
        "categories": ["cs.LG", "cs.DC"],
        "abstract": "High throughput serving of large language models (LLMs) requires batching "
        "sufficiently many requests at a time. " + VLLM_QUOTE + ".",
    },
    {
        "arxiv_id": "2211.17192",
        "title": "Fast Inference from Transformers via Speculative Decoding",
        "authors": ["Yaniv Leviathan", "Matan Kalman", "Yossi Matias"],
        "published": dt.date(2022, 11, 30),
        "categories": ["cs.LG"],
        "abstract": "We demonstrate our approach on T5-XXL and "
        + SPEC_QUOTE
        + ", with identical outputs.",
    },
    {
        "doi": "10.5555/hostile.1",
        "title": HOSTILE_TITLE,
        "published": dt.date(2024, 3, 1),
        "abstract": "Peak HBM3 bandwidth per GPU | and what it means.",
    },
    {
        "arxiv_id": "2401.00001",
        "title": "A Survey of Protein Folding with Language Models",
        "published": dt.date(2024, 1, 2),
    },
    {"arxiv_id": "2402.00002", "title": "Not Yet Triaged", "published": dt.date(2024, 2, 1)},
]

TRIAGE = [
    (
        "2309.06180",
        "serving",
        "llm",
        "pages the KV cache of running requests",
        "KV-cache memory management, paging, eviction and prefix reuse",
    ),
    (
        "2211.17192",
        "serving",
        "embedding",
        "close to the decoding scope line",
        "speculative, parallel and early-exit decoding",
    ),
    (HOSTILE_ID, "hardware", "llm", "about HBM bandwidth", ""),
    ("2401.00001", "", "embedding", "far from every scope line", ""),
]

CLAIMS = [
    # paper, metric, value, value_text, unit, baseline, model, hardware, page, quote, verified, note
    (
        "2309.06180",
        "throughput",
        4.0,
        "2.0-4.0",
        "×",
        "FasterTransformer and Orca",
        "",
        "",
        1,
        VLLM_QUOTE,
        1,
        "",
    ),
    (
        "2309.06180",
        "time to first token",
        35.0,
        "35",
        "ms",
        "",
        "OPT-13B",
        "A100",
        9,
        UNVERIFIED_QUOTE,
        0,
        "quote not found on page 9",
    ),
    (
        "2211.17192",
        "speedup",
        3.0,
        "2-3",
        "×",
        "standard T5X implementation",
        "T5-XXL",
        "TPU-v4",
        1,
        SPEC_QUOTE,
        1,
        "",
    ),
    (
        HOSTILE_ID,
        "bandwidth | peak",
        3.35,
        "3.35",
        "TB/s",
        "",
        "",
        "H100 | SXM",
        2,
        "peak HBM3 bandwidth is 3.35 TB/s |\nper GPU",
        1,
        "",
    ),
]

ENTRIES = [
    (
        "2309.06180",
        "serving",
        "vLLM keeps the KV cache in fixed-size blocks managed like virtual-memory pages, so batches grow without wasting memory.",
        "2025-06-02T09:00:00+00:00",
    ),
    (
        "2211.17192",
        "serving",
        "A small draft model proposes tokens that the large model checks in parallel, with identical outputs.",
        "2025-06-01T09:00:00+00:00",
    ),
    (HOSTILE_ID, "hardware", "Measures HBM bandwidth | per GPU.", "2025-05-30T09:00:00+00:00"),
]

RELATIONS = [
    ("2309.06180", "serving", "entity", "vllm", "names vLLM", "title"),
    (
        "2309.06180",
        "serving",
        "gap",
        "1",
        "",
        VLLM_QUOTE,
        1,
        "Its paging cuts the memory long contexts waste.",
    ),
    (
        "2309.06180",
        "serving",
        "thesis",
        THESIS,
        "the gain is memory management in software (supports)",
        "similarity 0.51",
    ),
    (
        "2211.17192",
        "serving",
        "entity",
        "speculative-decoding",
        "names Speculative decoding",
        "title",
    ),
    (
        "2211.17192",
        "serving",
        "conflict",
        "1",
        "reports 2-3x where others see less at large batches",
        "",
    ),
    (
        "2211.17192",
        "serving",
        "thesis",
        THESIS,
        "its gain depends on idle accelerator capacity (challenges)",
        "",
    ),
    (HOSTILE_ID, "hardware", "entity", "h100", "names NVIDIA H100", "page 2"),
    (HOSTILE_ID, "hardware", "entity", "no-such-entity", "names something untracked", ""),
]


def seed_kb(root: Path) -> None:
    """Papers through save_paper, curation rows through plain SQL, as curation would leave them."""
    conn = connect(root / ".frontier" / "frontier.db")
    try:
        for paper in PAPERS:
            save_paper(conn, SourceRecord(source="arxiv", source_ref="test", **paper), None, None)
        at = "2025-06-01T08:00:00+00:00"
        with transaction(conn):
            conn.executemany(
                "INSERT INTO triage (paper_id, topic, stage, reason, scope_line, input_hash, at) "
                "VALUES (?, ?, ?, ?, ?, 'h', ?)",
                [(*row, at) for row in TRIAGE],
            )
            conn.executemany(
                "INSERT INTO claims (paper_id, metric, value, value_text, unit, baseline, model_name, "
                "hardware, page, quote, verified, verify_note, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*row, at) for row in CLAIMS],
            )
            conn.executemany(
                "INSERT INTO entries (paper_id, topic, text, model, prompt_version, input_hash, at) "
                "VALUES (?, ?, ?, 'smollm2-135m', 'entry@1', 'h', ?)",
                ENTRIES,
            )
            conn.executemany(
                "INSERT INTO relations (paper_id, topic, kind, target, detail, evidence, page, how) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(*row, *([None, ""] if len(row) == 6 else [])) for row in RELATIONS],
            )
            conn.executemany(
                "INSERT INTO gaps (id, topic, text, status, source, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        1,
                        "serving",
                        "serving long contexts without the KV cache dominating memory",
                        "open",
                        "config",
                        at,
                    ),
                    (
                        2,
                        "serving",
                        "speculative decoding speed-ups at large batch sizes",
                        "open",
                        "config",
                        at,
                    ),
                    (3, "serving", "prefix caching across tenants", "proposed", "map", at),
                    (4, "hardware", "HBM bandwidth per dollar", "closed", "manual", at),
                ],
            )
            conn.execute(
                "INSERT INTO conflicts (id, topic, text, status, created_at) VALUES "
                "(1, 'serving', 'reported speculative decoding speed-ups disagree', 'open', ?)",
                (at,),
            )
    finally:
        conn.close()


@pytest.fixture(scope="module")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One workspace made by the real `frontier init` and seeded; tests work on copies."""
    root = tmp_path_factory.mktemp("template") / "ws"
    result = run_cli("init", str(root))
    assert result.code == 0, result.err
    seed_kb(root)
    return root


def copy_workspace(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(template, root)
    return root


@pytest.fixture
def seeded(seeded_template: Path, tmp_path: Path) -> Path:
    return copy_workspace(seeded_template, tmp_path)


def _render(root: Path) -> dict[str, int]:
    ws = open_workspace(root)
    conn = ws.connect()
    try:
        return render_vault(conn, ws.settings, ws.kb_dir)
    finally:
        conn.close()


def _read(root: Path, relpath: str) -> str:
    return (root / "kb" / relpath).read_text(encoding="utf-8")


def _vault_files(root: Path) -> dict[str, bytes]:
    kb = root / "kb"
    return {p.relative_to(kb).as_posix(): p.read_bytes() for p in sorted(kb.rglob("*.md"))}


def test_render_writes_every_page(seeded: Path) -> None:
    counts = _render(seeded)
    files = set(_vault_files(seeded))
    expected = {
        "index.md",
        "topics/serving.md",
        "topics/serving/frontier.md",
        "topics/hardware.md",
        "entities/vllm.md",
        "entities/speculative-decoding.md",
        "sources/2309.06180.md",
        "sources/doi_10.5555_hostile.1.md",
        "sources/2402.00002.md",
    }
    assert expected <= files
    assert counts == {"written": len(files), "unchanged": 0, "removed": 0}
    assert "[Serving & runtime](topics/serving.md)" in _read(seeded, "index.md")


def test_topic_page_has_scope_routes_and_entries_newest_first(seeded: Path) -> None:
    _render(seeded)
    page = _read(seeded, "topics/serving.md")
    assert page.startswith("# Serving & runtime\n")
    assert "As of 2025-06-02" in page and dt.date.today().isoformat() not in page
    assert "chips, memory systems and interconnects → [Hardware](hardware.md)" in page
    vllm = page.index("### 2023-09-12 · [Efficient Memory Management")
    spec = page.index("### 2022-11-30 · [Fast Inference from Transformers")
    assert vllm < spec
    assert "(../sources/2309.06180.md)" in page and "fixed-size blocks" in page
    assert "[1 verified claim](../sources/2309.06180.md), each with its quote and page." in page
    assert "time to first token" not in page and UNVERIFIED_QUOTE not in page
    assert "Protein Folding" not in page


def test_frontier_page_shows_gaps_conflicts_proposals_and_theses(seeded: Path) -> None:
    _render(seeded)
    page = _read(seeded, "topics/serving/frontier.md")
    gap = page.index("### Gap 1: serving long contexts")
    assert page.index("[Efficient Memory Management", gap) < page.index("### Gap 2", gap)
    assert "paging cuts the memory long contexts waste" in page
    conflicts = page.index("## Open conflicts")
    assert page.index("[Fast Inference from Transformers", conflicts) > conflicts
    proposed = page[page.index("## Proposed gaps awaiting review") :]
    assert "### Gap 3: prefix caching across tenants" in proposed
    assert "`frontier gaps accept 3`" in proposed
    theses = page[page.index("## Theses") :]
    assert theses.index("**Supports**") < theses.index("Efficient Memory Management")
    assert theses.index("**Challenges**") < theses.index("Fast Inference from Transformers")
    assert "HBM bandwidth per dollar" not in _read(seeded, "topics/hardware/frontier.md")


def test_entity_and_source_pages(seeded: Path) -> None:
    _render(seeded)
    entity = _read(seeded, "entities/vllm.md")
    assert "- **Aliases:** vLLM, PagedAttention" in entity
    assert "### [Serving & runtime](../topics/serving.md)" in entity
    assert "[Efficient Memory Management" in entity and "(../sources/2309.06180.md)" in entity
    source = _read(seeded, "sources/2309.06180.md")
    for expected in (
        "- **Authors:** Woosuk Kwon, Zhuohan Li, Ion Stoica",
        "- **Date:** 2023-09-12",
        "- **arXiv:** [2309.06180](https://arxiv.org/abs/2309.06180)",
        "- **Categories:** cs.LG, cs.DC",
        "pages the KV cache of running requests (decided at the llm stage",
        "|  | metric | value | direction | baseline | model | hardware | page | quote |",
        "[vLLM](../entities/vllm.md)",
        "[Gap 1: serving long contexts without the KV cache dominating memory](../topics/serving/frontier.md)",
        "_What it is: written by smollm2-135m, prompt entry@1, checked against the abstract._",
    ):
        assert expected in source, expected
    untriaged = _read(seeded, "sources/2402.00002.md")
    assert "_Not triaged yet._" in untriaged and "_No entry written yet._" in untriaged
    assert "Out of field — far from every scope line" in _read(seeded, "sources/2401.00001.md")


def test_unverified_claims_are_kept_apart(seeded: Path) -> None:
    _render(seeded)
    source = _read(seeded, "sources/2309.06180.md")
    verified = source[source.index("## Verified claims") : source.index("## Unverified claims")]
    unverified = source[source.index("## Unverified claims") : source.index("## Relations")]
    assert "2.0-4.0" in verified and UNVERIFIED_QUOTE not in verified
    assert UNVERIFIED_QUOTE in unverified and "quote not found on page 9" in unverified
    assert "not facts" in unverified.splitlines()[0]
    assert "## Unverified claims" not in _read(seeded, "sources/2211.17192.md")


def test_every_relative_link_resolves(seeded: Path) -> None:
    _render(seeded)
    kb = seeded / "kb"
    checked = 0
    for path in kb.rglob("*.md"):
        for target in re.findall(r"\]\(([^)]+)\)", path.read_text(encoding="utf-8")):
            if target.startswith("https://"):
                continue
            assert not target.startswith("/"), f"{path}: absolute link {target}"
            assert (path.parent / target).resolve().is_file(), f"{path}: broken link {target}"
            checked += 1
    assert checked > 50


def _cells(row: str) -> int:
    """Cells in a pipe-table row, counting only unescaped pipes."""
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_hostile_text_cannot_break_tables_or_inject_html(seeded: Path) -> None:
    _render(seeded)
    source = _read(seeded, "sources/doi_10.5555_hostile.1.md")
    assert "<script>" not in source and "&lt;" not in source
    assert source.startswith("# \\<script\\>alert(1)\\</script\\> \\| Serving & \\[brackets\\]\n")
    rows = [line for line in source.splitlines() if line.startswith("|")]
    assert len(rows) == 3 and {_cells(row) for row in rows} == {9}
    assert "per GPU" in rows[2] and "H100 \\| SXM" in rows[2]
    for relpath in ("topics/hardware.md", "index.md", "entities/h100.md"):
        assert "<script>" not in _read(seeded, relpath)
    assert "names something untracked" in source and "no-such-entity" in source


def test_second_render_is_byte_identical_and_touches_nothing(seeded: Path) -> None:
    first = _render(seeded)
    before = _vault_files(seeded)
    stamps = {p: p.stat().st_mtime_ns for p in (seeded / "kb").rglob("*.md")}
    second = _render(seeded)
    assert second == {"written": 0, "unchanged": first["written"], "removed": 0}
    assert _vault_files(seeded) == before
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert not list((seeded / "kb").rglob("*.tmp"))


def test_pages_of_things_gone_from_the_store_are_removed(seeded: Path) -> None:
    _render(seeded)
    kb = seeded / "kb"
    (kb / "topics" / "retired").mkdir()
    (kb / "topics" / "retired" / "frontier.md").write_text("old\n")
    (kb / "entities" / "gone.md").write_text("old\n")
    (kb / "sources" / "figure.png").write_bytes(b"\x89PNG")
    (kb / "my-notes.md").write_text("mine\n")
    conn = connect(seeded / ".frontier" / "frontier.db")
    with transaction(conn):
        conn.execute("DELETE FROM papers WHERE id = '2401.00001'")
    conn.close()
    counts = _render(seeded)
    assert counts["removed"] == 3 and counts["written"] == 1  # the index's census changed
    assert not (kb / "sources" / "2401.00001.md").exists()
    assert not (kb / "topics" / "retired").exists() and not (kb / "entities" / "gone.md").exists()
    assert (kb / "sources" / "figure.png").exists() and (kb / "my-notes.md").exists()


LIQUID_TITLE = "Serving {{ site.github.token }} at {%raw%}scale"
LIQUID_ABSTRACT = "We render {% include secrets.md %} and {{{ page.x }}} and {#- note -#} as text."


def test_template_tags_from_papers_are_inert_but_read_the_same(seeded: Path) -> None:
    conn = connect(seeded / ".frontier" / "frontier.db")
    try:
        record = SourceRecord(
            source="arxiv",
            source_ref="test",
            arxiv_id="2405.00003",
            title=LIQUID_TITLE,
            published=dt.date(2024, 5, 1),
            abstract=LIQUID_ABSTRACT,
        )
        save_paper(conn, record, None, None)
    finally:
        conn.close()
    _render(seeded)
    for page in _vault_files(seeded).values():
        # Liquid (Jekyll, GitHub Pages) and Jinja open a tag at exactly these
        assert not re.search(rb"\{[{%#]", page)
    html = MarkdownIt().render(_read(seeded, "sources/2405.00003.md"))
    shown = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    assert LIQUID_TITLE in shown and LIQUID_ABSTRACT in shown
