"""Web articles: extraction from real saved pages, hostile pages, text files and fetching."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from frontier.sources import web
from frontier.sources.web import (
    Article,
    ArticleError,
    FetchError,
    article_record,
    decode_bytes,
    extract_article,
    fetch_page,
    read_text_article,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "html"


def norm(text: str) -> str:
    """Collapse whitespace for snippet comparison."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def expected() -> dict[str, dict[str, list[str]]]:
    """Expected with/without snippets per saved page; fails (never skips) without the corpus."""
    path = CORPUS / "expected.json"
    if not path.is_file():
        pytest.fail(f"saved-page corpus missing: {path} must exist next to the repository")
    return json.loads(path.read_text(encoding="utf-8"))


def page_bytes(name: str) -> bytes:
    """Raw bytes of one saved page, failing clearly when it is absent."""
    path = CORPUS / name
    if not path.is_file():
        pytest.fail(f"saved page missing from the corpus: {path}")
    return path.read_bytes()


def assert_snippets(text: str, snippets: dict[str, list[str]]) -> None:
    """Every 'with' snippet is in the text and every 'without' snippet is not."""
    flat = norm(text)
    missing = [s for s in snippets["with"] if norm(s) not in flat]
    leaked = [s for s in snippets["without"] if norm(s) in flat]
    assert not missing, f"main text lost: {missing}"
    assert not leaked, f"boilerplate kept: {leaked}"


# --- real pages: metadata and snippets --------------------------------------------------------

PAGES = [
    (
        "caktusgroup.com.django.html",
        "https://www.caktusgroup.com/blog/2015/06/08/testing-client-side-applications-django-post-mortem/",
        "Testing Client-Side Applications with Django Post Mortem",
        "Caktus Group",
        dt.date(2015, 6, 8),
    ),
    (
        "stackoverflow.blog.rust.html",
        "https://stackoverflow.blog/2020/01/20/what-is-rust-and-why-is-it-so-popular/",
        "What is Rust and why is it so popular?",
        "Stack Overflow Blog",
        dt.date(2020, 1, 20),
    ),
    (
        "nature.com.telescope.html",
        "https://www.nature.com/articles/d41586-019-02790-3",
        "Gigantic Chinese telescope opens to astronomers worldwide",
        "Nature",
        dt.date(2019, 9, 24),
    ),
    (
        "gregoryszorc.com.python3.html",
        "https://gregoryszorc.com/blog/2020/01/13/mercurial%27s-journey-to-and-reflections-on-python-3/",
        "Mercurial's Journey to and Reflections on Python 3",
        "gregoryszorc.com",
        dt.date(2020, 1, 13),
    ),
    (
        "threatpost.com.android.html",
        "https://threatpost.com/android-ransomware-spreads-via-sex-simulation-game-links-on-reddit-sms/146774/",
        "Android Ransomware Spreads Via 'Sex Simulation Game' Links on Reddit, SMS",
        "Threatpost",
        dt.date(2019, 7, 30),
    ),
]


@pytest.mark.parametrize(("name", "url", "title", "site", "date"), PAGES, ids=[p[0] for p in PAGES])
def test_real_page_metadata_and_snippets(expected, name, url, title, site, date) -> None:
    article = extract_article(page_bytes(name), url=url)
    assert article.title == title
    assert article.site == site
    assert article.date == date
    assert_snippets(article.text, expected[name])


def test_ai_blog_post_keeps_technical_text() -> None:
    name = "ai_blogs/lilianweng.github.io.2023-01-10-inference-optimization.html"
    article = extract_article(page_bytes(name))
    assert article.title == "Large Transformer Model Inference Optimization"
    assert (article.author, article.site, article.date) == (
        "Lilian Weng",
        "Lil'Log",
        dt.date(2023, 1, 10),
    )
    assert "Why is it hard to run inference for large transformer models?" in article.text
    assert "Distilling the Knowledge in a Neural Network" in article.text
    assert len(article.text) > 20_000


def test_comments_are_dropped(expected) -> None:
    text = extract_article(page_bytes("lemire.me.json.html")).text
    assert "I use a Skylake processor with GNU GCC 8.3." in text
    assert "Leave a Reply" not in text
    assert "vcpkg has simdjson in its repo" not in text  # a reader's comment


