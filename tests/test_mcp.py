"""`frontier mcp` for real: started as a subprocess and driven with the MCP SDK's own client over
stdio, on a KB of three shared PDFs. Every id, page and quote a tool returns is checked against
the store; a bad argument is a tool error, not a crash; nothing the server started outlives it,
whether the client goes or the server is SIGKILLed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import MARK, REPO, copy_of, corpus, db, ingest_pdfs, marked_processes, started
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult
from web_kb import free_port

from frontier.mcp_server.server import TOOLS, offered
from frontier.store.curation import (
    save_claims,
    save_entry,
    save_relations,
    save_triage,
    sync_config,
)
from frontier.store.db import connect, now, transaction
from frontier.store.runs import finish_run, start_run
from frontier.synthesize.citations import cited_numbers
from frontier.workspace import open_workspace

VLLM, DISTSERVE, AWQ = "2309.06180", "2401.09670", "2306.00978"
PDFS = ["vllm-pagedattention.pdf", "distserve.pdf", "awq.pdf"]
# sentences of the papers' first pages, each with the number it states
VLLM_QUOTE = "throughput of popular LLMs by 2-4× with the same level"
AWQ_QUOTE = "achieving a 1.45× speedup over GPTQ"
DISTSERVE_QUOTE = "DistServe can serve 4.48× more"
GAP_EVIDENCE = "throughput of popular LLMs by 2-4× with the same level"
PROPOSED_GAP = "paging overhead on very long prompts"
ANSWER = (
    "vLLM stores the KV cache in fixed-size blocks [1], so memory is not reserved ahead [42]. "
    "It serves 913.7 times more requests than any system."
)
QUESTION = "How does vLLM manage KV cache memory with paged attention?"
WAIT_S = 30
README = (REPO / "README.md").read_text()


def claim(metric: str, value: float, text: str, quote: str, **fields: Any) -> SimpleNamespace:
    """A claim row as curation stores it; verified and on page 1 unless told otherwise."""
    row = {
        "unit": "×", "direction": "higher", "baseline": "", "model_name": "", "hardware": "",
        "condition": "", "page": 1, "verified": True, "verify_note": "", "model": "code",
        "prompt_version": "claim@1", "headline": False, "setup_page": None, "setup_fields": "",
        "section": "",
    }  # fmt: skip
    row.update(fields)
    return SimpleNamespace(metric=metric, value=value, value_text=text, quote=quote, **row)


def relation(kind: str, target: str, evidence: str, page: int | None) -> SimpleNamespace:
    return SimpleNamespace(
        kind=kind, target=target, detail="", evidence=evidence, stage="code", page=page, how=""
    )


CLAIMS = {
    VLLM: [
        claim("throughput", 4.0, "2-4×", VLLM_QUOTE, baseline="FasterTransformer and Orca",
              headline=True),
        claim("time to first token", 35.0, "35", "cuts time to first token to 35 ms",
              unit="ms", verified=False, verify_note="quote not found on page 9", page=9),
    ],
    AWQ: [claim("speedup", 1.45, "1.45×", AWQ_QUOTE, baseline="GPTQ", headline=True)],
    DISTSERVE: [claim("requests served", 4.48, "4.48×", DISTSERVE_QUOTE, hardware="A100")],
}  # fmt: skip


def seed_curation(root: Path) -> None:
    """Curation written through the store's own functions, no model run: every paper in the
    serving topic with an entry, the claims above, vLLM related to the first configured gap,
    and a gap proposed by a research map."""
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        sync_config(conn, ws.settings)
        gap = conn.execute("SELECT id FROM gaps WHERE topic = 'serving' ORDER BY id").fetchone()[0]
        run_id = start_run(conn, "curate")
        for paper_id, claims in CLAIMS.items():
            triage = {"topic": "serving", "stage": "embedding", "reason": "close to the scope"}
            save_triage(conn, paper_id, [triage | {"scope_line": "", "score": 0.5}], "h", run_id)
            save_claims(conn, paper_id, claims, "h", run_id)
            entry = f"What {paper_id} does for serving, in one sentence."
            save_entry(conn, paper_id, "serving", entry, "code", "entry@1", run_id, "h")
        related = [relation("gap", str(gap), GAP_EVIDENCE, 1)]
        save_relations(conn, VLLM, {"serving": related}, "h")
        finish_run(conn, run_id, "ok", {})
        with transaction(conn):
            conn.execute(
                "INSERT INTO gaps (topic, text, status, source, created_at) "
                "VALUES ('serving', ?, 'proposed', 'map', ?)",
                (PROPOSED_GAP, now()),
            )


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = ingest_pdfs(tmp_path_factory.mktemp("mcp") / "kb", PDFS)
    seed_curation(root)
    return root


def server_env(mark: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment (the code under test comes first on its path), marked so that
    every process the server starts can be found."""
    return {**os.environ, "NO_COLOR": "1", MARK: mark, **(extra or {})}


