"""A local HTTP server that replays recorded arXiv export-API answers (and serves PDFs).

Recordings come from the shared corpus next to the repository (``../shared/corpus``):

* ``arxiv_api/arxiv.py_recorded_json/*.json``: ``{url, status_code, body}`` exchanges;
* ``arxiv_api/arxiv.py_2016_xml/*.xml``: raw 2016 feeds whose query is read from the
  feed's own ``<link rel="self">`` (or ``<title>``).

A request is matched on ``search_query``, ``id_list``, ``start`` and ``max_results``
(API defaults: empty, empty, 0, 10). ``sortBy``/``sortOrder`` are ignored: the recordings
were made with relevance order while frontier asks for submittedDate order; assert on
`ArxivReplayServer.requests` to check what was sent. Unmatched requests get the recorded
empty feed (totalResults 0) and are logged and listed in ``unmatched``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

import pytest

from frontier.config import ArxivSettings

logger = logging.getLogger(__name__)

CORPUS_DIR = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
ARXIV_DIR = CORPUS_DIR / "arxiv_api"
RECORDED_JSON_DIR = ARXIV_DIR / "arxiv.py_recorded_json"
OLD_XML_DIR = ARXIV_DIR / "arxiv.py_2016_xml"
EMPTY_RECORDING = "id_0000.0000_s0_m100_8b51d9633a68.json"
_ATOM = "{http://www.w3.org/2005/Atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
_ARXIV = "{http://arxiv.org/schemas/atom}"

Key = tuple[str, str, int, int]


@dataclass(frozen=True)
class Recording:
    """One recorded answer: HTTP status, body and the file it came from."""

    status: int
    body: bytes
    origin: str


def require_corpus(path: Path = ARXIV_DIR) -> Path:
    """Return path, failing the test loudly if the shared corpus is not there."""
    if not path.is_dir():
        pytest.fail(
            f"arXiv replay corpus not found at {path.resolve()}; the shared corpus must sit "
            "next to the repository (../shared/corpus)",
            pytrace=False,
        )
    return path


def request_key(params: dict[str, str]) -> Key:
    """The matching key of an API request's query parameters."""
    return (
        params.get("search_query", ""),
        params.get("id_list", ""),
        int(params.get("start") or 0),
        int(params.get("max_results") or 10),
    )


def _params_of(url: str) -> dict[str, str]:
    """Query parameters of a URL, blank values kept."""
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def _old_feed_params(body: bytes, origin: str) -> dict[str, str]:
    """The query a 2016 feed answered, read from its self link or its title."""
    root = ET.fromstring(body)
    for link in root.iter(f"{_ATOM}link"):
        href = link.get("href", "")
        if "?" in href and link.get("rel") == "self":
            return dict(parse_qsl(unquote(href.split("?", 1)[1]), keep_blank_values=True))
    title = root.findtext(f"{_ATOM}title") or ""
    match = re.search(r"Query:\s*(.*)$", title.strip())
    if not match:
        raise ValueError(f"cannot tell which query {origin} answers")
    return dict(parse_qsl(match.group(1), keep_blank_values=True))


