"""The web UI in headless Chromium (Debian's, driven by Playwright): a reader's path through the
real server and through the static site from disk; a screenshot of each page is kept."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import REPO, db, run_cli
from web_kb import (
    HOSTILE_TITLE,
    PROPOSED_GAP,
    VLLM,
    built_kb,
    copy_kb,
    mapped_kb,
    model_env,
    serving,
)

pytestmark = pytest.mark.slow
playwright = pytest.importorskip("playwright.sync_api")

SHOTS = REPO / "test-artifacts" / "web"
# a closed network: without these Chromium keeps trying to reach its own services
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VLLM_TITLE = "Efficient Memory Management for Large Language Model Serving with PagedAttention"
# a sentence its source bears out (so the check keeps it), with markup that must stay text
SAID = (
    "The PagedAttention algorithm allows the KV blocks to be stored in non-contiguous physical "
    "memory, which enables more flexible paged memory management in vLLM"
)
ANSWER = f"{SAID} [1] <script>alert(document.title)</script> [42]."


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("chromium not found: `make test` installs Debian's chromium package")
    return found


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_kb(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


class Reader:
    """One browser tab that records console errors and dialogs, and saves screenshots."""

    def __init__(self, browser: object) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: object) -> None:
        self.dialogs.append(dialog.message)  # type: ignore[attr-defined]
        dialog.dismiss()  # type: ignore[attr-defined]

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def text(self, selector: str) -> str:
        return " ".join(self.page.locator(selector).first.inner_text().split())


def test_reader_path_through_the_server(kb: Path, browser: object) -> None:
    reader = Reader(browser)
    page = reader.page
    with serving(kb) as base:
        page.goto(base + "/")
        assert page.locator("a.topic").count() == 4
        assert page.locator("svg.chart polyline").count() >= 3
        reader.shot("01-topics")

        page.get_by_role("link", name="Serving & runtime").first.click()
        assert reader.text("h1") == "Serving & runtime"
        reader.shot("02-topic")
        page.get_by_role("link", name="Open gaps, conflicts and theses").click()
        assert "paging cuts the memory" in reader.text("section.gap")
        reader.shot("03-frontier")
        page.go_back()

        page.get_by_role("link", name=VLLM_TITLE).first.click()
        assert page.url.endswith(f"/paper/{VLLM}") and reader.text("h1") == VLLM_TITLE
        claim_row = page.locator("table.claims tr", has_text="throughput").first
        assert "2-4×" in claim_row.inner_text()
        reader.shot("04-paper")

        claim_row.get_by_role("link", name="p. 1").click()
        assert re.search(rf"/paper/{VLLM}/page/1\?claim=\d+$", page.url)
        assert reader.text("mark#quote").startswith("vLLM improves the throughput")
        assert "Page 1 of 16" in reader.text("p.meta")
        reader.shot("05-page")

        page.get_by_role("link", name="Search", exact=True).click()
        page.fill("input[name=q]", "paged attention KV cache memory")
        page.press("input[name=q]", "Enter")
        page.wait_for_url("**/search?q=*")
        assert reader.text("#results a.paper") == VLLM_TITLE
        assert page.locator("#results mark").count() > 0
        reader.shot("06-search")

        page.get_by_role("link", name="Claims", exact=True).click()
        page.fill("input[name=hardware]", "a100")
        page.select_option("select[name=sort]", "value_desc")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**/claims?*hardware=a100*")
        assert reader.text("#claim-count") == "3"
        values = page.locator("#claims-table tbody tr").evaluate_all(
            "rows => rows.map(r => parseFloat(r.dataset.value))"
        )
        assert values == [12.0, 5.6, 4.0]
        assert page.locator("svg.chart circle.dot").count() >= 5
        reader.shot("07-claims")

        page.get_by_role("link", name="Results", exact=True).click()
        page.select_option("select[name=metric]", "throughput")
        page.fill("input[name=hardware]", "a100")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**/results?*metric=throughput*hardware=a100*")
        assert reader.text("#result-count") == "1"
        assert "throughput — vs FasterTransformer + Orca" in reader.text("section.result-group h2")
        assert page.locator("svg.chart a.mark circle.dot").count() == 1
        reader.shot("07b-results")
        page.locator("table.results a.quote-link").first.click()
        assert reader.text("mark#quote").startswith("vLLM improves the throughput")
        page.go_back()
        page.get_by_role("link", name="Who measures against whom").click()
        assert reader.text("h1") == "Who measures against whom"
        assert page.locator("svg.chart a.node").count() >= 3
        assert page.locator("svg.chart line[marker-end]").count() >= 2
        reader.shot("07c-results-graph")

        page.get_by_role("link", name="Usage", exact=True).click()
        assert page.locator("svg.chart rect.bar").count() == 6
        reader.shot("08-usage")

        page.goto(base + "/entity/vllm")
        assert VLLM_TITLE in reader.text("main")
        reader.shot("09-entity")

        page.goto(base + "/paper/doi%3A10.5555%2Fxss.1")
        assert reader.text("h1") == HOSTILE_TITLE
        assert page.locator("main script, main img, main b").count() == 0
        reader.shot("10-hostile-paper")
    assert reader.dialogs == [], "no script from the data ran"
    assert reader.errors == [], "no console errors (CSP violations included)"


def test_static_site_from_disk(kb: Path, browser: object, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert run_cli("-w", str(kb), "site", str(out)).code == 0
    reader = Reader(browser)
    page = reader.page
    page.goto((out / "index.html").as_uri())
    assert page.locator("a.topic").count() == 4
    page.get_by_role("link", name="Search", exact=True).click()
    page.fill("input[name=q]", "paged attention")
    page.press("input[name=q]", "Enter")
    page.wait_for_selector("#results li")  # the page's script fills the results
    assert page.locator("#results li").count() > 0
    assert VLLM_TITLE in reader.text("#results")
    reader.shot("11-site-search")
    page.locator("#results a.paper", has_text="PagedAttention").first.click()
    assert reader.text("h1") == VLLM_TITLE and page.url.startswith("file://")

    page.get_by_role("link", name="Claims", exact=True).click()
    page.fill("input[name=hardware]", "a100")
    assert reader.text("#claim-count") == "3"
    page.select_option("select[name=sort]", "value_asc")
    page.get_by_role("button", name="Filter").click()
    visible = page.locator("#claims-table tbody tr:visible")
    values = visible.evaluate_all("rows => rows.map(r => parseFloat(r.dataset.value))")
    assert values == sorted(values) and len(values) == 3
    reader.shot("12-site-claims")
    page.get_by_role("link", name="Results", exact=True).click()
    assert page.locator("svg.chart a.mark").count() >= 2 and page.url.endswith("results.html")
    page.get_by_role("link", name="Who measures against whom").click()
    assert page.locator("svg.chart a.node").count() >= 3
    reader.shot("12b-site-results-graph")
    assert reader.dialogs == [] and reader.errors == []


def test_ask_and_open_a_map(
    tmp_path_factory: pytest.TempPathFactory, browser: object, tmp_path: Path
) -> None:
    root = copy_kb(mapped_kb(tmp_path_factory), tmp_path / "kb")
    reader = Reader(browser)
    page = reader.page
    with (
        FakeOpenAI([Reply(content=ANSWER)]) as model,
        serving(root, env=model_env(model)) as base,
    ):
        page.goto(base + "/")
        page.get_by_role("link", name="Ask", exact=True).click()
        page.fill("input[name=q]", "How does vLLM manage KV cache memory with paged attention?")
        page.get_by_role("button", name="Ask").click()
        page.wait_for_selector("#answer")
        answer = reader.text("#answer p.answer")
        assert answer == f"{SAID} [1] <script>alert(document.title)</script>."
        assert page.locator("#draft").is_hidden() and "[42]" in reader.text("p.removed")
        cite = page.locator("#answer p.answer a.cite")
        assert cite.count() == 1 and cite.inner_text() == "[1]"
        assert re.search(rf"/paper/{VLLM}/page/\d+$", cite.get_attribute("href") or "")
        reader.shot("13-ask")
        cite.click()
        assert reader.text("h1") == VLLM_TITLE and "/page/" in page.url
        reader.shot("14-ask-cited-page")

        page.get_by_role("link", name="Maps", exact=True).click()
        assert page.locator("table.maps tbody tr").count() == 1
        page.locator("a.map").click()
        assert reader.text("h1") == "Research map: Serving & runtime"
        assert page.locator("section.theme").count() >= 1
        reader.shot("15-map")
        page.locator("p.overview a.cite").first.click()
        assert page.url.startswith(base + "/paper/") and reader.text("h1")
    assert reader.dialogs == [], "no script from the model ran"
    assert reader.errors == [], "no console errors (CSP violations included)"


def _links(page: object) -> list[str]:
    """Every link target in the page's main part, as the browser resolved it."""
    hrefs = page.locator("main a").evaluate_all("links => links.map(a => a.href)")  # type: ignore[attr-defined]
    return sorted(set(hrefs))


