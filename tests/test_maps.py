"""Research maps by code: themes from what the papers are about, named by a phrase they share;
open problems the papers state, quoted on their page; takeaways that are a typed claim or a
quoted result sentence of a cited paper. A map of a small real KB is walked and checked."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import corpus, db, run_cli

from frontier.model import Chunk
from frontier.synthesize.extracts import OTHER_LEVER, PaperFacts, lever, open_problems
from frontier.synthesize.themes import MAX_SHARE, contains_phrase, group, key_phrase, phrases

FILES = (
    "speculative-decoding-leviathan.pdf",
    "staged-speculative-decoding.pdf",
    "gptq.pdf",
    "awq.pdf",
    "distserve.pdf",
    "sarathi-serve.pdf",
)
NEVER_ASK = {"FRONTIER_CURATE__MODEL_STEPS": '{"map": "never"}'}


def test_a_theme_is_named_by_the_phrase_its_papers_share_and_the_others_lack() -> None:
    spec = [
        "Fast inference via speculative decoding. We draft tokens with a small model.",
        "Staged speculative decoding. We restructure the draft batch as a tree.",
        "DistillSpec: better speculative decoding by distilling the draft model.",
    ]
    others = ["GPTQ: post-training quantization of weights.", "Paged KV-cache memory for serving."]
    assert key_phrase(spec, others) == "Speculative decoding"
    kv = ["KV-cache management with pages.", "A KV cache in virtual memory."]
    assert key_phrase(kv, spec) == "KV-cache management" or key_phrase(kv, spec).lower() in (
        "kv-cache",
        "kv cache",
    )
    assert key_phrase(kv, spec, taken={"kv cache", "kv-cache"}) != "KV cache"
    # a function word or the field's own words name nothing
    assert key_phrase(["An efficient model.", "An efficient model for LLM inference."], []) == ""
    assert ("speculative", "decoding") in phrases(spec[0])


def test_a_theme_is_named_by_the_more_specific_phrase_when_its_papers_say_it() -> None:
    spec = [
        "Speculative decoding with a small draft model. Decoding gets faster.",
        "Tree-based speculative decoding for faster decoding.",
        "Early exit layers draft for speculative decoding.",
        "Copying drafts from references to speed up decoding.",
    ]
    others = ["Prefill and decoding disaggregated.", "A paged cache.", "Weight quantization."]
    assert key_phrase(spec, others) == "Speculative decoding"
    kv = ["Reusing the key-value (KV) cache.", "Sparse reads of the KV cache.", "A KV cache once."]
    assert key_phrase(kv, ["Weight quantization.", "Request scheduling."]) == "KV cache"


def test_a_name_is_a_phrase_of_the_texts_as_its_words_are_matched() -> None:
    texts = ["We manage the KV-cache in blocks.", "Weight quantizations for serving."]
    assert contains_phrase("KV cache", texts)
    assert contains_phrase("weight quantization", texts)
    assert not contains_phrase("cache quantization", texts)


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_themes_are_bounded_and_a_paper_close_to_none_stands_apart() -> None:
    near_a = [_unit(1, 0.05 * i, 0, 0, 0) for i in range(4)]
    near_b = [_unit(0, 1, 0.05 * i, 0, 0) for i in range(4)]
    near_c = [_unit(0, 0, 1, 0.05 * i, 0) for i in range(4)]
    lone = [_unit(0, 0, 0, 0, 1)]
    grouping = group(np.stack([*near_a, *near_b, *near_c, *lone]))
    assert sorted(map(sorted, grouping.themes)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert grouping.apart == [12]
    many = np.stack([_unit(1, 0.01 * i, 0, 0) for i in range(12)] + [_unit(0, 1, 0, 0)] * 3)
    assert max(len(t) for t in group(many).themes) <= math.ceil(MAX_SHARE * len(many))


def test_open_problems_are_the_papers_own_closing_statements() -> None:
    chunks = [
        Chunk(
            ord=0,
            section="7 Conclusion",
            page=12,
            text=(
                "We presented a scheduler for serving. We leave the extension of our scheduler to "
                "multi-node deployments to future work. Our design does not support preemption of "
                "running requests yet. The results confirm the design."
            ),
            n_tokens=0,
        ),
        Chunk(
            ord=1,
            section="2 Related Work",
            page=3,
            text="Orca does not support paged memory, and we leave nothing to future work here.",
            n_tokens=0,
        ),
        Chunk(
            ord=2,
            section="5 Evaluation",
            page=9,
            text=(
                "Prior systems do not support long prompts. We measure latency on A100 GPUs "
                "with batch sizes from 1 to 64."
            ),
            n_tokens=0,
        ),
    ]
    found = open_problems(4, chunks)
    assert [(q.page, q.text.split()[:3]) for q in found] == [
        (12, ["We", "leave", "the"]),
        (12, ["Our", "design", "does"]),
    ]
    assert all(q.number == 4 for q in found)


def _facts(title: str, contribution: str) -> PaperFacts:
    return PaperFacts(1, title, "2024-01", title.split(":")[0], contribution, "", (), (), ())


def test_takeaways_go_under_the_part_of_the_stack_the_paper_changes() -> None:
    assert lever(_facts("GPTQ: Post-training quantization", "We quantize weights to 3 bits.")) == (
        "weight and activation precision"
    )
    assert lever(_facts("DistServe", "We disaggregate prefill and decoding onto GPUs.")) == (
        "the request scheduler"
    )
    assert lever(_facts("SpecInfer", "We verify draft token trees speculatively.")) == (
        "the decoding algorithm"
    )
    assert lever(_facts("A study", "We measure energy of data centres.")) == OTHER_LEVER


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("maps") / "kb"
    assert run_cli("init", str(ws)).code == 0
    result = run_cli("-w", str(ws), "ingest", *(str(corpus("pdfs", f)) for f in FILES))
    assert result.code == 0, result.err
    return ws


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def test_a_map_by_code_says_something_in_every_section_and_quotes_its_papers(
    small_kb: Path,
) -> None:
    result = run_cli("-w", str(small_kb), "map", "--json", env=NEVER_ASK)
    assert result.code == 0, result.err
    data = result.json()
    with db(small_kb) as conn:
        bundle = json.loads(
            conn.execute("SELECT bundle FROM maps WHERE id = ?", (data["id"],)).fetchone()[0]
        )
        pages = {
            (r[0], r[1]): _squash(r[2])
            for r in conn.execute("SELECT paper_id, page, text FROM pages")
        }
        abstracts = {
            r[0]: _squash(r[1] or "") for r in conn.execute("SELECT id, abstract FROM papers")
        }
        files = {r[0]: Path(r[1]).name for r in conn.execute("SELECT id, source_ref FROM papers")}
    paper_of = {s["number"]: s["paper_id"] for s in bundle}
    theme_of = {
        files[paper_of[n]]: i for i, theme in enumerate(data["themes"]) for n in theme["members"]
    }
    # papers of one line of work share a theme, whatever names their systems carry
    assert theme_of.get("gptq.pdf") == theme_of.get("awq.pdf") is not None, theme_of
    spec = ("speculative-decoding-leviathan.pdf", "staged-speculative-decoding.pdf")
    assert theme_of.get(spec[0]) == theme_of.get(spec[1]) is not None, theme_of
    said = {
        p["number"]: f"{s['title']}. {abstracts[s['paper_id']]}"
        for p in data["papers"]
        for s in bundle
        if s["number"] == p["number"]
    }
    assert data["themes"] and data["chronology"] and data["open_problems"] and data["takeaways"]
    assert not data["overview"] and data["model"] == ""  # the model was not asked
    assert sum(len(t["members"]) for t in data["themes"]) + len(data["apart"]) == len(FILES)
    for theme in data["themes"]:
        assert contains_phrase(theme["name"], [said[n] for n in theme["members"]]), theme
        assert not re.search(r",\s*\w+,", theme["name"])  # a phrase, not a list of stems
        assert all(f"[{n}]" in theme["summary"] for n in theme["members"])
    for item in [*data["open_problems"], *data["takeaways"]]:
        quote = item["quote"] or item["text"]
        quote = _squash(re.sub(r"\s*\[\d+\]$", "", quote))
        where = paper_of[item["papers"][0]]
        text = abstracts[where] if item["page"] is None else pages[(where, item["page"])]
        assert quote[:100] in text, item
    markdown = Path(data["path"]).read_text()
    for heading in ("## Overview", "## Themes", "## Open problems", "## Takeaways"):
        section = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
        assert section.strip() and "_none" not in section and "No overview" not in section
    assert data["notes"] == [
        "the model was not asked for prose: [curate] model_steps sets map to never"
    ]


def test_a_deep_dive_leads_with_what_code_found_in_its_papers(small_kb: Path) -> None:
    env = {
        "FRONTIER_LLM__ANSWER_DEADLINE": "0.5"
    }  # the sentences code found, before any model text
    with db(small_kb) as conn:
        abstracts = [_squash(r[0] or "") for r in conn.execute("SELECT abstract FROM papers")]
    for preset in ("compare", "roadmap"):
        result = run_cli("-w", str(small_kb), "ask", "--preset", preset, "--json", env=env)
        assert result.code == 0, result.err
        (answer,) = result.json()
        quoted = re.findall(r'^- "(.+)" \[\d+\]$', answer["answer"], re.M)
        assert quoted, answer["answer"]
        assert all(any(_squash(q)[:100] in a for a in abstracts) for q in quoted), preset