@lru_cache(maxsize=1)
def load_recordings() -> dict[Key, Recording]:
    """All recorded answers of the corpus, by request key (first file wins on a tie)."""
    require_corpus()
    table: dict[Key, Recording] = {}
    for path in sorted(require_corpus(RECORDED_JSON_DIR).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        key = request_key(_params_of(data["url"]))
        rec = Recording(int(data["status_code"]), data["body"].encode("utf-8"), path.name)
        table.setdefault(key, rec)
    for path in sorted(require_corpus(OLD_XML_DIR).glob("*.xml")):
        body = path.read_bytes()
        table.setdefault(
            request_key(_old_feed_params(body, path.name)), Recording(200, body, path.name)
        )
    return table


def arxiv_feed(records: list[dict[str, object]]) -> bytes:
    """An export-API answer holding these records (id with version, title, authors, date,
    categories, abstract), in the format of the recorded 2026 feeds."""
    feed = ET.Element(f"{_ATOM}feed")
    ET.SubElement(feed, f"{_ATOM}id").text = "https://arxiv.org/api/replayed"
    ET.SubElement(feed, f"{_ATOM}title").text = "arXiv Query: replayed"
    ET.SubElement(feed, f"{_ATOM}updated").text = "2026-01-01T00:00:00Z"
    ET.SubElement(feed, f"{_OPENSEARCH}itemsPerPage").text = str(max(len(records), 1))
    ET.SubElement(feed, f"{_OPENSEARCH}totalResults").text = str(len(records))
    ET.SubElement(feed, f"{_OPENSEARCH}startIndex").text = "0"
    for record in records:
        entry = ET.SubElement(feed, f"{_ATOM}entry")
        stamp = f"{record['date']}T12:00:00Z"
        ET.SubElement(entry, f"{_ATOM}id").text = f"http://arxiv.org/abs/{record['id']}"
        ET.SubElement(entry, f"{_ATOM}title").text = str(record["title"])
        ET.SubElement(entry, f"{_ATOM}updated").text = stamp
        ET.SubElement(entry, f"{_ATOM}published").text = stamp
        ET.SubElement(entry, f"{_ATOM}summary").text = str(record["abstract"])
        for name in record["authors"]:  # type: ignore[attr-defined]
            ET.SubElement(ET.SubElement(entry, f"{_ATOM}author"), f"{_ATOM}name").text = name
        for category in record["categories"]:  # type: ignore[attr-defined]
            ET.SubElement(entry, f"{_ATOM}category", term=category)
        primary = record["categories"][0]  # type: ignore[index]
        ET.SubElement(entry, f"{_ARXIV}primary_category", term=primary)
        for rel, href in (("alternate", "abs"), ("related", "pdf")):
            link = f"https://arxiv.org/{href}/{record['id']}"
            ET.SubElement(entry, f"{_ATOM}link", href=link, rel=rel)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


def empty_feed() -> bytes:
    """Body of the recorded totalResults=0 answer."""
    data = json.loads((require_corpus(RECORDED_JSON_DIR) / EMPTY_RECORDING).read_text("utf-8"))
    return data["body"].encode("utf-8")


class ArxivReplayServer:
    """Replays recordings on 127.0.0.1 and records every request path it receives."""

    def __init__(self) -> None:
        self.recordings = dict(load_recordings())
        self.empty_body = empty_feed()
        self.requests: list[str] = []
        self.unmatched: list[str] = []
        self.pdf_dir: Path | None = None
        self.pdfs: dict[str, Path] = {}
        self._failures: list[int] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:<port>"""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        """The query endpoint, for ArxivSettings.api_url."""
        return f"{self.base_url}/api/query"

    @property
    def pdf_url_template(self) -> str:
        """A PDF URL template pointing at this server's /pdf/ route."""
        return f"{self.base_url}/pdf/{{id}}"

    def settings(self, **overrides: object) -> ArxivSettings:
        """ArxivSettings aimed at this server, with no politeness delay."""
        values: dict[str, object] = {
            "api_url": self.api_url,
            "pdf_url_template": self.pdf_url_template,
            "delay_seconds": 0,
            "num_retries": 3,
        }
        values.update(overrides)
        return ArxivSettings.model_validate(values)

    def fail_next(self, times: int, status: int = 503) -> None:
        """Answer the next `times` API requests with `status` before replaying again."""
        with self._lock:
            self._failures.extend([status] * times)

    def add_response(self, body: bytes, status: int = 200, **params: str | int) -> None:
        """Answer the request with these query parameters by body/status."""
        key = request_key({k: str(v) for k, v in params.items()})
        self.recordings[key] = Recording(status, body, "added by test")

    def serve_pdfs(self, directory: Path) -> None:
        """Serve /pdf/<name> from directory (<name> or <name>.pdf)."""
        self.pdf_dir = Path(directory)

    def add_pdf(self, name: str, path: Path) -> None:
        """Serve /pdf/<name> with the given file."""
        self.pdfs[name] = Path(path)

    def queries(self) -> list[dict[str, str]]:
        """Query parameters of every API request received, in order."""
        return [
            {k: v[-1] for k, v in parse_qs(urlsplit(p).query, keep_blank_values=True).items()}
            for p in self.requests
            if urlsplit(p).path.endswith("/query")
        ]

    def start(self) -> ArxivReplayServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def answer_api(self, path: str) -> tuple[int, bytes]:
        """Status and body for an API request path."""
        with self._lock:
            self.requests.append(path)
            if self._failures:
                status = self._failures.pop(0)
                return status, f"replay server: forced HTTP {status}\n".encode()
        rec = self.recordings.get(request_key(_params_of(path)))
        if rec is None:
            logger.warning("arXiv replay: no recording for %s; answering an empty feed", path)
            with self._lock:
                self.unmatched.append(path)
            return 200, self.empty_body
        return rec.status, rec.body

    def find_pdf(self, name: str) -> Path | None:
        """The file to serve for /pdf/<name>, if any."""
        with self._lock:
            self.requests.append(f"/pdf/{name}")
        if name in self.pdfs:
            return self.pdfs[name]
        if self.pdf_dir is None:
            return None
        root = self.pdf_dir.resolve()
        for candidate in (root / name, root / f"{name}.pdf"):
            resolved = candidate.resolve()
            if resolved.is_relative_to(root) and resolved.is_file():
                return resolved
        return None


def _make_handler(server: ArxivReplayServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one replay server."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._respond(send_body=True)

        def do_HEAD(self) -> None:
            self._respond(send_body=False)

        def _respond(self, send_body: bool) -> None:
            route = urlsplit(self.path).path
            if route.startswith("/pdf/"):
                found = server.find_pdf(unquote(route[len("/pdf/") :]))
                if found is None:
                    self._send(404, b"no such PDF\n", "text/plain", send_body)
                else:
                    self._send(200, found.read_bytes(), "application/pdf", send_body)
                return
            status, body = server.answer_api(self.path)
            kind = (
                "application/atom+xml; charset=UTF-8" if body.startswith(b"<?xml") else "text/plain"
            )
            self._send(status, body, kind, send_body)

        def _send(self, status: int, body: bytes, kind: str, send_body: bool) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            logger.debug("arXiv replay: " + format, *args)

    return Handler
