"""Synthesis on real PDFs: hybrid retrieval, cited answers, follow-ups, presets and research
maps. Citations the model makes up are removed and reported; every [n] left names a source."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import corpus, db, run_cli

from frontier.curate.vectors import ensure_chunk_vectors
from frontier.llm.embeddings import load_embedder
from frontier.synthesize.ask import MISSING_KIND, MISSING_SUBJECT, NO_SUPPORT, build_bundle
from frontier.synthesize.citations import check_citations, cited_numbers
from frontier.synthesize.grounding import ground_answer
from frontier.synthesize.retrieve import Retriever
from frontier.workspace import open_workspace

FILES = ("vllm-pagedattention.pdf", "distserve.pdf", "awq.pdf", "sarathi-serve.pdf", "gptq.pdf")
QUESTIONS = (
    Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "retrieval_questions.jsonl"
)
CITATION = re.compile(r"\[(\d+)\]")


def questions_on_files() -> list[dict]:
    """The retrieval benchmark's questions about the PDFs of this KB."""
    items = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return [item for item in items if item["file"] in FILES]


def paper_ids(conn: sqlite3.Connection) -> dict[str, str]:
    """Paper id by PDF file name."""
    return {Path(r[1]).name: r[0] for r in conn.execute("SELECT id, source_ref FROM papers")}


