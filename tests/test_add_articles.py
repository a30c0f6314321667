"""`frontier add` on web pages, saved articles and PDF URLs, served from 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import corpus, db, run_cli


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def file_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "site"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def test_add_saved_html_stores_main_text(workspace: Path) -> None:
    page = corpus("html", "ai_blogs", "lilianweng.github.io.2023-01-10-inference-optimization.html")
    result = run_cli("-w", str(workspace), "add", str(page), "--json")
    assert result.code == 0, result.out + result.err
    (item,) = result.json()["items"]
    paper = (
        db(workspace).execute("SELECT * FROM papers WHERE id = ?", (item["paper_id"],)).fetchone()
    )
    assert paper["kind"] == "article" and paper["status"] == "fulltext"
    assert "Inference Optimization" in paper["title"]
    hits = run_cli(
        "-w", str(workspace), "search", "quantization distillation pruning", "--json"
    ).json()
    assert hits[0]["id"] == item["paper_id"]
    again = run_cli("-w", str(workspace), "add", str(page), "--json").json()
    assert again["items"][0]["outcome"] == "duplicate"


def test_add_markdown_and_empty_page(tmp_path: Path, workspace: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text(
        "# Notes on KV cache offloading\n\nOffloading the KV cache to CPU memory frees "
        "GPU memory for larger batches at the cost of PCIe transfers.\n"
    )
    result = run_cli("-w", str(workspace), "add", str(note), "--json")
    assert result.code == 0
    paper = db(workspace).execute("SELECT title, kind FROM papers").fetchone()
    assert tuple(paper) == ("Notes on KV cache offloading", "article")
    empty = run_cli(
        "-w",
        str(workspace),
        "add",
        str(corpus("html", "hostile", "wapiti.empty-body.html")),
        "--json",
    )
    assert empty.code == 2 and empty.json()["items"][0]["outcome"] == "rejected"


def test_add_urls_for_a_page_and_a_pdf(workspace: Path, file_server: tuple[str, Path]) -> None:
    base, root = file_server
    (root / "post.html").write_bytes(corpus("html", "lemire.me.json.html").read_bytes())
    (root / "paper.pdf").write_bytes(corpus("pdfs", "punica.pdf").read_bytes())
    (root / "fake.pdf").write_text("<html>not a pdf</html>")
    result = run_cli(
        "-w",
        str(workspace),
        "add",
        f"{base}/post.html",
        f"{base}/paper.pdf",
        f"{base}/missing.pdf",
        "--json",
    )
    items = {i["item"].rsplit("/", 1)[-1]: i for i in result.json()["items"]}
    assert items["post.html"]["outcome"] == "stored"
    assert items["paper.pdf"]["outcome"] == "stored"
    assert items["missing.pdf"]["outcome"] == "failed" and "404" in items["missing.pdf"]["message"]
    assert result.code == 1
    conn = db(workspace)
    assert conn.execute("SELECT COUNT(*) FROM papers WHERE title LIKE 'PUNICA%'").fetchone()[0] == 1
    text = conn.execute(
        "SELECT text FROM pages p JOIN papers x ON x.id = p.paper_id WHERE x.kind = 'article'"
    ).fetchone()[0]
    assert "I use a Skylake processor with GNU GCC 8.3." in text and "Leave a Reply" not in text