@contextlib.asynccontextmanager
async def connected(
    root: Path, mark: str, *flags: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """`frontier mcp` started by the SDK's stdio client, initialized."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "frontier", "-w", str(root), "mcp", *flags],
        env=server_env(mark, env),
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            assert init.server_info.name == "frontier"
            yield session


def run_session(
    root: Path, work: Callable[[ClientSession], Awaitable[Any]], *flags: str, **env: str
) -> Any:
    """Run `work` in a session with a fresh server; afterwards nothing it started is left."""
    mark = uuid.uuid4().hex

    async def main() -> Any:
        async with connected(root, mark, *flags, env=env) as session:
            return await work(session)

    try:
        return anyio.run(main)
    finally:
        assert wait_until_gone(mark) == {}, "a process of the server outlived its client"


def wait_until_gone(mark: str) -> dict[int, int]:
    deadline = time.monotonic() + WAIT_S
    while (left := marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error and result.structured_content is None
    return " ".join(getattr(block, "text", "") for block in result.content)


def flat(text: str) -> str:
    return " ".join(text.split())


def on_page(conn: sqlite3.Connection, paper_id: str, page: int, sentence: str) -> bool:
    row = conn.execute(
        "SELECT text FROM pages WHERE paper_id = ? AND page = ?", (paper_id, page)
    ).fetchone()
    return row is not None and flat(sentence) in flat(row[0])


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "search": ("search", {"query": "paged attention KV cache blocks", "limit": 3}),
    "search_topic": ("search", {"query": "weight quantization", "topic": "serving"}),
    "search_other_topic": ("search", {"query": "weight quantization", "topic": "models"}),
    "show": ("show", {"paper_id": VLLM}),
    "show_page": ("show", {"paper_id": DISTSERVE, "page": 2}),
    "claims": ("claims", {}),
    "claims_paper": ("claims", {"paper_id": VLLM}),
    "claims_filtered": ("claims", {"baseline": "gptq", "metric": "speed"}),
    "claims_hardware": ("claims", {"hardware": "a100"}),
    "relations": ("relations", {}),
    "relations_paper": ("relations", {"paper_id": AWQ}),
    "gaps": ("gaps", {}),
    "gaps_topic": ("gaps", {"topic": "models"}),
    "digest": ("digest", {"since": "2000-01-01"}),
    "ask": ("ask", {"question": QUESTION}),
    "ask_off_field": ("ask", {"question": "Which rye flour hydration suits sourdough bread?"}),
    # bad arguments, each a tool error
    "bad_paper": ("show", {"paper_id": "2999.99999"}),
    "bad_page": ("show", {"paper_id": VLLM, "page": 999}),
    "bad_type": ("search", {"query": "kv cache", "limit": "many"}),
    "bad_limit": ("search", {"query": "kv cache", "limit": 0}),
    "missing": ("search", {}),
    "bad_topic": ("gaps", {"topic": "astrology"}),
    "bad_gap": ("relations", {"gap": 987}),
    "bad_date": ("digest", {"since": "last tuesday"}),
    "empty_question": ("ask", {"question": "   "}),
    "edit_refused": ("add", {"path_or_id": "2309.06180"}),
    "unknown_tool": ("horoscope", {}),
}
RESOURCES = {
    "topic": "frontier://topic/serving",
    "paper": f"frontier://paper/{VLLM}",
}
BAD_RESOURCES = ("frontier://paper/h:0000", "frontier://topic/astrology")


@pytest.fixture(scope="module")
def session_log(kb: Path) -> dict[str, Any]:
    """One read-only session over the KB: tools/list, every call of CALLS, every resource; the
    model is a scripted remote one."""

    async def work(session: ClientSession) -> dict[str, Any]:
        log: dict[str, Any] = {"tools": (await session.list_tools()).tools}
        for key, (name, arguments) in CALLS.items():
            log[key] = await session.call_tool(name, arguments)
        log["resources"] = (await session.list_resources()).resources
        log["templates"] = (await session.list_resource_templates()).resource_templates
        for key, uri in RESOURCES.items():
            log[f"read_{key}"] = (await session.read_resource(uri)).contents[0]
        for uri in BAD_RESOURCES:
            with pytest.raises(Exception, match=r"no (paper|topic)") as caught:
                await session.read_resource(uri)
            log[uri] = str(caught.value)
        log["alive"] = await session.send_ping()  # still there after every bad call
        return log

    with FakeOpenAI([Reply(content=ANSWER)]) as model:
        env = {"FRONTIER_LLM__BASE_URL": model.url, "FRONTIER_LLM__BACKEND": "vllm"}
        log = run_session(kb, work, **env)
        log["model_requests"] = len(model.requests)
    return log


def test_tools_list_holds_the_read_only_tools_with_their_schemas(
    session_log: dict[str, Any],
) -> None:
    tools = {tool.name: tool for tool in session_log["tools"]}
    assert list(tools) == [row.name for row in offered(allow_edits=False)]
    for tool in tools.values():
        assert tool.output_schema and tool.input_schema["type"] == "object"
        assert "Returns" in tool.description
        assert "Every number comes with the quote it was read from and its page" in tool.description
        assert tool.annotations and tool.annotations.read_only_hint
    assert tools["search"].input_schema["required"] == ["query"]
    assert "page" in tools["claims"].output_schema["$defs"]["Claim"]["properties"]


def test_search_hits_are_papers_and_pages_of_the_store(kb: Path, session_log: dict) -> None:
    conn = db(kb)
    hits = data(session_log["search"])["hits"]
    assert hits and hits[0]["paper_id"] == VLLM and len(hits) <= 3
    titles = dict(conn.execute("SELECT id, title FROM papers").fetchall())
    for hit in hits:
        assert hit["title"] == titles[hit["paper_id"]]
        n_pages = conn.execute("SELECT n_pages FROM papers WHERE id = ?", (hit["paper_id"],))
        assert 1 <= hit["page"] <= n_pages.fetchone()[0]
    assert AWQ in {h["paper_id"] for h in data(session_log["search_topic"])["hits"]}
    assert data(session_log["search_other_topic"])["hits"] == []  # no paper is in models


def test_show_gives_the_paper_and_the_page_text_as_stored(kb: Path, session_log: dict) -> None:
    conn = db(kb)
    paper = data(session_log["show"])
    row = conn.execute("SELECT * FROM papers WHERE id = ?", (VLLM,)).fetchone()
    assert (paper["title"], paper["n_pages"], paper["doi"]) == (
        row["title"],
        row["n_pages"],
        row["doi"],
    )
    stored = conn.execute("SELECT title FROM sections WHERE paper_id = ? ORDER BY ord", (VLLM,))
    assert [s["title"] for s in paper["sections"]] == [r[0] for r in stored]
    assert paper["page_text"] is None and paper["resource"] == f"frontier://paper/{VLLM}"
    page = data(session_log["show_page"])
    text = conn.execute("SELECT text FROM pages WHERE paper_id = ? AND page = 2", (DISTSERVE,))
    assert page["page"] == 2 and page["page_text"] == text.fetchone()[0]


def test_claims_are_the_verified_ones_with_their_quotes_and_pages(
    kb: Path, session_log: dict
) -> None:
    conn = db(kb)
    claims = data(session_log["claims"])["claims"]
    stored = conn.execute(
        "SELECT id, paper_id, metric, value, page, quote FROM claims WHERE verified = 1"
    ).fetchall()
    assert {
        (c["claim_id"], c["paper_id"], c["metric"], c["value"], c["page"], c["quote"])
        for c in claims
    } == {tuple(r) for r in stored}
    for c in claims:
        assert c["verified"] and on_page(conn, c["paper_id"], c["page"], c["quote"])
    assert [c["quote"] for c in data(session_log["claims_paper"])["claims"]] == [VLLM_QUOTE]
    assert [c["paper_id"] for c in data(session_log["claims_filtered"])["claims"]] == [AWQ]
    assert [c["paper_id"] for c in data(session_log["claims_hardware"])["claims"]] == [DISTSERVE]


def test_relations_and_gaps_name_their_evidence_and_papers(kb: Path, session_log: dict) -> None:
    conn = db(kb)
    gap_id, gap_text = conn.execute(
        "SELECT id, text FROM gaps WHERE topic = 'serving' ORDER BY id"
    ).fetchone()
    relations = data(session_log["relations"])["relations"]
    assert [(r["paper_id"], r["kind"], r["target"]) for r in relations] == [
        (VLLM, "gap", str(gap_id))
    ]
    (found,) = relations
    assert found["label"] == gap_text and found["page"] == 1
    assert on_page(conn, VLLM, found["page"], found["evidence"])
    assert data(session_log["relations_paper"])["relations"] == []
    gaps = data(session_log["gaps"])["gaps"]
    stored = conn.execute("SELECT id, topic, text, status FROM gaps").fetchall()
    assert {(g["gap_id"], g["topic"], g["text"], g["status"]) for g in gaps} >= {
        tuple(r) for r in stored
    }
    assert next(g for g in gaps if g["gap_id"] == gap_id)["papers"] == [VLLM]
    assert {g["status"] for g in gaps if g["text"] == PROPOSED_GAP} == {"proposed"}
    assert {g["topic"] for g in data(session_log["gaps_topic"])["gaps"]} <= {"models"}


def test_digest_lists_the_new_entries_with_their_headline_quotes(
    kb: Path, session_log: dict
) -> None:
    conn = db(kb)
    digest = data(session_log["digest"])
    assert {e["paper_id"] for e in digest["entries"]} == set(CLAIMS)
    for entry in digest["entries"]:
        for c in entry["headline_claims"]:
            row = conn.execute(
                "SELECT paper_id, page, quote FROM claims WHERE id = ?", (c["claim_id"],)
            )
            assert tuple(row.fetchone()) == (entry["paper_id"], c["page"], c["quote"])
    headline = {c["quote"] for e in digest["entries"] for c in e["headline_claims"]}
    assert headline == {VLLM_QUOTE, AWQ_QUOTE}
    assert digest["markdown"].startswith("# What changed since 2000-01-01")
    assert conn.execute("SELECT count(*) FROM digests").fetchone()[0] == 0  # nothing stored


def test_ask_gives_the_checked_answer_with_its_answering_sentences(
    kb: Path, session_log: dict
) -> None:
    conn = db(kb)
    answer = data(session_log["ask"])
    assert answer["supported"] and answer["removed_citations"] == [42]
    assert "[42]" not in answer["answer"] and "913.7" not in answer["answer"]
    assert any("913.7" in d["sentence"] for d in answer["dropped_sentences"])
    numbers = {s["n"]: s for s in answer["sources"]}
    assert set(cited_numbers(answer["answer"])) <= set(numbers)
    assert answer["answering_sentences"]
    for sentence in answer["answering_sentences"]:
        assert sentence["paper_id"] == numbers[sentence["n"]]["paper_id"]
        assert on_page(conn, sentence["paper_id"], sentence["page"], sentence["sentence"])
    row = conn.execute("SELECT answer, supported FROM asks WHERE id = ?", (answer["ask_id"],))
    assert tuple(row.fetchone()) == (answer["answer"], 1)
    off = data(session_log["ask_off_field"])
    assert not off["supported"] and off["sources"] == []
    assert session_log["model_requests"] == 1  # the off-field question asked no model


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("bad_paper", "no paper '2999.99999'"),
        ("bad_page", "has no page 999"),
        ("bad_type", "valid integer"),
        ("bad_limit", "greater than or equal to 1"),
        ("missing", "query"),
        ("bad_topic", "no topic 'astrology' (known topics: serving"),
        ("bad_gap", "no gap 987"),
        ("bad_date", "YYYY-MM-DD"),
        ("empty_question", "the question is empty"),
        ("edit_refused", "add"),
        ("unknown_tool", "horoscope"),
    ],
)
def test_a_bad_argument_is_a_tool_error(session_log: dict, key: str, says: str) -> None:
    assert says in error_text(session_log[key])


def test_resources_are_the_vault_pages_as_markdown(kb: Path, session_log: dict) -> None:
    listed = {str(r.uri) for r in session_log["resources"]}
    topics = {f"frontier://topic/{t.slug}" for t in open_workspace(kb).settings.topics}
    assert listed == topics
    assert {t.uri_template for t in session_log["templates"]} == {
        "frontier://topic/{slug}",
        "frontier://paper/{+paper_id}",
    }
    topic, paper = session_log["read_topic"], session_log["read_paper"]
    assert topic.mime_type == paper.mime_type == "text/markdown"
    assert topic.text.startswith("# Serving") and "Efficient Memory Management" in topic.text
    assert paper.text.startswith("# Efficient Memory Management")
    assert VLLM_QUOTE in paper.text  # the verified claim, quoted
    assert "p. 1" in paper.text or "page 1" in paper.text
    assert session_log["alive"] is not None


def test_edits_exist_only_when_allowed_and_change_the_store(kb: Path, tmp_path: Path) -> None:
    root = copy_of(kb, tmp_path)
    gptq = corpus("pdfs", "gptq.pdf")
    proposed = db(root).execute("SELECT id FROM gaps WHERE text = ?", (PROPOSED_GAP,)).fetchone()[0]

    async def work(session: ClientSession) -> dict[str, Any]:
        log: dict[str, Any] = {"tools": [t.name for t in (await session.list_tools()).tools]}
        log["add"] = await session.call_tool("add", {"path_or_id": str(gptq)})
        log["again"] = await session.call_tool("add", {"path_or_id": str(gptq)})
        log["nothing"] = await session.call_tool("add", {"path_or_id": "no such thing"})
        log["accept"] = await session.call_tool("accept_gap", {"gap_id": proposed})
        log["reject_open"] = await session.call_tool("reject_gap", {"gap_id": proposed})
        log["unknown_gap"] = await session.call_tool("accept_gap", {"gap_id": 4242})
        log["search"] = await session.call_tool("search", {"query": "GPTQ quantization"})
        return log

    log = run_session(root, work, "--allow-edits")
    assert log["tools"] == [row.name for row in TOOLS]
    (added,) = data(log["add"])["items"]
    assert added["outcome"] == "stored"
    conn = db(root)
    row = conn.execute("SELECT title, status FROM papers WHERE id = ?", (added["paper_id"],))
    assert row.fetchone()["status"] == "fulltext"
    assert [i["outcome"] for i in data(log["again"])["items"]] == ["duplicate"]
    assert [i["outcome"] for i in data(log["nothing"])["items"]] == ["rejected"]
    assert data(log["accept"]) == {
        "gap_id": proposed,
        "before": "proposed",
        "after": "open",
        "changed": True,
    }
    assert "only proposed gaps can be rejected" in error_text(log["reject_open"])
    assert "no gap 4242" in error_text(log["unknown_gap"])
    status = conn.execute("SELECT status FROM gaps WHERE id = ?", (proposed,)).fetchone()[0]
    assert status == "open"
    assert added["paper_id"] in {h["paper_id"] for h in data(log["search"])["hits"]}


def test_over_streamable_http_on_loopback(kb: Path) -> None:
    port = free_port()
    with started(["-w", str(kb), "mcp", "--http", str(port)]) as (proc, mark):
        deadline = time.monotonic() + WAIT_S
        while not listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, "mcp --http did not start"
            time.sleep(0.1)

        async def work() -> tuple[list[str], dict[str, Any]]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                return names, data(await client.call_tool("claims", {"paper_id": AWQ}))

        names, claims = anyio.run(work)
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        code = proc.wait(timeout=WAIT_S)
    assert code == 130, "Ctrl-C ends it as it ends every command"
    assert names == [row.name for row in offered(allow_edits=False)]
    assert [c["quote"] for c in claims["claims"]] == [AWQ_QUOTE]
    assert marked_processes(mark) == {}


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
        return True
    return False


def test_the_readme_lists_every_tool_and_resource() -> None:
    section = README.split("\n## Use from an agent\n", 1)[1].split("\n## ", 1)[0]
    for row in TOOLS:
        assert re.search(rf"^\| `{row.name}\(", section, flags=re.MULTILINE), row.name
    assert "frontier://topic/" in section and "frontier://paper/" in section
    for block in re.findall(r"```json\n(.*?)```", section, flags=re.DOTALL):
        assert json.loads(block)  # the configuration snippets are valid JSON
    assert "| `frontier mcp` |" in README


@pytest.mark.slow
def test_ask_on_the_embedded_model_then_sigkill_leaves_no_model_server(
    kb: Path, tmp_path: Path
) -> None:
    root = copy_of(kb, tmp_path)
    mark = uuid.uuid4().hex
    conn = db(root)

    seen: dict[str, Any] = {}

    async def main() -> None:
        with contextlib.suppress(Exception):  # the server dies under the client on purpose
            async with connected(root, mark) as session:
                seen["answer"] = data(await session.call_tool("ask", {"question": QUESTION}))
                seen["started"] = {pid: cmdline(pid) for pid in marked_processes(mark)}
                (server,) = [p for p, line in seen["started"].items() if " mcp" in line]
                os.kill(server, signal.SIGKILL)

    anyio.run(main)
    assert "started" in seen, "the session ended before the answer"
    assert any("llama-server" in line for line in seen["started"].values()), seen["started"]
    assert wait_until_gone(mark) == {}, "the embedded model server outlived the killed server"
    answer = seen["answer"]
    assert answer["supported"] and answer["model"]
    numbers = {s["n"]: s for s in answer["sources"]}
    assert set(cited_numbers(answer["answer"])) <= set(numbers)
    assert answer["answering_sentences"]
    for sentence in answer["answering_sentences"]:
        assert on_page(conn, sentence["paper_id"], sentence["page"], sentence["sentence"])
    stored = conn.execute("SELECT answer FROM asks WHERE id = ?", (answer["ask_id"],)).fetchone()
    assert stored[0] == answer["answer"]


def cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""