def test_whole_corpus_at_least_trafilatura_defaults(expected) -> None:
    spec = importlib.util.spec_from_file_location(
        "extract_html", REPO_ROOT / "benchmarks" / "extract_html.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.html_quality()
    ours, base = result["totals"]["ours"], result["totals"]["trafilatura"]
    print(bench.summary(result))
    assert ours["found"] >= base["found"], bench.report(result)
    assert ours["kept_out"] >= base["kept_out"], bench.report(result)
    assert ours["found"] + ours["kept_out"] > base["found"] + base["kept_out"]


# --- hostile pages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "hostile/winfuture.de-NASA.iso-8859-1.html",
        "hostile/rp.pl.unijne-fundusze.windows-1250.html",
        "hostile/hoy.com.py-daran.no-body-open-tag.html",
        "hostile/beige.de.suedfrankreich.no-body-close-tag.html",
        "hostile/nymag.com.polarization.very-long.html",
        "hostile/dailymail.co.uk.food.long-text.html",
    ],
)
def test_hostile_page_main_text_found(expected, name) -> None:
    text = extract_article(page_bytes(name)).text
    flat = norm(text)
    assert all(norm(s) in flat for s in expected[name]["with"])
    assert "\ufffd" not in text and "Ã" not in text  # no mojibake


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("hostile/winfuture.de-NASA.iso-8859-1.html", "Überarbeitung"),
        ("hostile/rp.pl.unijne-fundusze.windows-1250.html", "Ciężar dyskusji przeniesie"),
    ],
)
def test_legacy_encodings_declared_or_not(name, word) -> None:
    data = page_bytes(name)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    undeclared = re.sub(rb"charset=[\w-]+", b"", data)
    for variant in (data, undeclared):
        assert word in extract_article(variant).text
    assert word in extract_article(decode_bytes(data)).text  # already-decoded str input


def test_polish_title_and_inline_read_more_link_dropped(expected) -> None:
    name = "hostile/rp.pl.unijne-fundusze.windows-1250.html"
    article = extract_article(page_bytes(name))
    assert article.title == 'Unijne fundusze coraz bliżej. Sejm zagłosował "za"'
    assert_snippets(article.text, expected[name])


def test_infinite_scroll_keeps_only_the_page_article(expected) -> None:
    name = "hostile/hoy.com.py-daran.no-body-open-tag.html"
    article = extract_article(page_bytes(name))
    assert article.title == "Darán bendición a vehículos este sábado"
    assert_snippets(article.text, expected[name])
    assert "Tres imputados por secuestro" not in article.text


def test_js_rendered_page_uses_structured_article_body(expected) -> None:
    data = page_bytes("hostile/scmp.com.playbook.js-rendered.html")
    article = extract_article(data)
    assert article.author == "Alice Wu"
    assert all(
        s in article.text for s in expected["hostile/scmp.com.playbook.js-rendered.html"]["with"]
    )
    without_data = re.sub(rb"<script[^>]*ld\+json[^>]*>.*?</script>", b"", data, flags=re.S)
    with pytest.raises(ArticleError, match="JavaScript"):
        extract_article(without_data)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (None, "body is empty"),
        (b"", "empty or not HTML"),
        (b"<html><head><title>x</title></head><body>  </body></html>", "body is empty"),
        (
            b"<html><body><script>"
            + b"render();" * 500
            + b"</script><div id=app></div></body></html>",
            "JavaScript",
        ),
    ],
    ids=["saved-empty-body", "no-bytes", "blank-body", "script-only"],
)
def test_no_main_text_raises_with_one_line_reason(data, reason) -> None:
    data = page_bytes("hostile/wapiti.empty-body.html") if data is None else data
    with pytest.raises(ArticleError, match=reason) as info:
        extract_article(data)
    assert "\n" not in str(info.value)


def test_article_record_mapping() -> None:
    article = Article(
        title="T", author="A One; B Two", site="S", date=dt.date(2024, 1, 2), text="Body"
    )
    record = article_record(article, "web", "https://example.org/x", "https://example.org/x")
    assert (record.source, record.kind, record.body, record.site) == ("web", "article", "Body", "S")
    assert record.authors == ["A One", "B Two"]
    assert record.published == dt.date(2024, 1, 2)
    assert record.url == record.source_ref == "https://example.org/x"


# --- saved markdown and text files ------------------------------------------------------------


def test_markdown_title_from_first_heading(tmp_path) -> None:
    path = tmp_path / "post.md"
    path.write_text("Intro line.\n\n# The Real Title\n\nFirst paragraph.\n\n## Section\nMore.\n")
    article = read_text_article(path)
    assert article.title == "The Real Title"
    assert article.text.startswith("Intro line.")
    assert "## Section" in article.text and "# The Real Title" not in article.text