def test_digest_pages_through_the_server_and_the_site(
    kb: Path, browser: object, tmp_path: Path
) -> None:
    root = copy_kb(kb, tmp_path / "kb")
    written = run_cli("-w", str(root), "digest")
    assert written.code == 0, written.out + written.err
    (digest,) = (root / "kb" / "digests").glob("*.md")
    reader = Reader(browser)
    page = reader.page
    with serving(root) as base:
        page.goto(base + "/")
        page.get_by_role("link", name="Digest", exact=True).click()
        assert reader.text("h1") == "What changed"
        assert page.locator("table.digests a.digest").count() == 1
        shown = reader.text("section.digest")
        assert HOSTILE_TITLE in shown and "<u>disagree</u>" in shown  # as text, not markup
        assert page.locator("main script, main img, main b, main u").count() == 0
        reader.shot("16-digests")
        for href in _links(page):
            assert page.request.get(href).status == 200, href
        page.locator("a.digest").first.click()
        assert reader.text("h1") == f"What changed: {digest.stem}"
        reader.shot("17-digest")
        page.get_by_role("link", name=VLLM_TITLE).first.click()
        assert reader.text("h1") == VLLM_TITLE
    out = tmp_path / "site"
    assert run_cli("-w", str(root), "site", str(out)).code == 0
    page.goto((out / "digest.html").as_uri())
    assert HOSTILE_TITLE in reader.text("section.digest")
    assert page.locator("main script, main img, main b, main u").count() == 0
    for href in _links(page):
        assert Path(unquote(urlsplit(href).path)).is_file(), href
    page.locator("a.digest").first.click()
    assert reader.text("h1") == f"What changed: {digest.stem}"
    page.get_by_role("link", name=VLLM_TITLE).first.click()
    assert reader.text("h1") == VLLM_TITLE and page.url.startswith("file://")
    reader.shot("18-site-digest")
    assert reader.dialogs == [], "no script from the data ran"
    assert reader.errors == [], "no console errors (CSP violations included)"


