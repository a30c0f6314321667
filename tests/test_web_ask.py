"""The ask page on the real server with a scripted remote model: the answer streams in, its
citations link to the cited page, made-up ones are removed, the model's HTML stays text, and an
off-field question gets a plain no without a model call. The answer is stored like the CLI's."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import db
from web_kb import built_kb, copy_kb, model_env, serving

from frontier.synthesize.ask import NO_SUPPORT

QUESTION = "How does vLLM manage KV cache memory with paged attention?"
ANSWER = (
    "vLLM keeps the KV cache in fixed-size blocks [1], so memory is not reserved ahead [42]. "
    "It writes <script>alert(5)</script> as text and <b>bold</b> too. "
    "Each request needs 913.7 GB."
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeOpenAI, Path]]:
    """The server over a copy of the KB, every model call going to the scripted server."""
    root = copy_kb(built_kb(tmp_path_factory), tmp_path_factory.mktemp("ask") / "kb")
    with FakeOpenAI([Reply(content=ANSWER)]) as model, serving(root, env=model_env(model)) as base:
        yield base, model, root


def post(base: str, path: str, form: dict[str, str]) -> tuple[int, list[bytes]]:
    """A form POST whose response body is read as it arrives: the pieces, in order."""
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    try:
        body = urlencode(form)
        headers = {"content-type": "application/x-www-form-urlencoded"}
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        pieces = []
        while piece := response.read1(65536):
            pieces.append(piece)
        return response.status, pieces
    finally:
        conn.close()


def token(base: str) -> str:
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    try:
        conn.request("GET", "/ask")
        page = conn.getresponse().read().decode()
    finally:
        conn.close()
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found and '<form id="ask-form"' in page
    return found.group(1)


def ask(base: str, question: str, **extra: str) -> tuple[int, list[bytes], str]:
    status, pieces = post(base, "/ask", {"csrf": token(base), "q": question, **extra})
    return status, pieces, b"".join(pieces).decode()


def test_the_answer_streams_then_comes_checked_with_linked_citations(
    site: tuple[str, FakeOpenAI, Path],
) -> None:
    base, model, root = site
    status, pieces, html = ask(base, QUESTION)
    assert status == 200
    first = next(i for i, p in enumerate(pieces) if b"vLLM keeps the" in p)
    last = next(i for i, p in enumerate(pieces) if b"bold" in p)
    assert first < last, "the answer arrives in more than one piece"
    assert model.requests[-1]["stream"] is True

    checked = html[html.index('<div class="checked"') :]
    row = db(root).execute("SELECT bundle, removed FROM asks ORDER BY id DESC").fetchone()
    source = json.loads(row["bundle"])[0]
    cite = re.search(r'<a class="cite" href="([^"]+)"[^>]*>\[1\]</a>', checked)
    assert cite and cite.group(1) == f"/paper/{source['paper_id']}/page/{source['pages'][0]}"
    assert source["paper_id"] == "2309.06180"
    assert "[42]" not in checked.split('<ol class="sources">')[0]
    assert "Removed citations to sources not in the list: [42]." in checked
    assert json.loads(row["removed"]) == [42]
    # an uncited sentence with a number the source cited beside it does not give: shown as
    # removed, with the reason
    assert "913.7" not in checked.split('<ol class="sources">')[0]
    assert "sentence(s) the sources do not bear out" in checked
    assert "states 913.7, which the sources cited beside it do not give" in checked
    assert "Tokens: 11 prompt (0 cached)" in checked and "model fake-model" in checked


def test_html_the_model_writes_is_shown_as_text(site: tuple[str, FakeOpenAI, Path]) -> None:
    base, _, _ = site
    _, _, html = ask(base, "Why does paged attention waste little KV cache memory?")
    assert "<script>alert" not in html and "<b>bold" not in html
    # in the draft, and in the checked answer or in the list of removed sentences
    assert html.count("&lt;script&gt;alert(5)&lt;/script&gt;") == 2
    assert "<script" not in html  # the page itself needs no script


def test_an_off_field_question_gets_no_without_a_model_call(
    site: tuple[str, FakeOpenAI, Path],
) -> None:
    base, model, root = site
    before = len(model.requests)
    status, _, html = ask(base, "Which rye flour hydration suits sourdough bread?")
    assert status == 200 and NO_SUPPORT in html and "No model call" in html
    assert len(model.requests) == before
    stored = db(root).execute("SELECT supported, answer FROM asks ORDER BY id DESC").fetchone()
    assert tuple(stored) == (0, NO_SUPPORT)


def test_a_stale_form_or_a_bad_choice_is_refused(site: tuple[str, FakeOpenAI, Path]) -> None:
    base, model, _ = site
    before = len(model.requests)
    assert post(base, "/ask", {"csrf": "forged", "q": QUESTION})[0] == 403
    status, pieces = post(base, "/ask", {"csrf": token(base), "q": "x", "preset": "horoscope"})
    assert status == 400 and b"No preset &#39;horoscope&#39;." in b"".join(pieces)
    assert len(model.requests) == before


def test_a_failing_model_ends_the_page_with_one_clear_line(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path / "kb")
    with (
        FakeOpenAI([Reply(status=400, content="no")]) as model,
        serving(root, env=model_env(model)) as base,
    ):
        status, _, html = ask(base, QUESTION)
    assert status == 200 and "The model gave no answer:" in html and "HTTP 400" in html
    assert html.rstrip().endswith("</html>")
    run = db(root).execute("SELECT status FROM runs WHERE command = 'ask'").fetchone()
    assert run[0] == "failed"
    assert db(root).execute("SELECT count(*) FROM asks").fetchone()[0] == 0


def test_a_model_not_asked_to_write_leaves_the_answering_sentences_and_says_why(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path_factory.mktemp("never") / "kb")
    never = {"FRONTIER_CURATE__MODEL_STEPS": '{"answer": "never"}'}
    with (
        FakeOpenAI([Reply(content=ANSWER)]) as model,
        serving(root, env=model_env(model) | never) as base,
    ):
        status, _, html = ask(base, QUESTION)
        assert status == 200 and not model.requests
    checked = html[html.index('<div class="checked"') :]
    assert "The model was not asked ([curate] model_steps sets answer to never)" in checked
    assert '<ul class="answering">' in checked and "vLLM keeps the" not in checked
