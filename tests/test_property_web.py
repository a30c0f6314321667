"""The web server under hostile requests: any route with odd path parameters and query strings,
any method, form posts without the token, bodies that are not UTF-8 or far too big, numbers
that are not numbers in every route. Never a 500, never a stack trace in a page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from strategies import bad_numbers, examples
from web_kb import VLLM, built_kb

from frontier.web.app import MAX_BODY_BYTES, create_app
from frontier.web.pages import PAGES
from frontier.workspace import open_workspace

ROUTES = [
    "/",
    "/topic/{}",
    "/topic/{}/frontier",
    "/paper/{}",
    "/paper/{}/page/{}",
    "/entity/{}",
    "/claims",
    "/search",
    "/maps",
    "/maps/{}",
    "/usage",
    "/ask",
    "/static/{}",
    "/gap/{}/{}",
    "/{}",
]
PARTS = st.one_of(
    st.sampled_from(["serving", VLLM, "1", "0", "-1", "99999999999999999999", "..", "%2e%2e", ""]),
    st.sampled_from(["style.css", "a/b", "%00", "%ff%fe", "%2F", "accept", "reject", "doi:10.1/x"]),
    st.text(max_size=30).map(lambda text: quote(text, safe="")),
    st.text(alphabet="%/.:?#&=+;\\ ", max_size=12),  # raw: what a client can send as is
)
QUERY_KEYS = st.sampled_from(["q", "sort", "metric", "model", "hardware", "all", "claim", "x"])
QUERY_VALUES = st.one_of(
    st.sampled_from(['"', "*", "NEAR(", "a OR", "-", "value_desc", "1e309", "%ff", "\x00", ""]),
    st.text(max_size=40),
    st.text(min_size=2000, max_size=3000),
)


def _query(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{quote(key)}={quote(value, safe='')}" for key, value in pairs)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    kb: Path = built_kb(tmp_path_factory)
    app = create_app(open_workspace(kb))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def editing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    """A client of a server with edits on, and the form token of its session (no request made
    with it may change the KB: every number it sends is a bad one)."""
    app = create_app(open_workspace(built_kb(tmp_path_factory)), allow_edits=True)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        page = c.get("/topic/serving/frontier").text
        token = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        yield c, token


def check(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code < 500, (
        response.request.url,
        response.status_code,
        response.text[:300],
    )
    body = response.text
    assert "Traceback" not in body and 'File "/' not in body, response.request.url


@hsettings(max_examples=examples(150))
@given(
    st.sampled_from(ROUTES),
    st.lists(PARTS, min_size=2, max_size=2),
    st.lists(st.tuples(QUERY_KEYS, QUERY_VALUES), max_size=3),
    st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]),
)
def test_any_route_any_parameters(
    client: TestClient, route: str, parts: list[str], query: list[tuple[str, str]], method: str
) -> None:
    path = route.format(*parts)
    url = path + ("?" + _query(query) if query else "")
    check(client.request(method, url))


FORM_FIELDS = st.sampled_from(["q", "topic", "preset", "csrf", "x"])


@hsettings(max_examples=examples(60))
@given(
    st.sampled_from(["/ask", "/gap/1/accept", "/gap/1/reject", "/gap/1/x", "/search"]),
    st.one_of(
        st.lists(st.tuples(FORM_FIELDS, QUERY_VALUES), max_size=4).map(
            lambda p: _query(p).encode()
        ),
        st.binary(max_size=200),
        st.just(b"\xff\xfe\xfd"),
        st.just(b"csrf=&q=" + b"a" * 100),
    ),
    st.sampled_from(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain", ""]),
)
def test_form_posts_without_the_token(
    client: TestClient, path: str, body: bytes, content_type: str
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = client.post(path, content=body, headers=headers)
    check(response)
    assert response.status_code != 200 or path == "/search"


def test_an_oversized_body_is_refused_before_it_is_read(client: TestClient) -> None:
    body = b"q=" + b"a" * (MAX_BODY_BYTES + 1)
    response = client.post(
        "/ask", content=body, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 413 and "Traceback" not in response.text

    def chunks() -> Iterator[bytes]:  # no content-length: the size is counted as it comes
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b"a" * 1024

    assert client.post("/ask", content=chunks()).status_code == 413


ROUTED = [page for page in PAGES if page.route and "{" in page.route]


def _filled(route: str, value: str) -> str:
    """The route with every parameter set to `value` (a paper's page number, for the paper)."""
    route = route.replace("{rest:path}", f"{VLLM}/page/{{x}}")
    return re.sub(r"\{[^}]+\}", quote(value, safe=""), route)


@hsettings(max_examples=examples(120))
@given(st.sampled_from(ROUTED), bad_numbers())
def test_a_number_that_is_no_number_is_a_404_on_every_route(
    editing: tuple[TestClient, str], page, value: str
) -> None:  # type: ignore[no-untyped-def]
    client, token = editing
    path = _filled(page.route, value)
    if "GET" in page.methods:
        response = client.get(path)
    else:
        response = client.post(path, data={"csrf": token})
    check(response)
    assert response.status_code == 404, (path[:80], response.status_code)


@hsettings(max_examples=examples(60))
@given(bad_numbers())
def test_a_query_number_that_is_no_number_is_a_400(client: TestClient, value: str) -> None:
    response = client.get(f"/paper/{VLLM}/page/1?claim={quote(value, safe='')}")
    check(response)
    assert response.status_code == 400 and "must be a whole number" in response.text


def test_the_numbers_that_were_500s_are_400_or_404(editing: tuple[TestClient, str]) -> None:
    client, token = editing
    nines = "9" * 5000
    assert client.get(f"/paper/{VLLM}/page/1?claim=%C2%B2").status_code == 400
    assert client.get(f"/paper/{VLLM}/page/1?claim={nines}").status_code == 400
    assert client.get(f"/paper/{VLLM}/page/1?claim=").status_code == 200
    assert client.get(f"/maps/{nines}").status_code == 404
    assert client.post(f"/gap/{nines}/accept", data={"csrf": token}).status_code == 404
    huge = {"content-length": nines, "content-type": "application/x-www-form-urlencoded"}
    assert client.post("/ask", content=b"q=x", headers=huge).status_code in (400, 413)


# Shrunk failures, kept as plain tests -----------------------------------------------------------


def test_a_token_that_is_not_ascii_is_refused_not_an_error(client: TestClient) -> None:
    form = {"content-type": "application/x-www-form-urlencoded"}
    assert client.post("/ask", content=b"csrf=%C2%80", headers=form).status_code == 403
    assert client.post("/gap/1/accept", content=b"csrf=%C2%80", headers=form).status_code == 403


def test_a_body_that_is_not_utf8_is_refused_not_an_error(client: TestClient) -> None:
    response = client.post("/ask", content=b"q=\xff\xfe&csrf=\xff")
    assert response.status_code == 403 and "reload the page" in response.text


def test_an_id_too_big_for_sqlite_is_not_found(client: TestClient) -> None:
    response = client.get("/maps/99999999999999999999")
    assert response.status_code == 404 and "No research map" in response.text