@pytest.fixture(scope="module")
def pdf_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with five shared PDFs read in full and every chunk embedded."""
    ws = tmp_path_factory.mktemp("synthesis") / "kb"
    assert run_cli("init", str(ws)).code == 0
    result = run_cli("-w", str(ws), "ingest", *(str(corpus("pdfs", f)) for f in FILES))
    assert result.code == 0, result.err
    workspace = open_workspace(ws)
    with contextlib.closing(workspace.connect()) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM papers")]
        assert ensure_chunk_vectors(conn, load_embedder(), ids) > 100
    return ws


@pytest.fixture
def model(pdf_kb: Path) -> Iterator[tuple[FakeOpenAI, dict[str, str]]]:
    """A remote model that cites sources the bundle does not have; fresh cache each time."""
    reply = json.dumps(
        {
            "overview": "Serving systems page the KV cache [1] and split prefill from decode [2][77].",
            "problems": [
                {"text": "Nobody measures paging overhead on long prompts [1].", "papers": [1, 99]}
            ],
            "takeaways": [
                {"text": "Adopt paged KV cache memory first [1].", "papers": [1]},
                {"text": "Paging cuts serving cost 913.7 times [1].", "papers": [1]},
            ],
            "names": [{"theme": 1, "name": "Paged KV cache memory"}, {"theme": 9, "name": "X"}],
        }
    )
    answer = (
        "PagedAttention keeps the KV cache in fixed-size blocks [1][99]. See also [2-3]. "
        "It serves 913.7 times more requests than any other system [1]."
    )
    with FakeOpenAI([Reply(content=answer), Reply(content=reply)]) as server:
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        yield server, env
    run_cli("-w", str(pdf_kb), "cache", "clear")


def test_citation_check_keeps_bundle_numbers_and_drops_the_rest() -> None:
    check = check_citations(
        "Blocks [1][9]. Ranges [2-3]; lists [1, 12]. Years [2019-2023].", {1, 2, 3}
    )
    assert check.text == "Blocks [1]. Ranges [2][3]; lists [1]. Years."
    assert check.cited == [1, 2, 3] and check.removed == [9, 12, *range(2019, 2024)]
    assert cited_numbers(check.text) == [1, 2, 3]


def test_hybrid_retrieval_finds_the_paper_and_the_page(pdf_kb: Path) -> None:
    items = questions_on_files()
    assert len(items) == 2 * len(FILES)
    conn = db(pdf_kb)
    ids = paper_ids(conn)
    retriever = Retriever(conn)
    paper_hits = page_hits = 0
    for item in items:
        top = retriever.retrieve(item["question"], 5)
        on_paper = [p for p in top if p.paper_id == ids[item["file"]]]
        paper_hits += bool(on_paper)
        page_hits += any(p.page in item["pages"] for p in on_paper)
        assert len({(p.paper_id, p.page) for p in top}) == len(top)  # pages, not chunks
    assert paper_hits == len(items)
    assert page_hits >= 0.8 * len(items)


def test_sources_reach_past_their_chunk_to_the_best_window_of_their_page(pdf_kb: Path) -> None:
    items = questions_on_files()
    conn = db(pdf_kb)
    retriever = Retriever(conn)
    found = in_chunks = 0
    for item in items:
        bundle = build_bundle(conn, retriever, item["question"], 6000)
        evidence = " ".join(item["evidence"].lower().split())
        texts = [" ".join(s.text.lower().split()) for s in bundle.sources]
        found += any(evidence in text for text in texts)
        in_chunks += any(evidence in text.split(" … ")[0] for text in texts)
    assert found > in_chunks and found >= 0.8 * len(items)


def test_quotes_for_an_uncited_answer_come_from_the_answer_pages(pdf_kb: Path) -> None:
    items = questions_on_files()
    conn = db(pdf_kb)
    ids = paper_ids(conn)
    retriever = Retriever(conn)
    on_page = 0
    for item in items:
        bundle = build_bundle(conn, retriever, item["question"], 6000)
        grounded = ground_answer("Nothing cited here at all.", bundle, item["question"])
        numbers = cited_numbers(grounded.text)
        assert grounded.quoted and 1 <= len(numbers) <= 3 and set(numbers) <= bundle.numbers()
        sources = [bundle.by_number(n) for n in numbers]
        on_page += any(
            s.paper_id == ids[item["file"]] and set(s.pages) & set(item["pages"]) for s in sources
        )
    assert on_page >= 0.6 * len(items)


def test_search_is_hybrid_with_the_same_json_shape(pdf_kb: Path) -> None:
    hits = run_cli("-w", str(pdf_kb), "search", "paged attention block table", "--json").json()
    assert hits and all(
        set(hit) == {"id", "title", "page", "section", "snippet", "score"} for hit in hits
    )
    assert hits[0]["title"].startswith("Efficient Memory Management")
    assert len({hit["id"] for hit in hits}) == len(hits)  # one line per paper


def test_a_question_without_support_gets_a_plain_no_and_no_model_call(pdf_kb: Path) -> None:
    result = run_cli("-w", str(pdf_kb), "ask", "Which rye flour hydration suits sourdough bread?")
    assert result.code == 0, result.err
    assert NO_SUPPORT in result.out
    assert db(pdf_kb).execute("SELECT count(*) FROM llm_calls").fetchone()[0] == 0


def test_a_question_on_a_system_no_paper_names_says_so_instead_of_answering_another(
    pdf_kb: Path,
) -> None:
    # the nearest passages would be about another quantization method: that is no answer
    asked = run_cli("-w", str(pdf_kb), "ask", "Which GPUs was SqueezeLLM evaluated on?", "--json")
    assert asked.code == 0, asked.err
    (answer,) = asked.json()
    assert not answer["supported"] and not answer["sources"]
    assert answer["answer"].startswith(NO_SUPPORT) and "names SqueezeLLM" in answer["answer"]
    # a system the KB's papers name is answered as before
    conn = db(pdf_kb)
    assert build_bundle(conn, Retriever(conn), "How does DistServe place prefill?", 6000).sources
    assert db(pdf_kb).execute("SELECT count(*) FROM llm_calls").fetchone()[0] == 0


def test_a_papers_byline_is_its_first_page_before_the_abstract_and_its_footnotes(
    pdf_kb: Path,
) -> None:
    from frontier.store.synthesis import paper_bylines

    conn = db(pdf_kb)
    ids = paper_ids(conn)
    bylines = paper_bylines(conn, [ids["gptq.pdf"], ids["awq.pdf"]])
    assert "Frantar" in bylines[ids["gptq.pdf"]] and "Alistarh" in bylines[ids["gptq.pdf"]]
    assert "MIT" in bylines[ids["awq.pdf"]]
    # a footnote of the first page past the abstract says who the authors are as well
    assert "elias.frantar@ist.ac.at" in bylines[ids["gptq.pdf"]]
    # the abstract and what follows it are not the byline
    for paper, byline in bylines.items():
        (abstract,) = conn.execute("SELECT abstract FROM papers WHERE id = ?", (paper,)).fetchone()
        assert abstract.split()[:6] and " ".join(abstract.split()[:6]) not in " ".join(
            byline.split()
        )
    assert paper_bylines(conn, []) == {}


def test_answers_cite_only_their_bundle_and_follow_ups_reuse_it(
    pdf_kb: Path, model: tuple[FakeOpenAI, dict[str, str]]
) -> None:
    server, env = model
    question = "How does vLLM organise the KV cache in GPU memory?"
    first = run_cli("-w", str(pdf_kb), "ask", question, "--json", env=env)
    assert first.code == 0, first.err
    (answer,) = first.json()
    numbers = {s["n"] for s in answer["sources"]}
    assert answer["supported"] and answer["removed_citations"] == [99]
    assert set(cited_numbers(answer["answer"])) <= numbers
    assert all(s["pages"] for s in answer["sources"])  # every source is a page of a paper
    assert "[99]" not in answer["answer"] and "913.7" not in answer["answer"]
    (dropped,) = [d for d in answer["dropped_sentences"] if "913.7" in d["sentence"]]
    assert "913.7" in dropped["reason"]
    assert answer["answering_sentences"]  # code's answering sentences lead every answer
    assert answer["answer"].startswith(f'- "{answer["answering_sentences"][0]["sentence"]}"')
    follow = run_cli(
        "-w", str(pdf_kb), "ask", "--follow-up", "And what block size?", "--json", env=env
    )
    assert follow.code == 0, follow.err
    assert [s["paper_id"] for s in follow.json()[0]["sources"]] == [
        s["paper_id"] for s in answer["sources"]
    ]
    prompts = [r["messages"][-1]["content"] for r in server.requests]  # type: ignore[index]
    shared = prompts[0].split("The source sentences that answer")[0]
    assert prompts[1].startswith(shared) and len(shared) > 1000  # the bundle leads
    stored = (
        db(pdf_kb)
        .execute("SELECT question, removed, dropped FROM asks WHERE supported = 1")
        .fetchall()
    )
    assert [r[0] for r in stored] == [question, "And what block size?"]
    assert json.loads(stored[0][1]) == [99]
    assert [d["sentence"] for d in json.loads(stored[0][2])] == [
        d["sentence"] for d in answer["dropped_sentences"]
    ]


def test_presets_and_bad_requests(pdf_kb: Path, model: tuple[FakeOpenAI, dict[str, str]]) -> None:
    server, env = model
    result = run_cli("-w", str(pdf_kb), "ask", "--preset", "roadmap", env=env)
    assert result.code == 0, result.err
    assert "implementation roadmap" in str(server.requests[-1]["messages"])
    bad = run_cli("-w", str(pdf_kb), "ask", "--preset", "horoscope", "anything")
    assert bad.code == 1 and "unknown preset" in bad.err and "Traceback" not in bad.err
    topic = run_cli("-w", str(pdf_kb), "ask", "-t", "nowhere", "anything")
    assert topic.code == 1 and "unknown topic" in topic.err


def test_map_removes_made_up_citations_and_proposes_gaps(
    pdf_kb: Path, model: tuple[FakeOpenAI, dict[str, str]]
) -> None:
    _, env = model
    result = run_cli("-w", str(pdf_kb), "map", "--json", env=env)
    assert result.code == 0, result.err
    data = result.json()
    assert sorted(r["n"] for r in data["removed_citations"]) == [77, 99]
    by_model = [t["text"] for t in data["takeaways"] if t["by"] != "code"]
    assert by_model == ["Adopt paged KV cache memory first [1]."]
    assert [t for t in data["takeaways"] if t["by"] == "code"]  # what code found stays first
    dropped = {(d["where"], d["sentence"]): d["reason"] for d in data["removed_sentences"]}
    assert "913.7" in dropped["takeaways", "Paging cuts serving cost 913.7 times [1]."]
    # a name the theme's papers do not use is refused; the code's name, a phrase they share, stays
    assert "the code's name stays" in dropped["theme name", "Paged KV cache memory"]
    names = [t["name"] for t in data["themes"]]
    assert len(set(names)) == len(names) and all(t["named_by"] == "code" for t in data["themes"])
    path = Path(data["path"])
    assert path == pdf_kb / "kb" / "maps" / f"{dt.date.today().isoformat()}-all.md"
    assert_citations_resolve(path.read_text(), len(FILES))
    check_section = path.read_text().split("## Citation check")[1]
    assert "takeaways: Paging cuts serving cost 913.7 times" in check_section
    assert sum(len(t["members"]) for t in data["themes"]) + len(data["apart"]) == len(FILES)
    proposed = run_cli("-w", str(pdf_kb), "gaps", "proposed", "--json").json()
    texts = [g["text"] for g in proposed]
    assert "Nobody measures paging overhead on long prompts [1]." in texts
    assert len(texts) == len(data["open_problems"]) and all(
        "map " in g["evidence"] for g in proposed
    )
    accepted = run_cli("-w", str(pdf_kb), "gaps", "accept", str(proposed[0]["id"]))
    assert accepted.code == 0, accepted.err
    again = run_cli("-w", str(pdf_kb), "map", "--json", env=env)
    assert again.code == 0 and not any(g["new"] for g in again.json()["proposed_gaps"])
    rendered = run_cli("-w", str(pdf_kb), "render")
    assert rendered.code == 0 and path.exists()  # the vault keeps the map: it lives in the store


def assert_citations_resolve(markdown: str, n_papers: int) -> None:
    body = markdown.split("## Citation check")[0]
    cited = [int(n) for n in CITATION.findall(body)]
    assert cited and all(1 <= n <= n_papers for n in cited)


@pytest.mark.slow
def test_map_and_answer_on_the_embedded_model(pdf_kb: Path) -> None:
    # two papers: each part of a map is one call whatever the count; more papers only make
    # the small model's prompts longer
    result = run_cli("-w", str(pdf_kb), "map", "--limit", "2", "--json", timeout=800)
    assert result.code == 0, result.err  # what the small model could not write, code found
    data = result.json()
    assert sum(len(t["members"]) for t in data["themes"]) + len(data["apart"]) == 2
    assert_citations_resolve(Path(data["path"]).read_text(), 2)
    asked = run_cli("-w", str(pdf_kb), "ask", "How does vLLM reduce KV cache waste?", "--json")
    assert asked.code == 0, asked.err
    (answer,) = asked.json()
    assert answer["supported"] and answer["answer"]
    assert set(cited_numbers(answer["answer"])) <= {s["n"] for s in answer["sources"]}


# questions none of the code was tuned on, and the README's example
WALKED = (
    "Which GPUs was DistServe evaluated on?",
    "How much faster is AWQ's kernel than the FP16 implementation?",
    "Why does Sarathi-Serve split prefills into chunks?",
)


def says_nothing(sentence: str, question: str) -> str:
    """An independent reading of a shown sentence: what would make it empty to a reader."""
    body = re.sub(r"\[\d+\]", "", sentence).strip(" -\"'")
    words = re.findall(r"[A-Za-z][A-Za-z0-9'-]*", body)
    tokens = body.replace(",", " ").split()
    if len(words) < 4:
        return "a fragment"
    if sum(any(c.isdigit() for c in t) for t in tokens) > 0.6 * len(tokens):
        return "a bare list"
    lowered = [w.lower() for w in words]
    runs = [tuple(lowered[i : i + 4]) for i in range(len(lowered) - 3)]
    if len(set(runs)) < len(runs):
        return "a tautology"
    if set(lowered) <= set(re.findall(r"[a-z0-9'-]+", question.lower())) | {"the", "a", "it"}:
        return "a question echo"
    if re.search(r"@|\bUniversity\b|\bInstitute\b", body):
        return "an author line"
    return ""


def test_embedded_answers_lead_with_answering_sentences_and_show_none_that_say_nothing(
    pdf_kb: Path,
) -> None:
    # the model is asked whatever its record: what it writes is what this test reads
    always = {"FRONTIER_CURATE__MODEL_STEPS": '{"answer": "always"}'}
    for question in WALKED:
        asked = run_cli("-w", str(pdf_kb), "ask", question, "--json", env=always, timeout=600)
        assert asked.code == 0, asked.err
        (answer,) = asked.json()
        assert answer["answering_sentences"], question
        pages = {s["n"]: s["pages"] for s in answer["sources"]}
        for line in answer["answer"].splitlines():
            if line.startswith((MISSING_KIND.split("{")[0], MISSING_SUBJECT.split("{")[0])):
                continue  # says the quotes below it hold no answer: context, not an answer
            for sentence in re.split(r"(?<=[.!?\]])\s+(?=[-A-Z\"])", line.strip()):
                if sentence:
                    assert not says_nothing(sentence, question), (
                        says_nothing(sentence, question),
                        sentence,
                    )
                    assert cited_numbers(sentence) and all(
                        pages[n] for n in cited_numbers(sentence)
                    )
        if "DistServe" in question:
            assert re.search(r"\bA100\b", answer["answer"]), answer["answer"]


def test_compare_thinking_answers_twice_with_the_tokens_of_each(pdf_kb: Path) -> None:
    answer = "PagedAttention keeps the KV cache in fixed-size blocks [1]."
    replies = [Reply(content=answer), Reply(content=answer, reasoning="First the blocks.")]
    with FakeOpenAI(replies) as server:
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        question = "How does vLLM keep KV cache memory from being wasted?"
        result = run_cli(
            "-w",
            str(pdf_kb),
            "--no-cache",
            "ask",
            "--compare-thinking",
            question,
            "--json",
            env=env,
        )
        assert result.code == 0, result.err
        off, on = result.json()
        assert (off["thinking"], on["thinking"]) == (False, True)
        assert on["reasoning"] == "First the blocks." and not off["reasoning"]
        assert off["usage"]["prompt_tokens"] > 0 and off["seconds"] >= 0
        assert off["answering_sentences"] == on["answering_sentences"]  # the same sources
        printed = run_cli("-w", str(pdf_kb), "ask", "--compare-thinking", question, env=env)
        assert printed.code == 0, printed.err
        assert "without reasoning" in printed.out and "with reasoning" in printed.out
        assert "reasoning tokens" in printed.out and "cost (USD)" in printed.out
        both = run_cli("-w", str(pdf_kb), "ask", "--compare-thinking", question, "again?", env=env)
        assert both.code != 0 and "one question" in both.err


def test_an_answer_ends_at_its_deadline_with_the_answering_sentences(pdf_kb: Path) -> None:
    question = "How does vLLM organise the KV cache in GPU memory?"
    late = 60.0  # the model replies this late: long after the deadline
    with FakeOpenAI([Reply(content="Too late to be shown [1].", delay=late)]) as server:
        env = {
            "FRONTIER_LLM__BASE_URL": server.url,
            "FRONTIER_LLM__BACKEND": "vllm",
            "FRONTIER_LLM__ANSWER_DEADLINE": "10",
        }
        began = time.monotonic()
        result = run_cli("-w", str(pdf_kb), "ask", question, "--json", env=env)
        took = time.monotonic() - began
    assert result.code == 0, result.err
    (answer,) = result.json()
    assert answer["deadline_passed"] and answer["answering_sentences"]
    assert answer["answer"].startswith(f'- "{answer["answering_sentences"][0]["sentence"]}"')
    assert "Too late" not in answer["answer"] and took < late
    row = (
        db(pdf_kb)
        .execute(
            "SELECT outcome, error, attempts FROM llm_calls WHERE command = 'ask' ORDER BY id DESC"
        )
        .fetchone()
    )
    assert tuple(row) == ("cancelled", "the answer's deadline passed", 1)
    run = db(pdf_kb).execute("SELECT summary FROM runs ORDER BY id DESC").fetchone()[0]
    assert json.loads(run)["deadline_passed"] == 1
