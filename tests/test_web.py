"""The web UI: every page from a demo-like KB, escaping, 404s, read-only by default, no file
outside the workspace, loopback unless asked; pages through the real server where it matters."""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import db, run_cli
from starlette.testclient import TestClient
from web_kb import (
    HOSTILE_ID,
    HOSTILE_TITLE,
    PROPOSED_GAP,
    SPEC,
    VLLM,
    built_kb,
    copy_kb,
    mapped_kb,
    serving,
)

from frontier.store.browse import read_only
from frontier.web import views
from frontier.web.app import create_app
from frontier.web.links import Links
from frontier.web.pages import PAGES, Page
from frontier.web.server_state import KBCache
from frontier.web.templating import environment, render
from frontier.workspace import open_workspace

# where each page of PAGES is tried: its positional parts and its query, when it has any
TRIED_AT: dict[str, list[tuple[tuple[object, ...], dict[str, str]]]] = {
    "topic": [(("serving",), {}), (("hardware",), {})],
    "frontier": [(("serving",), {})],
    "paper": [((VLLM,), {}), ((HOSTILE_ID,), {})],
    "page": [((VLLM, 1), {})],
    "entity": [(("vllm",), {}), (("a100",), {})],
    "claims": [((), {}), ((), {"hardware": "a100", "sort": "value_desc"})],
    "results": [((), {}), ((), {"metric": "throughput", "hardware": "a100", "topic": "serving"})],
    "search": [((), {"q": "paged attention"})],
    "static": [(("style.css",), {})],
}
# the pages this KB has none of, and where they are tried
TRIED_ELSEWHERE = {
    "login": "only a public server has one: test_web_public.py",
    "map": "a stored map: test_maps_list_the_stored_maps_and_show_one_with_working_links",
    "digest": "a stored digest: test_digest.py",
}


def shown_pages() -> list[tuple[Page, str]]:
    """Every page of PAGES a GET shows, with each path it is tried at."""
    shown = []
    for page in PAGES:
        if "GET" not in page.methods or page.name in TRIED_ELSEWHERE:
            continue
        assert "{" not in page.path or page.name in TRIED_AT, f"where is {page.name} tried?"
        for args, query in TRIED_AT.get(page.name, [((), {})]):
            shown.append((page, Links().url(page.name, *args, **query)))
    return shown


HTML_PATHS = [path for page, path in shown_pages() if page.template]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_kb(tmp_path_factory)


@pytest.fixture(scope="module")
def client(kb: Path) -> Iterator[TestClient]:
    with TestClient(create_app(open_workspace(kb)), base_url="http://127.0.0.1") as c:
        yield c