def test_markdown_front_matter(tmp_path) -> None:
    path = tmp_path / "fm.md"
    path.write_text(
        '---\ntitle: "From Front Matter"\nauthor: Jane Roe\ndate: 2023-05-06\n---\n# H\nText\n'
    )
    article = read_text_article(path)
    assert (article.title, article.author, article.date) == (
        "From Front Matter",
        "Jane Roe",
        dt.date(2023, 5, 6),
    )
    assert article.text == "Text"


@pytest.mark.parametrize(
    ("payload", "title"),
    [
        ("Überschrift\r\nEin schöner Text.\r\n".encode("cp1252"), "Überschrift"),
        (
            "Zażółć gęślą jaźń\nCiężar dyskusji przeniesie się.\n".encode("utf-8-sig"),
            "Zażółć gęślą jaźń",
        ),
        ("Заголовок\nТекст статьи.\n".encode("utf-16"), "Заголовок"),
        (b"Plain title\n# later hash line\nplain text\n", "Plain title"),
    ],
    ids=["cp1252", "utf8-bom", "utf16", "txt-ignores-later-heading"],
)
def test_text_file_first_line_is_title(tmp_path, payload, title) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(payload)
    article = read_text_article(path)
    assert article.title == title
    assert article.text and "\ufffd" not in article.text


def test_text_file_without_body_raises(tmp_path) -> None:
    path = tmp_path / "only-title.md"
    path.write_text("# Just a title\n\n")
    with pytest.raises(ArticleError, match="nothing besides a title"):
        read_text_article(path)


# --- fetching from a local server -------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """Serves a saved page, errors and a flaky endpoint for fetch tests."""

    hits: dict[str, int]
    page: bytes

    def do_GET(self) -> None:
        self.hits[self.path] = self.hits.get(self.path, 0) + 1
        if self.path == "/page":
            self._send(200, self.page, "text/html; charset=utf-8")
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/paper.pdf":
            self._send(200, b"%PDF-1.4 minimal", "application/pdf")
        elif self.path == "/flaky" and self.hits[self.path] == 1:
            self._send(503, b"busy", "text/plain")
        elif self.path == "/flaky":
            self._send(200, b"<html><body><p>ok</p></body></html>", "text/html")
        elif self.path == "/down":
            self._send(500, b"broken", "text/plain")
        else:
            self._send(404, b"not here", "text/plain")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, dict[str, int]]]:
    """A local HTTP server on 127.0.0.1 and its per-path hit counter."""
    hits: dict[str, int] = {}
    handler = type(
        "Handler", (_Handler,), {"hits": hits, "page": page_bytes("caktusgroup.com.django.html")}
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


def test_fetch_saved_page_and_extract(server) -> None:
    base, _ = server
    page = fetch_page(f"{base}/page", timeout=5, retries=0)
    assert page.body == page_bytes("caktusgroup.com.django.html")
    assert page.content_type.startswith("text/html")
    article = extract_article(page.body, url=f"{base}/page")
    assert article.title == "Testing Client-Side Applications with Django Post Mortem"


def test_fetch_follows_redirects_and_reports_pdf(server) -> None:
    base, _ = server
    assert fetch_page(f"{base}/moved", timeout=5).body == page_bytes("caktusgroup.com.django.html")
    body, ctype = fetch_page(f"{base}/paper.pdf", timeout=5)
    assert ctype == "application/pdf" and body.startswith(b"%PDF")


def test_fetch_404_is_a_clear_error_without_retry(server) -> None:
    base, hits = server
    with pytest.raises(FetchError, match="HTTP 404") as info:
        fetch_page(f"{base}/missing", timeout=5, retries=3, backoff=0)
    assert "/missing" in str(info.value)
    assert hits["/missing"] == 1


def test_fetch_retries_503_then_succeeds(server) -> None:
    base, hits = server
    page = fetch_page(f"{base}/flaky", timeout=5, retries=2, backoff=0)
    assert b"ok" in page.body
    assert hits["/flaky"] == 2


def test_fetch_gives_up_after_retries(server) -> None:
    base, hits = server
    with pytest.raises(FetchError, match=r"3 attempts \(HTTP 500"):
        fetch_page(f"{base}/down", timeout=5, retries=2, backoff=0)
    assert hits["/down"] == 3


def test_fetch_size_cap(server, monkeypatch) -> None:
    base, _ = server
    monkeypatch.setattr(web, "MAX_PAGE_BYTES", 1000)
    with pytest.raises(FetchError, match="larger than 1000 bytes"):
        fetch_page(f"{base}/page", timeout=5, retries=0)


def test_fetch_network_error_is_retried_then_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the request: connection refused
    with pytest.raises(FetchError, match=r"2 attempts.*ConnectError"):
        fetch_page(f"http://127.0.0.1:{port}/", timeout=2, retries=1, backoff=0)
