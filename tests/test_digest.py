"""Digests end to end: two `frontier update` runs against the replayed arXiv API with new records
between them (PDFs served by the replay server, curation against the stand-in remote model): what
each digest lists, a digest with nothing new, and the Atom feeds read by feedparser from the
vault, the static site and the server."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import feedparser
import pytest
from arxiv_replay import ArxivReplayServer, arxiv_feed
from fake_openai import FakeOpenAI
from faults.pipeline import model_env
from faults.schema_model import answer
from helpers import CliResult, corpus, db, run_cli
from typer.testing import CliRunner
from web_kb import serving

from frontier.cli import app
from frontier.render.common import safe_name
from frontier.sources.arxiv_api import build_search_query, topic_query
from frontier.workspace import open_workspace

pytestmark = pytest.mark.slow

PAGE_SIZE = 50
# sample records and the PDFs the replay server serves for them
FIRST = {"2401.09670v2": "distserve.pdf", "2312.17238v1": "moe-offloading-fast-inference.pdf"}
SECOND = {"2304.04487v1": "llma-inference-with-reference.pdf"}
_SOURCE_LINK = re.compile(r"\]\(\.\./sources/([^)]+)\.md\)")


def sample_records(versions: dict[str, str], days_ago: int) -> list[dict[str, object]]:
    """The packaged sample's records of these ids, dated `days_ago` days back (in the window)."""
    text = resources.files("frontier.data").joinpath("sample_papers.jsonl").read_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    date = (dt.date.today() - dt.timedelta(days=days_ago)).isoformat()
    return [r | {"date": date} for r in records if r.get("id") in versions]


def answer_discovery(server: ArxivReplayServer, root: Path, records: list[dict[str, object]]):
    """Every topic's discovery query answered: the serving topic with `records`, others empty."""
    settings = open_workspace(root).settings
    for topic in settings.topics:
        query = topic_query(topic, dt.date.today(), None, settings.arxiv.max_results)
        body = arxiv_feed(records if topic.slug == "serving" else [])
        server.add_response(
            body, search_query=build_search_query(query), start=0, max_results=PAGE_SIZE
        )


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> CliResult:
    """A command run in this process (the updates run as real processes)."""
    result = CliRunner().invoke(app, ["-w", str(root), *args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(result.exit_code, result.stdout, result.stderr)


def bare_id(version: str) -> str:
    return version.rsplit("v", 1)[0]


@dataclass
class Updated:
    root: Path
    env: dict[str, str]
    first: CliResult
    second: CliResult
    again: CliResult
    files_before_again: dict[str, bytes]
    today: str

    @property
    def kb(self) -> Path:
        return self.root / "kb"

    def digest_file(self, name: str) -> str:
        return (self.kb / "digests" / f"{name}.md").read_text()


def digest_files(kb: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((kb / "digests").glob("*.md"))} | {
        "feed.xml": (kb / "feed.xml").read_bytes()
    }


@pytest.fixture(scope="module")
def updated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Updated]:
    root = tmp_path_factory.mktemp("digest") / "kb"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    server = ArxivReplayServer().start()
    try:
        for version, pdf in {**FIRST, **SECOND}.items():
            server.add_pdf(version, corpus("pdfs", pdf))
        with FakeOpenAI(answer) as model:
            env = model_env(model.url) | {
                "FRONTIER_ARXIV__API_URL": server.api_url,
                "FRONTIER_ARXIV__PDF_URL_TEMPLATE": server.pdf_url_template,
                "FRONTIER_ARXIV__DELAY_SECONDS": "0",
                "FRONTIER_ARXIV__PAGE_SIZE": str(PAGE_SIZE),
                "FRONTIER_LLM__PRICE_PROMPT_PER_M": "2.0",
                "FRONTIER_LLM__PRICE_COMPLETION_PER_M": "6.0",
            }
            answer_discovery(server, root, sample_records(FIRST, days_ago=9))
            first = run_cli("-w", str(root), "update", env=env)
            assert first.code == 0, first.out + first.err
            # the next day's query: the same records again, and a new one
            news = sample_records(FIRST, days_ago=9) + sample_records(SECOND, days_ago=2)
            answer_discovery(server, root, news)
            second = run_cli("-w", str(root), "update", env=env)
            assert second.code == 0, second.out + second.err
            assert server.unmatched == [], "every discovery query was answered"
            before = digest_files(root / "kb")
            again = cli(root, "digest", env=env)
            yield Updated(root, env, first, second, again, before, _utc_today())
    finally:
        server.stop()


def _utc_today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def digest_block(out: str) -> list[str]:
    """The lines `update` prints about its digest: the path, then the summary."""
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("digest: "))
    return lines[start:]