def text_of(html: str) -> str:
    """The visible text, roughly: tags dropped, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_every_page_answers_from_its_template_with_strict_headers(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, rendered = environment(), []
    read = env.get_template

    def recorded(name: str, *args: Any, **kwargs: Any) -> Any:
        rendered.append(name)
        return read(name, *args, **kwargs)

    monkeypatch.setattr(env, "get_template", recorded)
    for page, path in shown_pages():
        rendered.clear()
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.headers["content-type"].startswith("text/html")
        assert html == (page.template is not None), path
        assert page.template is None or page.template in rendered, (path, rendered)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"


def test_topics_list_and_topic_entries_newest_first(client: TestClient) -> None:
    home = client.get("/").text
    for title in ("Serving &amp; runtime", "Models", "Hardware", "Inference economics"):
        assert title in home
    assert '<svg class="chart"' in home and "Papers per topic per" in home
    topic = client.get("/topic/serving").text
    dates = re.findall(r'<span class="date">([^<]+)</span>', topic)
    assert dates == sorted(dates, reverse=True) and len(dates) > 10
    assert "fixed" not in dates
    assert "1 verified claim , each with its quote and page." in text_of(topic)
    paper = text_of(client.get("/paper/2309.06180").text)
    assert "★ throughput 2-4× higher FasterTransformer and Orca OPT-13B A100" in paper
    assert "time to first token" not in topic  # unverified: never shown as a fact


def test_frontier_shows_gaps_conflicts_and_the_papers_bearing_on_them(client: TestClient) -> None:
    page = client.get("/topic/serving/frontier").text
    gaps = page[page.index("<h2>Open gaps</h2>") : page.index("<h2>Open conflicts</h2>")]
    assert f'href="/paper/{VLLM}"' in gaps and "paging cuts the memory" in gaps
    conflicts = page[page.index("<h2>Open conflicts</h2>") : page.index("<h2>Proposed")]
    assert f'href="/paper/{SPEC}"' in conflicts and "&lt;u&gt;disagree&lt;/u&gt;" in conflicts
    proposed = page[page.index("<h2>Proposed") :]
    assert PROPOSED_GAP in proposed and "frontier gaps accept" in proposed
    assert "<form" not in page  # read-only: no edit buttons


def test_paper_page_links_each_claim_to_its_page(client: TestClient) -> None:
    page = client.get(f"/paper/{VLLM}").text
    link = re.search(rf'href="(/paper/{VLLM}/page/1\?claim=\d+)"', page)
    assert link, "the verified claim links to page 1"
    for expected in ("Woosuk Kwon", "Pages stored</dt><dd>16", 'href="/entity/vllm"'):
        assert expected in page
    assert "Unverified claims (not confirmed in the paper; not facts)" in page
    shown = client.get(link.group(1)).text
    marked = re.search(r'<mark id="quote">(.*?)</mark>', shown, re.S)
    assert marked and " ".join(marked.group(1).split()).startswith("vLLM improves the throughput")
    assert "Page 1 of 16" in shown


def test_claims_explorer_filters_and_sorts_by_value(client: TestClient) -> None:
    everything = client.get("/claims").text
    assert "time to first token" not in everything  # verified claims only
    rows = client.get("/claims?sort=value_desc").text
    values = [float(v) for v in re.findall(r'data-value="([\d.]+)"', rows)]
    assert values == sorted(values, reverse=True) and len(values) >= 6
    a100 = client.get("/claims?hardware=A100").text
    assert "2-4×" in a100 and "3.16x" not in a100
    assert re.search(r'<span id="claim-count">3</span>', a100)
    assert "Verified speed-ups by method family" in a100 and "Speculative decoding" in everything


def test_search_is_the_hybrid_retrieval(client: TestClient) -> None:
    page = client.get("/search", params={"q": "paged attention KV cache memory"}).text
    first = re.search(r'<a class="paper" href="/paper/([^"]+)"', page)
    assert first and first.group(1) == VLLM
    assert "<mark>" in page
    assert "No matches." in client.get("/search", params={"q": "zzzqqq"}).text


def test_maps_list_the_stored_maps_and_show_one_with_working_links(
    client: TestClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert "No research maps yet: run <code>frontier map</code>." in client.get("/maps").text
    root = mapped_kb(tmp_path_factory)
    (map_id,) = db(root).execute("SELECT id FROM maps").fetchone()
    with serving(root) as base:
        status, listing = _raw_get(base, "/maps")
        assert status == 200
        row = re.search(r"<tbody>\s*<tr>(.*?)</tr>", listing, re.S)
        assert row and f'href="/maps/{map_id}">Serving &amp; runtime</a>' in row.group(1)
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))
        assert cells == [dt.date.today().isoformat(), "21", "fake-model"]
        status, page = _raw_get(base, f"/maps/{map_id}")
        assert status == 200 and "<h1>Research map: Serving &amp; runtime</h1>" in page
        assert "page the KV cache" in page and "[1]</a> &amp; speculate" in page
        assert "[42]</a>" not in page and "[42] in overview, [99] in open problems" in page
        # the model's theme name is no phrase of the theme's papers: the code's name stays
        assert "sentence(s) or name(s) the papers do not bear out" in page
        assert "theme name: Paged KV cache serving" in page
        links = set(re.findall(r'href="(/paper/[^"]+)"', page))
        assert f"/paper/{VLLM}/page/1" in links and len(links) > 20
        for link in links:
            assert _raw_get(base, link)[0] == 200, link
        assert _raw_get(base, "/maps/999")[0] == 404


def test_usage_shows_tokens_cache_hits_and_a_plot(client: TestClient) -> None:
    page = client.get("/usage").text
    assert "Tokens per run" in page and page.count('class="bar"') >= 6
    assert '<td class="num">7200</td>' in page


def test_unknown_things_are_404_with_one_clear_line(client: TestClient) -> None:
    cases = {
        "/paper/9999.99999": "No paper with id &#39;9999.99999&#39;.",
        f"/paper/{VLLM}/page/99": f"{VLLM} has no page 99 (it has 16).",
        "/topic/nope": "No topic &#39;nope&#39;.",
        "/entity/nope": "No entity &#39;nope&#39;.",
        "/no/such/page": "Not Found",
    }
    for path, message in cases.items():
        response = client.get(path)
        assert response.status_code == 404, path
        assert f'<p class="error">{message}</p>' in response.text, path


def test_strings_from_papers_and_models_are_escaped_everywhere(client: TestClient) -> None:
    hostile = "/paper/" + HOSTILE_ID.replace(":", "%3A").replace("/", "%2F")
    for path in [
        *HTML_PATHS,
        hostile,
        "/search?q=script+alert",
        "/search?q=<script>alert(3)</script>",
    ]:
        html = client.get(path).text
        for raw in ("<script>alert", "<img src=x", "<b>", "<i>", "<u>", "<em>", 'href="javascript'):
            assert raw not in html, (path, raw)
    page = client.get(hostile).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in page
    assert text_of(page).count(HOSTILE_TITLE.replace("<", "&lt;").replace(">", "&gt;")) >= 1


def test_no_write_endpoint_unless_allowed(kb: Path, tmp_path: Path) -> None:
    root = copy_kb(kb, tmp_path / "kb")
    gap = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]
    with TestClient(create_app(open_workspace(root)), base_url="http://127.0.0.1") as c:
        refused = c.post(f"/gap/{gap}/accept", data={"csrf": "x"})
        assert refused.status_code == 403 and "--allow-edits" in refused.text
        assert c.get(f"/gap/{gap}/accept").status_code == 405
    status = db(root).execute("SELECT status FROM gaps WHERE id = ?", (gap,)).fetchone()[0]
    assert status == "proposed"


def test_allowed_edits_are_post_with_the_page_token(kb: Path, tmp_path: Path) -> None:
    root = copy_kb(kb, tmp_path / "kb")
    gap = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]
    app = create_app(open_workspace(root), allow_edits=True)
    with TestClient(app, base_url="http://127.0.0.1", follow_redirects=False) as c:
        page = c.get("/topic/serving/frontier").text
        token = re.search(r'name="csrf" value="([^"]+)"', page)
        assert token and f'action="/gap/{gap}/accept"' in page
        assert c.post(f"/gap/{gap}/accept", data={"csrf": "forged"}).status_code == 403
        done = c.post(f"/gap/{gap}/accept", data={"csrf": token.group(1)})
        assert done.status_code == 303 and done.headers["location"] == "/topic/serving/frontier"
        again = c.post(f"/gap/{gap}/reject", data={"csrf": token.group(1)})
        assert again.status_code == 409 and "only proposed gaps" in again.text
    status = db(root).execute("SELECT status FROM gaps WHERE id = ?", (gap,)).fetchone()[0]
    assert status == "open"


def test_forms_carry_a_token_of_their_session_and_come_from_this_site(
    kb: Path, tmp_path: Path
) -> None:
    root = copy_kb(kb, tmp_path / "kb")
    gap = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]
    app = create_app(open_workspace(root), allow_edits=True)
    with TestClient(app, base_url="http://127.0.0.1", follow_redirects=False) as c:
        page = c.get("/topic/serving/frontier")
        cookie = page.headers["set-cookie"]
        assert cookie.startswith("frontier_session=") and "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie and page.headers["cache-control"] == "no-store"
        assert "cache-control" not in c.get("/claims").headers  # no token: cached as before
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token
        form = {"csrf": token.group(1)}
        for foreign in ({"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
            refused = c.post(f"/gap/{gap}/accept", data=form, headers=foreign)
            assert refused.status_code == 403 and "sent from another site" in refused.text
        with TestClient(app, base_url="http://127.0.0.1") as other:
            other.get("/")  # a session of its own
            assert other.post(f"/gap/{gap}/accept", data=form).status_code == 403
        assert c.get("/login").status_code == 404  # only a public server has one
        same = {"origin": "null", "sec-fetch-site": "same-origin"}  # as a browser posts our forms
        assert c.post(f"/gap/{gap}/accept", data=form, headers=same).status_code == 303
    assert db(root).execute("SELECT status FROM gaps WHERE id = ?", (gap,)).fetchone()[0] == "open"


def _raw_get(base: str, path: str, host: str | None = None) -> tuple[int, str]:
    """A GET with the path sent exactly as given (no client-side dot-segment clean-up)."""
    address = base.removeprefix("http://")
    conn = http.client.HTTPConnection(address, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host or address)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


TRAVERSALS = [
    "/static/../../../../etc/passwd",
    "/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/static//etc/passwd",
    "/static/%2Fetc%2Fpasswd",
    "/paper/../../../../etc/passwd",
    "/paper/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/paper/%2e%2e%2f%2e%2e%2ffrontier.toml",
    "/paper/%2Fetc%2Fpasswd/page/1",
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/frontier.toml",
    "//etc/passwd",
    "/entity/..%2f..%2ffrontier.toml",
    "/static/..%5c..%5cfrontier.toml",
]


def test_no_route_reads_a_file_outside_the_workspace(kb: Path) -> None:
    config = (kb / "frontier.toml").read_text()
    with serving(kb) as base:
        assert _raw_get(base, "/static/style.css")[0] == 200
        for path in TRAVERSALS:
            status, body = _raw_get(base, path)
            assert status in (400, 404), (path, status)
            assert "root:" not in body and "[field]" not in body and config[:60] not in body


def test_the_server_answers_only_to_loopback_host_names(kb: Path) -> None:
    with serving(kb) as base:
        assert _raw_get(base, "/", host="localhost")[0] == 200
        status, _ = _raw_get(base, "/", host="evil.example")
        assert status == 400  # a DNS-rebinding page cannot read the KB


def test_non_loopback_needs_public(kb: Path) -> None:
    refused = run_cli("-w", str(kb), "serve", "--host", "0.0.0.0", "--port", "1")
    assert refused.code == 1
    assert "0.0.0.0 is not a loopback address" in refused.err and "--public" in refused.err


def test_big_pages_are_cut_on_the_server_with_a_way_to_see_all(kb: Path) -> None:
    ws = open_workspace(kb)
    with contextlib.closing(read_only(ws.db_path)) as conn:
        ctx = KBCache(ws).context(conn)
    topic = render(views.topic_view(ctx, "serving", limit=2), ctx, Links())
    assert topic.count('<article class="entry">') == 2
    assert re.search(r"The newest 2 of \d+ entries", topic) and "/topic/serving?all=1" in topic
    claims = render(views.claims_view(ctx, {}, {}, "value_desc", limit=1), ctx, Links())
    assert "the first 1 are shown: narrow the filters" in claims
    assert claims.count("<tr data-metric") == 1
