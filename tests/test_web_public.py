"""A shared server (`frontier serve --public`) on 127.0.0.1: it answers only to its allowed host
names, shows no page without the access token (by header, or the login form's cookie), refuses
a state change from another origin even with a valid form token, gives each session its own
form token, keeps pages with a token out of caches and builds links from its own address."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest
from helpers import db, run_cli
from web_kb import PROPOSED_GAP, VLLM, built_kb, copy_kb, free_port, serving

from frontier.web.pages import PAGES

HOST = "kb.example"
TOKEN = "correct-horse-battery-staple-42"
FORM = {"content-type": "application/x-www-form-urlencoded"}


class Reply:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.text = response.read().decode("utf-8", "replace")

    def cookie(self) -> str:
        """The session cookie the reply sets, as a browser would send it back."""
        found = self.headers.get("set-cookie", "")
        return found.split(";", 1)[0]

    def form_token(self) -> str:
        found = re.search(r'name="csrf" value="([^"]+)"', self.text)
        assert found, self.text[:300]
        return found.group(1)


def send(
    base: str,
    method: str,
    path: str,
    *,
    host: str = HOST,
    headers: dict[str, str] | None = None,
    body: dict[str, str] | None = None,
) -> Reply:
    """One request with exactly these headers (the Host header included)."""
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host)
        data = urlencode(body).encode() if body is not None else b""
        for key, value in {**(FORM if body is not None else {}), **(headers or {})}.items():
            conn.putheader(key, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data or None)
        return Reply(conn.getresponse())
    finally:
        conn.close()


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("token") / "token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, token_file: Path):  # type: ignore[no-untyped-def]
    """A public server with edits on, over a copy of the KB; yields its URL and the copy."""
    root = copy_kb(built_kb(tmp_path_factory), tmp_path_factory.mktemp("public") / "kb")
    flags = ["--public", "--allowed-host", HOST, "--token-file", str(token_file), "--allow-edits"]
    with serving(root, *flags) as base:
        yield base, root


def logged_in(base: str) -> str:
    """A session cookie from the login form."""
    reply = send(base, "POST", "/login", body={"token": TOKEN, "next": "/ask"})
    assert reply.status == 303 and reply.headers["location"] == "/ask"
    return reply.cookie()


def test_public_beyond_loopback_needs_an_allowed_host(tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    kb = built_kb(tmp_path_factory)
    refused = run_cli("-w", str(kb), "serve", "--host", "0.0.0.0", "--public", "--port", "1")
    assert refused.code == 1, refused.err
    assert "--public on 0.0.0.0 needs --allowed-host NAME" in refused.err
    alone = run_cli("-w", str(kb), "serve", "--allowed-host", HOST, "--port", "1")
    assert alone.code == 2 and "go with --public" in alone.err
    bad = run_cli("-w", str(kb), "serve", "--public", "--allowed-host", "http://x/", "--port", "1")
    assert bad.code == 2 and "without scheme, port or path" in bad.err


def test_a_weak_or_missing_token_file_is_refused(tmp_path_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    kb = built_kb(tmp_path_factory)
    short = tmp_path / "short"
    short.write_text("hunter2\n")
    for path, says in ((short, "at least 16 printable"), (tmp_path / "none", "cannot read it")):
        result = run_cli("-w", str(kb), "serve", "--public", "--token-file", str(path))
        assert result.code == 1 and f"--token-file {path}: " in result.err and says in result.err


def test_a_foreign_host_is_refused(shared) -> None:  # type: ignore[no-untyped-def]
    base, _ = shared
    assert send(base, "GET", "/", host="evil.example", headers=bearer()).status == 400
    assert send(base, "GET", "/", host=f"{HOST}:8000", headers=bearer()).status == 200
    assert send(base, "GET", "/", host="127.0.0.1", headers=bearer()).status == 200


def test_no_page_without_the_token(shared) -> None:  # type: ignore[no-untyped-def]
    base, _ = shared
    paths = {
        page.route.replace("{rest:path}", VLLM).replace("{slug}", "serving")
        for page in PAGES
        if page.route and "GET" in page.methods and page.name not in ("static", "login")
    }
    paths = {re.sub(r"\{[^}]+\}", "1", path) for path in paths}
    assert "/paper/2309.06180" in paths and "/ask" in paths and "/feed.xml" in paths
    for path in sorted(paths):
        reply = send(base, "GET", path)
        assert reply.status == 401, path
        assert 'action="/login"' in reply.text and "Efficient Memory" not in reply.text, path
        assert reply.headers["cache-control"] == "no-store"
    wrong = send(base, "GET", "/", headers=bearer("correct-horse-battery-staple-43"))
    assert wrong.status == 401
    assert send(base, "GET", "/static/style.css").status == 200  # what the login page needs


def test_the_token_opens_every_page_by_header_or_login(shared) -> None:  # type: ignore[no-untyped-def]
    base, _ = shared
    page = send(base, "GET", f"/paper/{VLLM}", headers=bearer())
    assert page.status == 200 and "Efficient Memory" in page.text
    assert page.headers["cache-control"] == "no-store"

    refused = send(base, "POST", "/login", body={"token": "guess-guess-guess-guess", "next": "/"})
    assert refused.status == 401 and "not this server&#39;s access token" in refused.text
    reply = send(base, "POST", "/login", body={"token": TOKEN, "next": "https://evil.example/"})
    assert reply.status == 303 and reply.headers["location"] == "/"
    flags = reply.headers["set-cookie"].split("; ")[1:]
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(flags)
    opened = send(base, "GET", "/topic/serving", headers={"Cookie": reply.cookie()})
    assert opened.status == 200 and "shared server" in opened.text
    forged = reply.cookie().rsplit(".", 1)[0] + ".0123456789abcdef0123456789abcdef"
    assert send(base, "GET", "/", headers={"Cookie": forged}).status == 401


def test_a_cross_origin_post_with_a_valid_token_is_refused(shared) -> None:  # type: ignore[no-untyped-def]
    base, root = shared
    cookie = logged_in(base)
    gap = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]
    page = send(base, "GET", "/topic/serving/frontier", headers={"Cookie": cookie})
    assert page.headers["cache-control"] == "no-store"
    form = {"csrf": page.form_token()}
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": f"http://{HOST}", "Sec-Fetch-Site": "same-site"},
    ):
        reply = send(
            base, "POST", f"/gap/{gap}/reject", headers={"Cookie": cookie, **headers}, body=form
        )
        assert reply.status == 403 and "sent from another site" in reply.text, headers
    status = db(root).execute("SELECT status FROM gaps WHERE id = ?", (gap,)).fetchone()[0]
    assert status == "proposed"


def test_a_form_token_belongs_to_its_session(shared) -> None:  # type: ignore[no-untyped-def]
    base, root = shared
    first, second = logged_in(base), logged_in(base)
    assert first != second
    token = send(base, "GET", "/ask", headers={"Cookie": first}).form_token()
    assert token != send(base, "GET", "/ask", headers={"Cookie": second}).form_token()
    gap = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]
    stolen = send(
        base, "POST", f"/gap/{gap}/accept", headers={"Cookie": second}, body={"csrf": token}
    )
    assert stolen.status == 403 and "The form is stale" in stolen.text
    port = base.rsplit(":", 1)[1]
    done = send(
        base,
        "POST",
        f"/gap/{gap}/accept",
        host=f"{HOST}:{port}",
        headers={
            "Cookie": first,
            "Origin": f"http://{HOST}:{port}",
            "Sec-Fetch-Site": "same-origin",
        },
        body={"csrf": token},
    )
    assert done.status == 303, done.text[:300]
    assert db(root).execute("SELECT status FROM gaps WHERE id = ?", (gap,)).fetchone()[0] == "open"


def test_feed_links_come_from_the_allowed_host_not_the_request(shared) -> None:  # type: ignore[no-untyped-def]
    base, _ = shared
    port = base.rsplit(":", 1)[1]
    feed = send(base, "GET", "/feed.xml", host=f"{HOST}:1", headers=bearer())
    assert feed.status == 200
    links = re.findall(r'href="([^"]+)"', feed.text)
    assert links and all(link.startswith(f"http://{HOST}:{port}/") for link in links), links


def test_a_public_server_prints_its_warning_and_a_generated_token(tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    kb = built_kb(tmp_path_factory)
    port = free_port()
    command = ["-w", str(kb), "serve", "--host", "0.0.0.0", "--public", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "frontier", *command, "--allowed-host", HOST],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        warning = proc.stderr.readline()  # type: ignore[union-attr]
        serving_line = proc.stdout.readline()  # type: ignore[union-attr]
        token_line = proc.stdout.readline()  # type: ignore[union-attr]
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert warning.startswith("warning: serving on 0.0.0.0") and "access token" in warning
    assert f"at http://0.0.0.0:{port}/ (read-only)" in serving_line
    found = re.match(r"Access token: (\S+) ", token_line)
    assert found and len(found.group(1)) >= 32