def test_a_shared_server_logs_in_once_then_asks_and_edits(
    kb: Path, browser: object, tmp_path: Path
) -> None:
    """A public server in a real browser: the login form, its cookie, then forms that pass the
    origin checks as Chromium sends them (no referrer: `Origin: null`, `Sec-Fetch-Site`)."""
    root = copy_kb(kb, tmp_path / "kb")
    token_file = tmp_path / "token"
    token_file.write_text("a-token-for-the-browser-test\n")
    flags = ["--public", "--token-file", str(token_file), "--allow-edits"]
    reader = Reader(browser)
    page = reader.page
    with (
        FakeOpenAI([Reply(content=ANSWER)]) as model,
        serving(root, *flags, env=model_env(model)) as base,
    ):
        page.goto(base + "/topic/serving/frontier")
        assert reader.text("h1") == "Log in" and "Efficient Memory" not in page.content()
        reader.shot("16-login")
        page.fill("input[name=token]", "a-token-for-the-browser-test")
        page.get_by_role("button", name="Log in").click()
        assert page.url == base + "/topic/serving/frontier"
        page.get_by_role("button", name="Accept").first.click()
        assert page.url == base + "/topic/serving/frontier" and "shared server" in reader.text(
            "footer"
        )
        page.get_by_role("link", name="Ask", exact=True).click()
        page.fill("input[name=q]", "How does vLLM manage KV cache memory with paged attention?")
        page.get_by_role("button", name="Ask").click()
        page.wait_for_selector("#answer")
        assert SAID in reader.text("#answer p.answer")
        reader.shot("17-shared-ask")
    # the one error is the browser noting the 401 that carried the login form
    assert [error for error in reader.errors if "status of 401" not in error] == []
    assert reader.dialogs == []
    status = db(root).execute("SELECT status FROM gaps WHERE text = ?", (PROPOSED_GAP,))
    assert status.fetchone()[0] == "open"