def test_each_update_prints_the_path_of_its_digest_and_five_lines(updated: Updated) -> None:
    for result, name in ((updated.first, updated.today), (updated.second, f"{updated.today}-2")):
        path, *summary = digest_block(result.out)
        assert path == f"digest: {updated.kb / 'digests' / name}.md"
        assert len(summary) == 5 and all(line.startswith("  ") for line in summary)
    _, papers, *_ = digest_block(updated.second.out)
    assert papers.strip().startswith("1 new paper: 1 in topics")
    cost = digest_block(updated.second.out)[-1]
    assert "Model: " in cost and "$" in cost  # priced, from the usage ledger


def _paper_ids(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT id FROM papers")}


def test_the_second_digest_lists_exactly_the_new_papers(updated: Updated) -> None:
    first_ids = {bare_id(v) for v in FIRST}
    new_ids = {bare_id(v) for v in SECOND}
    assert _paper_ids(db(updated.root)) == first_ids | new_ids
    first = updated.digest_file(updated.today)
    second = updated.digest_file(f"{updated.today}-2")
    assert set(_SOURCE_LINK.findall(first)) == {safe_name(i) for i in first_ids}
    assert set(_SOURCE_LINK.findall(second)) == {safe_name(i) for i in new_ids}
    conn = db(updated.root)
    for paper_id in first_ids:
        title = conn.execute("SELECT title FROM papers WHERE id = ?", (paper_id,)).fetchone()[0]
        assert paper_id not in second and title not in second
    for name in (updated.today, f"{updated.today}-2"):
        for target in re.findall(r"\]\(([^)]+)\)", updated.digest_file(name)):
            assert (updated.kb / "digests" / target).resolve().is_file(), target


def _stored_relations(conn: sqlite3.Connection, papers: set[str]) -> set[tuple[str, ...]]:
    rows = conn.execute("SELECT paper_id, topic, kind, target FROM relations")
    return {tuple(row) for row in rows if row[0] in papers}


def _listed_relations(data: dict) -> set[tuple[str, ...]]:
    found = {
        (r["paper_id"], r["topic"], r["kind"], r["target"])
        for topic in data["topics"]
        for entry in topic["entries"]
        for r in entry["relations"]
    }
    found |= {(r["paper_id"], r["topic"], r["kind"], r["target"]) for r in data["other_relations"]}
    for news in data["gaps"] + data["conflicts"]:
        found |= {(r["paper_id"], r["topic"], r["kind"], r["target"]) for r in news["relations"]}
    return found


def test_the_last_update_lists_the_relations_its_papers_created(updated: Updated) -> None:
    result = cli(updated.root, "digest", "--runs", "1", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert isinstance(data, dict) and data["path"] is None  # a view: nothing written
    new_ids = {bare_id(v) for v in SECOND}
    listed = {e["paper_id"] for t in data["topics"] for e in t["entries"]}
    assert listed == new_ids and data["outside"] == [] and data["not_curated"] == []
    stored = _stored_relations(db(updated.root), new_ids)
    assert stored, "the new paper relates to the KB (entities, firsts, coverage)"
    assert _listed_relations(data) == stored
    entry = data["topics"][0]["entries"][0]
    row = db(updated.root).execute(
        "SELECT text FROM entries WHERE paper_id = ? AND topic = ?",
        (entry["paper_id"], entry["topic"]),
    )
    assert entry["entry"] == row.fetchone()[0]  # the entry as stored, not re-phrased
    both = cli(updated.root, "digest", "--runs", "2", "--json")
    papers = {e["paper_id"] for t in both.json()["topics"] for e in t["entries"]}  # type: ignore[index]
    assert papers == {bare_id(v) for v in {**FIRST, **SECOND}}


def test_a_digest_with_nothing_new_says_so_and_writes_nothing(updated: Updated) -> None:
    assert updated.again.code == 0, updated.again.err
    assert updated.again.out.strip() == (f"Nothing new since the last digest ({updated.today}-2).")
    assert digest_files(updated.kb) == updated.files_before_again
    rendered = cli(updated.root, "render", "--json", env=updated.env)  # the same prices
    assert rendered.code == 0 and rendered.json()["written"] == 0  # type: ignore[index]
    assert digest_files(updated.kb) == updated.files_before_again
    rows = db(updated.root).execute("SELECT name FROM digests ORDER BY id").fetchall()
    assert [r[0] for r in rows] == [updated.today, f"{updated.today}-2"]


def _content_links(entry: feedparser.FeedParserDict) -> list[str]:
    return re.findall(r'href="([^"]+)"', entry.content[0].value)


def test_the_vault_feed_parses_with_an_entry_per_digest(updated: Updated) -> None:
    feed = feedparser.parse(str(updated.kb / "feed.xml"))
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    names = [f"{updated.today}-2", updated.today]
    assert [e.title.split(":", 1)[0] for e in feed.entries] == names
    ids = [e.id for e in feed.entries]
    assert len(set(ids)) == 2 and all(i.startswith("urn:uuid:") for i in ids)
    assert all(e.updated_parsed and e.published_parsed for e in feed.entries)
    base = (updated.kb / "feed.xml").as_uri()
    for entry, name in zip(feed.entries, names, strict=True):
        assert entry.link == f"digests/{name}.md"
        for href in [entry.link, *_content_links(entry)]:
            assert Path(urlsplit(urljoin(base, href)).path).is_file(), href
    # ids and times stay put when the feed is written again
    assert cli(updated.root, "render", env=updated.env).code == 0
    again = feedparser.parse(str(updated.kb / "feed.xml"))
    assert [(e.id, e.updated) for e in again.entries] == [(e.id, e.updated) for e in feed.entries]


def test_the_site_feed_links_resolve_relative_or_under_the_base_url(
    updated: Updated, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert cli(updated.root, "site", str(out)).code == 0
    feed = feedparser.parse(str(out / "feed.xml"))
    assert not feed.bozo and len(feed.entries) == 2
    vault_ids = [e.id for e in feedparser.parse(str(updated.kb / "feed.xml")).entries]
    assert [e.id for e in feed.entries] == vault_ids  # one id per digest, wherever it is read
    for entry in feed.entries:
        for href in [entry.link, *_content_links(entry)]:
            assert (out / href).is_file(), href
    base = "https://example.org/kb/"
    assert cli(updated.root, "site", str(out), env={"FRONTIER_SITE__BASE_URL": base}).code == 0
    published = feedparser.parse(str(out / "feed.xml"))
    for entry in published.entries:
        for href in [entry.link, *_content_links(entry)]:
            assert href.startswith(base) and (out / href.removeprefix(base)).is_file(), href


def test_the_served_feed_links_to_pages_that_answer(updated: Updated) -> None:
    with serving(updated.root, env=updated.env) as base:
        feed = feedparser.parse(f"{base}/feed.xml")
        assert not feed.bozo and feed.status == 200 and len(feed.entries) == 2
        links = {e.link for e in feed.entries} | {
            h for e in feed.entries for h in _content_links(e)
        }
        assert {f"{base}/digest/{updated.today}", f"{base}/digest/{updated.today}-2"} <= links
        for href in sorted(links):
            assert href.startswith(base + "/")
            with urllib.request.urlopen(href) as response:
                assert response.status == 200, href


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh workspace, made in this process."""
    root = tmp_path / "kb"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    return root


def _digest_json(root: Path, *args: str) -> dict:
    result = cli(root, "digest", *args, "--json")
    assert result.code == 0, result.out + result.err
    data = result.json()
    assert isinstance(data, dict)
    return data


def test_digests_report_gap_and_conflict_moves_and_refused_inputs(workspace: Path) -> None:
    assert cli(workspace, "digest").out.strip() == "Nothing new since digests began."
    folder = workspace.parent / "in"
    folder.mkdir()
    for name in ("zero_byte.pdf", "font_without_unicode_mapping_ocrmypdf.pdf"):
        (folder / name).write_bytes(corpus("bad_pdfs", name).read_bytes())
    assert cli(workspace, "ingest", str(folder)).code == 2
    assert cli(workspace, "gaps", "add", "serving", "KV cache <b>tiering</b>").code == 0
    conflict = "reported speed-ups disagree"
    assert cli(workspace, "conflicts", "add", "serving", conflict).code == 0

    first = _digest_json(workspace)
    assert first["path"] and Path(first["path"]).is_file()
    assert [(g["text"], g["change"]) for g in first["gaps"]] == [
        ("KV cache <b>tiering</b>", "opened")
    ]
    assert [(c["text"], c["change"]) for c in first["conflicts"]] == [(conflict, "flagged")]
    inputs = {(Path(i["item"]).name, i["outcome"]) for i in first["inputs"]}
    assert inputs == {
        ("zero_byte.pdf", "rejected"),
        ("font_without_unicode_mapping_ocrmypdf.pdf", "warning"),
    }
    assert len(first["not_curated"]) == 1  # stored with a warning, not triaged yet
    page = Path(first["path"]).read_text()
    assert "KV cache \\<b\\>tiering\\</b\\>" in page and "zero\\_byte.pdf — rejected" in page

    assert cli(workspace, "gaps", "close", str(first["gaps"][0]["id"])).code == 0
    assert cli(workspace, "conflicts", "close", "1").code == 0
    second = _digest_json(workspace)
    assert Path(second["path"]).name.endswith("-2.md")
    assert [g["change"] for g in second["gaps"]] == ["closed"]
    assert [c["change"] for c in second["conflicts"]] == ["settled"]
    assert second["inputs"] == [] and second["not_curated"] == []


def test_digest_options_are_checked(workspace: Path) -> None:
    both = cli(workspace, "digest", "--since", "2026-01-01", "--runs", "1")
    assert both.code == 2 and "give one of them" in both.err
    assert cli(workspace, "digest", "--since", "yesterday").code == 2
    unknown = cli(workspace, "digest", "--topic", "kernels")
    assert unknown.code == 1 and "no topic 'kernels'" in unknown.err
    no_update = cli(workspace, "digest", "--runs", "1")
    assert no_update.code == 1 and "no run recorded" in no_update.err
    assert "Traceback" not in both.err + unknown.err + no_update.err


def test_a_kb_from_before_digests_starts_them_after_what_it_held(workspace: Path) -> None:
    pdf = corpus("bad_pdfs", "font_without_unicode_mapping_ocrmypdf.pdf")
    assert cli(workspace, "add", str(pdf)).code == 0
    conn = db(workspace)
    with conn:  # the schema as it was before the digests' migration, the rows kept
        names = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'kb_log_%'"
        for (name,) in conn.execute(names).fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        for table in ("kb_log", "digests", "digest_state"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("DELETE FROM schema_migrations WHERE name = 'm009_digests'")
    conn.close()
    assert cli(workspace, "digest").out.strip() == "Nothing new since digests began."
    held = _digest_json(workspace, "--since", "2000-01-01")
    assert len(held["not_curated"]) == 1 and [i["outcome"] for i in held["inputs"]] == ["warning"]
    assert cli(workspace, "gaps", "add", "serving", "a new question").code == 0
    after = _digest_json(workspace)
    assert [g["text"] for g in after["gaps"]] == ["a new question"] and after["not_curated"] == []
