"""`frontier site`: the same pages as files that open from disk, every link resolving."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from helpers import run_cli
from web_kb import HOSTILE_TITLE, VLLM, mapped_kb


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "action") and value is not None:
                self.links.append(value)


def links_of(path: Path) -> list[str]:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.links


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kb = mapped_kb(tmp_path_factory)
    out = tmp_path_factory.mktemp("site") / "public"
    result = run_cli("-w", str(kb), "site", str(out))
    assert result.code == 0, result.err
    assert "pages" in result.out and str(out.resolve() / "index.html") in result.out
    return out


def test_crawl_from_the_front_page_finds_no_broken_link(site: Path) -> None:
    seen: set[Path] = set()
    todo = [site / "index.html"]
    checked = 0
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        for link in links_of(page):
            parts = urlsplit(link)
            if link == "data:,":  # the empty favicon: no request at all
                continue
            if parts.scheme in ("http", "https"):
                assert parts.netloc == "arxiv.org", f"{page}: external link {link}"
                continue
            assert not parts.scheme and not link.startswith("/"), f"{page}: {link}"
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.is_file() and site.resolve() in target.parents, f"{page}: broken {link}"
            checked += 1
            if target.suffix == ".html":
                todo.append(target)
    every = {p.resolve() for p in site.rglob("*.html")}
    assert {p.resolve() for p in seen} == every, "every page is reachable from the front page"
    assert checked > 500


def test_site_has_the_pages_of_the_server(site: Path) -> None:
    for relpath in (
        "index.html",
        "topic/serving.html",
        "topic/serving/frontier.html",
        f"paper/{VLLM}.html",
        f"paper/{VLLM}/page/1.html",
        "entity/vllm.html",
        "claims.html",
        "search.html",
        "usage.html",
        "maps.html",
        "maps/1.html",
        "static/style.css",
    ):
        assert (site / relpath).is_file(), relpath
    assert not (site / "ask.html").exists()  # asking needs the model: the server only
    assert not any(link.startswith("ask") for link in links_of(site / "index.html"))
    the_map = links_of(site / "maps/1.html")
    assert f"../paper/{VLLM}.html" in the_map and f"../paper/{VLLM}/page/1.html" in the_map
    page = " ".join((site / f"paper/{VLLM}/page/1.html").read_text().split())
    assert '<mark id="quote">vLLM improves the throughput' in page
    assert "<form" not in (site / "topic/serving/frontier.html").read_text()


def test_site_escapes_and_its_search_index_is_data(site: Path) -> None:
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<img src=x" not in html, page
        assert "<script>" not in html.replace("<script src=", ""), page
    index = (site / "static" / "search-index.js").read_text()
    assert index.startswith("window.FRONTIER_INDEX = ") and "<" not in index.split("=", 1)[1]
    docs = json.loads(index.split("=", 1)[1].rstrip().rstrip(";"))
    assert any(d["title"] == HOSTILE_TITLE for d in docs)
    assert all((site / d["url"]).is_file() for d in docs)
